// How a research trace note is known wherever it lies: its `type: research-trace` property and the
// fenced JSON block the plugin writes at its end. The trace folder is left out of the index by its
// path; a trace note outside it (the trace folder setting changed since, a note moved) holds web
// text all the same and must never be searched as the vault's own evidence (DESIGN invariant 5).
// The note writer (`notes/trace-note*.ts`) takes these marks from here: one home for both.
import { locateFrontmatter, readFrontmatter } from "./frontmatter";

/** What follows the opening fence of a trace note's JSON block. */
const TRACE_BLOCK_WORDS = "json vault-research-trace";
/** The fence that opens a trace note's JSON block, as the plugin writes it. */
export const TRACE_BLOCK_OPEN = `\`\`\`${TRACE_BLOCK_WORDS}`;
/** A trace note's `type` property. */
export const TRACE_NOTE_TYPE = "research-trace";
/**
 * What follows a fence that opens the block, as a formatter or another editor may have rewritten
 * it: spaces around the words (the fence itself may be `~~~`, longer, indented up to three spaces).
 */
export const TRACE_BLOCK_INFO = /^[ \t]*json vault-research-trace[ \t]*$/;
/** A line that opens the block, in any of those spellings. */
const TRACE_BLOCK_OPENER = /^ {0,3}(?:`{3,}|~{3,})[ \t]*json vault-research-trace[ \t]*\r?$/m;

/** `type: research-trace`, quoted or not, on a line of its own: how a trace's properties say it when YAML cannot read them. */
const TRACE_TYPE_LINE = /^type:[ \t]*(["']?)research-trace\1[ \t]*$/m;

/**
 * Whether `text` is a research trace note: both marks, so a note that only quotes a block, or only
 * borrows the property, is the owner's and indexed. The block's fences may be as a formatter
 * rewrote them, and the note may begin with a byte order mark: it is the same trace note, and its
 * web text must stay out all the same. Cheap for every other note: one substring search.
 */
export function isResearchTrace(text: string): boolean {
  if (!text.includes(TRACE_BLOCK_WORDS)) return false;
  const yaml = frontmatterOf(text);
  return yaml !== null && TRACE_BLOCK_OPENER.test(text) && typeIsTrace(yaml);
}

/** The YAML between a note's two `---` lines, found as the note parser finds it, or null. */
function frontmatterOf(text: string): string | null {
  const location = locateFrontmatter(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  return location.kind === "closed" ? text.slice(location.span.yamlStart, location.span.yamlEnd) : null;
}

/**
 * Whether the `type` property says research-trace as YAML reads it: a comment after it and a flow
 * mapping are the same property. Properties YAML cannot read are text to the index: a
 * `type: research-trace` line among them still marks the note, as it always did.
 */
function typeIsTrace(yaml: string): boolean {
  const read = readFrontmatter(yaml);
  return read.ok ? typeSaysResearchTrace(read.data.type) : TRACE_TYPE_LINE.test(yaml);
}

/**
 * Whether a note's `type` property, read (by YAML or Obsidian's metadata cache), says it is a
 * research trace: the value itself, or a list holding it (Obsidian writes `type` as one where it is
 * a list property in the vault). The one rule for the index, the trace reader and the promote command.
 */
export function typeSaysResearchTrace(type: unknown): boolean {
  return type === TRACE_NOTE_TYPE || (Array.isArray(type) && type.includes(TRACE_NOTE_TYPE));
}
