// The vault index: every note of the vault in one MiniSearch engine, kept current file by file,
// persisted through the IndexCache port, searched with field boosts, length-scaled fuzzy and
// prefix matching, #tag and "phrase" filters, and an explanation attached to every result.
//
// This file is the front door and the bookkeeping (sync, updates, which notes are in); the rooms
// behind it: ranking/ (terms, rank, explain), cache-file.ts, phrase-filter.ts, shown-notes.ts.
//
// Memory is the constraint that shapes it: the index keeps packed postings and a little metadata
// per note, never the note text. Snippets and sections are made at query time by re-reading the
// few notes that are shown. Time is the other: building, loading and saving run in slices of about
// 20 ms with a yield between, and search works on whatever is indexed so far.
import type { Clock, IndexCache, NoteFileInfo, NoteStore, Workers } from "../ports";
import { notePassages } from "./associations/passages";
import { TermAssociations } from "./associations/term-associations";
import { stopwatch, systemClock } from "../ports";
import { folderPartsInside } from "../settings";
import { errorMessage } from "../text/error-message";
import { parseNoteSafely } from "./parse-note-safely";
import { keepPhraseMatches, phraseCandidateCount } from "./phrase-filter";
import { parseQuery, type ParsedQuery } from "./query";
import type { RankedHit } from "./ranking/explain";
import { namesOf } from "./ranking/note-names";
import { rankNotes, rarestWords } from "./ranking/rank";
import { DEFAULT_RANKING, looseRanking, type RankingOptions } from "./ranking/ranking-options";
import { fileTitle } from "./markdown";
import { addMovedNote, alreadyAnalysed, movedNoteFields, postingsOfNotes, type NotePostings } from "./moved-notes";
import { readNotes } from "./read-notes";
import { fromSavedDate, readTooSoon, savedDate } from "./read-too-soon";
import { PartRefused, type RebuildReason } from "./rebuild-reason";
import { SavedIndex, type PersistedIndex } from "./saved-index";
import { createEngine, notesWithTerm, toEngineDoc, type EngineDoc, type RadixTreeMaking, type SearchEngine } from "./search-engine";
import { holdsSameWords } from "./same-words";
import { buildSectionHits } from "./section-hits";
import { ShownNotes } from "./shown-notes";
import { synonymTable } from "./synonyms";
import { indexedPart, MAX_NOTE_CHARS } from "./note-limit";
import { fuseLanes } from "./vault-language/fuse-lanes";
import { LanguageLane, type LaneSource, type LearnedIn } from "./vault-language/language-lane";
import { createAnalyzer, type Analyzer } from "./tokenize";
import { isResearchTrace } from "./trace-marks";
import { timeSlices, type WorkSlice } from "./work-slice";
import { binaryProblem } from "./binary-note";
import type { IndexedNote, IndexStatus, NoteProblem, ParsedNote, SearchExplanation, SearchOptions, SearchResult, SyncReport } from "./types";

export type { RankedHit } from "./ranking/explain";
export { DEFAULT_RANKING, type RankingOptions } from "./ranking/ranking-options";
export type { IndexedNote } from "./types";

export interface VaultIndexOptions {
  /** Vault-relative folders whose notes are never indexed (callers add the trace folder). */
  excludedFolders?: string[];
  /** English stemming (default true). */
  stemming?: boolean;
  clock?: Clock;
  /** Turns a `source`/`url` property into the form web results are compared by. */
  canonicalizeUrl?: (url: string) => string | null;
  /** Called between slices of building, loading and saving, so a UI thread can breathe; told how long the slice ran (ms). */
  yieldToUi?: (sliceMs: number) => Promise<void>;
  /** Notes longer than this, in characters, are indexed by their first part only (default `MAX_NOTE_CHARS`). */
  maxNoteChars?: number;
  /** Ranking knobs; DEFAULT_RANKING when absent. */
  ranking?: Partial<RankingOptions>;
  /** Where the vault's language is learned: a worker of its own, so its seconds of arithmetic and
   * its garbage stay off this thread; absent, null or failing, it is learned here between pauses. */
  workers?: Workers | null;
  /**
   * When the tree that prefix and fuzzy lookups walk is made: "kept" from the start, built along
   * with the index a slice at a time (the default with `yieldToUi`: a thread that paints must not
   * stop to make it at a keystroke), or "when needed", at the first such lookup (the default without:
   * a process that loads the index, answers a search and exits mostly never needs it; a long-lived
   * one has it made ahead when idle: `makeRadixTreeAhead`).
   */
  radixTree?: RadixTreeMaking;
}

/** Notes read at once while building. */
const BATCH = 250;
/** Notes longer than this are added to the engine a slice at a time (a 200 kB changelog takes 100 ms at once). */
const LONG_NOTE_CHARS = 8_000;
const MARKDOWN_PATH = /\.md$/i;
/** Files compared between two looks at the clock while a sync plans. */
const PLAN_CHECK = 512;
/** A sync that read this many notes trims the posting lists afterwards. */
const TRIM_AFTER_NOTES = 200;
/** Renames in one batch from which notes move unread: fewer are read sooner than every posting is walked. */
const MOVE_UNREAD_FROM = 16;
/** ...and at least one for this many indexed notes: a larger vault has more postings to walk. */
const NOTES_PER_MOVE_UNREAD = 1_000;
/** Notes moved unread after one walk over the postings: what is held of their postings stays bounded. */
const MOVE_GROUP = 1_000;
const NO_PATHS: ReadonlySet<string> = new Set();
/** Shared by every note without aliases, tags, source URLs or problems (most notes); never mutated. */
const NONE: never[] = [];

/** A note that now lives at `path`, known to the index at `oldPath`. */
export interface Rename {
  oldPath: string;
  path: string;
}

/** A renamed note that may move unread, as it was when planned: the move happens only if nothing changed it since. */
interface MovableNote {
  note: IndexedNote;
  shortId: number;
  engine: SearchEngine;
  /** The generations of its old and its new name. */
  generations: [number, number];
}

/** A note read again though its date and size were unchanged: whether its text changed after all. */
interface Reread {
  changed: boolean;
}

