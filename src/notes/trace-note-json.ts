// The trace as the JSON block at the end of a trace note, never bigger than a note should be.
// When the trace is too big, parts are dropped in order of least use to a reader, and each step
// is named in the `truncated` field, so the block always stays valid JSON that says what it lost.
import type { OutsideVaultRow } from "../evidence/research-pack";
import { boundOutsideRowFields, boundStrings, cutText } from "../evidence/trace-bounds";
import type { ResearchTrace, TraceTruncation } from "../evidence/trace-types";
import { TRACE_BLOCK_OPEN } from "../index/trace-marks";

/** The fence that opens the trace's JSON block; `parseTraceNote` looks for exactly this (and the index, to leave trace notes out). */
export { TRACE_BLOCK_OPEN };
/** The JSON block never grows past this many characters. */
export const TRACE_JSON_MAX_CHARS = 60_000;

type BoundedTrace = ResearchTrace & TraceTruncation;

/** One way to make the trace smaller, and how the `truncated` field names it. */
interface DropStep {
  note: (max: number) => string;
  apply: (trace: BoundedTrace, max: number) => void;
}

/**
 * Event data, pack section texts, events, the answer's length, vault rows and all but what promotion
 * needs of outside rows, then long strings and lists anywhere else. `promote` finds a run's rows
 * only in this block, so every step keeps what it needs of each (a run has at most ten), and the
 * promotions recorded; not even the last resort below, for a trace no run makes, cuts them.
 */
const DROP_STEPS: readonly DropStep[] = [
  { note: (max) => `event data dropped to fit ${max} characters`, apply: (t) => t.events.forEach((e) => delete e.data) },
  { note: (max) => `pack section texts dropped to fit ${max} characters`, apply: (t) => emptySectionTexts(t) },
  { note: (max) => `events dropped to fit ${max} characters`, apply: (t) => (t.events = []) },
  {
    note: (max) => `answer cut to fit ${max} characters`,
    apply: (t, max) => {
      if (t.answer) t.answer.text = cutText(t.answer.text, Math.floor(max / 3));
    },
  },
  {
    note: (max) => `vault rows dropped and outside-vault rows cut to what promotion needs to fit ${max} characters (the coverage counts remain)`,
    apply: (t) => {
      t.pack.evidence = [];
      t.pack.external_evidence = t.pack.external_evidence.map(promotionEssentials);
    },
  },
  {
    note: (max) => `long strings and lists cut to fit ${max} characters`,
    apply: (t) => Object.assign(t, keepingWhatPromotionReads(t, (all) => shrink(all, 200, 20) as BoundedTrace)),
  },
];

/**
 * The fenced block that holds the trace's JSON. Templater runs `<% … %>` wherever it stands in a
 * new file, code blocks included, so a web title's `<%` is written as `\u003c%`: the same string
 * to JSON.parse, no command to Templater.
 */
export function traceBlock(json: string): string {
  return `${TRACE_BLOCK_OPEN}\n${json.replace(/<%/g, "\\u003c%")}\n\`\`\``;
}

/** `JSON.stringify(trace, null, 2)`, at most `max` characters (see `DROP_STEPS` for what goes first). */
export function boundedTraceJson(trace: ResearchTrace, max = TRACE_JSON_MAX_CHARS): string {
  return boundTraceJson(trace, max).json;
}

/** The bounded JSON and everything the trace says it lost (the recorder's cuts and these). */
export function boundTraceJson(trace: ResearchTrace, max = TRACE_JSON_MAX_CHARS): { json: string; truncated: string[] } {
  let current = JSON.parse(JSON.stringify(trace)) as BoundedTrace;
  let text = JSON.stringify(current, null, 2);
  const result = () => ({ json: text, truncated: current.truncated ?? [] });
  if (text.length <= max) return result();
  for (const step of DROP_STEPS) {
    step.apply(current, max);
    current.truncated = [...(current.truncated ?? []), step.note(max)];
    text = JSON.stringify(current, null, 2);
    if (text.length <= max) return result();
  }
  // Only a trace no run of this version makes gets here (thousands of errors, a map of thousands of
  // keys, which no cut shortens: a newer version's, or pasted in by hand): the rest is cut to its
  // identity, but what promotion reads stays whole, each outside row's essentials and the promotions
  // recorded. Cut like the rest, rows past the third were lost and an address cut at 80 characters
  // sent a promotion to another page; a block past the bound loses nothing.
  current = keepingWhatPromotionReads(current, (t) => shrink(t, 80, 3) as BoundedTrace);
  text = JSON.stringify(current, null, 2);
  return result();
}

/** `cut` applied to the trace, its outside rows and recorded promotions put back as they were. */
function keepingWhatPromotionReads(trace: BoundedTrace, cut: (t: BoundedTrace) => BoundedTrace): BoundedTrace {
  const cutTrace = cut(trace);
  cutTrace.pack.external_evidence = trace.pack.external_evidence;
  if (trace.promotions !== undefined) cutTrace.promotions = trace.promotions;
  return cutTrace;
}

/**
 * What `promote` and the trace reader's schema need of an outside row (key, provider, address,
 * title, domain, date, label and lane), title, address and domain within `OUTSIDE_ROW_LIMITS`;
 * its texts and retrieval details go.
 */
function promotionEssentials(row: OutsideVaultRow): OutsideVaultRow {
  const { source_key, kind, source_type, provider, label, url, title, domain, published_at, retrieval, also_found_by } = boundOutsideRowFields(row);
  const essentials: OutsideVaultRow = {
    source_key,
    kind,
    source_type,
    provider,
    label,
    url,
    title,
    domain,
    content_sections: [],
    retrieval: { score: retrieval.score, lanes: retrieval.lanes, signals: [], matched_terms: [], missing_terms: [] },
    also_found_by,
  };
  if (published_at !== undefined) essentials.published_at = published_at;
  return essentials;
}

function emptySectionTexts(trace: BoundedTrace): void {
  for (const row of trace.pack.evidence) for (const s of row.sections) s.text = "";
  for (const row of trace.pack.external_evidence) for (const s of row.content_sections) Object.assign(s, { text: "", truncated: true });
}

function shrink(value: unknown, maxString: number, maxList: number): unknown {
  if (Array.isArray(value)) return value.slice(0, maxList).map((v) => shrink(v, maxString, maxList));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = shrink(v, maxString, maxList);
    return out;
  }
  return boundStrings(value, maxString);
}
