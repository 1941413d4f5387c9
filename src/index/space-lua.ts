// SilverBullet's live expressions: `${adder(10, 2)}`, `${query[[from index.tasks() …]]}` over many
// lines. SilverBullet shows what the expression gives (a figure, a button, another page's rows), never
// its code; the code is no prose of the note: its `[[` opens a query or a string, its `#group` is Lua's
// length, its `==` a comparison. Where one ends: its brackets closed in order, strings aside.
import { codeAt } from "./inline-text";

/** Brackets nest no deeper than this in an expression; deeper is none (and keeps each read short). */
const MAX_NESTING = 32;

/** Characters an expression on one line may span. */
export const MAX_EXPRESSION = 2000;

/**
 * Where one line's expressions that close on it lie, found left to right only as far as asked: a line's
 * tags and links ask (a `#group` in one is Lua, no tag, and `"[[" .. p.name` a string, no link:
 * SilverBullet reads neither there), and a line without either is never searched. Asked at offsets that
 * grow; each character is read about once.
 */
export class ExpressionSpans {
  /** Where the next `${` is looked for. */
  private from = 0;
  /** The furthest end of those found so far. */
  private end = 0;
  private budget: number;

  constructor(private readonly line: string) {
    this.budget = line.length + MAX_EXPRESSION;
  }

  /** Whether the character at `at` lies inside an expression. */
  holds(at: number): boolean {
    const { line } = this;
    while (this.from < at && this.budget > 0) {
      const open = line.indexOf("${", this.from);
      if (open < 0 || open >= at) {
        this.from = open < 0 ? line.length : open;
        break;
      }
      this.from = open + 2;
      if (!opensExpression(line, open)) continue;
      const { end, read } = expressionEnd(line, open, open + MAX_EXPRESSION);
      this.budget -= read;
      if (end < 0) continue;
      this.from = end;
      if (end > this.end) this.end = end;
    }
    return at < this.end;
  }
}

/** Whether an expression may open at `at`: `${` and the first letter of a name. */
export function opensExpression(s: string, at: number): boolean {
  if (codeAt(s, at) !== 36 /* $ */ || codeAt(s, at + 1) !== 123 /* { */) return false;
  const c = codeAt(s, at + 2);
  const lower = c | 32;
  return (lower >= 97 && lower <= 122) || c === 95 /* _ */;
}

/**
 * Where the expression opening at `at` ends (exclusive), read no further than `limit`, or -1 when it
 * does not close there; and how many characters were read, for the caller's budget. A `}` followed by
 * `$` closes inline math (`${n \choose k}$`), which is no expression.
 */
export function expressionEnd(s: string, at: number, limit: number): { end: number; read: number } {
  const open: number[] = [];
  const end = Math.min(limit, s.length);
  for (let i = at + 1; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 34 /* " */ || c === 39 /* ' */) {
      const close = quoteEnd(s, i + 1, end, c);
      if (close < 0) break;
      i = close;
    } else if (c === 123 || c === 91 /* [ */ || c === 40 /* ( */) {
      if (open.length === MAX_NESTING) return { end: -1, read: i - at };
      open.push(c === 123 ? 125 : c === 91 ? 93 : 41);
    } else if (c === 125 /* } */ || c === 93 /* ] */ || c === 41 /* ) */) {
      if (open.pop() !== c) return { end: -1, read: i - at };
      if (open.length === 0) return { end: codeAt(s, i + 1) === 36 ? -1 : i + 1, read: i + 1 - at };
    }
  }
  return { end: -1, read: end - at };
}

/** Where a quoted Lua string whose text starts at `from` closes, or -1 before `end` or its line's end (Lua strings hold no line break). */
function quoteEnd(s: string, from: number, end: number, quote: number): number {
  for (let i = from; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === quote) return i;
    else if (c === 10) return -1;
  }
  return -1;
}
