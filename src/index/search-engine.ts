// The MiniSearch engine under the index: one document per note, its fields, the options that
// analyse them, and the one place MiniSearch's internals are read or replaced.
//
// MiniSearch keeps each term's postings as a Map of Maps, about 60 bytes a posting: at 50,000 notes
// that is most of the heap. `SearchEngine` is MiniSearch with the postings packed (term-postings.ts,
// 8 bytes a posting) and a plain Map from term to postings beside the radix tree, so adding a note
// looks each word up once instead of walking the tree. Searching is MiniSearch's own code; only the
// methods that touch postings are replaced, each doing exactly what MiniSearch's does (a test runs
// both engines over random notes and queries and expects identical results, so an upgrade that
// changes them fails loudly).
import MiniSearch, { type AsPlainObject, type BM25Params, type MatchInfo, type Options } from "minisearch";
import { propertyWords } from "./frontmatter";
import { fuzzyTerms } from "./fuzzy-terms";
import type { Analyzer } from "./tokenize";
import { addOccurrence, dropPostings, emptyTerm, isEmptyTerm, lowerBound, postingCount, postingNote, removeOccurrence, trimTerm, type TermPostings } from "./term-postings";
import type { ParsedNote, TermClumping } from "./types";
import type { WorkSlice } from "./work-slice";

/** What MiniSearch indexes of a note. Nothing is stored: the index keeps postings, not text. */
export interface EngineDoc {
  path: string;
  title: string;
  /** The opening of the note (description property, first paragraph): what the note is about. */
  lead: string;
  aliases: string;
  headings: string;
  tags: string;
  location: string;
  body: string;
  /** The names of the note's properties that hold a value ("year", "director"), and their values that are figures ("1982"). */
  properties: string;
}

export const FIELDS = ["title", "aliases", "lead", "headings", "tags", "location", "body", "properties"] as const;
export type Field = (typeof FIELDS)[number];

/** Characters of a note's opening that count as its lead. */
const LEAD_CHARS = 300;
/** Characters of a long note analysed between two looks at the clock. */
const PIECE_CHARS = 4096;

/** The analyser the engine's tokenizer uses; swapped for a fresh one (an empty word memo) after a build. */
interface Analysis {
  analyzer: Analyzer;
}

function engineOptions(analysis: Analysis): Options<EngineDoc> {
  return {
    idField: "path",
    fields: [...FIELDS],
    storeFields: [],
    // Terms arrive analysed (see tokenize.ts); MiniSearch must not process them again.
    tokenize: (text: string) => analysis.analyzer.terms(text),
    processTerm: (term: string) => term,
    autoVacuum: { minDirtCount: 200, minDirtFactor: 0.1, batchSize: 1000, batchWait: 10 },
  };
}

/** MiniSearch's private helpers the replaced methods call, as MiniSearch 7 names them. */
interface MiniSearchPrivates {
  addDocumentId(id: string): number;
  addFieldLength(shortId: number, fieldId: number, count: number, length: number): void;
  warnDocumentChanged(shortId: number, fieldId: number, term: string): void;
  vacuumConditionsMet(conditions?: unknown): boolean;
  _currentVacuum: Promise<void> | null;
  _enqueuedVacuum: Promise<void> | null;
}

/** A note as the engine holds it: its short id, path and per-field lengths (unique terms). */
export interface EngineNote {
  shortId: number;
  path: string;
  fieldLengths: number[];
}

/** What of MiniSearch's radix tree (its SearchableMap) the engine and MiniSearch's search use. */
interface RadixTree {
  get(term: string): TermPostings | undefined;
  has(term: string): boolean;
  set(term: string, postings: TermPostings): unknown;
  delete(term: string): unknown;
  atPrefix(prefix: string): unknown;
  fuzzyGet(term: string, maxDistance: number): unknown;
  readonly size: number;
  [Symbol.iterator](): Iterator<[string, TermPostings]>;
}

/**
 * When the radix tree is made: kept from the start, as MiniSearch keeps it, or only when a lookup
 * first needs it (see TermTree).
 */
export type RadixTreeMaking = "kept" | "when needed";

/** A radix tree being made from the term map, and the terms not yet put into it. */
interface TreeInMaking {
  tree: RadixTree;
  rest: Iterator<[string, TermPostings]>;
}

