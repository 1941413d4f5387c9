// The answer when no model is configured (the default): an "evidence brief" that quotes the most
// relevant sentences of the best rows, each cited with its key. It is headed as extractive so it
// is never mistaken for a model's answer, keeps vault and outside-vault sentences apart, and says
// plainly when there is nothing. Its citations pass verifyCitations like any model answer's.
import { citationFor, type Citation, type EvidenceRow, type OutsideVaultRow, type ResearchPack } from "../../evidence/research-pack";
import { outsideVaultLabel } from "../../evidence/labels";
import { escapeMarkdownText } from "../../notes/markdown-escape";
import { webOutcomeSentence, type WebOutcome } from "../../notes/web-outcome";
import { cutText } from "../../text/cut-text";
import { oneLine } from "../../text/one-line";
import { CJK_CHAR } from "../../text/scripts";
import { countWords } from "../../text/word-count";
import { asSentence, endsAsSentence, sentencesIn } from "../../text/sentence-ends";
import { pairShare } from "./judge-coverage";
import { NUMBERED_SOURCE } from "./verify-citations";

export interface EvidenceBriefOptions {
  /** Only rows with these keys may be quoted (e.g. what the synthesis prompt admitted); default: every row. */
  admitted?: ReadonlyMap<string, Citation>;
  /** Sentences from vault notes (default 5) and from outside the vault (default 3). */
  maxVaultSentences?: number;
  maxOutsideSentences?: number;
  /** Sentences are taken from the best this-many rows of each kind (default 3), at most 2 per row. */
  rowsPerKind?: number;
  /** Longer sentences are cut (default 280 characters). */
  maxSentenceChars?: number;
  /**
   * How the run's web search went (`webOutcomeOfRun`): said, in the words of every other surface, when a
   * question about the current state has no outside row to quote. Without it (a pack from no run) the
   * brief says nothing of the web.
   */
  webOutcome?: WebOutcome;
}

export interface EvidenceBrief {
  /** Markdown text of the brief. */
  text: string;
  /** The rows it quotes, in order. */
  citations: Citation[];
  /** The rows it could have quoted: verify the brief against these. */
  admitted: Map<string, Citation>;
}

export const EVIDENCE_BRIEF_HEADING = "Evidence brief (extractive, no model)";

const SENTENCES_PER_ROW = 2;
/**
 * A property's score beside a sentence's: it names the note's bookkeeping ("references: client/space_lua.ts"),
 * so it is quoted when it alone holds the question's words ("rating: 7"), not in place of a sentence that says as much.
 */
const PROPERTY_WEIGHT = 0.5;

interface Candidate {
  row: EvidenceRow;
  rowIndex: number;
  position: number;
  text: string;
  /** A property of the note ("rating: 7"): a whole fact, however few its words. */
  property: boolean;
  /** What the block this sentence is in hangs on ("These are myths:"), quoted before it. */
  leadIn?: string;
  score: number;
  /** Other rows that say this very sentence (copies of a note): cited on its line, not quoted again. */
  alsoIn: EvidenceRow[];
  /** The sample mark its source carries, quoted with it. */
  sample?: SampleMark;
}

