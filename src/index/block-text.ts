// A shown section's text with its blocks kept apart. The note parser marks each line of text it keeps
// (`markdown.ts`, with `ParseOptions.blocks`): whether it starts a block and whether it is code. Here
// those lines become the text a snippet quotes: lines of one block joined by a line break, blocks by a
// blank line, and a code block's lines as one code span, so code never runs into the prose after it.

/** The line starts a block of its own (a blank line, a list item, a table row… came before it). */
export const STARTS_BLOCK = 1;
/** The line is code (fenced, or a fence shown in indented code); a run of code lines is one block. */
export const CODE_LINE = 2;

/**
 * The lines joined as blocks; `marks[i]` holds `STARTS_BLOCK` and `CODE_LINE` bits of `lines[i]`. An
 * empty line that starts a block stands for a block that shows no words (an image, an embed): between
 * two blocks it leaves an empty block, three blank lines, so no lead-in ("You get this shortcode:") is
 * read as hanging on the block after its object. At either end, or twice in a row, it says nothing more.
 */
export function blockText(lines: string[], marks: number[]): string {
  let text = "";
  let block: string[] = [];
  let code = false;
  let hidden = false;
  const flush = () => {
    if (block.length === 0) return;
    const joined = block.join("\n");
    block = [];
    if (joined === "") {
      hidden = text !== "";
      return;
    }
    text += (text === "" ? "" : hidden ? HIDDEN_BLOCK_GAP : "\n\n") + (code ? codeSpan(joined) : joined);
    hidden = false;
  };
  for (let i = 0; i < lines.length; i++) {
    const isCode = (marks[i] & CODE_LINE) !== 0;
    if ((marks[i] & STARTS_BLOCK) !== 0 || isCode !== code) flush();
    code = isCode;
    block.push(lines[i]);
  }
  flush();
  return text;
}

/** Where a block that shows no words stood between two blocks: an empty block, blank lines around it. */
export const HIDDEN_BLOCK_GAP = "\n\n\n\n";

/** Code as one code span, fenced by more backticks than any run inside it. */
export function codeSpan(code: string): string {
  const longest = longestBacktickRun(code);
  const fence = "`".repeat(longest + 1);
  const pad = longest > 0 ? " " : "";
  return `${fence}${pad}${code}${pad}${fence}`;
}

/** Counted in one pass: a spread of every run into `Math.max` overflowed the stack on a block of 200,000 of them. */
function longestBacktickRun(code: string): number {
  let longest = 0;
  for (let at = code.indexOf("`"); at >= 0; ) {
    let end = at + 1;
    while (code.charCodeAt(end) === 96) end++;
    longest = Math.max(longest, end - at);
    at = code.indexOf("`", end);
  }
  return longest;
}