/**
 * The engine's `_index`: MiniSearch's radix tree, kept from the start or made only when a lookup
 * needs it. An exact lookup (every search makes one per term) is answered from the term map, and so
 * is a fuzzy one (a word few notes hold as typed) while there is no tree; only a prefix lookup (a
 * word being typed) walks the tree.
 * A warm start put 41,000 terms into the tree one at a time, about a quarter of a `search`
 * process's time, for searches two in three of which never walked it.
 *
 * A tree made late is made from the term map, whose order is the order the terms were first put in.
 * Until a term leaves, that is the very history a tree kept all along would have had (same nodes,
 * same order of children, so the same results in the same order); so a term leaving makes it first.
 *
 * It can also be made ahead, a slice at a time (`makeInSlices`): the terms go into a tree of its own
 * in the map's order, read by one live iterator (a term put in meanwhile comes last, where it would
 * have gone), and lookups keep reading the map until the last term is in and the tree is swapped in
 * whole. A lookup that needs the tree meanwhile, or a term leaving, puts in the rest at once.
 */
class TermTree implements RadixTree {
  private tree: RadixTree | null;
  private making: TreeInMaking | null = null;

  constructor(
    private readonly terms: ReadonlyMap<string, TermPostings>,
    private readonly makeTree: () => RadixTree,
    making: RadixTreeMaking,
  ) {
    this.tree = making === "kept" ? makeTree() : null;
  }

  get size(): number {
    return this.terms.size;
  }

  /** Whether the tree was made (tests count the work a warm start does). */
  get made(): boolean {
    return this.tree !== null;
  }

  get(term: string): TermPostings | undefined {
    return this.terms.get(term);
  }

  has(term: string): boolean {
    return this.terms.has(term);
  }

  /** A new term (the term map holds it already): into the tree when there is one. */
  set(term: string, postings: TermPostings): this {
    this.tree?.set(term, postings);
    return this;
  }

  /** A term leaving (the term map still holds it). */
  delete(term: string): unknown {
    return this.built().delete(term);
  }

  atPrefix(prefix: string): unknown {
    return this.built().atPrefix(prefix);
  }

  /** Without a tree, the term map read twice: the same answer, order included (fuzzy-terms.ts). */
  fuzzyGet(term: string, maxDistance: number): unknown {
    return this.tree ? this.tree.fuzzyGet(term, maxDistance) : fuzzyTerms(this.terms, term, maxDistance);
  }

  [Symbol.iterator](): Iterator<[string, TermPostings]> {
    return this.built()[Symbol.iterator]();
  }

  /**
   * Makes the tree ahead, `pause` awaited whenever `sliceOver` says so; stops at a pause after which
   * it is no longer `wanted` (what it put in stays for whoever goes on). Whether the tree is made.
   */
  async makeInSlices(sliceOver: () => boolean, pause: () => Promise<void>, wanted: () => boolean): Promise<boolean> {
    while (this.tree === null) {
      this.making ??= { tree: this.makeTree(), rest: this.terms.entries() };
      if (!this.putIn(this.making, sliceOver)) continue;
      await pause();
      if (!wanted()) break;
    }
    return this.tree !== null;
  }

  private built(): RadixTree {
    if (this.tree) return this.tree;
    const making = (this.making ??= { tree: this.makeTree(), rest: this.terms.entries() });
    this.putIn(making, () => false);
    return making.tree;
  }

  /** Puts terms into the tree being made until `stop` says so (true) or none is left (the tree swapped in; false). */
  private putIn(making: TreeInMaking, stop: () => boolean): boolean {
    for (let next = making.rest.next(); !next.done; next = making.rest.next()) {
      making.tree.set(next.value[0], next.value[1]);
      if (stop()) return true;
    }
    this.tree = making.tree;
    this.making = null;
    return false;
  }
}

/**
 * What `trimPostings` trims: the terms looked up again since the engine was made (only their lists
 * can have been pushed onto, and so hold spare room), or "every term" once over half of them were
 * (a build: listing them would cost more than it saves) or after a first trim (nothing is noted
 * then: the index's later edits are a few notes at a time).
 */
type TermsToTrim = Set<TermPostings> | "every term";