export function writeEvidenceBrief(pack: ResearchPack, options: EvidenceBriefOptions = {}): EvidenceBrief {
  const allowed = (row: EvidenceRow) => !options.admitted || options.admitted.has(row.source_key);
  const vaultRows = pack.evidence.filter(allowed);
  const outsideRows = pack.external_evidence.filter(allowed);
  const admitted = new Map<string, Citation>();
  for (const row of [...vaultRows, ...outsideRows]) admitted.set(row.source_key, citationFor(row));

  const lines = [`**${EVIDENCE_BRIEF_HEADING}**`];
  if (admitted.size === 0) {
    lines.push("", "The vault has no evidence on this question, so there is nothing to quote.");
    const missing = pack.judge.missing_terms.length > 0 ? pack.judge.missing_terms : pack.query_plan.required_terms;
    if (missing.length > 0) lines.push(`No note matched: ${missing.join(", ")}.`);
    return { text: lines.join("\n"), citations: [], admitted };
  }

  lines.push("", "The most relevant sentences, quoted from the evidence with their source keys. No model wrote or checked this.");
  const weights = termWeights(pack);
  const rowsPerKind = options.rowsPerKind ?? 3;
  const maxChars = options.maxSentenceChars ?? 280;
  const vaultPicks = pick(vaultRows.slice(0, rowsPerKind), weights, options.maxVaultSentences ?? 5, maxChars);
  const outsidePicks = pick(outsideRows.slice(0, rowsPerKind), weights, options.maxOutsideSentences ?? 3, maxChars);

  const answersNot = pack.judge.verdict === "no_evidence";
  if (pack.judge.verdict !== "enough_evidence" && vaultRows.length > 0) {
    const verdict = answersNot ? "The vault has no note that answers this question" : "The vault's evidence is weak here";
    lines.push("", `${verdict}: ${notACitation(asSentence(pack.judge.reason))}`);
  }
  // Notes the judge found do not answer are what the search came nearest with, never "evidence".
  lines.push("", answersNot && vaultRows.length > 0 ? "Closest vault notes (they do not answer the question):" : "Vault evidence:");
  // A note found by its name alone (empty, or a title and properties) is cited without a quote.
  const unquoted = vaultPicks.length === 0 ? vaultRows[0] : undefined;
  if (unquoted) lines.push(`- ${shownTitle(unquoted.title)}: matched, but holds no sentence to quote [${unquoted.source_key}]`);
  else if (vaultPicks.length === 0) lines.push("- No vault note matched this question.");
  for (const c of vaultPicks) lines.push(`- ${quotedFrom(c)}: “${c.text}” ${[c.row, ...c.alsoIn].map((r) => `[${r.source_key}]`).join(" ")}`);

  // A result whose text holds no sentence (a title-only hit) is cited by name, with its label, as a note is.
  const unquotedOutside = outsidePicks.length === 0 ? outsideRows[0] : undefined;
  if (outsideRows.length > 0) {
    lines.push("", "Outside vault (web results for this run, not your notes):");
    if (unquotedOutside) lines.push(outsideLine(unquotedOutside, "matched, but holds no sentence to quote"));
    for (const c of outsidePicks) if (c.row.kind === "external") lines.push(outsideLine(c.row, `“${c.text}”`));
  }

  const freshness = pack.query_plan.freshness;
  if (freshness.flagged) {
    lines.push(
      "",
      outsideRows.length > 0
        ? "This question asks about the current state: the vault's evidence ends with the notes quoted above; anything newer comes only from the outside-vault results."
        : `This question asks about the current state: the vault's evidence ends with the notes quoted above and may be out of date.${nothingFromOutside(pack, options.webOutcome)}`,
    );
  }

  const quotedRows = [...(unquoted ? [unquoted] : []), ...[...vaultPicks, ...(unquotedOutside ? [{ row: unquotedOutside, alsoIn: [] }] : []), ...outsidePicks].flatMap((c) => [c.row, ...c.alsoIn])];
  const citations = [...new Map(quotedRows.map((row) => [row.source_key, citationFor(row)])).values()];
  return { text: lines.join("\n"), citations, admitted };
}

/**
 * Why no outside-vault result is quoted: the run's web outcome in the sentence the trace note, the
 * recall note, the panel and the CLI say (notes/web-outcome.ts). The brief had words of its own, read
 * from the pack's warnings: "the outside-vault search failed: no web source answered." where the
 * trace note of the same run said "Web search failed: Hacker News answered with a server error."
 */
function nothingFromOutside(pack: ResearchPack, outcome: WebOutcome | undefined): string {
  if (!outcome) return "";
  // The synthesis prompt may leave rows out for room.
  const unquoted = pack.external_evidence.length > 0 ? " None of them is quoted here." : "";
  return ` ${webOutcomeSentence(outcome)}${unquoted}`;
}