/** What a sync found by comparing the store's list with the index. */
interface SyncPlan {
  /** The listed notes to read: new, changed by mtime or size, or not yet proven by them (`rechecked`). */
  toRead: NoteFileInfo[];
  /** Each note's generation when it was planned: a change that arrives after it (a rename, a removal) is newer than the read. */
  generations: number[];
  /** Notes unchanged by mtime and size, read again because their text was read too soon after their date. */
  rechecked: Set<string>;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
}

export class VaultIndex {
  /** Replaced by a fresh one after each sync: its word memo is worth keeping only while building. */
  private analyzer: Analyzer;
  private readonly synonyms: Map<string, string[]>;
  private readonly clock: Clock;
  private readonly canonicalize: (url: string) => string | null;
  private readonly maxNoteChars: number;
  private readonly yieldToUi: (sliceMs: number) => Promise<void>;
  private readonly radixTree: RadixTreeMaking;
  private excluded: string[];
  /** Ranking knobs; may be changed between searches (evaluation sweeps do). */
  ranking: RankingOptions;
  private engine: SearchEngine;
  private readonly notes = new Map<string, IndexedNote>();
  private readonly bySource = new Map<string, Set<string>>();
  private readonly fileProblems = new Map<string, NoteProblem>();

  /** Bumped whenever `notes` gains or loses a note: a sync's plan sees whether the index changed at its pauses. */
  private notesChanged = 0;
  /** Paths of notes indexed with problems, so the status need not visit every note. */
  private readonly notesWithProblems = new Set<string>();
  /** What the cache holds, and what changed since it was saved. */
  private readonly savedIndex = new SavedIndex();
  /** Per path, a counter bumped by every change: a read that started before the last change is stale. */
  private readonly generation = new Map<string, number>();
  /** Indexed notes whose text was read too soon after their date for date and size to vouch for it (read-too-soon.ts). */
  private readonly unproven = new Set<string>();
  /**
   * Notes a sync read again only to prove them, proved and found unchanged since the last save or
   * load: no count of the sync's says so, yet the cache still holds them unproven, and a command
   * that saves only on counts would have every later run read them again.
   */
  private provenUnsaved = 0;
  private readonly shownNotes = new ShownNotes();
  /** Which words the vault's notes use together (associations/), kept current with the notes;
   * only kept when the ranking asks for associations (it does not by default). */
  private readonly associations: TermAssociations | null;
  /** The vault-language lane (vault-language/), learned after a full build; null when turned off. */
  private readonly language: LanguageLane | null;
  private readonly listeners = new Set<(status: IndexStatus) => void>();
  /** The store the last sync read: where the vault's language is learned again from, once enough changed. */
  private laneStore: NoteStore | null = null;
  private state: IndexStatus["state"] = "empty";
  private lastUpdated: number | null = null;
  /** Holds on learning the vault's language again (`holdRelearning`): a batch of changes is being applied. */
  private relearnHolds = 0;
  /** A sync's learning of the vault's language from the notes, left until the holds are let go. */
  private laneWaits = false;

  constructor(options: VaultIndexOptions = {}) {
    this.analyzer = createAnalyzer({ stemming: options.stemming ?? true });
    this.synonyms = synonymTable((word) => this.analyzer.normalizeTerm(word));
    this.clock = options.clock ?? systemClock;
    this.canonicalize = options.canonicalizeUrl ?? basicCanonicalUrl;
    this.maxNoteChars = options.maxNoteChars ?? MAX_NOTE_CHARS;
    this.yieldToUi = options.yieldToUi ?? (() => Promise.resolve());
    this.radixTree = options.radixTree ?? (options.yieldToUi ? "kept" : "when needed");
    this.excluded = normalizeFolders(options.excludedFolders ?? []);
    this.ranking = { ...DEFAULT_RANKING, ...options.ranking };
    this.associations = this.ranking.associations ? new TermAssociations() : null;
    this.language = this.ranking.vaultLanguage ? new LanguageLane(this.ranking.vaultLanguage, options.workers ?? null) : null;
    this.engine = createEngine(this.analyzer, this.radixTree);
  }

  // ── building and keeping current ───────────────────────────────────────────────────────────

  /**
   * Brings the index in line with the store: loads the cache if it is usable, then indexes only
   * what was added or changed (by path, mtime and size) and drops what is gone. A missing, old or
   * corrupt cache means a rebuild, never an error. `listed`: the store's files, when the caller
   * has just listed them (a second listing of a large vault is not free).
   */
  async sync(store: NoteStore, cache: IndexCache | null, listed?: NoteFileInfo[]): Promise<SyncReport> {
    const took = stopwatch(this.clock);
    if (cache) this.setState("updating");
    const rebuildReason: RebuildReason | null = cache ? await this.tryLoadCache(cache) : { kind: "no_cache" };
    if (rebuildReason) this.reset();
    this.setState(rebuildReason ? "building" : "updating");
    let files: NoteFileInfo[];
    try {
      files = listed ?? (await store.list());
    } catch (error) {
      // The caller reports the failure; the index must not look busy forever.
      this.setState(this.notes.size > 0 ? "ready" : "empty");
      throw error;
    }
    const plan = await this.planSync(files);
    await this.readAndIndex(store, plan);
    // Loading and building grow posting lists a push at a time; their spare room is let go.
    if (!rebuildReason || plan.toRead.length >= TRIM_AFTER_NOTES) {
      const slice = this.slice();
      await this.engine.trimPostings(slice.over, slice.pause);
    }
    this.useFreshAnalyzer();
    this.lastUpdated = this.clock.now();
    this.setState("ready");
    // Searchable already; the vault's language is learned (or its notes' vectors filled) behind;
    // learned from the notes only once the changes being applied are in (`holdRelearning`).
    this.laneStore = store;
    this.laneWaits = this.relearnHolds > 0 && (this.language?.learnsFromNotes ?? false);
    if (!this.laneWaits) this.startLane(store);
    const counts = { added: plan.added, updated: plan.updated, removed: plan.removed, unchanged: plan.unchanged, ms: took() };
    return rebuildReason ? { mode: "rebuild", rebuildReason, ...counts } : { mode: "cache", rebuildReason: undefined, ...counts };
  }

  /** Learns the vault's language (or takes it from the cache, with its notes' vectors) behind the ready index. */
  private startLane(store: NoteStore): void {
    const learning = this.language?.learn(this.laneSource(store));
    if (this.language?.working) {
      this.emit();
      void learning?.then(() => this.emit());
    }
  }