export class SearchEngine extends MiniSearch<EngineDoc> {
  /** Term → its postings: the same arrays the radix tree holds. */
  readonly terms = new Map<string, TermPostings>();
  private readonly analysis: Analysis;
  /**
   * Lists made from one saved segment, or holding one posting, are exactly their size already: a warm
   * load copied all 25,600 lists of 9,282 notes to free the room of the 17,700 that spanned segments.
   */
  private toTrim: TermsToTrim = new Set();
  /**
   * Notes discarded (edited, read again, moved or gone) whose postings may still be listed, by short
   * id: MiniSearch only marks a note discarded, drops its postings from a list a search walks, and the
   * rest at a vacuum (after 200 notes and a tenth of the vault). An id leaves at the end of a vacuum
   * that began after it came. Empty in an index that discarded none: counting is then a length.
   */
  private discarded = new Set<number>();

  constructor(
    analyzer: Analyzer,
    private readonly radixTree: RadixTreeMaking = "kept",
  ) {
    const analysis = { analyzer };
    super(engineOptions(analysis));
    this.analysis = analysis;
    this.useTermTree();
  }

  /** Puts a `TermTree` in the place of the empty tree MiniSearch has just made, of the same class. */
  private useTermTree(): void {
    const Tree = (this._index as object).constructor as new () => RadixTree;
    (this as unknown as { _index: RadixTree })._index = new TermTree(this.terms, () => new Tree(), this.radixTree);
  }

  /** Whether the radix tree was made: only prefix and fuzzy lookups, and terms leaving, need it. */
  get radixTreeMade(): boolean {
    return this.termTree().made;
  }

  /**
   * Makes the radix tree ahead of the first lookup that needs it, a slice at a time (`pause` awaited
   * whenever `sliceOver` says so), swapped in whole at the end; stops at a pause after which it is no
   * longer `wanted`, or after which the engine was emptied. Whether the tree is made.
   */
  async makeRadixTreeInSlices(sliceOver: () => boolean, pause: () => Promise<void>, wanted: () => boolean = () => true): Promise<boolean> {
    const tree = this.termTree();
    return tree.makeInSlices(sliceOver, pause, () => wanted() && this.termTree() === tree);
  }

  /** Notes added from now on are analysed by `analyzer` (same options, an empty memo). */
  useAnalyzer(analyzer: Analyzer): void {
    this.analysis.analyzer = analyzer;
  }

  /** MiniSearch's `add`, counting each field's distinct terms as they are added instead of in a Set. */
  override add(doc: EngineDoc): void {
    const shortId = this.addDocument(doc.path);
    for (const field of FIELDS) {
      const terms = this.analysis.analyzer.terms(doc[field]);
      this.recordFieldLength(shortId, field, this.addTerms(shortId, field, terms, 0), terms.includes(""));
    }
  }

  /**
   * `add` for a long note, a slice at a time. A search meanwhile sees the note in part; should the
   * note be discarded meanwhile (a newer version arrived), the rest is not added and this is false.
   */
  async addInSlices(doc: EngineDoc, slice: WorkSlice): Promise<boolean> {
    const shortId = this.addDocument(doc.path);
    for (const field of FIELDS) {
      let distinct = 0;
      let empty = false;
      const pieces = textPieces(doc[field]);
      for (const [i, piece] of pieces.entries()) {
        const terms = this.analysis.analyzer.terms(piece);
        empty ||= terms.includes("");
        distinct = this.addTerms(shortId, field, terms, distinct);
        if (i === pieces.length - 1) this.recordFieldLength(shortId, field, distinct, empty);
        else if (slice.over()) {
          await slice.pause();
          if (this._documentIds.get(shortId) !== doc.path) return false;
        }
      }
    }
    return true;
  }

  private addDocument(path: string): number {
    if (this._idToShortId.has(path)) throw new Error(`MiniSearch: duplicate ID ${path}`);
    return (this as unknown as MiniSearchPrivates).addDocumentId(path);
  }

  /** Adds a field's terms to the note's postings; the field's distinct terms so far. */
  private addTerms(shortId: number, field: Field, terms: string[], distinctSoFar: number): number {
    const fieldId = this._fieldIds[field];
    let distinct = distinctSoFar;
    for (const term of terms) if (term && addOccurrence(this.postingsFor(term), fieldId, shortId)) distinct++;
    return distinct;
  }

  /** The field's length as MiniSearch counts it: its distinct terms, an empty token counted but not indexed. */
  private recordFieldLength(shortId: number, field: Field, distinct: number, empty: boolean): void {
    (this as unknown as MiniSearchPrivates).addFieldLength(shortId, this._fieldIds[field], this._documentCount - 1, distinct + (empty ? 1 : 0));
  }

