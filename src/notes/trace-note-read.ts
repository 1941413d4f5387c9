// Reading a trace note back: the trace kept in its JSON block (what promotion and replay rely on
// is checked), and recording a promotion in a note that may since have been edited by its user.
// The note quotes web and model text above its JSON block; whatever that text looks like, the
// block read is the last one and the label rewritten is the last one above it, and only a note
// whose properties say this plugin wrote it (type and run id matching the block) is rewritten.
import * as z from "zod";
import { outsideVaultRowSchema, vaultRowSchema } from "../evidence/research-pack";
import type { ResearchTrace } from "../evidence/trace-types";
import { errorMessage } from "../text/error-message";
import { jsonProblem } from "../text/json-problem";
import { locateFrontmatter, readFrontmatter } from "../index/frontmatter";
import { TRACE_BLOCK_INFO, TRACE_NOTE_TYPE, typeSaysResearchTrace } from "../index/trace-marks";
import { outsideRowLabelLine, type Promotion } from "./trace-note";
import { boundedTraceJson, TRACE_BLOCK_OPEN, traceBlock } from "./trace-note-json";

export type TraceNoteError =
  | { kind: "no_trace_block"; message: string }
  | { kind: "invalid_json"; message: string }
  | { kind: "invalid_trace"; message: string };

export type PromotionError = TraceNoteError | { kind: "unknown_source_key"; message: string } | { kind: "not_a_written_trace"; message: string };

/** The schema tag this version writes and reads. */
const TRACE_SCHEMA = "research_trace.v1";

/**
 * A vault row as far as anything here reads it back: what it is (never an outside row under a vault
 * key) and the section texts a promotion's bound empties. Its retrieval details — lanes, fusion, a
 * status a newer version adds — are nobody's here: checked whole, one of them refused every outside
 * row of a note another device's newer plugin wrote.
 */
const readBackVaultRowSchema = vaultRowSchema.pick({ source_key: true, kind: true, source_type: true, note_path: true }).extend({
  sections: z.array(z.object({ text: z.string() })),
});

const traceEssentialsSchema = z.object({
  schema: z.literal(TRACE_SCHEMA),
  run_id: z.string(),
  started_at: z.string(),
  question: z.string(),
  mode: z.string(),
  providers: z.array(z.string()),
  queries_sent: z.array(z.string()),
  // Neither the stop reason nor the verdict is read back; a newer version may have one this one lacks.
  stop_reason: z.string(),
  events: z.array(z.object({ type: z.string(), at: z.number() })),
  errors: z.array(z.object({ stage: z.string(), kind: z.string(), message: z.string() })),
  pack: z.object({
    question: z.string(),
    evidence: z.array(readBackVaultRowSchema),
    external_evidence: z.array(outsideVaultRowSchema),
    judge: z.object({ verdict: z.string() }),
  }),
  promotions: z.array(z.object({ source_key: z.string(), note_path: z.string(), at: z.string() })).optional(),
  // What promotion says of its note (a replayed run's rows are recorded samples), and what recording
  // a promotion bounds again: edited into another shape, each failed deep inside ("text.replace is
  // not a function") instead of being named here.
  replayed_from: z.string().optional(),
  answer: z.object({ text: z.string() }).optional(),
  truncated: z.array(z.string()).optional(),
});

/**
 * A line that opens or closes a fenced block, as CommonMark reads one: up to three spaces, three or
 * more backticks or tildes, and the rest of the line. A line starts after a line feed only: `^` with
 * the m flag also starts one after U+2028 and U+2029, which no editor does, so an answer's code
 * holding one could open a block of its own.
 */