  /** Drops everything and indexes the store from scratch. */
  async rebuild(store: NoteStore): Promise<SyncReport> {
    this.reset();
    const report = await this.sync(store, null);
    return { ...report, mode: "rebuild", rebuildReason: { kind: "asked_for" } };
  }

  /**
   * Compares the store's files with the index: what to read, and drops notes that are gone; a slice
   * at a time. When every indexed note was listed (and the index did not change at a pause), none is
   * gone, and the listing is not made into a map of every path to find that out.
   */
  private async planSync(listed: NoteFileInfo[]): Promise<SyncPlan> {
    const plan: SyncPlan = { toRead: [], generations: [], rechecked: new Set(), added: 0, updated: 0, removed: 0, unchanged: 0 };
    const slice = this.slice();
    const changesBefore = this.notesChanged;
    let listedAndIndexed = 0;
    for (let i = 0; i < listed.length; i++) {
      if (i % PLAN_CHECK === 0 && slice.over()) await slice.pause();
      const file = listed[i];
      if (!this.isIndexable(file.path)) continue;
      const known = this.notes.get(file.path);
      if (known) listedAndIndexed++;
      if (known && known.mtime === file.mtime && known.size === file.size) {
        plan.unchanged++;
        if (!this.unproven.has(file.path)) continue;
        // Unchanged by date and size, which do not vouch for a text read too soon after that date.
        plan.rechecked.add(file.path);
      } else if (known) plan.updated++;
      else plan.added++;
      plan.toRead.push(file);
      plan.generations.push(this.generation.get(file.path) ?? 0);
    }
    if (listedAndIndexed < this.notes.size || this.notesChanged !== changesBefore) plan.removed = await this.dropUnlisted(listed, slice);
    return plan;
  }

  /** Drops the indexed notes `listed` does not hold (they left the vault, or became unindexable); how many. */
  private async dropUnlisted(listed: NoteFileInfo[], slice: WorkSlice): Promise<number> {
    const listedPaths = new Set<string>();
    for (let i = 0; i < listed.length; i++) {
      if (i % PLAN_CHECK === 0 && slice.over()) await slice.pause();
      if (this.isIndexable(listed[i].path)) listedPaths.add(listed[i].path);
    }
    const indexed = Array.from(this.notes.keys());
    let dropped = 0;
    for (let i = 0; i < indexed.length; i++) {
      if (i % PLAN_CHECK === 0 && slice.over()) await slice.pause();
      if (!listedPaths.has(indexed[i])) {
        this.discardNote(indexed[i]);
        dropped++;
      }
    }
    return dropped;
  }

  /** Reads and indexes in batches, yielding every SLICE_MS (the status counts up meanwhile). */
  private async readAndIndex(store: NoteStore, plan: SyncPlan): Promise<void> {
    const { toRead } = plan;
    // An update, rename or removal that arrived since the plan (at a yield, or while a batch was
    // read) is newer than this read: the note is left to it, and not read if it is not read yet.
    const current = (k: number) => (this.generation.get(toRead[k].path) ?? 0) === plan.generations[k];
    for (let i = 0; i < toRead.length; i += BATCH) {
      const batch: number[] = [];
      for (let k = i; k < Math.min(i + BATCH, toRead.length); k++) if (current(k)) batch.push(k);
      // The batch's reads begin now: an edit in this tick after any of them keeps the date and size
      // listed, so a note is judged by this moment, not by the end of a batch a slow disk stretched.
      const readFrom = this.clock.now();
      const texts = await readNotes(store, batch.map((k) => toRead[k].path));
      const gone = await vanished(store, batch.flatMap((k, j) => (typeof texts[j] === "string" ? [] : [toRead[k].path])));
      const slice = this.slice();
      for (const [j, k] of batch.entries()) {
        if (!current(k)) continue;
        const info = toRead[k];
        const text = notBinary(texts[j]);
        // A research trace outside the trace folder (trace-marks.ts) is read at each sync, never
        // indexed: there are few, and remembering them would be one more thing to save.
        if (typeof text === "string" && isResearchTrace(text)) {
          // Not a note of the vault after all.
          this.countNotIndexed(plan, info.path);
          this.dropNote(info.path);
        } else if (typeof text === "string") {
          const reread = plan.rechecked.has(info.path) ? { changed: false } : undefined;
          await this.indexTextInSlices(info.path, text, info.mtime, info.size, readFrom, slice, plan.generations[k], reread);
          // Counted unchanged by date and size when planned; its words say whether an edit in its tick changed it.
          if (reread?.changed) {
            plan.unchanged--;
            plan.updated++;
          } else if (reread && this.notes.has(info.path) && !this.unproven.has(info.path)) this.provenUnsaved++;
        } else if (gone.has(info.path)) {
          // Deleted (or made a folder) between the listing and the read: gone, not a note that cannot be read.
          this.countNotIndexed(plan, info.path);
          this.dropNote(info.path);
        } else {
          this.countNotIndexed(plan, info.path);
          this.recordUnreadable(info.path, text);
        }
        if (slice.over()) await slice.pause();
      }
      if (i + BATCH < toRead.length) await slice.pause();
    }
  }

  /** A note read that is not indexed after all (a research trace, unreadable): a new one was not added, and a known one leaves. */
  private countNotIndexed(plan: SyncPlan, path: string): void {
    if (!this.notes.has(path)) {
      plan.added--;
      return;
    }
    if (plan.rechecked.has(path)) plan.unchanged--;
    else plan.updated--;
    plan.removed++;
  }

  /** Shows how far the work has come and lets the UI breathe. */
  private pauseForUi(sliceMs: number): Promise<void> {
    this.emit();
    return this.yieldToUi(sliceMs);
  }

  /** A stretch of synchronous work that yields to the UI (and shows progress) between slices. */
  private slice(): WorkSlice {
    return timeSlices(this.clock, (ms) => this.pauseForUi(ms));
  }

  /** A new analyser with the same options: the old one's word memo (megabytes after a build) goes with it. */
  private useFreshAnalyzer(): void {
    this.analyzer = createAnalyzer({ stemming: this.analyzer.options.stemming });
    this.engine.useAnalyzer(this.analyzer);
  }

