// Which parts of a matched note to show, and the snippet of each: sections are scored by the
// matched terms they hold (a heading match counts double), and the snippet is the window of the
// section text showing the most distinct query words (then the most matches), cut at word
// boundaries, with the matches marked.
import { hasNonAscii } from "../text/control-chars";
import type { Analyzer } from "./tokenize";
import { wordSpans, type WordSpan } from "./tokenize";
import type { Highlight, ParsedNote, SectionHit } from "./types";
import { CJK_CHAR } from "../text/scripts";
import { ENDS_WITH_STOP, sentenceStarts } from "../text/sentence-ends";

/** Characters in a snippet window. */
export const SNIPPET_CHARS = 240;

/** A match in a section's text, and the query word it matched (`word`: a snippet shows more distinct ones first). */
export interface MatchSpan {
  start: number;
  end: number;
  word?: string;
}

/**
 * `docTerms` maps each note term that matched the query (exactly, by prefix or fuzzily) to the
 * query word it matched, so sections can say which of the user's words they hold.
 */
export function buildSectionHits(note: ParsedNote, docTerms: Map<string, string>, analyzer: Analyzer, max: number): SectionHit[] {
  const scored: { index: number; score: number; spans: MatchSpan[]; words: Set<string>; close: string[] }[] = [];
  const clues = termClues(docTerms);
  note.sections.forEach((section, index) => {
    if (!mayHoldTerms(section.heading, section.text, clues)) {
      scored.push({ index, score: 0, spans: [], words: new Set(), close: [] });
      return;
    }
    const spans: MatchSpan[] = [];
    const positions: { at: number; word: string }[] = [];
    let wordIndex = 0;
    const distinct = new Set<string>();
    const words = new Set<string>();
    let tf = 0;
    // ASCII text (most notes) is searched for the terms' first letters and only the words around
    // those spots are analysed; other text is analysed word by word.
    const candidates: CandidateWord[] = hasNonAscii(section.text) ? wordSpans(section.text) : wordsAtClues(section.text, clues);
    for (const span of candidates) {
      wordIndex = span.index ?? wordIndex + 1;
      const hit = analyzer.analyzeWord(span.word).find((t) => docTerms.has(t));
      if (hit) {
        const word = docTerms.get(hit)!;
        positions.push({ at: wordIndex, word });
        const narrow = CJK_CHAR.test(span.word) ? cjkMatchSpans(span, docTerms) : [];
        if (narrow.length > 0) spans.push(...narrow);
        else spans.push({ start: span.start, end: span.end, word });
        distinct.add(hit);
        words.add(word);
        tf++;
      }
    }
    let headingHits = 0;
    for (const word of section.heading.match(/[\p{L}\p{N}\p{M}]+/gu) ?? []) {
      const hit = analyzer.analyzeWord(word).find((t) => docTerms.has(t));
      if (hit) {
        headingHits++;
        words.add(docTerms.get(hit)!);
      }
    }
    const score = distinct.size * 2 + Math.log1p(tf) + headingHits * 2;
    const headingWords = Array.from(words).filter((w) => !positions.some((p) => p.word === w));
    scored.push({ index, score, spans, words, close: densestWindow(positions, CLOSE_WINDOW_WORDS, headingWords) });
  });
  const withText = scored.filter((s) => note.sections[s.index].text.trim().length > 0 || note.sections[s.index].heading);
  let chosen = withText.filter((s) => s.score > 0).sort((a, b) => b.score - a.score);
  // A note found by its title or tags alone still shows where it starts.
  if (chosen.length === 0 && withText.length > 0) chosen = [withText[0]];
  return chosen.slice(0, max).map(({ index, score, spans, words, close }) => {
    const section = note.sections[index];
    const { snippet, highlights } = snippetAround(section.text, spans);
    return {
      heading: section.heading,
      headingPath: section.headingPath,
      level: section.level,
      line: section.line,
      start: section.start,
      end: section.end,
      snippet,
      highlights,
      matchedTerms: Array.from(words),
      closeTerms: close,
      score: Math.round(score * 1000) / 1000,
    };
  });
}

