// The answer when no model is configured (the default): an "evidence brief" that quotes the most
// relevant sentences of the best rows, each cited with its key. It is headed as extractive so it
// is never mistaken for a model's answer, keeps vault and outside-vault sentences apart, and says
// plainly when there is nothing. Its citations pass verifyCitations like any model answer's.
import { citationFor, type Citation, type EvidenceRow, type ResearchPack } from "../../evidence/research-pack";
import { outsideVaultLabel } from "../../evidence/labels";
import { escapeMarkdownText } from "../../notes/markdown-escape";
import { cutText } from "../../text/cut-text";
import { oneLine } from "../../text/one-line";
import { CJK_CHAR } from "../../text/scripts";
import { countWords } from "../../text/word-count";
import { pairShare } from "./judge-coverage";
import { NUMBERED_SOURCE } from "./verify-citations";

export interface EvidenceBriefOptions {
  /** Only rows with these keys may be quoted (e.g. what the synthesis prompt admitted); default: every row. */
  admitted?: ReadonlyMap<string, Citation>;
  /** Sentences from vault notes (default 5) and from outside the vault (default 3). */
  maxVaultSentences?: number;
  maxOutsideSentences?: number;
  /** Sentences are taken from the best this-many rows of each kind (default 3), at most 2 per row. */
  rowsPerKind?: number;
  /** Longer sentences are cut (default 280 characters). */
  maxSentenceChars?: number;
}

export interface EvidenceBrief {
  /** Markdown text of the brief. */
  text: string;
  /** The rows it quotes, in order. */
  citations: Citation[];
  /** The rows it could have quoted: verify the brief against these. */
  admitted: Map<string, Citation>;
}

export const EVIDENCE_BRIEF_HEADING = "Evidence brief (extractive, no model)";

const SENTENCES_PER_ROW = 2;

interface Candidate {
  row: EvidenceRow;
  rowIndex: number;
  position: number;
  text: string;
  score: number;
  /** Other rows that say this very sentence (copies of a note): cited on its line, not quoted again. */
  alsoIn: EvidenceRow[];
}