  /**
   * Re-reads one file and (re)indexes it; drops it when it is gone or excluded. When two updates
   * of the same path overlap, only the one that started last is applied, so a slow read of an
   * old version can never overwrite a newer one.
   */
  async updateFile(store: NoteStore, path: string): Promise<void> {
    const gen = (this.generation.get(path) ?? 0) + 1;
    this.generation.set(path, gen);
    if (!this.isIndexable(path)) {
      this.removeFile(path);
      return;
    }
    let text: string | NoteProblem;
    let info: { mtime: number; size: number } | undefined;
    let readFrom = this.clock.now();
    try {
      if (!(await store.exists(path))) {
        if (this.generation.get(path) === gen) this.removeFile(path);
        return;
      }
      // The date and size are taken before the text, as a sync's listing is: a change made during
      // the read then leaves them older than the text, and the next comparison reads it again.
      const facts = store.stat ? await store.stat(path) : (await store.list()).find((f) => f.path === path);
      // A store without `stat` is asked for its listing, which holds the name exactly as the note
      // has it: a name it lacks (the old one of a note renamed in case only, on a disk that ignores
      // case and so still "has" it) is as gone as one `stat` knows nothing of.
      if (!facts) {
        // No note by this name after all (gone meanwhile, or a folder that took its name): reading it would name a problem that is none.
        if (this.generation.get(path) === gen) this.removeFile(path);
        return;
      }
      info = facts;
      readFrom = this.clock.now();
      text = notBinary(await store.read(path));
    } catch (error) {
      text = { kind: "read", message: errorMessage(error) };
    }
    if (this.generation.get(path) !== gen) return;
    const mtime = info?.mtime ?? readFrom;
    if (typeof text === "string" && isResearchTrace(text)) this.dropNote(path);
    else if (typeof text === "string") await this.indexTextInSlices(path, text, mtime, info?.size ?? text.length, readFrom, this.slice(), gen);
    else this.recordUnreadable(path, text);
    this.touch();
  }

  /** Like `updateFile` but with the file's facts already known (saves listing the store). */
  applyText(path: string, text: string, mtime: number, size: number): void {
    this.generation.set(path, (this.generation.get(path) ?? 0) + 1);
    if (!this.isIndexable(path)) {
      this.removeFile(path);
      return;
    }
    const problem = binaryProblem(text);
    if (problem) this.recordUnreadable(path, problem);
    else if (isResearchTrace(text)) this.dropNote(path);
    else this.indexText(path, text, mtime, size, this.clock.now());
    this.touch();
  }

  removeFile(path: string): void {
    this.generation.set(path, (this.generation.get(path) ?? 0) + 1);
    const had = this.notes.has(path) || this.fileProblems.has(path);
    this.dropNote(path);
    if (had) this.touch();
  }

  /** A note renamed or moved (see `renameFiles`). */
  async renameFile(store: NoteStore, oldPath: string, newPath: string): Promise<void> {
    await this.renameFiles(store, [{ oldPath, path: newPath }]);
  }

  /**
   * Notes renamed or moved, applied in order, with pauses for the UI. When enough of them are worth one
   * walk over every posting (a folder renamed), a note the rename left as it was moves unread
   * (`movesUnread`): its postings are copied to its new name (moved-notes.ts). Any other is read again
   * at its new name, unless it is in `readAfter`: read by a later step of the batch.
   */
  async renameFiles(store: NoteStore, renames: readonly Rename[], readAfter: ReadonlySet<string> = NO_PATHS): Promise<void> {
    const slice = this.slice();
    for (let i = 0; i < renames.length; i += MOVE_GROUP) await this.renameGroup(store, renames.slice(i, i + MOVE_GROUP), readAfter, slice);
    if (renames.length > 0) this.touch();
  }

  /**
   * Renames in order: those that may move unread, after one walk over the postings, when enough may;
   * the others read, but for a note the batch reads again after its renames (edited too: Obsidian
   * rewrote its links), which only leaves its old name.
   */
  private async renameGroup(store: NoteStore, group: readonly Rename[], readAfter: ReadonlySet<string>, slice: WorkSlice): Promise<void> {
    const movable = await this.movableNotes(store, group.filter((r) => !readAfter.has(r.path)));
    // A few notes are read sooner than every posting is walked, and a larger vault has more postings.
    const walkPays = movable.size >= Math.max(MOVE_UNREAD_FROM, this.notes.size / NOTES_PER_MOVE_UNREAD);
    const postings = walkPays ? await postingsOfNotes(this.engine, Array.from(movable.values(), (m) => m.shortId), slice) : null;
    for (const rename of group) {
      const move = movable.get(rename);
      const held = move && postings?.get(move.shortId);
      if (readAfter.has(rename.path)) this.removeFile(rename.oldPath);
      else if (move && held && this.stillAsPlanned(rename, move)) this.moveUnread(rename, move, held);
      else await this.renameByReading(store, rename);
      if (slice.over()) await slice.pause();
    }
  }

  private async renameByReading(store: NoteStore, { oldPath, path }: Rename): Promise<void> {
    this.removeFile(oldPath);
    await this.updateFile(store, path);
  }

  /**
   * The renamed notes that may move unread (`movesUnread`), as they are now. None when too few were
   * renamed for a walk over the postings to pay, or when the vault's associations are kept: they
   * need a note's passages, which only its text gives.
   */
  private async movableNotes(store: NoteStore, group: readonly Rename[]): Promise<Map<Rename, MovableNote>> {
    const movable = new Map<Rename, MovableNote>();
    if (group.length < MOVE_UNREAD_FROM || this.associations) return movable;
    // Taken before the dates are asked for: a change that arrives meanwhile is newer than the plan.
    const generations = group.map((r): [number, number] => [this.generation.get(r.oldPath) ?? 0, this.generation.get(r.path) ?? 0]);
    // A store that cannot say leaves every note to be read, as one it cannot list would.
    const facts = await this.factsOf(store, group.map((r) => r.path)).catch(() => group.map(() => null));
    for (const [k, rename] of group.entries()) {
      const note = this.notes.get(rename.oldPath);
      const shortId = this.engine.shortIdOf(rename.oldPath);
      if (note && shortId !== undefined && this.movesUnread(rename, note, facts[k])) movable.set(rename, { note, shortId, engine: this.engine, generations: generations[k] });
    }
    return movable;
  }