/** An outside row's line: what it says, its key, and the label every outside row carries. */
function outsideLine(row: OutsideVaultRow, says: string): string {
  const store = row.retrieval.lanes[0]?.store ?? "ephemeral";
  return `- ${shownTitle(row.title)} (${shownTitle(row.domain)}): ${says} [${row.source_key}] — ${outsideVaultLabel(row.provider, store)}`;
}

/**
 * The best sentences (of three words or more) and properties of these rows by query-term overlap,
 * at most two per row, shown in row order. A row with no overlapping sentence can still lend its
 * first one when nothing else was found (a property when it has no other). A shorter line is never
 * quoted: what is left of embeds, "![[Daily.base]]", is a file's name, not the note's finding, and
 * the best row is then cited by name instead. A sentence already chosen is not quoted twice (two
 * sections' snippets overlap, a note was copied 3,000 times): a note saying it again is cited
 * beside it, and the place goes to another sentence.
 */
function pick(rows: EvidenceRow[], weights: Map<string, number>, max: number, maxChars: number): Candidate[] {
  if (rows.length === 0 || max <= 0) return [];
  const all = rows.flatMap((row, rowIndex) =>
    sentencesOf(row).map(({ text, property, leadIn, sample }, position): Candidate => ({ row, rowIndex, position, text, property, leadIn, sample, score: scoreSentence(text, weights) * (property ? PROPERTY_WEIGHT : 1), alsoIn: [] })),
  );
  const candidates = all.filter((c) => c.property || wordsIn(c.text) >= 3);
  const ranked = candidates
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || Number(a.property) - Number(b.property) || a.rowIndex - b.rowIndex || a.position - b.position);
  const perRow = new Map<number, number>();
  const chosen: Candidate[] = [];
  for (const c of ranked) {
    if (chosen.length >= max) break;
    const same = chosen.find((x) => x.text === c.text && x.leadIn === c.leadIn);
    // An outside line carries one source's label, so only notes share a line.
    if (same && same.row !== c.row && c.row.kind === "note" && !same.alsoIn.includes(c.row)) same.alsoIn.push(c.row);
    if (same && (same.row === c.row || c.row.kind === "note")) continue;
    const used = perRow.get(c.rowIndex) ?? 0;
    if (used >= SENTENCES_PER_ROW) continue;
    perRow.set(c.rowIndex, used + 1);
    chosen.push(c);
  }
  // Nothing shares a word with the question: the first sentence, else the first property ("cone: 6").
  const fallback = candidates.find((c) => !c.property) ?? candidates[0];
  if (chosen.length === 0 && fallback) chosen.push(fallback);
  return chosen
    .sort((a, b) => a.rowIndex - b.rowIndex || a.position - b.position)
    .map((c) => ({ ...c, text: withSampleMark(quoteable(c.leadIn === undefined ? c.text : `${c.leadIn}${c.text}`, maxChars), c.sample) }));
}

interface Sentence {
  text: string;
  property: boolean;
  leadIn?: string;
  sample?: SampleMark;
}

function sentencesOf(row: EvidenceRow): Sentence[] {
  // A model's summary of a read page is not evidence to quote: the passages it summarises are.
  const sections =
    row.kind === "note"
      ? row.sections.map((s) => blockSentences(s.text, { note: true, opening: s.heading === "" }))
      : row.content_sections.filter((s) => !(s.fetched && s.role === "external_summary")).map((s) => blockSentences(s.text, { note: false, opening: false }));
  return withSampleMarks(sections)
    .flat()
    .map((s) => ({ ...s, text: s.text.replace(LIST_ITEM, "").trim() }))
    .filter((s) => /[\p{L}\p{N}]/u.test(s.text));
}