  /** MiniSearch's `discard`, the note's short id kept until its postings are cleaned up. */
  override discard(path: string): void {
    const shortId = this._idToShortId.get(path);
    // Before MiniSearch's: its discard may start a vacuum, which cleans up after this note too.
    if (shortId !== undefined) this.discarded.add(shortId);
    super.discard(path);
  }

  /** Whether some posting may still be a discarded note's (see `heldIn`). */
  get listsDiscarded(): boolean {
    return this.discarded.size > 0;
  }

  /**
   * How many of the notes in `list[from..to)` (a field's postings) the engine holds: the span's
   * length, less the postings of discarded notes not cleaned up yet. A search's BM25, a word's
   * rarity and its weight count these: counted by the list's length, a note read again weighed its
   * words as if one more note held them until the next vacuum, and scores moved with every edit.
   */
  heldIn(list: number[], from = 0, to = list.length): number {
    const span = to - from;
    const discarded = this.discarded;
    if (discarded.size === 0 || span <= 0) return Math.max(0, span);
    if (discarded.size * (32 - Math.clz32(list.length)) < span) {
      // Few discarded notes: each looked for (a binary search), cheaper than walking the span.
      let held = span;
      for (const shortId of discarded) {
        const at = lowerBound(list, shortId);
        if (at >= from && at < to && postingNote(list[at]) === shortId && !this._documentIds.has(shortId)) held--;
      }
      return held;
    }
    let held = 0;
    for (let i = from; i < to; i++) if (this._documentIds.has(postingNote(list[i]))) held++;
    return held;
  }

  override removeAll(documents?: readonly EngineDoc[]): void {
    // MiniSearch refuses an argument given as undefined: "all" is no argument at all.
    if (documents) return super.removeAll(documents);
    super.removeAll();
    this.terms.clear();
    // Short ids start again from 0: a vacuum still under way must not take a new note's id out.
    this.discarded = new Set();
    // MiniSearch made itself a new tree.
    this.useTermTree();
  }

  override toJSON(): AsPlainObject {
    throw new Error("The index is saved by cache-file.ts, not as MiniSearch JSON.");
  }

  /**
   * The term's postings, created (in the map and the radix tree) when it is new. Every push onto a
   * list comes through here first, so a term looked up again is one whose lists may need a trim.
   */
  postingsFor(term: string): TermPostings {
    const postings = this.terms.get(term);
    if (postings !== undefined) {
      if (this.toTrim !== "every term") this.mayNeedTrim(postings);
      return postings;
    }
    const made = emptyTerm(FIELDS.length);
    this.terms.set(term, made);
    this.termTree().set(term, made);
    return made;
  }

  private mayNeedTrim(postings: TermPostings): void {
    const toTrim = this.toTrim as Set<TermPostings>;
    toTrim.add(postings);
    if (toTrim.size * 2 > this.terms.size) this.toTrim = "every term";
  }

  // ── what the cache reads and restores (cache-file.ts owns the format) ──────────────────────

  /** The live notes with short ids in [first, end), ascending. */
  notesInRange(first: number, end: number): EngineNote[] {
    const out: EngineNote[] = [];
    for (let shortId = first; shortId < end; shortId++) {
      const path = this._documentIds.get(shortId) as string | undefined;
      if (path !== undefined) out.push({ shortId, path, fieldLengths: this._fieldLength.get(shortId) ?? [] });
    }
    return out;
  }

  /** Every term with postings of notes in [first, end) (notes that left included), as the term map holds them now. */
  *termsIn(first: number, end: number): Generator<[string, TermPostings]> {
    for (const entry of this.terms) {
      for (const list of entry[1]) {
        if (list === undefined || postingNote(list[list.length - 1]) < first || postingNote(list[0]) >= end) continue;
        const at = lowerBound(list, first);
        if (at < list.length && postingNote(list[at]) < end) {
          yield entry;
          break;
        }
      }
    }
  }

  /** Puts a saved note back (its postings follow through `restorePostings`). */
  restoreNote(note: EngineNote): void {
    this._documentIds.set(note.shortId, note.path);
    this._idToShortId.set(note.path, note.shortId);
    this._fieldLength.set(note.shortId, note.fieldLengths);
    this._documentCount += 1;
  }