  /**
   * Whether a renamed note can move without being read: the index holds it proven (read clearly after
   * its date), its new name lists the same date and size (a rename keeps a file's date; an edit since
   * changes it), it is indexed there, and its title stays (a title taken from the old file name would
   * not; the same name in another folder, or a title its text gives, does).
   */
  private movesUnread({ oldPath, path }: Rename, note: IndexedNote, facts: NoteFileInfo | null): boolean {
    if (!facts || facts.mtime !== note.mtime || facts.size !== note.size) return false;
    if (this.unproven.has(oldPath) || !this.isIndexable(path)) return false;
    return fileTitle(oldPath) === fileTitle(path) || note.title !== fileTitle(oldPath);
  }

  /** Nothing touched the note, or its new name, while the postings were walked (an edit, a rebuild, an exclusion). */
  private stillAsPlanned({ oldPath, path }: Rename, move: MovableNote): boolean {
    const [oldGeneration, newGeneration] = move.generations;
    return (
      this.engine === move.engine &&
      this.notes.get(oldPath) === move.note &&
      this.engine.shortIdOf(oldPath) === move.shortId &&
      (this.generation.get(oldPath) ?? 0) === oldGeneration &&
      (this.generation.get(path) ?? 0) === newGeneration
    );
  }

  /** The note at `oldPath` becomes the one at `path`, from its postings: the same words, dates and facts. */
  private moveUnread({ oldPath, path }: Rename, move: MovableNote, postings: NotePostings): void {
    this.generation.set(oldPath, move.generations[0] + 1);
    this.generation.set(path, move.generations[1] + 1);
    // What the index held at the new name (a note the renamed one replaced) goes first.
    this.dropNote(path);
    const fieldLengths = this.engine.notesInRange(move.shortId, move.shortId + 1)[0]?.fieldLengths ?? [];
    addMovedNote(this.engine, this.analyzer, postings, fieldLengths, path);
    this.dropNote(oldPath);
    const { mtime, size } = move.note;
    this.rememberNote({ ...move.note, path });
    const language = this.language;
    if (language && (language.ready || language.working)) {
      language.noteIndexed(path, movedNoteFields(this.analyzer, postings, path), alreadyAnalysed(this.analyzer.options), this.engine, { mtime, size });
    }
  }

  /** Each path's date and size as the store lists it now (null: no note by that name), as `updateFile` asks. */
  private async factsOf(store: NoteStore, paths: readonly string[]): Promise<(NoteFileInfo | null)[]> {
    if (!store.stat) {
      const listed = new Map((await store.list()).map((f) => [f.path, f]));
      return paths.map((p) => listed.get(p) ?? null);
    }
    const stat = store.stat.bind(store);
    return Promise.all(paths.map((p) => stat(p).catch(() => null)));
  }

  /** Changes the excluded folders: notes inside them leave the index at once; call `sync` to add back notes that are no longer excluded. */
  setExcludedFolders(folders: string[]): void {
    this.excluded = normalizeFolders(folders);
    let changed = false;
    for (const path of Array.from(this.notes.keys())) {
      if (!this.isIndexable(path)) {
        this.discardNote(path);
        changed = true;
      }
    }
    if (changed) this.touch();
  }

  /** Whether the index holds `file`'s text as listed: same date and size, and read clearly after that date. */
  isCurrent(file: NoteFileInfo): boolean {
    const known = this.notes.get(file.path);
    return known !== undefined && known.mtime === file.mtime && known.size === file.size && !this.unproven.has(file.path);
  }

  isIndexable(path: string): boolean {
    // Not `toLowerCase().endsWith`: that copies every path of the vault on every sync.
    if (!MARKDOWN_PATH.test(path)) return false;
    for (const folder of this.excluded) if (path.startsWith(folder)) return false;
    return true;
  }

  /**
   * Makes the radix tree (prefix lookups, terms leaving) ahead of the first lookup that needs it, in
   * slices with `pause` awaited between them: for a long-lived process without a UI thread (the MCP
   * server), when it is idle. Searches meanwhile read the term map, and the tree is swapped in whole.
   * Stops at a pause once `wanted` says no or the index was rebuilt; what it made waits for the next
   * lookup to finish it. Nothing to do when the tree is kept from the start. Whether the tree is made.
   */
  async makeRadixTreeAhead(pause: () => Promise<void>, wanted: () => boolean = () => true): Promise<boolean> {
    const engine = this.engine;
    const slice = timeSlices(this.clock, pause);
    return engine.makeRadixTreeInSlices(slice.over, slice.pause, () => wanted() && this.engine === engine);
  }

  // ── persistence (saved-index.ts decides what to write, cache-file.ts how it looks) ─────────

  /** Saves what changed since the last save or load, in slices; the whole index only the first time. */
  async save(cache: IndexCache): Promise<void> {
    const proven = this.provenUnsaved;
    await this.savedIndex.save(cache, this.fingerprint(), this.clock, this.persisted());
    this.provenUnsaved = Math.max(0, this.provenUnsaved - proven);
    const language = this.language;
    if (!language?.unsaved) return;
    await language.save(cache, this.fingerprint(), this.slice());
  }

  /**
   * Whether a save would keep what no count of a sync shows: notes a re-read proved unchanged
   * (read-too-soon.ts), or the vault's language learned or brought up to date after a load (a cache
   * saved with it off, or whose part of it was damaged). False after a load that found nothing new.
   */
  hasUnsavedChanges(): boolean {
    return this.provenUnsaved > 0 || (this.language?.unsaved ?? false);
  }

  /** Stops learning the vault's language (at its next pause): the plugin is being unloaded. What was
   * learned stays, for the save the unload makes. */
  stopLearning(): void {
    this.language?.stop();
  }

  /** Resolves once the vault's language is learned, or loaded with its notes' vectors (at once when it is off). */
  async languageSettled(): Promise<void> {
    await this.language?.settled();
  }

  /** Where the vault's language was last learned: in a worker, on this thread, or not (none learned
   * since this index was made, or taken from the cache). */
  languageLearnedIn(): LearnedIn | null {
    return this.language?.learnedIn ?? null;
  }