// ── sample marks ───────────────────────────────────────────────────────────────────────────
//
// The sample responses we wrote (the demo's, the evals') say so in their own text: each snippet,
// description, abstract or page paragraph carries "(Sample snippet written for the Vault Research
// demo.)". The sentence splitter makes that mark a sentence of its own before a capital, so the
// sentence after it was quoted alone, and a reader who copied the quote copied a sample as a finding.
// A quote from a source that carries the mark carries it too; the mark is never quoted as a finding.

/** The mark our sample texts carry; its middle word names what it marks (snippet, description, page…). */
const SAMPLE_MARK = /\(Sample [\p{L} ]{1,40}? written for the Vault Research demo\.\)/u;

interface SampleMark {
  /** The mark as the source writes it. */
  text: string;
  /** It stands before the quoted sentence (else after it). */
  before: boolean;
  /** Nothing of the source stands between the mark and the quote. */
  adjacent: boolean;
}

/**
 * Each section's sentences, the marks taken out of them: a sentence that was only a mark goes, and
 * every other sentence of a row that carries one is given the mark nearest it in its section (the one
 * it held itself, else the closest before it, else after it), or the row's first.
 */
function withSampleMarks(sections: Sentence[][]): Sentence[][] {
  const split = sections.map((sentences) => sentences.map(splitMark));
  const rowMark = split.flat().find((p) => p.mark !== undefined)?.mark;
  if (rowMark === undefined) return sections;
  return split.map((parts) =>
    parts.flatMap((part, i): Sentence[] => {
      if (part.markOnly) return [];
      const sample = part.own ?? nearestMark(parts, i) ?? { text: rowMark, before: true, adjacent: false };
      return [{ ...part.sentence, sample }];
    }),
  );
}

interface MarkedSentence {
  /** The sentence less its mark. */
  sentence: Sentence;
  mark?: string;
  /** The sentence held the mark and text of its own (the splitter keeps "(Sample …) automerge 3.1.0" one sentence). */
  own?: SampleMark;
  /** The sentence was the mark alone. */
  markOnly: boolean;
}

function splitMark(sentence: Sentence): MarkedSentence {
  const whole = `${sentence.leadIn ?? ""}${sentence.text}`;
  const found = SAMPLE_MARK.exec(whole);
  if (!found) return { sentence, markOnly: false };
  const text = withoutMark(sentence.text);
  const leadIn = sentence.leadIn === undefined ? "" : withoutMark(sentence.leadIn);
  const kept: Sentence = { ...sentence, text, leadIn: /[\p{L}\p{N}]/u.test(leadIn) ? leadIn : undefined };
  if (!/[\p{L}\p{N}]/u.test(`${leadIn}${text}`)) return { sentence: kept, mark: found[0], markOnly: true };
  return { sentence: kept, mark: found[0], own: { text: found[0], before: found.index < whole.length / 2, adjacent: true }, markOnly: false };
}

function withoutMark(text: string): string {
  const found = SAMPLE_MARK.exec(text);
  if (!found) return text;
  const head = text.slice(0, found.index).trimEnd();
  const tail = text.slice(found.index + found[0].length).trimStart();
  return head !== "" && tail !== "" ? `${head} ${tail}` : `${head}${tail}`;
}

/** The closest mark before the sentence in its section, else after it. */
function nearestMark(parts: MarkedSentence[], i: number): SampleMark | undefined {
  for (let j = i - 1; j >= 0; j--) {
    const mark = parts[j].mark;
    if (mark !== undefined) return { text: mark, before: true, adjacent: j === i - 1 && parts[j].markOnly };
  }
  for (let j = i + 1; j < parts.length; j++) {
    const mark = parts[j].mark;
    if (mark !== undefined) return { text: mark, before: false, adjacent: j === i + 1 && parts[j].markOnly };
  }
  return undefined;
}