/**
 * Chinese and Japanese runs have no spaces, so a "word" can be a whole sentence: mark only the
 * character pairs (the bigrams the analyser indexes) that matched, joined where they overlap.
 */
function cjkMatchSpans(span: WordSpan, docTerms: Map<string, string>): MatchSpan[] {
  const chars = Array.from(span.word);
  const out: MatchSpan[] = [];
  let offset = span.start;
  for (let i = 0; i < chars.length; i++) {
    const pair = i + 1 < chars.length ? chars[i] + chars[i + 1] : "";
    if (pair && CJK_CHAR.test(chars[i]) && CJK_CHAR.test(chars[i + 1]) && docTerms.has(pair)) {
      const last = out[out.length - 1];
      if (last && last.end > offset) last.end = offset + pair.length;
      else out.push({ start: offset, end: offset + pair.length, word: docTerms.get(pair) });
    }
    offset += chars[i].length;
  }
  return out;
}

/**
 * The start of every matched term (a term is a stem, a camelCase part or a bigram, so the surface
 * word contains its first few letters). A section containing none of them cannot match, and is
 * skipped without analysing its words: long changelogs have hundreds of such sections.
 */
function termClues(docTerms: Map<string, string>): string[] {
  return Array.from(new Set(Array.from(docTerms.keys(), (t) => t.slice(0, Math.min(4, Math.max(1, t.length - 1))))));
}

/** A word found around a clue, with its position in words from the section's start. */
type CandidateWord = WordSpan & { index?: number };

const isWordCode = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isJoinerCode = (c: number): boolean => c === 45 /* - */ || c === 95 /* _ */ || c === 39 /* ' */;

/**
 * The words of ASCII `text` that contain a clue, found with `indexOf` instead of tokenising the
 * whole text, each with its word position (for the closeness window). Words are delimited as the
 * analyser delimits them: letters and digits, joined by single - _ '.
 */
export function wordsAtClues(text: string, clues: string[]): CandidateWord[] {
  const lower = text.toLowerCase();
  const starts = new Map<number, number>();
  for (const clue of clues) {
    // A clue is letters and digits, so every match before the end of the word found last is in that
    // word: walked back to its start from each of them, a 100,000-letter word took 54 s.
    let wordEnd = 0;
    for (let i = lower.indexOf(clue); i !== -1; i = lower.indexOf(clue, Math.max(i + 1, wordEnd))) {
      let s = i;
      for (;;) {
        if (s > 0 && isWordCode(text.charCodeAt(s - 1))) s--;
        else if (s > 1 && isJoinerCode(text.charCodeAt(s - 1)) && isWordCode(text.charCodeAt(s - 2))) s -= 2;
        else break;
      }
      const known = starts.get(s);
      if (known !== undefined) {
        wordEnd = known;
        continue;
      }
      let e = i + clue.length;
      for (;;) {
        if (e < text.length && isWordCode(text.charCodeAt(e))) e++;
        else if (e + 1 < text.length && isJoinerCode(text.charCodeAt(e)) && isWordCode(text.charCodeAt(e + 1))) e += 2;
        else break;
      }
      starts.set(s, e);
      wordEnd = e;
    }
  }
  const sorted = Array.from(starts).sort((a, b) => a[0] - b[0]);
  // Word positions: count the word starts before each candidate in one pass over the text.
  const out: CandidateWord[] = [];
  let words = 0;
  let inWord = false;
  let at = 0;
  for (const [start, end] of sorted) {
    for (; at < start; at++) {
      const word = isWordCode(text.charCodeAt(at));
      if (word && !inWord) words++;
      inWord = word;
    }
    out.push({ word: text.slice(start, end), start, end, index: words + 1 });
  }
  return out;
}

function mayHoldTerms(heading: string, text: string, clues: string[]): boolean {
  // Folded accents and case-changing scripts could hide a clue from a plain substring test.
  if (hasNonAscii(text) || hasNonAscii(heading)) return true;
  const lower = `${heading}\n${text}`.toLowerCase();
  return clues.some((clue) => lower.includes(clue));
}

/** Words that answer a question together sit within this many words of each other. */
export const CLOSE_WINDOW_WORDS = 40;