  /**
   * Trims the posting lists that may hold spare room to their length (lists grown one push at a
   * time keep up to half their room unused), a slice at a time: `pause` is awaited whenever
   * `sliceOver` says so. The first trim takes the terms looked up again since the engine was made;
   * any later one, every term.
   */
  async trimPostings(sliceOver: () => boolean, pause: () => Promise<void>): Promise<void> {
    const toTrim = this.toTrim;
    this.toTrim = "every term";
    for (const postings of toTrim === "every term" ? this.terms.values() : toTrim) {
      trimTerm(postings);
      if (sliceOver()) await pause();
    }
  }

  /** The counters a saved engine continues from. */
  restoreCounters(nextId: number, averageFieldLength: number[]): void {
    this._nextId = nextId;
    this._avgFieldLength = averageFieldLength;
  }

  get nextShortId(): number {
    return this._nextId;
  }

  get averageFieldLengths(): number[] {
    return [...this._avgFieldLength];
  }

  /** Whether a note with this short id is in the index. */
  holds(shortId: number): boolean {
    return this._documentIds.has(shortId);
  }

  /** The path of the note with this short id, while it is in the index. */
  pathOf(shortId: number): string | undefined {
    return this._documentIds.get(shortId) as string | undefined;
  }

  shortIdOf(path: string): number | undefined {
    return this._idToShortId.get(path);
  }

  private termTree(): TermTree {
    return this._index as unknown as TermTree;
  }
}

/**
 * A field's text in pieces of about PIECE_CHARS, cut only at white space: no word (nor CJK run)
 * holds white space, so the pieces' terms are the whole text's terms.
 */
export function textPieces(text: string): string[] {
  const pieces: string[] = [];
  let from = 0;
  while (text.length - from > PIECE_CHARS) {
    let cut = from + PIECE_CHARS;
    while (cut < text.length && !/\s/.test(text[cut])) cut++;
    pieces.push(text.slice(from, cut));
    from = cut;
  }
  pieces.push(text.slice(from));
  return pieces;
}

/** MiniSearch's BM25+ (its `calcBM25Score`), operation for operation. */
function bm25(termFreq: number, matchingCount: number, totalCount: number, fieldLength: number, avgFieldLength: number, params: BM25Params): number {
  const { k, b, d } = params;
  const invDocFreq = Math.log(1 + (totalCount - matchingCount + 0.5) / (matchingCount + 0.5));
  return invDocFreq * (d + (termFreq * (k + 1)) / (termFreq + k * (1 - b + (b * fieldLength) / avgFieldLength)));
}

interface RawResult {
  score: number;
  terms: string[];
  match: MatchInfo;
}

/**
 * MiniSearch 7's `termResults` over packed postings: same order of fields and notes, same lazy
 * clean-up of discarded notes (one occurrence each time). One change: the notes that hold the term
 * are counted before any is scored (`heldIn`), where MiniSearch starts from the list's length and
 * lowers it as it meets a discarded note, so the notes before one scored lower than those after it,
 * and all of them lower than once it was cleaned up: a note read again reordered a search until the
 * next vacuum. It answers what MiniSearch answers once vacuumed (a test holds it to that).
 */
function termResults(
  this: SearchEngine,
  sourceTerm: string,
  derivedTerm: string,
  termWeight: number,
  termBoost: number,
  postings: TermPostings | undefined,
  fieldBoosts: Record<string, number>,
  boostDocumentFn: ((id: unknown, term: string, storedFields?: Record<string, unknown>) => number) | undefined,
  bm25params: BM25Params,
  results: Map<number, RawResult> = new Map(),
): Map<number, RawResult> {
  if (postings == null) return results;
  for (const field of Object.keys(fieldBoosts)) {
    const fieldBoost = fieldBoosts[field];
    const fieldId = this._fieldIds[field];
    const list = postings[fieldId];
    if (list == null) continue;
    const matchingFields = this.heldIn(list);
    const avgFieldLength = this._avgFieldLength[fieldId];
    for (let i = 0; i < list.length; ) {
      const posting = list[i];
      const docId = postingNote(posting);
      if (!this._documentIds.has(docId)) {
        removeTerm.call(this, fieldId, docId, derivedTerm);
        // The posting was lowered by one or its field dropped (move on), or it was taken out (stay).
        if (list[i] === posting || list[i] === posting - 1) i++;
        continue;
      }
      i++;
      const docBoost = boostDocumentFn ? boostDocumentFn(this._documentIds.get(docId), derivedTerm, this._storedFields.get(docId)) : 1;
      if (!docBoost) continue;
      const fieldLength = this._fieldLength.get(docId)![fieldId];
      const rawScore = bm25(postingCount(posting), matchingFields, this._documentCount, fieldLength, avgFieldLength, bm25params);
      const weightedScore = termWeight * termBoost * fieldBoost * docBoost * rawScore;
      addToResult(results, docId, weightedScore, sourceTerm, derivedTerm, field);
    }
  }
  return results;
}