/** A quote with its source's sample mark where the mark stood, "…" between them when the source had more there. */
function withSampleMark(quote: string, sample: SampleMark | undefined): string {
  if (!sample) return quote;
  if (sample.before) return `${sample.text}${sample.adjacent || quote.startsWith("…") ? " " : " … "}${quote}`;
  return `${quote}${sample.adjacent || quote.endsWith("…") ? " " : " … "}${sample.text}`;
}

/** A block that shows its list marker (a web page's passage): an item, whatever it ends with. */
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;
/** A lead-in longer than this is cut (at a word, its start kept), so the quote still reaches the item. */
const MAX_LEAD_IN_CHARS = 120;

/**
 * The sentences of a text, block by block: a section's text has a line break where a paragraph, an
 * item, a table row or a code block ends (index/section-hits.ts), and no quote runs across one.
 *
 * A code block, shown as one code span (whole, or cut by the snippet at either end), is no sentence:
 * a command glued to the prose after it, or an embed shown as an example, is not what the note says.
 *
 * A block that ends with a colon ("These are myths that do not work:") is what the blocks after it
 * hang on: the next one, and those after it that are items (a marker, or no stop at the end), are
 * quoted with it — "garlic cures colds" alone said the opposite of the note.
 *
 * A note's snippet that begins inside a sentence ("…put a seasoned cast iron skillet into the
 * dishwasher.") lost the sentence's start, and with it perhaps a "never", a "not" or a "critics claim
 * that": that first piece is not quoted. (An outside row's text is the provider's, cut or not.) One
 * that begins with "…" on a line of its own begins at a whole sentence, which is quoted.
 *
 * A note's block of properties ("type: Command; name: Page embed;", a Logseq block's `key::` lines)
 * is read as properties wherever it stands (`notePieces`): never a sentence, nor hung on a lead-in.
 */
function blockSentences(text: string, from: { note: boolean; opening: boolean }): Sentence[] {
  const out: Sentence[] = [];
  let leadIn: string | undefined;
  let next = false; // whether this block comes right after its lead-in
  // "…" alone on the first line: the window starts at a whole sentence or block, and no cut is in the text.
  const blocks = text.split("\n").map((raw) => raw.trim());
  const wholeStart = blocks[0] === "…";
  blocks.forEach((block, index) => {
    const first = index === (wholeStart ? 1 : 0);
    const pieces = from.note ? notePieces(block, { first, opening: from.opening && first }) : { properties: [], prose: block };
    if (pieces.properties.length > 0) {
      out.push(...pieces.properties.map((text) => ({ text, property: true })));
      // The properties are what a lead-in right above them introduced: the block after them is not its object.
      next = false;
      if (pieces.prose === "") return;
    }
    const prose = pieces.prose;
    const sentences = isCodeBlock(prose) ? [] : struckWhole(sentencesIn(prose));
    const last = sentences.at(-1)?.trim() ?? "";
    // A lead-in hangs on none before it: tldr's items ("Extract files from an archive:") follow each other.
    const opens = last.endsWith(":") && /[\p{L}\p{N}]/u.test(last);
    // A block the snippet cut at its end may have ended as a sentence, or as a lead-in.
    const item = LIST_ITEM.test(prose) || !endsAsSentence(prose);
    const governed = leadIn !== undefined && !opens && (next || item);
    const prefix = governed ? `${leadIn}${next ? " " : " … "}` : undefined;
    const cutStart = from.note && first && cutInSentence(prose) ? 1 : 0;
    for (const sentence of sentences.slice(cutStart)) out.push({ text: sentence, property: false, leadIn: prefix });
    if (opens) {
      leadIn = cutText(last, MAX_LEAD_IN_CHARS, { atWord: true });
      next = true;
    } else if (governed) next = false;
    else leadIn = undefined;
  });
  return out;
}

/**
 * A block's sentences with the struck-out text (`~~…~~`) each holds marked as struck out, when a
 * sentence ends inside it or begins in it: "It works.~~ Use acid." would pass off as the note's what
 * the note withdrew.
 */
