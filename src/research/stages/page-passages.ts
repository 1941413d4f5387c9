// A read page cut into passages, and the ones that best answer the question kept. Passages follow
// the page's own structure: a heading always starts a new one (and names it: its heading path),
// paragraphs are joined until a passage has about 100 words and never more than 300, and a
// longer paragraph is split between sentences. Each passage is an exact slice of the page's
// extracted text, with its offsets, so a citation can point at it.
//
// Ranking uses the index's own analyser (index/tokenize.ts: folding, compounds, CJK bigrams,
// stemming), so a page passage matches the question's words exactly as a note section would:
// BM25 over the page's passages, required words weighing double, earlier-question words half,
// times how much of the question the passage covers, plus a bonus per quoted phrase it holds.
import type { QueryPlan } from "../../evidence/research-pack";
import { createAnalyzer, type Analyzer } from "../../index/tokenize";
import { FenceReader } from "../../text/code-fences";
import { cutText } from "../../text/cut-text";
import { countWords } from "../../text/word-count";

export interface PagePassage {
  text: string;
  /** [start, end) UTF-16 offsets into the page's extracted text. */
  start: number;
  end: number;
  /** The headings above it, outermost first. */
  heading_path: string[];
  words: number;
  /** Position on the page, from 0. */
  index: number;
}

export interface ScoredPassage extends PagePassage {
  score: number;
  /** True when the passage was cut to fit the budget. */
  cut?: boolean;
}

/** Passage lengths in words: joined up to `min`, never past `max`. */
export const PASSAGE_WORDS = { min: 100, max: 300 } as const;

/** A passage shorter than this (characters) is not worth cutting one down to. */
const MIN_CUT_CHARS = 200;

/**
 * Characters of a heading kept in a passage's heading path. The path rides with every passage under
 * it — into the prompt, the trace note and `--json` — outside the budget its text is held to: a page
 * whose one heading was 210,000 characters long put it beside each kept passage (630,000 characters
 * for 2,400 of text) and had it analysed again for each of its 241 passages (2.6 s of a blocked run).
 */
export const MAX_HEADING_CHARS = 120;

interface Block {
  start: number;
  end: number;
  words: number;
  heading?: { level: number; text: string };
}

export function splitPassages(text: string): PagePassage[] {
  const passages: Omit<PagePassage, "index">[] = [];
  const headings: { level: number; text: string }[] = [];
  let current: Block[] = [];
  const flush = () => {
    if (current.length > 0) passages.push(passageOf(text, current, headings));
    current = [];
  };
  for (const block of blocksOf(text)) {
    if (block.heading) {
      flush();
      while (headings.length > 0 && headings[headings.length - 1].level >= block.heading.level) headings.pop();
      headings.push(block.heading);
    } else if (block.words > PASSAGE_WORDS.max) {
      flush();
      for (const piece of sentencePieces(text, block)) passages.push(passageOf(text, [piece], headings));
    } else {
      if (wordsOf(current) + block.words > PASSAGE_WORDS.max) flush();
      current.push(block);
      if (wordsOf(current) >= PASSAGE_WORDS.min) flush();
    }
  }
  flush();
  return passages.map((p, index) => ({ ...p, index }));
}

function wordsOf(blocks: Block[]): number {
  return blocks.reduce((sum, b) => sum + b.words, 0);
}

function passageOf(text: string, blocks: Block[], headings: { text: string }[]): Omit<PagePassage, "index"> {
  const start = blocks[0].start;
  const end = blocks[blocks.length - 1].end;
  return { text: text.slice(start, end), start, end, heading_path: headings.map((h) => h.text), words: wordsOf(blocks) };
}

/** Paragraphs, lists, tables and fenced code (kept whole), and headings, with their offsets. */
function blocksOf(text: string): Block[] {
  const blocks: Block[] = [];
  let start = -1;
  let end = 0;
  const fences = new FenceReader();
  const flush = () => {
    if (start >= 0) blocks.push({ start, end, words: countWords(text.slice(start, end)) });
    start = -1;
  };
  for (const line of text.matchAll(/[^\n]*(?:\n|$)/g)) {
    if (line[0] === "") break;
    const lineStart = line.index;
    const content = line[0].replace(/\r?\n$/, "");
    const inFence = fences.read(content) !== "outside";
    const heading = inFence ? null : atxHeading(content);
    if (heading) {
      flush();
      blocks.push({ start: lineStart, end: lineStart + content.length, words: 0, heading });
    } else if (!inFence && content.trim() === "") {
      flush();
    } else {
      if (start < 0) start = lineStart;
      end = lineStart + content.length;
    }
  }
  flush();
  return blocks;
}