function addToResult(results: Map<number, RawResult>, docId: number, weightedScore: number, sourceTerm: string, derivedTerm: string, field: string): void {
  const result = results.get(docId);
  if (!result) {
    results.set(docId, { score: weightedScore, terms: [sourceTerm], match: { [derivedTerm]: [field] } });
    return;
  }
  result.score += weightedScore;
  if (!result.terms.includes(sourceTerm)) result.terms.push(sourceTerm);
  const match = Object.prototype.hasOwnProperty.call(result.match, derivedTerm) ? result.match[derivedTerm] : undefined;
  if (match) match.push(field);
  else result.match[derivedTerm] = [field];
}

function addTerm(this: SearchEngine, fieldId: number, shortId: number, term: string): void {
  addOccurrence(this.postingsFor(term), fieldId, shortId);
}

/** MiniSearch's `removeTerm`: one occurrence less, a warning when there was none. */
function removeTerm(this: SearchEngine, fieldId: number, shortId: number, term: string): void {
  const privates = this as unknown as MiniSearchPrivates;
  const postings = this.terms.get(term);
  if (postings === undefined) {
    privates.warnDocumentChanged(shortId, fieldId, term);
    return;
  }
  if (!removeOccurrence(postings, fieldId, shortId)) privates.warnDocumentChanged(shortId, fieldId, term);
  if (isEmptyTerm(postings)) dropTerm(this, term);
}

/** The tree first: a tree not made yet is made from the term map while the term is still in it (see TermTree). */
function dropTerm(engine: SearchEngine, term: string): void {
  (engine as unknown as { _index: RadixTree })._index.delete(term);
  engine.terms.delete(term);
}

/** MiniSearch's `performVacuuming`, over the term map instead of the radix tree. */
async function performVacuuming(this: SearchEngine, options: { batchSize?: number; batchWait?: number }, conditions?: unknown): Promise<void> {
  const privates = this as unknown as MiniSearchPrivates;
  const initialDirtCount = this._dirtCount;
  if (privates.vacuumConditionsMet(conditions)) {
    // The notes this vacuum cleans up after (the set as it is now: `removeAll` starts a new one).
    const discarded = (this as unknown as { discarded: Set<number> }).discarded;
    const cleaned = [...discarded];
    const batchSize = options.batchSize || 1000;
    const batchWait = options.batchWait || 10;
    const isLive = (shortId: number) => this._documentIds.has(shortId);
    let i = 1;
    for (const [term, postings] of this.terms) {
      dropPostings(postings, isLive);
      if (isEmptyTerm(postings)) dropTerm(this, term);
      if (i % batchSize === 0) await new Promise((resolve) => setTimeout(resolve, batchWait));
      i += 1;
    }
    this._dirtCount -= initialDirtCount;
    // Those discarded meanwhile may still be listed under terms walked before they went.
    for (const shortId of cleaned) discarded.delete(shortId);
  }
  // As in MiniSearch: what follows runs after this function has returned its promise.
  await Promise.resolve();
  privates._currentVacuum = privates._enqueuedVacuum;
  privates._enqueuedVacuum = null;
}

// MiniSearch calls these by name; they are private in its types, so they are put in place here.
Object.assign(SearchEngine.prototype, { termResults, addTerm, removeTerm, performVacuuming });

/** `radixTree`: kept from the start (the default), or made when a prefix or fuzzy lookup first needs it. */
export function createEngine(analyzer: Analyzer, radixTree: RadixTreeMaking = "kept"): SearchEngine {
  return new SearchEngine(analyzer, radixTree);
}

export function toEngineDoc(note: ParsedNote): EngineDoc {
  const headings: string[] = [];
  const body: string[] = [];
  for (const section of note.sections) {
    if (section.heading) headings.push(section.heading);
    body.push(section.text);
  }
  return {
    path: note.path,
    title: note.title,
    lead: leadOf(note),
    aliases: note.aliases.join(" \n "),
    headings: headings.join(" \n "),
    tags: note.tags.join(" "),
    location: note.path.replace(/\.md$/i, ""),
    body: body.join("\n"),
    properties: propertyWords(note.frontmatter).join(" \n "),
  };
}

