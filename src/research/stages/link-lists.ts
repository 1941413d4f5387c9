// A hub note (a map of content: "- [[Attachments]] · [[Default location]] · [[New notes]]") names
// what other notes hold; it answers none of it. Search finds it by those names, as it should (a
// user looking for the hub wants it), but the judge must not read a list of links as the note
// saying what was asked: the hub's link texts stood close together in its opening and made it
// "enough" for "what is the default location for new attachments?".
//
// So before the judge weighs the best notes, the words of the question a note holds only in its
// link-list lines (a line of links with nothing else but list marks and a few joining words) are
// taken out of what it matched, overall, in each section and in its opening, and named apart for
// the verdict's reason. A link inside a sentence ("set the [[Default location]] for images") is
// the note's own words and stays; so does everything in the frontmatter (a property's value is a
// fact: `director: "[[Ridley Scott]]"`). The search results the pack shows are not changed.
import { locateFrontmatter } from "../../index/frontmatter";
import { parseNoteSafely } from "../../index/parse-note-safely";
import { foldCase, words, type Analyzer } from "../../index/tokenize";
import type { SearchResult } from "../../index/types";
import { wordSet } from "../../text/word-set";
import type { WeighedResult } from "./judge-coverage";

/**
 * `[[wikilink]]`, `![[embed]]`, `[text](target)`, `![alt](src)`, Logseq's `[text]([[Page]])`; a
 * target may hold parentheses in pairs (`Foo_(bar)`). No bracket inside a link's text or target and
 * no lone parenthesis inside a target: each try then stops at the next one, so a line of 20,000
 * unclosed `![[` is read once (it was read once for each, which held the judge up for half a minute).
 */
const LINK = /!?\[\[[^[\]\n]*\]\]|!?\[[^[\]\n]*\]\((?:\[\[[^[\]\n]*\]\]|[^()\n]*(?:\([^()\n]*\)[^()\n]*)*)\)/g;

/** What may open a line before its links: quote marks, a list mark, a task's box, a heading's hashes. */
const LINE_OPENING = /^\s*(?:>\s*)*(?:(?:[-*+]|\d+[.)])\s+)?(?:\[[ xX]\]\s+)?(?:#{1,6}\s+)?/;

/** Words a list of links may hold besides them ("see also [[A]] and [[B]]", "up: [[Home]]"). */
const JOINING_WORDS: ReadonlySet<string> = wordSet("and or see also related more next previous prev back up home");

/** A line that is links and nothing else a reader would read as the note's own words. */
export function isLinkListLine(line: string): boolean {
  if (!line.match(LINK)) return false;
  const rest = line.replace(LINE_OPENING, "").replace(LINK, " ");
  return words(rest).every((w) => JOINING_WORDS.has(foldCase(w)));
}

/** The text of `text[from, to)` in two: its link-list lines, and all its other lines. */
export function splitLinkLists(text: string, from: number, to: number): { lists: string; rest: string } {
  const lists: string[] = [];
  const rest: string[] = [];
  for (const line of text.slice(from, to).split("\n")) (isLinkListLine(line) ? lists : rest).push(line);
  return { lists: lists.join("\n"), rest: rest.join("\n") };
}

/** Of `asked` (query words as search matched them), those `text[from, to)` holds in link-list lines only. */
function onlyInLists(asked: readonly string[], parts: { lists: string; rest: string }, analyzer: Analyzer, also = ""): string[] {
  if (asked.length === 0 || parts.lists === "") return [];
  const inLists = new Set(analyzer.terms(parts.lists));
  const elsewhere = new Set(analyzer.terms(`${parts.rest}\n${also}`));
  const holds = (set: Set<string>, word: string) => analyzer.analyzeWord(word).some((t) => set.has(t));
  // A word neither side holds as analysed (search matched it by a typo's spelling) is left as search saw it.
  return asked.filter((w) => holds(inLists, w) && !holds(elsewhere, w));
}

/**
 * The result as the judge should weigh it, given the note's text: the question's words the note
 * holds only in link-list lines no longer count as matched (in the note, its sections, its opening)
 * and are named in `linkListWords`. The same result when the note has no such words.
 */
export function withoutLinkListWords(result: SearchResult, text: string, analyzer: Analyzer): WeighedResult {
  const front = locateFrontmatter(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  const bodyStart = front.kind === "closed" ? front.span.bodyStart : 0;
  const body = splitLinkLists(text, bodyStart, text.length);
  // The note's own words: its body but for link lists, its properties, title, path and tags.
  const names = [text.slice(0, bodyStart), result.title, result.path, result.tags.join(" ")].join("\n");
  const linkOnly = onlyInLists(result.explanation.matchedTerms, body, analyzer, names);
  const inSection = (s: { start: number; end: number }, asked: readonly string[]) => onlyInLists(asked, splitLinkLists(text, Math.max(s.start, bodyStart), s.end), analyzer);
  const sections = result.sections.map((s) => {
    const drop = new Set(inSection(s, s.matchedTerms));
    return drop.size === 0 ? s : { ...s, matchedTerms: s.matchedTerms.filter((w) => !drop.has(w)), closeTerms: s.closeTerms.filter((w) => !drop.has(w)) };
  });
  const leadWords = result.explanation.fields.lead ?? [];
  const leadDrop = new Set(leadWords.length > 0 ? inSection(leadSpan(result, text), leadWords) : []);
  const changed = linkOnly.length > 0 || leadDrop.size > 0 || sections.some((s, i) => s !== result.sections[i]);
  if (!changed) return result;
  const gone = new Set(linkOnly);
  const fields = { ...result.explanation.fields };
  if (leadDrop.size > 0) fields.lead = leadWords.filter((w) => !leadDrop.has(w));
  const explanation = {
    ...result.explanation,
    matchedTerms: result.explanation.matchedTerms.filter((w) => !gone.has(w)),
    missingTerms: [...result.explanation.missingTerms, ...linkOnly],
    fields,
  };
  return { ...result, sections, explanation, ...(linkOnly.length > 0 ? { linkListWords: linkOnly } : {}) };
}

/** Where the index reads a note's opening: its first section with words (search-engine.ts leadOf). */
function leadSpan(result: SearchResult, text: string): { start: number; end: number } {
  const first = parseNoteSafely(result.path, text).sections.find((s) => s.text.trim() !== "");
  return first ? { start: first.start, end: first.end } : { start: 0, end: 0 };
}