/**
 * The most distinct query words inside any window of `width` consecutive words, plus words of the
 * heading (a heading frames everything under it).
 */
function densestWindow(positions: { at: number; word: string }[], width: number, headingWords: string[]): string[] {
  let best = new Set<string>();
  let j = 0;
  const counts = new Map<string, number>();
  for (let i = 0; i < positions.length; i++) {
    while (j < positions.length && positions[j].at < positions[i].at + width) {
      counts.set(positions[j].word, (counts.get(positions[j].word) ?? 0) + 1);
      j++;
    }
    if (counts.size > best.size) best = new Set(counts.keys());
    const w = positions[i].word;
    const left = (counts.get(w) ?? 1) - 1;
    if (left === 0) counts.delete(w);
    else counts.set(w, left);
  }
  for (const w of headingWords) best.add(w);
  return Array.from(best);
}

/**
 * The window of `text` (about SNIPPET_CHARS long) showing the most distinct query words, then holding
 * the most `spans`, with offsets re-based.
 * Each run of whitespace becomes one character: a line break where it holds a blank line (a shown
 * note's blocks end there, `shown-notes.ts`), so a quote can stop where a paragraph, an item, a
 * table row or a code block does; a space otherwise.
 */
export function snippetAround(text: string, spans: readonly MatchSpan[], size = SNIPPET_CHARS): { snippet: string; highlights: Highlight[] } {
  const clean = text.replace(/\s+/g, shownRun);
  // Collapsing whitespace shifts offsets; recompute spans on the collapsed text when needed.
  const spansClean = clean.length === text.length ? spans : remapSpans(text, spans);
  if (clean.length <= size) {
    return { snippet: clean.trim(), highlights: shift(spansClean, 0, clean.length, clean.length - clean.trimStart().length) };
  }
  const breaks = lineBreaks(clean);
  const { first, start, end, sentence } = richestWindow(clean, spansClean, size, breaks);
  // What was left out above is a line of its own when the window starts where a block or a sentence
  // does: what is shown is whole, not the end of a cut one. "…" alone says the cut fell inside a sentence,
  // or that what is shown hangs on a lead-in left out ("These are myths:" … "Garlic cures colds").
  const whole =
    sentence === null
      ? clean[start - 1] === "\n"
      : sentence.at === start && (sentence.leadIn || leadInStart(clean, lastBreak(breaks, first - 1) + 1, breaks) === null);
  const prefix = start === 0 ? "" : whole ? "…\n" : "…";
  const suffix = end < clean.length ? "…" : "";
  const snippet = prefix + clean.slice(start, end) + suffix;
  return { snippet, highlights: shift(spansClean, start, end, start - prefix.length) };
}

/** The part of a snippet's text shown for a window whose first match is at `first`. */
interface SnippetWindow {
  first: number;
  start: number;
  end: number;
  sentence: SentenceStart | null;
}

/**
 * The window that shows the most distinct query words, then holds the most matches in the `size`
 * characters from its first match (the rule before distinct words counted), the first such one. A tldr
 * page repeats its command on every example line: by matches alone the window of repeats won, and
 * the flag or setting asked about was not in it. Words are counted in what the window shows once it
 * starts at a sentence or a lead-in, which can push the last of them out. A span that does not say
 * its word counts as a word of its own.
 */
function richestWindow(clean: string, spans: readonly MatchSpan[], size: number, breaks: readonly number[]): SnippetWindow {
  const reach = Math.floor((size * 2) / 3);
  const keyOf = (k: number): string | number => spans[k].word ?? k;
  let best: { window: SnippetWindow; distinct: number; count: number } | null = null;
  // `near`: the words of the matches starting from `reach` before match i to `size` after it, a
  // bound on what its window can show; a window that cannot do better is not placed (a word repeated
  // 100,000 times in a long note places a few).
  const near = new Map<string | number, number>();
  let low = 0;
  let high = 0;
  let j = 0;
  for (let i = 0; i < spans.length; i++) {
    const at = spans[i].start;
    for (; high < spans.length && spans[high].start < at + size; high++) near.set(keyOf(high), (near.get(keyOf(high)) ?? 0) + 1);
    for (; spans[low].start < at - reach; low++) {
      const left = near.get(keyOf(low))! - 1;
      if (left === 0) near.delete(keyOf(low));
      else near.set(keyOf(low), left);
    }
    // A match longer than the window holds none, itself included.
    j = Math.max(j, i);
    while (j < spans.length && spans[j].end <= at + size) j++;
    const count = j - i;
    if (best !== null && (near.size < best.distinct || (near.size === best.distinct && count <= best.count))) continue;
    const window = windowAt(clean, at, size, breaks);
    const distinct = distinctShown(spans, window, keyOf);
    if (best === null || distinct > best.distinct || (distinct === best.distinct && count > best.count)) best = { window, distinct, count };
  }
  return best?.window ?? windowAt(clean, 0, size, breaks);
}

