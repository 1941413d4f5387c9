// The headings Obsidian's reading view (CommonMark) would make of a note, with their levels and
// text: ATX (`## Title`) and setext (`Title` over `===` or `---`), behind block quote and list
// markers too, never inside fenced code, honouring a backslash before `#`. For property tests that
// a model's answer cannot open a section of the note it is written into.

export interface Heading {
  level: number;
  text: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const CONTAINER = /^(?: {0,3}> ?| {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|$))/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;

export function headingsIn(markdown: string): Heading[] {
  const found: Heading[] = [];
  let fence: string | null = null;
  let paragraph: string | null = null;
  for (const raw of markdown.split(/\r\n?|\n/)) {
    let line = raw;
    if (fence !== null) {
      if (FENCE.exec(line)?.[1].startsWith(fence)) fence = null;
      continue;
    }
    for (let strip = CONTAINER.exec(line); strip && strip[0] !== ""; strip = CONTAINER.exec(line)) line = line.slice(strip[0].length);
    const open = FENCE.exec(line);
    // CommonMark: a backtick fence's info string holds no backtick (else the line is inline code).
    if (open && !(open[1][0] === "`" && line.slice(open[0].length).includes("`"))) {
      fence = open[1][0].repeat(open[1].length);
      paragraph = null;
      continue;
    }
    const atx = ATX.exec(line);
    const setext = paragraph !== null ? SETEXT.exec(line) : null;
    if (atx) {
      found.push({ level: atx[1].length, text: (atx[2] ?? "").trim() });
      paragraph = null;
    } else if (setext && paragraph !== null) {
      found.push({ level: setext[1][0] === "=" ? 1 : 2, text: paragraph.trim() });
      paragraph = null;
    } else {
      paragraph = line.trim() === "" ? null : line;
    }
  }
  return found;
}