  /** null when the cache was loaded; otherwise why it could not be used (the index is then reset). */
  private async tryLoadCache(cache: IndexCache): Promise<RebuildReason | null> {
    this.reset();
    let reason: RebuildReason | null;
    const reading = noticingRefusals(cache);
    try {
      reason = await this.savedIndex.load(reading.cache, this.fingerprint(), this.persisted());
    } catch (error) {
      // The checks in cache-file.ts are meant to leave nothing to throw; should one slip through, it is a rebuild.
      reason = { kind: "corrupt", detail: errorMessage(error) };
    }
    // A part the cache refused for a reason it named (an earlier version's, one that fails its
    // checksum) is reported by that reason: "could not be read" would call an upgrade damage.
    if (reason?.kind === "unreadable") reason = reading.refusal() ?? reason;
    if (reason) this.reset();
    else this.language?.loadFrom(cache, this.fingerprint());
    return reason;
  }

  /** What the vault-language lane learns from, after a sync with `store`. */
  private laneSource(store: NoteStore): LaneSource {
    return {
      engine: this.engine,
      analyzer: this.analyzer,
      store,
      paths: () => Array.from(this.notes.keys()),
      holds: (path) => this.notes.has(path),
      maxNoteChars: this.maxNoteChars,
      now: () => this.clock.now(),
      bytes: () => {
        let total = 0;
        for (const note of this.notes.values()) total += note.size;
        return total;
      },
      noteVersion: (path) => {
        const note = this.notes.get(path);
        return note ? { mtime: note.mtime, size: note.size } : undefined;
      },
      slice: () => this.slice(),
      relearnHeld: () => this.relearnHolds > 0,
    };
  }

  /** What saving and loading see of the index. */
  private persisted(): PersistedIndex {
    return {
      engine: this.engine,
      note: (path) => this.savedNote(path),
      remember: (saved) => {
        const { mtime, unproven } = fromSavedDate(saved.mtime);
        this.rememberNote(unproven ? { ...saved, mtime } : saved);
        if (unproven) this.unproven.add(saved.path);
      },
      slice: () => this.slice(),
      // Another process's save replaced the manifest midway (a segment it named went): what this
      // load put in goes (`reset`: the engine, notes, sources, problems, unproven marks; the lane
      // and link graph hold nothing of a load yet, the lane's meanings are taken after it), and it
      // loads afresh. The status's count starts again from 0 meanwhile.
      startOver: () => {
        this.reset();
        return this.persisted();
      },
    };
  }

  /** A note as the cache keeps it: one read too soon after its date is saved so (read-too-soon.ts). */
  private savedNote(path: string): IndexedNote | undefined {
    const note = this.notes.get(path);
    return note && this.unproven.has(path) ? { ...note, mtime: savedDate(note.mtime, true) } : note;
  }

  /** The settings that shape what is indexed: a cache saved under others is rebuilt. */
  private fingerprint(): string {
    return JSON.stringify({ stemming: this.analyzer.options.stemming, excluded: this.excluded });
  }

  // ── searching (ranking lives in ranking/) ─────────────────────────────────────────────────

  async search(query: string, store: NoteStore, options: SearchOptions = {}): Promise<SearchResult[]> {
    const limit = options.limit ?? 10;
    const sectionsPerNote = options.sectionsPerNote ?? 3;
    const parsed = parseQuery(query);
    // The phrase check throws candidates away, so it needs more of them than the limit.
    const hasPhrases = parsed.phrases.length > 0;
    const ranked = this.rank(parsed, hasPhrases ? phraseCandidateCount(limit) : limit, { asYouType: options.asYouType ?? false, loose: options.loose ?? false, ...(options.keep ? { keep: options.keep } : {}) });
    const shown = hasPhrases ? await keepPhraseMatches(ranked, parsed.phrases, store, limit, (path) => this.namesOf(path)) : ranked.slice(0, limit);
    const texts = await readNotes(
      store,
      shown.map((r) => r.path),
    );
    const results: SearchResult[] = [];
    for (const [i, hit] of shown.entries()) {
      const note = this.notes.get(hit.path);
      if (!note) continue;
      const text = texts[i];
      const parsedNote = typeof text === "string" ? this.shownNote(hit.path, text) : null;
      const sections = parsedNote ? buildSectionHits(parsedNote, hit.docTerms, this.analyzer, sectionsPerNote) : [];
      const explanation = options.asYouType || options.loose ? hit.explanation : this.withLanguageStandIns(hit);
      results.push({ path: hit.path, title: note.title, score: hit.score, tags: note.tags, sections, explanation });
    }
    return results;
  }

  /**
   * A note as a search shows it (`ShownNotes`), from its part the index holds: a 50 MB note parsed
   * whole at every keystroke froze the app for seconds. The parses are kept for whoever shows the
   * vault's notes (the dial's sections, research's cited ones), so a note shown twice is parsed once.
   */
  shownNote(path: string, text: string): ParsedNote {
    return this.shownNotes.parse(path, indexedPart(text, this.maxNoteChars));
  }

  /** What the note is called: its title, file name and aliases. */
  private namesOf(path: string): string[] {
    const note = this.notes.get(path);
    return note ? namesOf(note) : [];
  }

  /** The explanation with the vault language's stand-ins for the words the note lacks (when asked for). */
  private withLanguageStandIns(hit: RankedHit): SearchExplanation {
    const language = this.language;
    if (!language?.ready || !language.options.standIns || hit.explanation.missingTerms.length === 0) return hit.explanation;
    const missing = hit.explanation.missingTerms.flatMap((word) => {
      const term = this.analyzer.analyzeWord(word)[0];
      return term && !hit.explanation.standIns?.[word] ? [{ word, term }] : [];
    });
    const found = language.standInsFor(hit.path, missing, this.engine);
    if (Object.keys(found).length === 0) return hit.explanation;
    return { ...hit.explanation, standIns: { ...hit.explanation.standIns, ...found } };
  }