const FENCE_LINE = /(?<![^\n])( {0,3})(`{3,}|~{3,})([^\r\n]*)/g;
/** What may follow a closing fence. Anchored at the start: one try, however long the line. */
const NOTHING_BUT_SPACES = /^[ \t]*$/;

interface FoundBlock {
  /** Where the block starts and ends in the note. */
  start: number;
  end: number;
  json: string;
}

interface OpeningFence {
  start: number;
  /** Where the block's first line starts. */
  body: number;
  marker: string;
}

/**
 * The last trace block: the one the plugin wrote at the end, not one quoted above it. A trace's
 * JSON holds no line that starts with a fence, so a block is an opener whose next fence line closes
 * it; an opener followed by any other fence line (an answer's code quoting an opener inside a `~~~`
 * fence) is someone's text, never the start of the block that follows. The fences may be as a
 * formatter or another editor rewrote them, for a reader sees the same block: `~~~` or longer runs,
 * indented up to three spaces, spaces before `json`. Each fence line is read once, so a note of
 * openers with no closer is read in one pass.
 */
function lastTraceBlock(markdown: string): FoundBlock | null {
  let found: FoundBlock | null = null;
  let open: OpeningFence | null = null;
  FENCE_LINE.lastIndex = 0;
  for (let line = FENCE_LINE.exec(markdown); line !== null; line = FENCE_LINE.exec(markdown)) {
    const [text, , marker, rest] = line;
    if (open !== null && NOTHING_BUT_SPACES.test(rest) && marker[0] === open.marker[0] && marker.length >= open.marker.length && line.index > open.body) {
      // The JSON ends with the line break before the closing fence, which is not its own.
      const json = markdown.slice(open.body, line.index).replace(/\r?\n$/, "");
      found = { start: open.start, end: line.index + text.length, json };
      open = null;
      continue;
    }
    const newline = markdown.indexOf("\n", line.index + text.length);
    open = TRACE_BLOCK_INFO.test(rest) && newline >= 0 ? { start: line.index, body: newline + 1, marker } : null;
  }
  return found;
}

/**
 * Whether the note's last fence line opens a trace block: a note cut short inside its block (a sync
 * that stopped midway, an edit that took the closing fence) has a block, just no end to it.
 */
function endsInTraceBlock(markdown: string): boolean {
  let last: RegExpExecArray | null = null;
  FENCE_LINE.lastIndex = 0;
  for (let line = FENCE_LINE.exec(markdown); line !== null; line = FENCE_LINE.exec(markdown)) last = line;
  return last !== null && TRACE_BLOCK_INFO.test(last[3]);
}

/**
 * The trace kept in a trace note's JSON block, checked for what promotion relies on and what
 * recording one rewrites; what nothing reads back (the stop reason, the verdict, a vault row's
 * retrieval) is taken as written, so a newer version's value there refuses no row.
 */
export function parseTraceNote(markdown: string): { trace: ResearchTrace } | { error: TraceNoteError } {
  const block = lastTraceBlock(markdown);
  if (!block && endsInTraceBlock(markdown)) {
    return { error: { kind: "no_trace_block", message: "The note ends inside its trace block, which no closing fence ends: it may have been cut short (a sync or an edit)." } };
  }
  if (!block) {
    return { error: { kind: "no_trace_block", message: `This note has no ${TRACE_BLOCK_OPEN} block; is it a research trace note?` } };
  }
  let data: unknown;
  try {
    data = JSON.parse(block.json);
  } catch (e) {
    return { error: { kind: "invalid_json", message: `The trace block is not valid JSON (${jsonProblem(block.json, errorMessage(e))}).` } };
  }
  const version = otherTraceVersion(data);
  if (version !== null) {
    return { error: { kind: "invalid_trace", message: `The trace block was written by another version of Vault Research (${version}); this version reads ${TRACE_SCHEMA}.` } };
  }
  const checked = traceEssentialsSchema.safeParse(data);
  if (!checked.success) {
    const issues = checked.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    return { error: { kind: "invalid_trace", message: `The trace block is not a research trace: ${issues.join("; ")}.` } };
  }
  // The original object, not zod's copy: fields this version does not check are kept.
  return { trace: data as ResearchTrace };
}

/** The schema tag of a trace block another version wrote (`research_trace.v2`), or null. Only a tag of that form is repeated. */
function otherTraceVersion(data: unknown): string | null {
  const tag = data !== null && typeof data === "object" ? (data as { schema?: unknown }).schema : undefined;
  return typeof tag === "string" && tag !== TRACE_SCHEMA && /^research_trace\.v\d{1,4}$/.test(tag) ? tag : null;
}

/**
 * The note with a promotion recorded: added (or replaced, for the same key) in the JSON block's
 * `promotions`, and the row's visible label turned to `· promoted` with a link to the new note.
 * The rest of the note, including anything the user wrote in it, is left as it was.
 */
export function recordPromotion(markdown: string, promotion: Promotion): { markdown: string } | { error: PromotionError } {
  const parsed = parseTraceNote(markdown);
  if ("error" in parsed) return parsed;
  const trace = parsed.trace;
  const notWritten = notWrittenBecause(markdown, trace);
  if (notWritten !== null) {
    return { error: { kind: "not_a_written_trace", message: `${notWritten}, so it was left as it is` } };
  }
  const row = trace.pack.external_evidence.find((r) => r.source_key === promotion.source_key);
  if (!row) {
    return { error: { kind: "unknown_source_key", message: `${promotion.source_key} is not an outside-vault row of this trace.` } };
  }
  const promotions = [...(trace.promotions ?? []).filter((p) => p.source_key !== promotion.source_key), { ...promotion }];
  const updated: ResearchTrace = { ...trace, promotions };
  const block = lastTraceBlock(markdown)!;
  const above = replaceLastLabelLine(markdown.slice(0, block.start), row.source_key, outsideRowLabelLine(row, promotion));
  return { markdown: `${above}${traceBlock(boundedTraceJson(updated))}${markdown.slice(block.end)}` };
}

/** The row's label line nearest above the block: the one in the Outside vault section, not a quote of it. */
function replaceLastLabelLine(text: string, sourceKey: string, line: string): string {
  const labelLine = new RegExp(`^\\*\\*Outside vault · [^*\\n]+\\*\\* · \`${escapeRegExp(sourceKey)}\`.*$`, "gm");
  let last: RegExpMatchArray | null = null;
  for (const m of text.matchAll(labelLine)) last = m;
  if (!last || last.index === undefined) return text;
  return `${text.slice(0, last.index)}${line}${text.slice(last.index + last[0].length)}`;
}