function struckWhole(sentences: string[]): string[] {
  let struck = false;
  return sentences.map((sentence) => {
    const opened = struck;
    struck = (sentence.match(/~~/g)?.length ?? 0) % 2 === 1 ? !struck : struck;
    return `${opened ? "~~" : ""}${sentence}${struck ? "~~" : ""}`;
  });
}

/**
 * Whether a block the snippet's window cut at its start ("…") begins inside a sentence: not when
 * the cut fell in a code span and a capital starts what follows it ("…kubeconfig}}` Scan a…").
 */
function cutInSentence(block: string): boolean {
  if (!block.startsWith("…")) return false;
  const span = CUT_CODE_START.exec(block);
  return span === null || !/^\s+\p{Lu}/u.test(block.slice(span[0].length));
}

/** One code span from end to end, or its start or end where the snippet's window cut it ("…relay.js`"). */
function isCodeBlock(block: string): boolean {
  const cutBefore = block.startsWith("…");
  const cutAfter = block.endsWith("…");
  const body = block.slice(cutBefore ? 1 : 0, cutAfter ? -1 : undefined);
  const opens = /^(`+)(?!`)/.exec(body)?.[1];
  const closes = /(?<!`)(`+)$/.exec(body)?.[1];
  const run = opens ?? closes;
  if (!run) return false;
  const runs = (body.match(/`+/g) ?? []).filter((r) => r === run).length;
  if (opens && closes && opens === closes && runs === 2) return true;
  return runs === 1 && (opens ? cutAfter : cutBefore);
}

/**
 * A property as the index shows it (index/frontmatter.ts `propertyLine`; a Logseq block's `key::`
 * lines too, index/shown-notes.ts): "name: value;". The name holds no colon, semicolon or sentence stop.
 */
const PROPERTY_LINE = /^([^\s:;…][^:;.!?]{0,59}: [^;]*);(?:\s+|$)/u;
/** A snippet that begins inside the properties: the end of a value, then a whole property. */
const CUT_VALUE = /^…[^;]*;\s+(?=[^\s:;…][^:;.!?]{0,59}: [^;]*;(?:\s|$))/u;
/** The last property of a block the snippet cut inside its value: "description: Finds blocks by…". */
const CUT_PROPERTY = /^[^\s:;…][^:;.!?]{0,59}: [^;]*…$/u;

/**
 * A note's block, its properties apart: each a piece of its own (not split at its full stops: a value
 * is one fact), without the semicolon the index put there to keep properties apart. A block is
 * properties only when it holds nothing else ("Note: the runtime starts first; then plugins load." is
 * prose), but a note's opening block may run its properties into the first sentence ("description: …;
 * references: a.md; Space Lua is…"). In the first block, the end of a value the snippet cut is no
 * sentence at all.
 */
function notePieces(block: string, at: { first: boolean; opening: boolean }): { properties: string[]; prose: string } {
  const properties: string[] = [];
  let rest = at.first ? block.replace(CUT_VALUE, "") : block;
  for (let line = PROPERTY_LINE.exec(rest); line; line = PROPERTY_LINE.exec(rest)) {
    properties.push(line[1]);
    rest = rest.slice(line[0].length);
  }
  if (properties.length > 0 && CUT_PROPERTY.test(rest)) return { properties: [...properties, rest], prose: "" };
  if (rest === "" || at.opening) return { properties, prose: rest };
  return { properties: [], prose: block };
}

/** Chinese and Japanese put no spaces between words: there each character counts as one. */
function wordsIn(sentence: string): number {
  return CJK_CHAR.test(sentence) ? countWords(sentence) : sentence.split(/\s+/).length;
}

/** Required terms weigh double, phrases triple, context terms from earlier questions half. */
function termWeights(pack: ResearchPack): Map<string, number> {
  const plan = pack.query_plan;
  const weights = new Map<string, number>();
  for (const term of plan.context_terms) weights.set(stem(term), 0.5);
  for (const term of plan.terms) weights.set(stem(term), 1);
  for (const term of plan.required_terms) weights.set(stem(term), 2);
  return weights;
}

/** A Chinese or Japanese term (a whole run of the question, "酵头多久喂一次") counts by the share of its character pairs the sentence holds. */
function scoreSentence(sentence: string, weights: Map<string, number>): number {
  const words = new Set((sentence.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}'.+-]*/gu) ?? []).map(stem));
  let score = 0;
  for (const [term, weight] of weights) {
    if (words.has(term)) score += weight;
    else score += weight * (pairShare(term, sentence) ?? 0);
  }
  return score;
}

/** A crude English stem, enough to let "notes" meet "note" and "syncing" meet "sync". */
function stem(word: string): string {
  const w = word.toLowerCase().replace(/'s$/, "").replace(/[.]+$/, "");
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.length > 5 && w.endsWith("ing")) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith("ed")) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith("es") && /(?:ss|sh|ch|x|z)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) return w.slice(0, -1);
  return w;
}

/**
 * A title or host name as the brief shows it: one line, no citation, through the one escaper, so a
 * result titled `![p](https://evil.example/pixel.png)` is those characters and no image, wherever the
 * brief is shown or written. (Quoted sentences keep their syntax as text; the answer's rule,
 * notes/inert-answer.ts, makes it inert where the brief is rendered or written.)
 */
function shownTitle(text: string): string {
  return escapeMarkdownText(notACitation(oneLine(text)));
}

/**
 * What the brief quotes or names must not pose as a citation: a web page titled "[src:…]" made
 * every brief that showed it fail verification, or cite a note it never quoted.
 */
function notACitation(text: string): string {
  // A note's own `[S1]` or `[ref 3]` too: the check fails a source cited by number.
  return text.replace(/\[(?=\s*(?:src|ext):)/gi, "(").replace(NUMBERED_SOURCE, (bracket) => `(${bracket.slice(1, -1)})`);
}

/** Whose sentence a vault line quotes: the note's title, and how many notes of other titles say it too. */
function quotedFrom(c: Candidate): string {
  const others = c.alsoIn.filter((r) => r.title !== c.row.title).length;
  return others === 0 ? shownTitle(c.row.title) : `${shownTitle(c.row.title)} and ${others} other note${others === 1 ? "" : "s"}`;
}

/** Quoted text must not look like a citation, nor run on forever, nor turn its code inside out. */
function quoteable(sentence: string, maxChars: number): string {
  const flat = notACitation(oneLine(sentence)).replace(/[“”]/g, '"');
  return wholeStrikes(wholeCodeSpans(cutText(flat, maxChars, { atWord: true })));
}

/** A quote cut inside struck-out text keeps it marked: its `~~` is closed before the trailing "…". */
function wholeStrikes(quote: string): string {
  const marks = quote.match(/~~/g)?.length ?? 0;
  return marks % 2 === 1 && quote.endsWith("…") ? `${quote.slice(0, -1)}~~…` : quote;
}

/** A quote that begins after a cut with the end of a code span: "…kubeconfig}}` Specify". */
const CUT_CODE_START = /^…[^`]*[^\s`]`(?=[\s\p{P}]|$)/u;

/**
 * A quote cut inside a code span, at its start (the snippet began in one) or its end, has one
 * backtick without its pair. Rendered, that one paired with the next: the prose between became
 * code and the commands plain text, `[[…]]` and `#…` in them read as links and tags. The cut span
 * is opened again after the leading "…", or closed before the trailing one.
 */
function wholeCodeSpans(quote: string): string {
  // Runs of one backtick open and close the spans a note writes.
  const lone = (quote.match(/`+/g) ?? []).filter((run) => run.length === 1).length;
  if (lone % 2 === 0) return quote;
  if (CUT_CODE_START.test(quote)) return `…\`${quote.slice(1)}`;
  if (quote.endsWith("…")) return `${quote.slice(0, -1)}\`…`;
  return quote;
}
