// A labelled question set for the search and judge evaluations (evals/search/*.json,
// evals/judge/*.json): a plain array of cases, or `{ about, cases }` when the set says who wrote it
// and how it may be used (a held-out set says it was kept out of tuning). Read here, in one place,
// so the scripts and the quality tests agree on the shape.

export interface EvalSet<Case> {
  /** Who wrote the set, from what, and whether it was tuned on. */
  about?: string;
  cases: Case[];
}

export type EvalSetRead<Case> = { ok: true; set: EvalSet<Case> } | { ok: false; error: { kind: "bad_set"; message: string } };

/** What makes one case of a set unusable for a scorer, in words, or null (`readEvalSet` names the case). */
export type CaseCheck = (c: Record<string, unknown>) => string | null;

/**
 * The set in `json` (already parsed): an array of cases with a `question` each, or `{ about?, cases }`.
 * Every case's `id`, `kind`, `corpus` and `relevant`, when given, must have their shape, ids must
 * differ, and `check` (the scorer's own needs) must find nothing: a case a scorer would misread
 * (an unknown kind in a group of its own, no `answerable` counted as unanswerable) is refused.
 */
export function readEvalSet<Case extends { question: string }>(json: unknown, name: string, check?: CaseCheck): EvalSetRead<Case> {
  const bad = (why: string): EvalSetRead<Case> => ({ ok: false, error: { kind: "bad_set", message: `${name}: ${why}` } });
  let about: string | undefined;
  let cases: unknown = json;
  if (json !== null && typeof json === "object" && !Array.isArray(json)) {
    const { about: a, cases: c } = json as { about?: unknown; cases?: unknown };
    if (a !== undefined && typeof a !== "string") return bad("`about` should be a sentence (a string)");
    about = a;
    cases = c;
  }
  if (!Array.isArray(cases)) return bad("expected an array of cases, or an object with `about` and a `cases` array");
  const unnamed = cases.findIndex((c) => c === null || typeof c !== "object" || typeof (c as { question?: unknown }).question !== "string");
  if (unnamed !== -1) return bad(`case ${unnamed + 1} has no \`question\``);
  const ids = new Set<string>();
  for (const [i, c] of (cases as Record<string, unknown>[]).entries()) {
    const problem = shapeProblem(c, ids) ?? check?.(c) ?? null;
    if (problem !== null) return bad(`case ${i + 1}${typeof c.id === "string" ? ` ("${c.id}")` : ""}: ${problem}`);
  }
  return { ok: true, set: { ...(about !== undefined ? { about } : {}), cases: cases as Case[] } };
}

/** The kinds a question of the search and judge sets can be (closed; older sets leave it out). */
export const QUESTION_KINDS = ["keyword", "paraphrase", "title", "multi_note", "hard_negative", "out_of_domain"] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

/** The fields every scorer reads, when a case gives them; `ids` collects the ids seen so far. */
function shapeProblem(c: Record<string, unknown>, ids: Set<string>): string | null {
  if (c.id !== undefined) {
    if (typeof c.id !== "string" || c.id === "") return "`id` should be a name (a string)";
    if (ids.has(c.id)) return "the same `id` is used by an earlier case";
    ids.add(c.id);
  }
  if (c.kind !== undefined && !(QUESTION_KINDS as readonly unknown[]).includes(c.kind)) return `\`kind\` should be one of ${QUESTION_KINDS.join(", ")} (got ${JSON.stringify(c.kind)})`;
  if (c.corpus !== undefined && c.corpus !== null && typeof c.corpus !== "string") return "`corpus` should be a folder's name (a string) or null";
  if (c.relevant !== undefined && !(Array.isArray(c.relevant) && c.relevant.every((p) => typeof p === "string" && p !== ""))) return "`relevant` should be a list of vault paths";
  return null;
}

/** Each path in a case's `relevant` that `has` does not know (the vault has no such note), with the case it is in. */
export function relevantNotInVault(cases: readonly { question: string; id?: string; relevant?: readonly string[] }[], has: (path: string) => boolean): { case: string; path: string }[] {
  return cases.flatMap((c, i) => (c.relevant ?? []).filter((p) => !has(p)).map((path) => ({ case: `case ${i + 1}${c.id ? ` ("${c.id}")` : ""}`, path })));
}

/**
 * Split by vault, not by question: the corpora of ../shared/corpora fall into two halves. Fold A
 * tunes on the first half and reports on the second; fold B the other way round. A figure "on the
 * report half" was never looked at while choosing a method or a number for that fold.
 */
export const VAULT_FOLDS = [
  { name: "A", tune: ["tldr-pages-en", "obsidian-tasks-docs", "foam-docs"], report: ["dendron-site", "silverbullet-docs", "logseq-docs", "kepano-obsidian"] },
  { name: "B", tune: ["dendron-site", "silverbullet-docs", "logseq-docs", "kepano-obsidian"], report: ["tldr-pages-en", "obsidian-tasks-docs", "foam-docs"] },
] as const;

/** Figures of a subset of cases, under a name: "kind:paraphrase", "corpus:foam-docs", "fold A report". */
export function groupCases<Outcome extends { corpus?: string; kind?: string }>(outcomes: Outcome[]): Map<string, Outcome[]> {
  const groups = new Map<string, Outcome[]>();
  const add = (name: string, o: Outcome) => {
    const list = groups.get(name);
    if (list) list.push(o);
    else groups.set(name, [o]);
  };
  for (const o of outcomes) {
    add(`kind:${o.kind ?? "unlabelled"}`, o);
    if (o.corpus) add(`corpus:${o.corpus}`, o);
    for (const fold of VAULT_FOLDS) {
      if (!o.corpus) continue;
      if ((fold.tune as readonly string[]).includes(o.corpus)) add(`fold ${fold.name} tune`, o);
      if ((fold.report as readonly string[]).includes(o.corpus)) add(`fold ${fold.name} report`, o);
    }
  }
  return new Map([...groups].sort(([a], [b]) => a.localeCompare(b)));
}