  /** Ranked candidates without reading any file (no snippets): the part that must be fast. */
  rank(parsed: ParsedQuery, limit: number, opts: { asYouType: boolean; loose?: boolean; keep?: (path: string) => boolean } = { asYouType: false }): RankedHit[] {
    const model = this.associations;
    const limits = this.ranking.associations;
    const associatesOf = model && limits ? (term: string) => model.associatesOf(term, limits) : null;
    const ranking = opts.loose ? looseRanking(this.ranking) : this.ranking;
    const corpus = { engine: this.engine, notes: this.notes, analyzer: this.analyzer, synonyms: this.synonyms, ranking, associatesOf };
    const hits = rankNotes(corpus, parsed, limit, { asYouType: opts.asYouType, ...(opts.keep ? { keep: opts.keep } : {}) });
    // While typing, in the loose "closest by spelling" search and under a tag filter, words alone decide.
    const language = this.language;
    if (!language?.ready || opts.asYouType || opts.loose || parsed.tags.length > 0) return hits;
    // The words the ranking weighed (a long query's 32 rarest), so both lanes ask the same question.
    const terms = rarestWords(parsed, corpus).query.words.flatMap((w) => this.analyzer.analyzeWord(w));
    const keep = opts.keep;
    const near = language.nearest(terms, this.engine, (path) => this.notes.has(path) && (keep?.(path) ?? true));
    return near.length === 0 ? hits : fuseLanes(hits, near, language.options.fusion, parsed.words, { engine: this.engine, analyzer: this.analyzer }).slice(0, limit);
  }

  /** How many notes hold `term` exactly, in any field (see search-engine.ts). */
  notesWithTerm(term: string): number {
    return notesWithTerm(this.engine, term);
  }

  // ── what others ask of the index ─────────────────────────────────────────────────────────

  status(): IndexStatus {
    const problems: IndexStatus["problems"] = [];
    for (const [path, problem] of this.fileProblems) problems.push({ path, problem });
    for (const path of this.notesWithProblems) for (const problem of this.notes.get(path)!.problems) problems.push({ path, problem });
    const status: IndexStatus = { notes: this.notes.size, lastUpdated: this.lastUpdated, state: this.state, problems };
    // Learning again behind, the meanings learned before still serve: not "words alone until then".
    if (this.language?.working) status.vaultLanguage = this.language.ready ? "relearning" : "learning";
    else if (this.language?.ready) status.vaultLanguage = "ready";
    return status;
  }

  notesWithSourceUrl(canonicalUrl: string): string[] {
    return Array.from(this.bySource.get(canonicalUrl) ?? []);
  }

  note(path: string): IndexedNote | undefined {
    return this.notes.get(path);
  }

  paths(): string[] {
    return Array.from(this.notes.keys());
  }