/** A trace note as the plugin wrote it: its properties name the type and the run of its block. */
export function isWrittenTraceNote(markdown: string, trace: Pick<ResearchTrace, "run_id">): boolean {
  return notWrittenBecause(markdown, trace) === null;
}

/**
 * Why the note's properties do not say the plugin wrote it for this run, or null when they do. They
 * are found and read as the index finds and reads them (after a byte order mark, which some editors
 * and sync tools add; closed by `---` or `...`), and their type by the index's rule: a note the index
 * leaves out as a trace is one a promotion is recorded in, whatever an editor made of its type.
 */
function notWrittenBecause(markdown: string, trace: Pick<ResearchTrace, "run_id">): string | null {
  const location = locateFrontmatter(markdown, markdown.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (location.kind !== "closed") return "it has no properties at its top (the plugin writes type research-trace and the run id of its trace block there)";
  const read = readFrontmatter(markdown.slice(location.span.yamlStart, location.span.yamlEnd));
  if (!read.ok) return "its properties could not be read (they are not valid YAML)";
  const { type, run_id } = read.data;
  if (!typeSaysResearchTrace(type)) return `its type property is not ${TRACE_NOTE_TYPE}`;
  // Neither value is quoted back: each is whatever someone typed there.
  if (run_id !== trace.run_id) return "its run_id property is not the run id in its trace block";
  return null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