export function writeEvidenceBrief(pack: ResearchPack, options: EvidenceBriefOptions = {}): EvidenceBrief {
  const allowed = (row: EvidenceRow) => !options.admitted || options.admitted.has(row.source_key);
  const vaultRows = pack.evidence.filter(allowed);
  const outsideRows = pack.external_evidence.filter(allowed);
  const admitted = new Map<string, Citation>();
  for (const row of [...vaultRows, ...outsideRows]) admitted.set(row.source_key, citationFor(row));

  const lines = [`**${EVIDENCE_BRIEF_HEADING}**`];
  if (admitted.size === 0) {
    lines.push("", "The vault has no evidence on this question, so there is nothing to quote.");
    const missing = pack.judge.missing_terms.length > 0 ? pack.judge.missing_terms : pack.query_plan.required_terms;
    if (missing.length > 0) lines.push(`No note matched: ${missing.join(", ")}.`);
    return { text: lines.join("\n"), citations: [], admitted };
  }

  lines.push("", "The most relevant sentences, quoted from the evidence with their source keys. No model wrote or checked this.");
  const weights = termWeights(pack);
  const rowsPerKind = options.rowsPerKind ?? 3;
  const maxChars = options.maxSentenceChars ?? 280;
  const vaultPicks = pick(vaultRows.slice(0, rowsPerKind), weights, options.maxVaultSentences ?? 5, maxChars);
  const outsidePicks = pick(outsideRows.slice(0, rowsPerKind), weights, options.maxOutsideSentences ?? 3, maxChars);

  if (pack.judge.verdict !== "enough_evidence" && vaultRows.length > 0) {
    lines.push("", `The vault's evidence is ${pack.judge.verdict === "weak_evidence" ? "weak" : "thin"} here: ${notACitation(sentence(pack.judge.reason))}`);
  }
  lines.push("", "Vault evidence:");
  // A note found by its name alone (empty, or a title and properties) is cited without a quote.
  const unquoted = vaultPicks.length === 0 ? vaultRows[0] : undefined;
  if (unquoted) lines.push(`- ${shownTitle(unquoted.title)}: matched, but holds no sentence to quote [${unquoted.source_key}]`);
  else if (vaultPicks.length === 0) lines.push("- No vault note matched this question.");
  for (const c of vaultPicks) lines.push(`- ${quotedFrom(c)}: “${c.text}” ${[c.row, ...c.alsoIn].map((r) => `[${r.source_key}]`).join(" ")}`);

  if (outsideRows.length > 0) {
    lines.push("", "Outside vault (web results for this run, not your notes):");
    for (const c of outsidePicks) {
      const row = c.row;
      if (row.kind !== "external") continue;
      const store = row.retrieval.lanes[0]?.store ?? "ephemeral";
      lines.push(`- ${shownTitle(row.title)} (${shownTitle(row.domain)}): “${c.text}” [${row.source_key}] — ${outsideVaultLabel(row.provider, store)}`);
    }
  }

  const freshness = pack.query_plan.freshness;
  if (freshness.flagged) {
    lines.push(
      "",
      outsideRows.length > 0
        ? "This question asks about the current state: the vault's evidence ends with the notes quoted above; anything newer comes only from the outside-vault results."
        : "This question asks about the current state: the vault's evidence ends with the notes quoted above and may be out of date; no outside-vault search was used.",
    );
  }

  const quotedRows = [...(unquoted ? [unquoted] : []), ...[...vaultPicks, ...outsidePicks].flatMap((c) => [c.row, ...c.alsoIn])];
  const citations = [...new Map(quotedRows.map((row) => [row.source_key, citationFor(row)])).values()];
  return { text: lines.join("\n"), citations, admitted };
}

/**
 * The best sentences (of three words or more) of these rows by query-term overlap, at most two per
 * row, shown in row order. A row with no overlapping sentence can still lend its first one when
 * nothing else was found (a shorter one when it has no other), so a brief over existing evidence
 * always cites something. A sentence already chosen is not quoted twice (two sections' snippets
 * overlap, a note was copied 3,000 times): a note saying it again is cited beside it, and the
 * place goes to another sentence.
 */
function pick(rows: EvidenceRow[], weights: Map<string, number>, max: number, maxChars: number): Candidate[] {
  if (rows.length === 0 || max <= 0) return [];
  const all = rows.flatMap((row, rowIndex) =>
    sentencesOf(row).map((text, position): Candidate => ({ row, rowIndex, position, text, score: scoreSentence(text, weights), alsoIn: [] })),
  );
  const candidates = all.filter((c) => wordsIn(c.text) >= 3);
  const ranked = candidates
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.rowIndex - b.rowIndex || a.position - b.position);
  const perRow = new Map<number, number>();
  const chosen: Candidate[] = [];
  for (const c of ranked) {
    if (chosen.length >= max) break;
    const same = chosen.find((x) => x.text === c.text);
    // An outside line carries one source's label, so only notes share a line.
    if (same && same.row !== c.row && c.row.kind === "note" && !same.alsoIn.includes(c.row)) same.alsoIn.push(c.row);
    if (same && (same.row === c.row || c.row.kind === "note")) continue;
    const used = perRow.get(c.rowIndex) ?? 0;
    if (used >= SENTENCES_PER_ROW) continue;
    perRow.set(c.rowIndex, used + 1);
    chosen.push(c);
  }
  // Nothing of three words or more (a note of properties, "cone: 6"): its best short line.
  const fallback = candidates[0] ?? [...all].sort((a, b) => b.score - a.score)[0];
  if (chosen.length === 0 && fallback) chosen.push(fallback);
  return chosen
    .sort((a, b) => a.rowIndex - b.rowIndex || a.position - b.position)
    .map((c) => ({ ...c, text: quoteable(c.text, maxChars) }));
}

