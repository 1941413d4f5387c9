// Which parts of a matched note to show, and the snippet of each: sections are scored by the
// matched terms they hold (a heading match counts double), and the snippet is the window of the
// section text with the most matches, cut at word boundaries, with the matches marked.
import type { Analyzer } from "./tokenize";
import { wordSpans } from "./tokenize";
import type { Highlight, ParsedNote, SectionHit } from "./types";

/** Characters in a snippet window. */
export const SNIPPET_CHARS = 240;

export function buildSectionHits(note: ParsedNote, docTerms: Set<string>, analyzer: Analyzer, max: number): SectionHit[] {
  const scored: { index: number; score: number; spans: { start: number; end: number }[] }[] = [];
  note.sections.forEach((section, index) => {
    const spans: { start: number; end: number }[] = [];
    const distinct = new Set<string>();
    let tf = 0;
    for (const span of wordSpans(section.text)) {
      const hit = analyzer.analyzeWord(span.word).find((t) => docTerms.has(t));
      if (hit) {
        spans.push({ start: span.start, end: span.end });
        distinct.add(hit);
        tf++;
      }
    }
    let headingHits = 0;
    for (const word of section.heading.match(/[\p{L}\p{N}\p{M}]+/gu) ?? []) {
      if (analyzer.analyzeWord(word).some((t) => docTerms.has(t))) headingHits++;
    }
    const score = distinct.size * 2 + Math.log1p(tf) + headingHits * 2;
    scored.push({ index, score, spans });
  });
  const withText = scored.filter((s) => note.sections[s.index].text.trim().length > 0 || note.sections[s.index].heading);
  let chosen = withText.filter((s) => s.score > 0).sort((a, b) => b.score - a.score);
  // A note found by its title or tags alone still shows where it starts.
  if (chosen.length === 0 && withText.length > 0) chosen = [withText[0]];
  return chosen.slice(0, max).map(({ index, score, spans }) => {
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
      score: Math.round(score * 1000) / 1000,
    };
  });
}

/** The window of `text` (about SNIPPET_CHARS long) holding the most `spans`, with offsets re-based. */
export function snippetAround(text: string, spans: { start: number; end: number }[], size = SNIPPET_CHARS): { snippet: string; highlights: Highlight[] } {
  const clean = text.replace(/\s+/g, " ");
  // Collapsing whitespace shifts offsets; recompute spans on the collapsed text when needed.
  const spansClean = clean.length === text.length ? spans : remapSpans(text, spans);
  if (clean.length <= size) {
    return { snippet: clean.trim(), highlights: shift(spansClean, 0, clean.length, clean.length - clean.trimStart().length) };
  }
  let bestStart = 0;
  let bestCount = -1;
  let j = 0;
  for (let i = 0; i < spansClean.length; i++) {
    while (j < spansClean.length && spansClean[j].end <= spansClean[i].start + size) j++;
    if (j - i > bestCount) {
      bestCount = j - i;
      bestStart = spansClean[i].start;
    }
  }
  // Start a little before the first match, on a word boundary.
  let start = Math.max(0, bestStart - Math.floor(size / 5));
  if (start > 0) {
    const space = clean.indexOf(" ", start);
    if (space !== -1 && space < bestStart) start = space + 1;
  }
  let end = Math.min(clean.length, start + size);
  if (end < clean.length) {
    const space = clean.lastIndexOf(" ", end);
    if (space > start + size / 2) end = space;
  }
  const prefix = start > 0 ? "…" : "";
  const suffix = end < clean.length ? "…" : "";
  const snippet = prefix + clean.slice(start, end) + suffix;
  return { snippet, highlights: shift(spansClean, start, end, start - prefix.length) };
}

/** Spans inside [from, to), moved so that `base` becomes offset 0. */
function shift(spans: { start: number; end: number }[], from: number, to: number, base: number): Highlight[] {
  const out: Highlight[] = [];
  for (const s of spans) {
    if (s.start >= from && s.end <= to) out.push([s.start - base, s.end - base]);
  }
  return out;
}

function remapSpans(text: string, spans: { start: number; end: number }[]): { start: number; end: number }[] {
  // Map each original offset to its offset after collapsing whitespace runs to one space.
  const map = new Int32Array(text.length + 1);
  let out = 0;
  let inSpace = false;
  for (let i = 0; i < text.length; i++) {
    map[i] = out;
    const isSpace = /\s/.test(text[i]);
    if (isSpace) {
      if (!inSpace) out++;
      inSpace = true;
    } else {
      out++;
      inSpace = false;
    }
  }
  map[text.length] = out;
  return spans.map((s) => ({ start: map[s.start], end: map[s.end] }));
}