/** A paragraph over `max` words, split between sentences (or, without any, between words). */
function sentencePieces(text: string, block: Block): Block[] {
  const body = text.slice(block.start, block.end);
  const pieces: Block[] = [];
  let from = 0;
  let words = 0;
  for (const unit of body.matchAll(/[^.!?。！？]*(?:[.!?。！？]+|$)\s*/gu)) {
    if (unit[0] === "") continue;
    const unitWords = countWords(unit[0]);
    if (words > 0 && words + unitWords > PASSAGE_WORDS.max) {
      pieces.push({ start: block.start + from, end: block.start + unit.index, words });
      from = unit.index;
      words = 0;
    }
    words += unitWords;
  }
  if (words > 0) pieces.push({ start: block.start + from, end: block.end, words });
  return pieces.flatMap((p) => (p.words > PASSAGE_WORDS.max ? wordPieces(text, p) : [trimmed(text, p)]));
}

/** A run of text with no sentence ends, in pieces of `max` words. */
function wordPieces(text: string, block: Block): Block[] {
  const pieces: Block[] = [];
  const spans = [...text.slice(block.start, block.end).matchAll(/\S+/g)];
  for (let i = 0; i < spans.length; i += PASSAGE_WORDS.max) {
    const group = spans.slice(i, i + PASSAGE_WORDS.max);
    const last = group[group.length - 1];
    pieces.push({ start: block.start + group[0].index, end: block.start + last.index + last[0].length, words: group.length });
  }
  return pieces;
}

function trimmed(text: string, block: Block): Block {
  let end = block.end;
  while (end > block.start && /\s/.test(text[end - 1])) end--;
  return { ...block, end };
}

// ── ranking ────────────────────────────────────────────────────────────────────────────────

const BM25 = { k1: 1.2, b: 0.75 } as const;
const PHRASE_BONUS = 2;

/** The question's terms as the index analyses them, with their weights. */
export function questionTerms(plan: QueryPlan, analyzer: Analyzer): Map<string, number> {
  const weights = new Map<string, number>();
  const add = (words: string[], weight: number) => {
    for (const term of analyzer.terms(words.join(" "))) weights.set(term, Math.max(weights.get(term) ?? 0, weight));
  };
  add(plan.context_terms, 0.5);
  add(plan.terms, 1);
  add(plan.required_terms, 2);
  return weights;
}

export function rankPassages(passages: PagePassage[], plan: QueryPlan, analyzer: Analyzer): ScoredPassage[] {
  const weights = questionTerms(plan, analyzer);
  const totalWeight = [...weights.values()].reduce((a, b) => a + b, 0);
  const counted = passages.map((p) => termCounts(`${p.heading_path.join(" ")} ${p.text}`, analyzer));
  const avgLength = counted.reduce((sum, c) => sum + c.length, 0) / Math.max(1, counted.length);
  const df = new Map<string, number>();
  for (const c of counted) for (const term of weights.keys()) if (c.tf.has(term)) df.set(term, (df.get(term) ?? 0) + 1);

  return passages.map((p, i) => {
    const { tf, length } = counted[i];
    let sum = 0;
    let covered = 0;
    for (const [term, weight] of weights) {
      const f = tf.get(term) ?? 0;
      if (f === 0) continue;
      const n = df.get(term) ?? 0;
      const idf = Math.log(1 + (passages.length - n + 0.5) / (n + 0.5));
      sum += weight * idf * ((f * (BM25.k1 + 1)) / (f + BM25.k1 * (1 - BM25.b + (BM25.b * length) / Math.max(1, avgLength))));
      covered += weight;
    }
    const lower = p.text.toLowerCase();
    const phrases = plan.phrases.filter((phrase) => lower.includes(phrase)).length;
    const coverage = totalWeight > 0 ? covered / totalWeight : 0;
    return { ...p, score: sum * (0.5 + coverage) + phrases * PHRASE_BONUS };
  });
}

