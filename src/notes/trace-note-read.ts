// Reading a trace note back: the trace kept in its JSON block (what promotion and replay rely on
// is checked), and recording a promotion in a note that may since have been edited by its user.
// The note quotes web and model text above its JSON block; whatever that text looks like, the
// block read is the last one and the label rewritten is the last one above it, and only a note
// whose properties say this plugin wrote it (type and run id matching the block) is rewritten.
import { parse as parseYaml } from "yaml";
import * as z from "zod";
import { judgeVerdicts, outsideVaultRowSchema, stopReasonSchema, vaultRowSchema } from "../evidence/research-pack";
import type { ResearchTrace } from "../evidence/trace-types";
import { errorMessage } from "../text/error-message";
import { jsonProblem } from "../text/json-problem";
import { outsideRowLabelLine, type Promotion } from "./trace-note";
import { boundedTraceJson, TRACE_BLOCK_OPEN, traceBlock } from "./trace-note-json";

export type TraceNoteError =
  | { kind: "no_trace_block"; message: string }
  | { kind: "invalid_json"; message: string }
  | { kind: "invalid_trace"; message: string };

export type PromotionError = TraceNoteError | { kind: "unknown_source_key"; message: string } | { kind: "not_a_written_trace"; message: string };

const traceEssentialsSchema = z.object({
  schema: z.literal("research_trace.v1"),
  run_id: z.string(),
  started_at: z.string(),
  question: z.string(),
  mode: z.string(),
  providers: z.array(z.string()),
  queries_sent: z.array(z.string()),
  stop_reason: stopReasonSchema,
  events: z.array(z.object({ type: z.string(), at: z.number() })),
  errors: z.array(z.object({ stage: z.string(), kind: z.string(), message: z.string() })),
  pack: z.object({
    question: z.string(),
    evidence: z.array(vaultRowSchema),
    external_evidence: z.array(outsideVaultRowSchema),
    judge: z.object({ verdict: z.enum(judgeVerdicts) }),
  }),
  promotions: z.array(z.object({ source_key: z.string(), note_path: z.string(), at: z.string() })).optional(),
});

// A line starts after a line feed only: `^` and `$` with the m flag also split lines at U+2028 and
// U+2029, which no editor does, so an answer's code holding one could open a block of its own.
const TRACE_BLOCK_OPENER = /(?<![^\n])```json vault-research-trace[ \t]*\r?\n/g;
const TRACE_BLOCK_CLOSER = /\r?\n```[ \t]*(?![^\r\n])/g;

interface FoundBlock {
  /** Where the block starts and ends in the note. */
  start: number;
  end: number;
  json: string;
}

/**
 * The last trace block: the one the plugin wrote at the end, not one quoted above it. A block is
 * the last opener before a closer: a trace's JSON holds no line that starts with a fence, so an
 * opener with another one after it, before any closer (an answer's code quoting an opener inside a
 * `~~~` fence), is someone's text, never the start of the block that follows. Read as one pattern,
 * every opener with no closer after it read the rest of the note (a note of openers took minutes);
 * once one has none, no later one has, so the search stops there.
 */
function lastTraceBlock(markdown: string): FoundBlock | null {
  let found: FoundBlock | null = null;
  for (let from = 0; ; ) {
    TRACE_BLOCK_OPENER.lastIndex = from;
    let open = TRACE_BLOCK_OPENER.exec(markdown);
    if (open === null) break;
    let body = TRACE_BLOCK_OPENER.lastIndex;
    TRACE_BLOCK_CLOSER.lastIndex = body;
    const close = TRACE_BLOCK_CLOSER.exec(markdown);
    if (close === null) break;
    for (let later = TRACE_BLOCK_OPENER.exec(markdown); later !== null && later.index < close.index; later = TRACE_BLOCK_OPENER.exec(markdown)) {
      open = later;
      body = TRACE_BLOCK_OPENER.lastIndex;
    }
    found = { start: open.index, end: close.index + close[0].length, json: markdown.slice(body, close.index) };
    from = found.end;
  }
  return found;
}

/** The trace kept in a trace note's JSON block, checked for what promotion and replay rely on. */
export function parseTraceNote(markdown: string): { trace: ResearchTrace } | { error: TraceNoteError } {
  const block = lastTraceBlock(markdown);
  if (!block) {
    return { error: { kind: "no_trace_block", message: `This note has no ${TRACE_BLOCK_OPEN} block; is it a research trace note?` } };
  }
  let data: unknown;
  try {
    data = JSON.parse(block.json);
  } catch (e) {
    return { error: { kind: "invalid_json", message: `The trace block is not valid JSON (${jsonProblem(block.json, errorMessage(e))}).` } };
  }
  const checked = traceEssentialsSchema.safeParse(data);
  if (!checked.success) {
    const issues = checked.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    return { error: { kind: "invalid_trace", message: `The trace block is not a research trace: ${issues.join("; ")}.` } };
  }
  // The original object, not zod's copy: fields this version does not check are kept.
  return { trace: data as ResearchTrace };
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
  if (!isWrittenTraceNote(markdown, trace)) {
    return { error: { kind: "not_a_written_trace", message: "its properties do not say the plugin wrote it (type research-trace and the run id of its trace block), so it was left as it is" } };
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
  const frontmatter = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(markdown);
  if (!frontmatter) return false;
  let properties: unknown;
  try {
    properties = parseYaml(frontmatter[1]);
  } catch {
    return false;
  }
  if (properties === null || typeof properties !== "object") return false;
  const { type, run_id } = properties as Record<string, unknown>;
  return type === "research-trace" && run_id === trace.run_id;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
