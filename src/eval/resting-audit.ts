// The audit of the judge's enough verdicts that rest on a note the sets do not count as an answer
// (evals/judge/resting-audit.json, issue 10): for a question of a set and the notes its verdict
// rested on, whether those notes answer it, as a person judged by reading them. The set files'
// `relevant` stay as their authors wrote them; the audit is read beside them, so `npm run
// eval:judge` can say how many of those enoughs were right after all.
//
// An entry is keyed by its set, its question id and its deciding notes (in any order): when the
// judge later rests on another note, the entry no longer matches and the case counts as unaudited
// instead of borrowing a verdict given to other notes.
import * as z from "zod";

/** What an auditor said of the deciding notes: they answer, they give part of the answer (or only by inference), or they do not. */
export const AUDIT_VERDICTS = ["answers", "partial", "does_not_answer"] as const;
export type AuditVerdict = (typeof AUDIT_VERDICTS)[number];

const notePath = z
  .string()
  .min(1)
  .refine((p) => p.endsWith(".md") && !p.startsWith("/") && !p.includes("\\") && p.split("/").every((part) => part !== "" && part !== "." && part !== ".."), "expected a vault path as the index names it, ending in .md");
const verdict = z.enum(AUDIT_VERDICTS);

const entrySchema = z
  .object({
    /** The set's name, as `npm run eval:judge` prints it ("corpora", "heldout-fresh", …). */
    set: z.string().min(1),
    /** The question's id in that set. */
    id: z.string().min(1),
    /** The verdict's `bestPath`, and `pairedPath` when it rested on two notes. */
    deciding_notes: z.array(notePath).min(1).max(2),
    /** Of the deciding notes together. */
    verdict,
    /** One line, in the auditor's words (no note text beyond a few words). */
    reason: z.string().trim().min(1),
    /** For two deciding notes, each one alone. */
    per_note: z.record(notePath, verdict).optional(),
    /** Who read the notes. */
    auditor: z.string().trim().min(1),
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected a date as YYYY-MM-DD"),
  })
  .strict();
export type RestingAuditEntry = z.infer<typeof entrySchema>;

const fileSchema = z
  .object({
    /** How the audit was done, for the person reading the file. */
    about: z.string().optional(),
    entries: z.array(z.unknown()),
  })
  .strict();

export type RestingAuditRead = { ok: true; entries: RestingAuditEntry[] } | { ok: false; error: { kind: "bad_audit"; message: string } };

/**
 * The audit in `json` (already parsed). `sets` are the set names an entry may name (a misspelt set
 * would match nothing and hide its verdicts as unaudited). The first problem is reported with the
 * file's `name`, the entry's place, set and id, and the field.
 */
export function readRestingAudit(json: unknown, name: string, sets: readonly string[]): RestingAuditRead {
  const bad = (why: string): RestingAuditRead => ({ ok: false, error: { kind: "bad_audit", message: `${name}: ${why}` } });
  const file = fileSchema.safeParse(json);
  if (!file.success) {
    const issue = file.error.issues[0];
    return bad(`${issue.path.map(String).join(".") || "(top level)"}: ${issue.message} (an audit is { "entries": [ … ] })`);
  }
  const entries: RestingAuditEntry[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of file.data.entries.entries()) {
    const place = `entry ${i + 1}${labelOf(raw)}`;
    const parsed = entrySchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return bad(`${place}, field ${issue.path.map(String).join(".") || "(entry)"}: ${issue.message}`);
    }
    const e = parsed.data;
    if (!sets.includes(e.set)) return bad(`${place}, field set: "${e.set}" is no set; the sets are ${sets.join(", ")}`);
    if (new Set(e.deciding_notes).size !== e.deciding_notes.length) return bad(`${place}, field deciding_notes: the same note twice`);
    const stray = Object.keys(e.per_note ?? {}).find((p) => !e.deciding_notes.includes(p));
    if (stray !== undefined) return bad(`${place}, field per_note: "${stray}" is not one of the deciding notes`);
    const key = keyOf(e.set, e.id, e.deciding_notes);
    if (seen.has(key)) return bad(`${place}: the same set, id and deciding notes as an earlier entry`);
    seen.add(key);
    entries.push(e);
  }
  return { ok: true, entries };
}

/** The audit's verdict on a question of `set` resting on `deciding`, or null when no entry has those very notes. */
export function auditedVerdict(entries: readonly RestingAuditEntry[], set: string, id: string | undefined, deciding: readonly string[]): AuditVerdict | null {
  if (id === undefined) return null;
  const key = keyOf(set, id, deciding);
  return entries.find((e) => keyOf(e.set, e.id, e.deciding_notes) === key)?.verdict ?? null;
}

function keyOf(set: string, id: string, notes: readonly string[]): string {
  return [set, id, ...[...notes].sort()].join("\u0000");
}

/** ` ("corpora" j004)` when the raw entry names them, so a bad entry can be found in the file. */
function labelOf(raw: unknown): string {
  if (raw === null || typeof raw !== "object") return "";
  const { set, id } = raw as { set?: unknown; id?: unknown };
  const parts = [typeof set === "string" ? `"${set}"` : "", typeof id === "string" ? id : ""].filter((p) => p !== "");
  return parts.length > 0 ? ` (${parts.join(" ")})` : "";
}