/** How many distinct words the matches inside `window` are. */
function distinctShown(spans: readonly MatchSpan[], window: SnippetWindow, keyOf: (k: number) => string | number): number {
  let k = firstAtOrAfter(spans, window.start);
  const words = new Set<string | number>();
  for (; k < spans.length && spans[k].start < window.end; k++) if (spans[k].end <= window.end) words.add(keyOf(k));
  return words.size;
}

/** The index of the first span starting at or after `at` (spans in order). */
function firstAtOrAfter(spans: readonly MatchSpan[], at: number): number {
  let lo = 0;
  let hi = spans.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (spans[mid].start < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The window for a first match at `first`: from where its sentence starts (or its list's lead-in) when
 * that is within reach, since a quote cut inside its sentence may have lost a "never" or a "not", and
 * the evidence brief quotes none; else from a little before it.
 */
function windowAt(clean: string, first: number, size: number, breaks: readonly number[]): SnippetWindow {
  const sentence = sentenceStart(clean, first, Math.floor((size * 2) / 3), breaks);
  let start = sentence?.at ?? nearStart(clean, first, size, breaks);
  let end = Math.min(clean.length, start + size);
  if (end < clean.length) {
    const space = lastSpace(clean, end, start + size / 2);
    if (space !== -1) end = space;
  }
  // Never end on the gap a hidden block leaves ("\n\n"): the text shown ends where its last block does.
  while (end > start && clean[end - 1] === "\n") end--;
  // Text without spaces (Japanese, a row of emoji) is cut where the window ends: never inside a
  // character written as two UTF-16 units, which would show as "�" and is no valid UTF-8 in JSON.
  if (start > 0 && isLowSurrogate(clean.charCodeAt(start))) start++;
  if (end < clean.length && isLowSurrogate(clean.charCodeAt(end))) end--;
  return { first, start, end, sentence };
}

/**
 * A little before the first match at `at`, on a word boundary, or where the match's block starts: the
 * end of a code block or a paragraph before it is only noise.
 */
function nearStart(clean: string, at: number, size: number, breaks: readonly number[]): number {
  const start = Math.max(0, at - Math.floor(size / 5));
  const blockStart = lastBreak(breaks, at) + 1;
  if (blockStart > start) return blockStart;
  if (start === 0) return 0;
  const space = nextSpace(clean, start, at);
  return space !== -1 ? space + 1 : start;
}

/** Where a snippet's window starts when that is a sentence's start or a lead-in's (`leadIn`). */
interface SentenceStart {
  at: number;
  leadIn: boolean;
}

/**
 * Where the sentence holding `at` starts, in `clean` (blocks apart by one line break), when that is no
 * more than `reach` characters before it; or where the lead-in its block hangs on starts ("Never do
 * this:" over the items, the items between it and this one ending with no stop), within the same
 * reach. Null when the sentence starts further back. A block that hangs on a lead-in out of reach is
 * no whole statement: shown without it, "Garlic cures colds" says the opposite of the note.
 */
function sentenceStart(clean: string, at: number, reach: number, breaks: readonly number[]): SentenceStart | null {
  const floor = at - reach;
  const blockStart = lastBreak(breaks, at - 1) + 1;
  const from = Math.max(blockStart, floor);
  // With the match's first character: a sentence that starts with the match ends the one before right there.
  // Sentences end as the evidence brief reads them (one rule), so it quotes the one the window starts at.
  const sentence = sentenceStarts(clean.slice(from, at + 1)).at(-1);
  if (sentence === undefined && blockStart < floor) return null;
  const leadIn = leadInStart(clean, blockStart, breaks, floor);
  if (leadIn !== null) return { at: leadIn, leadIn: true };
  return { at: sentence === undefined ? blockStart : from + sentence, leadIn: false };
}

/**
 * The start of the lead-in (a block ending with ":") the block at `blockStart` hangs on, over items
 * above it that end with no stop, however far back (to `floor`: no further); null when a block that
 * ends as a sentence does, or the gap a hidden block leaves (an image was the lead-in's object), comes first.
 */
function leadInStart(clean: string, blockStart: number, breaks: readonly number[], floor = 0): number | null {
  for (let start = blockStart; start > 0; ) {
    const above = lastBreak(breaks, start - 2) + 1;
    if (above < floor) return null;
    const block = clean.slice(above, start - 1).trimEnd();
    if (block.endsWith(":")) return above;
    if (ENDS_WITH_STOP.test(block) || block === "") return null;
    start = above;
  }
  return null;
}

/** Where the line breaks of a snippet's text are, in order: a block's start is found without reading back through a long one. */
function lineBreaks(clean: string): number[] {
  const out: number[] = [];
  for (let i = clean.indexOf("\n"); i !== -1; i = clean.indexOf("\n", i + 1)) out.push(i);
  return out;
}

/** `clean.lastIndexOf("\n", from)`, found among its line breaks. */
function lastBreak(breaks: readonly number[], from: number): number {
  const at = Math.max(0, from);
  let lo = 0;
  let hi = breaks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (breaks[mid] <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? -1 : breaks[lo - 1];
}

/**
 * A run of whitespace as a snippet shows it: two line breaks where a hidden block stood between two
 * blocks (`block-text.ts`), one where a block ends, else a space.
 */
function shownRun(run: string): string {
  return HIDDEN_BLOCK_GAP.test(run) ? "\n\n" : BLOCK_BREAK.test(run) ? "\n" : " ";
}

/** A run holding three blank lines: the empty block `block-text.ts` leaves where a block showing no words (an image) stood. */
const HIDDEN_BLOCK_GAP = /(?:\n[^\S\n]*){4}/;

/** A run of whitespace holding a blank line: where one block of a shown note ends and the next begins. */
const BLOCK_BREAK = /\n[^\S\n]*\n/;

/** Where the first space or line break at or after `from` and before `to` is, or -1. */
function nextSpace(text: string, from: number, to: number): number {
  for (let i = from; i < Math.min(to, text.length); i++) if (text[i] === " " || text[i] === "\n") return i;
  return -1;
}

/** Where the last space or line break at or before `from` and after `above` is, or -1. */
function lastSpace(text: string, from: number, above: number): number {
  for (let i = Math.min(from, text.length - 1); i > above; i--) if (text[i] === " " || text[i] === "\n") return i;
  return -1;
}

/** The second half of a character written as two UTF-16 units (an emoji, a rare CJK character). */
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Spans inside [from, to), moved so that `base` becomes offset 0. */
function shift(spans: readonly MatchSpan[], from: number, to: number, base: number): Highlight[] {
  const out: Highlight[] = [];
  for (const s of spans) {
    if (s.start >= from && s.end <= to) out.push([s.start - base, s.end - base]);
  }
  return out;
}

function remapSpans(text: string, spans: readonly MatchSpan[]): MatchSpan[] {
  // Map each original offset to its offset after each whitespace run became what `shownRun` makes of it.
  const map = new Int32Array(text.length + 1);
  let out = 0;
  let at = 0;
  for (const run of text.matchAll(/\s+/g)) {
    for (; at < run.index; at++) map[at] = out++;
    map[at] = out;
    out += shownRun(run[0]).length;
    for (at++; at < run.index + run[0].length; at++) map[at] = out;
  }
  for (; at < text.length; at++) map[at] = out++;
  map[text.length] = out;
  return spans.map((s) => ({ ...s, start: map[s.start], end: map[s.end] }));
}