function termCounts(text: string, analyzer: Analyzer): { tf: Map<string, number>; length: number } {
  const terms = analyzer.terms(text);
  const tf = new Map<string, number>();
  for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
  return { tf, length: terms.length };
}

/**
 * The best passages that fit in `budgetChars`, shown in page order. Only passages that match the
 * question are kept; when even the best one is too long for the budget, it is cut to fit.
 */
export function selectPassages(ranked: ScoredPassage[], budgetChars: number): ScoredPassage[] {
  const best = ranked.filter((p) => p.score > 0).sort((a, b) => b.score - a.score || a.index - b.index);
  const kept: ScoredPassage[] = [];
  let used = 0;
  for (const p of best) {
    if (used + p.text.length <= budgetChars) {
      kept.push(p);
      used += p.text.length;
    } else if (kept.length === 0 && budgetChars >= MIN_CUT_CHARS) {
      const text = cutText(p.text, budgetChars, { atWord: true });
      kept.push({ ...p, text, end: p.start + text.length - 1, cut: true });
      used += text.length;
    }
  }
  return kept.sort((a, b) => a.index - b.index);
}

export interface PassageChoice {
  kept: ScoredPassage[];
  /** Passages the page was cut into. */
  found: number;
}

/** The page's text → its passages, each scored against the question's words. */
export function rankPagePassages(text: string, plan: QueryPlan, options: { stemming: boolean }): ScoredPassage[] {
  return rankPassages(splitPassages(text), plan, createAnalyzer({ stemming: options.stemming }));
}

/** The page's text → its passages → the best that fit, in page order. */
export function choosePassages(text: string, plan: QueryPlan, budgetChars: number, options: { stemming: boolean }): PassageChoice {
  const ranked = rankPagePassages(text, plan, options);
  return { kept: selectPassages(ranked, budgetChars), found: ranked.length };
}

/** Reciprocal Rank Fusion's constant, as the search dial uses it (index/dial/rrf.ts). */
const RRF_K = 60;

/**
 * The words' ranking and the meaning's (each passage's similarity to the question, by the search
 * dial's embedding model) fused by Reciprocal Rank Fusion. The words' lane holds the passages that
 * share a word with the question; the meaning's lane its best `max(3, that many)`, so a passage
 * that answers in other words can be kept, and a page's every passage cannot. A passage in neither
 * lane scores 0 and is not kept. `similarity[i]` belongs to `ranked[i]` (NaN: not embedded).
 */
export function fuseBySimilarity(ranked: ScoredPassage[], similarity: readonly number[]): ScoredPassage[] {
  const byWords = ranked.map((p, i) => i).filter((i) => ranked[i].score > 0).sort((a, b) => ranked[b].score - ranked[a].score || a - b);
  const depth = Math.max(3, byWords.length);
  const byMeaning = ranked
    .map((p, i) => i)
    .filter((i) => Number.isFinite(similarity[i]))
    .sort((a, b) => similarity[b] - similarity[a] || a - b)
    .slice(0, depth);
  const fused = new Array<number>(ranked.length).fill(0);
  byWords.forEach((i, rank) => (fused[i] += 1 / (RRF_K + rank + 1)));
  byMeaning.forEach((i, rank) => (fused[i] += 1 / (RRF_K + rank + 1)));
  return ranked.map((p, i) => ({ ...p, score: fused[i] }));
}

/**
 * A line's ATX heading (`## Text ##`), or null. Read in code after one bounded pattern: a pattern
 * that also trims the closing hashes and spaces backtracks over a run of spaces inside the heading,
 * and a page can hold thousands (25 kB of em spaces took 16 s).
 */
function atxHeading(line: string): { level: number; text: string } | null {
  const open = /^\s{0,3}(#{1,6})\s/.exec(line);
  if (!open) return null;
  let text = line.slice(open[0].length).trim();
  // A closing run of hashes goes when a space stands before it (CommonMark): "C#" stays "C#".
  let end = text.length;
  while (end > 0 && text[end - 1] === "#") end--;
  if (end === 0) text = "";
  else if (end < text.length && /\s/.test(text[end - 1])) text = text.slice(0, end).trimEnd();
  return { level: open[1].length, text: cutText(text, MAX_HEADING_CHARS, { atWord: true }) };
}
