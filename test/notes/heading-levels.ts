// The headings a note shows, with their levels and text, as CommonMark's reference parser
// (commonmark.js) reads it: ATX and setext, behind quotes and list items and under their
// indentation, never in code. For property tests that a model's answer cannot open a section of
// the note it is written into (Obsidian's reading view follows CommonMark here).
import { Parser, type Node } from "commonmark";

export interface Heading {
  level: number;
  text: string;
}

export function headingsIn(markdown: string): Heading[] {
  const walker = new Parser().parse(markdown).walker();
  const found: Heading[] = [];
  for (let step = walker.next(); step; step = walker.next()) {
    if (step.entering && step.node.type === "heading") found.push({ level: step.node.level, text: textOf(step.node) });
  }
  return found;
}

/** A heading's text as shown: its literal pieces, a line break as a space. */
function textOf(heading: Node): string {
  const parts: string[] = [];
  const walker = heading.walker();
  for (let step = walker.next(); step; step = walker.next()) {
    if (!step.entering) continue;
    if (step.node.literal !== null) parts.push(step.node.literal);
    else if (step.node.type === "softbreak" || step.node.type === "linebreak") parts.push(" ");
  }
  return parts.join("").trim();
}
