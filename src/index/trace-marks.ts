// How a research trace note is known wherever it lies: its `type: research-trace` property and the
// fenced JSON block the plugin writes at its end. The trace folder is left out of the index by its
// path; a trace note outside it (the trace folder setting changed since, a note moved) holds web
// text all the same and must never be searched as the vault's own evidence (DESIGN invariant 5).
// The note writer (`notes/trace-note*.ts`) takes these marks from here: one home for both.

/** The fence that opens a trace note's JSON block. */
export const TRACE_BLOCK_OPEN = "```json vault-research-trace";
/** A trace note's `type` property. */
export const TRACE_NOTE_TYPE = "research-trace";

/** The frontmatter at the top of a note (its lines between the two `---`), or null. */
const FRONTMATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
/** `type: research-trace`, quoted or not, on a line of its own in the frontmatter. */
const TRACE_TYPE_LINE = /^type:[ \t]*(["']?)research-trace\1[ \t]*$/m;

/**
 * Whether `text` is a research trace note: both marks, so a note that only quotes a block, or only
 * borrows the property, is the owner's and indexed. Cheap for every other note: one substring search.
 */
export function isResearchTrace(text: string): boolean {
  if (!text.includes(TRACE_BLOCK_OPEN)) return false;
  const frontmatter = FRONTMATTER.exec(text);
  return frontmatter !== null && TRACE_TYPE_LINE.test(frontmatter[1]);
}