  onChange(listener: (status: IndexStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ── internals ─────────────────────────────────────────────────────────────────────────────

  private reset(): void {
    this.engine = createEngine(this.analyzer, this.radixTree);
    this.associations?.clear();
    this.language?.reset();
    this.notes.clear();
    this.notesChanged++;
    this.bySource.clear();
    this.fileProblems.clear();
    this.notesWithProblems.clear();
    this.unproven.clear();
    this.provenUnsaved = 0;
    this.savedIndex.forget();
  }

  /** Indexes a note's text, whose read began at `readFrom` (the clock then), in place of its earlier version. */
  private indexText(path: string, text: string, mtime: number, size: number, readFrom: number): void {
    const { parsed, doc, note } = this.parseForIndex(path, text, mtime, size);
    this.dropNote(path);
    this.engine.add(doc);
    this.associations?.setNote(path, notePassages(parsed, this.analyzer));
    this.language?.noteIndexed(path, doc, this.analyzer, this.engine, { mtime, size });
    this.rememberRead(note, readFrom);
  }

  /**
   * `indexText`, a long note a slice at a time. `generation` is the path's when its text was read:
   * a change that arrives at a yield is newer, and the rest is left to it. A note read again only to
   * prove it (`reread`) is first compared with what the index holds, a slice at a time too.
   */
  private async indexTextInSlices(path: string, text: string, mtime: number, size: number, readFrom: number, slice: WorkSlice, generation: number, reread?: Reread): Promise<void> {
    const long = text.length >= LONG_NOTE_CHARS;
    if (!long && !reread) return this.indexText(path, text, mtime, size, readFrom);
    const current = () => (this.generation.get(path) ?? 0) === generation;
    // Parsing a long note cannot be cut short: it gets a slice of its own.
    if (long) await slice.pause();
    if (!current()) return;
    const { parsed, doc, note } = this.parseForIndex(path, text, mtime, size);
    if (reread) {
      reread.changed = !(await this.holdsAsIndexed(note, doc, slice));
      if (!current()) return;
    }
    this.dropNote(path);
    if (long) {
      await slice.pause();
      if (!current() || !(await this.engine.addInSlices(doc, slice))) return;
    } else this.engine.add(doc);
    this.associations?.setNote(path, notePassages(parsed, this.analyzer));
    this.language?.noteIndexed(path, doc, this.analyzer, this.engine, { mtime, size });
    this.rememberRead(note, readFrom);
  }

  /** The note parsed, as the engine and the index will hold it (its earlier version is still in). */
  private parseForIndex(path: string, text: string, mtime: number, size: number) {
    const problems: NoteProblem[] = [];
    const body = indexedPart(text, this.maxNoteChars);
    if (body !== text) {
      problems.push({ kind: "too_large", message: `Only the first ${this.maxNoteChars.toLocaleString("en-US")} characters were indexed.` });
    }
    const parsed = parseNoteSafely(path, body);
    problems.push(...parsed.problems);
    const doc = toEngineDoc(parsed);
    const { title, aliases, tags, sourceUrls } = parsed;
    return { parsed, doc, note: { path, mtime, size, title, aliases, tags, sourceUrls, problems } };
  }

  /** Whether the index holds `note` as it would index it now: the same names, tags, sources, problems and words. */
  private async holdsAsIndexed(note: IndexedNote, doc: EngineDoc, slice: WorkSlice): Promise<boolean> {
    const held = this.notes.get(note.path);
    if (!held) return false;
    const facts = (n: IndexedNote) => JSON.stringify([n.title, n.aliases, n.tags, n.sourceUrls, n.problems]);
    return facts(held) === facts(note) && (await holdsSameWords(this.engine, this.analyzer, doc, slice));
  }

  /** The note and any problem of reading it leave the index (gone, excluded, or a research trace). */
  private dropNote(path: string): void {
    this.discardNote(path);
    this.fileProblems.delete(path);
  }

  private recordUnreadable(path: string, problem: NoteProblem): void {
    this.discardNote(path);
    this.fileProblems.set(path, problem);
  }

  /** Remembers a note whose read began at `readFrom`: one read too soon after its date is read again at the next look. */
  private rememberRead(note: IndexedNote, readFrom: number): void {
    this.rememberNote(note);
    if (readTooSoon(note.mtime, readFrom)) this.unproven.add(note.path);
  }

  private rememberNote(given: IndexedNote): void {
    const note = compactNote(given);
    this.notes.set(note.path, note);
    this.notesChanged++;
    if (note.problems.length > 0) this.notesWithProblems.add(note.path);
    for (const url of note.sourceUrls) {
      const canonical = this.canonicalize(url);
      if (!canonical) continue;
      let set = this.bySource.get(canonical);
      if (!set) this.bySource.set(canonical, (set = new Set()));
      set.add(note.path);
    }
  }

  private discardNote(path: string): void {
    this.unproven.delete(path);
    // First the engine: a long note being added in slices is there before it is in `notes`.
    const shortId = this.engine.shortIdOf(path);
    if (shortId !== undefined) {
      this.savedIndex.noteLeft(shortId);
      this.engine.discard(path);
    }
    const note = this.notes.get(path);
    if (!note) return;
    this.notes.delete(path);
    this.notesChanged++;
    this.notesWithProblems.delete(path);
    this.associations?.removeNote(path);
    this.language?.noteRemoved(path, { mtime: note.mtime, size: note.size });
    for (const url of note.sourceUrls) {
      const canonical = this.canonicalize(url);
      if (!canonical) continue;
      const set = this.bySource.get(canonical);
      set?.delete(path);
      if (set && set.size === 0) this.bySource.delete(canonical);
    }
  }

  private touch(): void {
    this.lastUpdated = this.clock.now();
    if (this.state === "empty") this.state = "ready";
    this.relearnWhenStale();
    this.emit();
  }

  /**
   * Once enough of the vault changed since its language was learned (language-lane.ts `stale`), it is
   * learned again behind, the old meanings serving meanwhile: a long-lived process (the MCP server, a
   * plugin session) never gave a word the vault took up since a meaning, and searched worse than a
   * fresh start for good.
   */
  private relearnWhenStale(): boolean {
    const language = this.language;
    if (this.relearnHolds > 0 || !language?.stale || !this.laneStore) return false;
    void language.relearn(this.laneSource(this.laneStore)).then(() => this.emit());
    return true;
  }

  /**
   * Holds back learning the vault's language again until the function returned is called (once): a
   * batch of changes (a sync catching up, a folder renamed) is learned from once it is all in. Started
   * at the change that crossed the line, the learning read a vault half changed, and the rest of the
   * batch, counted as changes it had not seen, had the vault read and learned again right after.
   * A build's first learning waits too (the edits a sync brought in while the build read the vault).
   */
  holdRelearning(): () => void {
    this.relearnHolds++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.relearnHolds--;
      if (this.relearnHolds > 0) return;
      if (this.laneWaits && this.laneStore) {
        this.laneWaits = false;
        this.startLane(this.laneStore);
      } else if (this.relearnWhenStale()) this.emit();
    };
  }

  private setState(state: IndexStatus["state"]): void {
    this.state = state;
    this.emit();
  }

  private emit(): void {
    if (this.listeners.size === 0) return;
    const status = this.status();
    for (const listener of this.listeners) listener(status);
  }
}

/**
 * Each folder as `Research/Traces/`, read part by part as the note writer reads a folder (`\\` and
 * `/` separate; empty, `.` and — as the writer drops them too — `..` parts dropped), so a trace
 * folder spelled `./Research\\Traces` is excluded where its notes are written. The vault's top is
 * never excluded. Settings arrive spelled so already; a caller that passes its own need not.
 */
function normalizeFolders(folders: string[]): string[] {
  // Not made unique: the list is part of the cache's fingerprint, and a saved index stays usable.
  return folders
    .map((f) => folderPartsInside(f).join("/"))
    .filter(Boolean)
    .map((f) => `${f}/`);
}

/** The note with its empty lists shared: most notes have no aliases, source URLs or problems. */
function compactNote(note: IndexedNote): IndexedNote {
  const { path, mtime, size, title, aliases, tags, sourceUrls, problems } = note;
  const shared = (list: never[] | string[] | NoteProblem[]) => (list.length === 0 ? NONE : list);
  return { path, mtime, size, title, aliases: shared(aliases) as string[], tags: shared(tags) as string[], sourceUrls: shared(sourceUrls) as string[], problems: shared(problems) as NoteProblem[] };
}

/** A note's text, or the problem that makes it no text to index (a binary file), or the read's own problem. */
function notBinary(text: string | NoteProblem): string | NoteProblem {
  return typeof text === "string" ? (binaryProblem(text) ?? text) : text;
}

/**
 * Of notes whose read failed, those no longer there: the store knows nothing of them now (`stat`, else
 * `exists`). One whose check fails too is taken to be there, and its read's problem is reported.
 */
async function vanished(store: NoteStore, paths: string[]): Promise<Set<string>> {
  const gone = new Set<string>();
  await Promise.all(
    paths.map(async (path) => {
      const there = await (store.stat ? store.stat(path).then((facts) => facts !== null) : store.exists(path)).catch(() => true);
      if (!there) gone.add(path);
    }),
  );
  return gone;
}

/** `cache` as the load reads it, keeping the reason of the first part it refused (`PartRefused`). */
function noticingRefusals(cache: IndexCache): { cache: IndexCache; refusal: () => RebuildReason | null } {
  let refusal: RebuildReason | null = null;
  const noticing: IndexCache = {
    read: (name) =>
      cache.read(name).catch((error: unknown) => {
        if (error instanceof PartRefused) refusal ??= error.reason;
        throw error;
      }),
    write: (name, value) => cache.write(name, value),
    names: () => cache.names(),
    remove: (names) => cache.remove(names),
    clear: () => cache.clear(),
  };
  return { cache: noticing, refusal: () => refusal };
}

function basicCanonicalUrl(url: string): string | null {
  const trimmed = url.trim();
  return trimmed ? trimmed : null;
}