function leadOf(note: ParsedNote): string {
  for (const section of note.sections) {
    const text = section.text.trim();
    if (!text) continue;
    if (text.length <= LEAD_CHARS) return text;
    const lastSpace = text.lastIndexOf(" ", LEAD_CHARS);
    return text.slice(0, lastSpace > 0 ? lastSpace : LEAD_CHARS);
  }
  return "";
}

/** Whether the note holds `term` exactly, in any field. */
export function noteHoldsTerm(engine: SearchEngine, path: string, term: string): boolean {
  const shortId = engine.shortIdOf(path);
  const postings = engine.terms.get(term);
  if (shortId === undefined || !postings) return false;
  for (const list of postings) {
    if (!list) continue;
    const at = lowerBound(list, shortId);
    if (at < list.length && postingNote(list[at]) === shortId) return true;
  }
  return false;
}

/** The notes in the index holding `term` in any of `fields` (short ids, ascending); a field holding it in more than `limit` notes is not read. */
export function notesWithTermIn(engine: SearchEngine, term: string, fields: readonly Field[], limit: number): number[] {
  const postings = engine.terms.get(term);
  if (!postings) return [];
  const ids = new Set<number>();
  for (const field of fields) {
    const list = postings[FIELDS.indexOf(field)];
    if (list !== undefined && list.length <= limit) for (const posting of list) ids.add(postingNote(posting));
  }
  // A note that left keeps its postings until MiniSearch cleans up after it.
  return [...ids].filter((id) => engine.holds(id)).sort((a, b) => a - b);
}

/**
 * How much the uses of `term` in note bodies bunch together: log2 of how many notes chance (a
 * Poisson spread of the same number of uses) would put them in, over how many hold them. About 0
 * for everyday words a vault happens to use rarely ("straight", "turned"), 1 to 4 for the words
 * of a topic ("zfs", "jekyll"), which come several at a time where they come; the fewer the notes,
 * the less it says (a word in two notes, once each, may still be a topic's). Undefined when no
 * body holds the term. Reads the term's body postings once.
 */
export function termClumping(engine: SearchEngine, term: string): TermClumping | undefined {
  const list = engine.terms.get(term)?.[FIELDS.indexOf("body")];
  if (list === undefined) return undefined;
  let notes = 0;
  let uses = 0;
  // Notes discarded and not yet vacuumed keep their postings; with none, no posting needs a check.
  const check = engine.dirtCount > 0;
  for (const posting of list) {
    if (check && !engine.holds(postingNote(posting))) continue;
    notes++;
    uses += postingCount(posting);
  }
  if (notes === 0) return undefined;
  const vault = Math.max(notes, engine.documentCount);
  const byChance = vault * (1 - Math.exp(-uses / vault));
  return { clumping: Math.log2(byChance / notes), notes };
}

/**
 * How many notes the index holds that hold `term` exactly, in any field (the most in one field): what
 * a word's rarity and weight are counted by. `notesWithTerm`, but for discarded notes' postings not
 * cleaned up yet; a walk or a few binary searches only while the engine may list some.
 */
export function notesHolding(engine: SearchEngine, term: string): number {
  if (!engine.listsDiscarded) return notesWithTerm(engine, term);
  let most = 0;
  for (const { list } of listsLongestFirst(engine, term)) {
    // A list no longer than the most found holds no more notes.
    if (list.length <= most) break;
    most = Math.max(most, engine.heldIn(list));
  }
  return most;
}

/** A term's lists of postings (each field's that has any), longest first. */
export function listsLongestFirst(engine: SearchEngine, term: string): { fieldId: number; list: number[] }[] {
  const fields: { fieldId: number; list: number[] }[] = [];
  engine.terms.get(term)?.forEach((list, fieldId) => {
    if (list !== undefined) fields.push({ fieldId, list });
  });
  return fields.sort((a, b) => b.list.length - a.list.length);
}

/**
 * How many postings `term` has in its longest field, at no cost: the notes holding it, and discarded
 * notes until they are cleaned up (`notesHolding` counts without them).
 */
export function notesWithTerm(engine: SearchEngine, term: string): number {
  const postings = engine.terms.get(term);
  if (!postings) return 0;
  let most = 0;
  for (const list of postings) if (list !== undefined) most = Math.max(most, list.length);
  return most;
}