function sentencesOf(row: EvidenceRow): string[] {
  // A model's summary of a read page is not evidence to quote: the passages it summarises are.
  const texts = row.kind === "note" ? row.sections.map((s) => s.text) : row.content_sections.filter((s) => !(s.fetched && s.role === "external_summary")).map((s) => s.text);
  return texts
    .flatMap((text) => text.replace(/([.!?])\s+(?=[\p{Lu}\p{N}"“(])/gu, "$1\n").replace(/([。！？])\s*/gu, "$1\n").split(/\n+/))
    .map((s) => s.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "").trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
}

/** Chinese and Japanese put no spaces between words: there each character counts as one. */
function wordsIn(sentence: string): number {
  return CJK_CHAR.test(sentence) ? countWords(sentence) : sentence.split(/\s+/).length;
}

/** Required terms weigh double, phrases triple, context terms from earlier questions half. */
function termWeights(pack: ResearchPack): Map<string, number> {
  const plan = pack.query_plan;
  const weights = new Map<string, number>();
  for (const term of plan.context_terms) weights.set(stem(term), 0.5);
  for (const term of plan.terms) weights.set(stem(term), 1);
  for (const term of plan.required_terms) weights.set(stem(term), 2);
  return weights;
}

/** A Chinese or Japanese term (a whole run of the question, "酵头多久喂一次") counts by the share of its character pairs the sentence holds. */
function scoreSentence(sentence: string, weights: Map<string, number>): number {
  const words = new Set((sentence.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'.+-]*/gu) ?? []).map(stem));
  let score = 0;
  for (const [term, weight] of weights) {
    if (words.has(term)) score += weight;
    else score += weight * (pairShare(term, sentence) ?? 0);
  }
  return score;
}

/** A crude English stem, enough to let "notes" meet "note" and "syncing" meet "sync". */
function stem(word: string): string {
  const w = word.toLowerCase().replace(/'s$/, "").replace(/[.]+$/, "");
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.length > 5 && w.endsWith("ing")) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith("ed")) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith("es") && /(?:ss|sh|ch|x|z)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) return w.slice(0, -1);
  return w;
}

/**
 * A title or host name as the brief shows it: one line, no citation, through the one escaper, so a
 * result titled `![p](https://evil.example/pixel.png)` is those characters and no image, wherever the
 * brief is shown or written. (Quoted sentences keep their syntax as text; the answer's rule,
 * notes/inert-answer.ts, makes it inert where the brief is rendered or written.)
 */
function shownTitle(text: string): string {
  return escapeMarkdownText(notACitation(oneLine(text)));
}

/**
 * What the brief quotes or names must not pose as a citation: a web page titled "[src:…]" made
 * every brief that showed it fail verification, or cite a note it never quoted.
 */
function notACitation(text: string): string {
  // A note's own `[S1]` or `[ref 3]` too: the check fails a source cited by number.
  return text.replace(/\[(?=\s*(?:src|ext):)/gi, "(").replace(NUMBERED_SOURCE, (bracket) => `(${bracket.slice(1, -1)})`);
}

/** Whose sentence a vault line quotes: the note's title, and how many notes of other titles say it too. */
function quotedFrom(c: Candidate): string {
  const others = c.alsoIn.filter((r) => r.title !== c.row.title).length;
  return others === 0 ? shownTitle(c.row.title) : `${shownTitle(c.row.title)} and ${others} other note${others === 1 ? "" : "s"}`;
}

/** Quoted text must not look like a citation, nor run on forever. */
function quoteable(sentence: string, maxChars: number): string {
  const flat = notACitation(oneLine(sentence)).replace(/[“”]/g, '"');
  return cutText(flat, maxChars, { atWord: true });
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

