// The vault-language lane's life beside the index. After a full build, with the index already
// searchable, it reads the notes once more in slices, keeps a fair sample of their passages, learns
// the words' meanings from it, gives every note its vector from the postings, and lets the sample
// go; nothing of this runs inside the build, so a build costs what it did. After a warm start it
// decodes the meanings saved beside the index (vault-language-file.ts) and fills the notes' vectors
// the same way. A note indexed later gets its vector from its own words at once; a note removed
// loses it. Once a tenth of the notes changed since the meanings were learned (counted as they are
// indexed, or at a start by their dates), the meanings are learned again behind: a word taken up
// since had none for as long as a process ran and at every start from the cache. A vault too small
// to learn from has no lane; nor does a cache saved without one (until the next full build).
import type { IndexCache, Workers } from "../../ports";
import { roundTo } from "../../text/numbers";
import { parseNoteSafely } from "../parse-note-safely";
import { readNotes } from "../read-notes";
import { isTopicTerm } from "../stopwords";
import { noteHoldsTerm, notesWithTerm, toEngineDoc, type EngineDoc, type SearchEngine } from "../search-engine";
import type { Analyzer } from "../tokenize";
import { waitOn, type WorkSlice } from "../work-slice";
import type { LaneFusion } from "./fuse-lanes";
import { docTermCounts, notesHolding, notesHoldingInSlices, wordCountsInto } from "./note-term-counts";
import { notesReadAgain, samplePassages, type PassageSource } from "./passage-sample";
import { keepMeanings, VaultLanguage, type NearNote } from "./vault-language";
import { bucketOf, bucketsFor, encodeNotesPart, isNotesPartName, NOTE_BUCKETS, notesPartName, readNotesPart, type NoteVersion, type SavedNoteVector } from "./note-vector-file";
import { encodeLanguage, encodeTooSmall, LANGUAGE_PART, readLanguagePart, type LoadedLanguage } from "./vault-language-file";
import { meaningsRequest, notesBatch, NOTES_END, readMeaningsAnswer } from "./meanings-job";
import { DEFAULT_WORD_MEANING, learnWordMeanings, type WordMeaningOptions, type WordMeanings } from "./word-meanings";
import { wordRecord } from "../../text/word-record";
import { WorkerWentQuiet } from "../worker-jobs";

export interface VaultLanguageOptions {
  fusion: LaneFusion;
  words: WordMeaningOptions;
  /** Fewer passages than this (about 60,000 words of text) is too little to learn from. */
  minPassages: number;
  /** At most this many passages are kept for learning (a fair sample of a larger vault). */
  maxPassages: number;
  /** Stand-ins for a question's missing words: the note's words whose meaning is this close
   * (cosine) to the missing one, at most `perWord`; null adds none. */
  standIns?: { minSimilarity: number; perWord: number } | null;
}

export const DEFAULT_VAULT_LANGUAGE: VaultLanguageOptions = {
  fusion: { k: 10, weight: 0.7, depth: 50, damping: 0.5, lead: 4 },
  words: DEFAULT_WORD_MEANING,
  minPassages: 2000,
  maxPassages: 60_000,
};

/** Fewest bytes of markdown a 30-word passage takes (short words, no markup): an estimate that errs on reading. */
const BYTES_PER_PASSAGE = 120;

/** Notes without a saved vector worked out from their own text (read again), up to this many or
 * this share of the vault; beyond, every note's is worked out from the postings. */
const MAX_REREAD = 64;
const MAX_REREAD_SHARE = 0.02;

/** A vault found too small is read again once it has grown by this factor. */
const GROWN_AGAIN = 1.5;

/** Meanings are learned again, behind, once this share of the vault's notes (and at least
 * RELEARN_MIN_NOTES) were added, changed or removed since they were learned: a word the vault took
 * up since (a new project's) has no meaning, so the lane never answered for it, however long a
 * process ran or however often it started from its cache. A guess, not measured: a tenth of a
 * 50,000-note vault is a worker's seconds every 5,000 notes. */
const RELEARN_SHARE = 0.1;
const RELEARN_MIN_NOTES = 50;

/** Parts of notes' vectors being read at once at a start. */
const PARTS_AHEAD = 8;

/** Words whose nearest words in meaning are remembered (for the stand-ins), at most. */
const NEAR_WORDS_KEPT = 2000;

/** What learning needs of the index it sits beside (its notes, paths and analyser: passage-sample.ts). */
export interface LaneSource extends PassageSource {
  engine: SearchEngine;
  /** Wall time: when meanings are learned, to tell at a later start which notes changed since (by their dates). */
  now: () => number;
  /** The indexed notes' size in bytes: a vault plainly too small to learn from is not read again. */
  bytes: () => number;
  /** The mtime and size a note was indexed at (a saved vector of another version is not used). */
  noteVersion: (path: string) => NoteVersion | undefined;
  slice: () => WorkSlice;
  /** Whether learning again is held back now (a batch of changes is being applied: vault-index.ts `holdRelearning`). */
  relearnHeld?: () => boolean;
}

/** Where meanings were learned: in a worker, or on this thread (no worker, or it failed). */
export type LearnedIn = "worker" | "this thread";

/** What the next `learn` does: learn from the notes, take saved meanings from a cache, or nothing. */
type Plan = { kind: "learn" } | { kind: "load"; cache: IndexCache; fingerprint: string } | { kind: "none" };

export class LanguageLane {
  private model: VaultLanguage | null = null;
  private plan: Plan = { kind: "none" };
  private learning: Promise<void> | null = null;
  /** The learning under way, until it ends. */
  private workingOn: Promise<void> | null = null;
  /** Bumped by every reset: a learning that outlives it is thrown away. */
  private generation = 0;
  private changed = false;
  /** Bytes of notes when they were read and found too few to learn from; null when not so. */
  private tooSmallAt: number | null = null;
  /** Words near a term, remembered while the model stands (forgotten by `reset` and `loadFrom`; NEAR_WORDS_KEPT at most). */
  private readonly nearWordCache = new Map<string, { term: string; similarity: number }[]>();
  /** While a learning fills its notes' vectors from the postings: the notes indexed (their doc) or
   * removed (null) meanwhile, whose vectors the postings read earlier no longer give. */
  private pending: Map<string, { doc: EngineDoc; analyzer: Analyzer; engine: SearchEngine; version: NoteVersion } | null> | null = null;
  /** The version of each note whose vector is known (a note whose words have no meaning has none, but is known). */
  private readonly versions = new Map<string, NoteVersion>();
  /** Parts of notes' vectors (by bucket, among `layout ?? NOTE_BUCKETS`) changed since the last save. */
  private readonly dirtyBuckets = new Set<number>();
  /** How many parts the notes' vectors in the cache are spread over; null when not known (none
   * saved yet, or parts of two layouts): the next save lays them out anew. */
  private layout: number | null = null;
  /** Aborted by every reset, load and stop: a worker learning for the lane then ends at once. */
  private abort = new AbortController();
  /** Where the meanings in use (or being learned) were learned; null when none were learned since
   * the last reset, load or stop (none yet, or taken back from the cache). */
  learnedIn: LearnedIn | null = null;
  /** A worker went quiet (worker-jobs.ts `WorkerWentQuiet`): for as long as this lane lives, it learns
   * on its own thread rather than wait that long again. A worker that fails fast is tried again. */
  private workerWentQuiet = false;
  /** Set by `stop`, for good: a reset or load that comes after (a build that ends once the plugin
   * is unloaded) plans nothing, so no worker starts learning for an index no one will search. */
  private stopped = false;
  /** When the meanings in use were learned (wall time; a part saved without it: when it was loaded). */
  private learnedAt: number | null = null;
  /** Notes added or changed since the meanings in use were learned: with those gone since (`leaving`), once enough, they are learned again. */
  private readonly unseen = new Set<string>();
  /** Notes that left since the meanings were learned, by the version they left at (null: not known).
   * A note read again leaves first: back at the same date and size, it is the same note, not a change. */
  private readonly leaving = new Map<string, NoteVersion | null>();
  /** The paths in `leaving` by the version they left at: a note new at another path with one of those
   * dates and sizes was renamed or moved, not changed. */
  private readonly leftAs = new PathsByVersion();
  /** The notes in `unseen` that are new at their path, by their version: a note that leaves with one of
   * those dates and sizes moved there (a listing finds the new name before the old one gone). */
  private readonly arrivedAs = new PathsByVersion();

  constructor(
    readonly options: VaultLanguageOptions,
    private readonly workers: Workers | null = null,
  ) {}

  get ready(): boolean {
    return this.model !== null;
  }

  /** The model, for saving; null while there is none. */
  current(): VaultLanguage | null {
    return this.model;
  }

  /** Whether the learned meanings or a note's vector changed since the last save, or the notes' vectors
   * are to be laid out anew. */
  get unsaved(): boolean {
    return this.changed || this.dirtyBuckets.size > 0 || (this.model !== null && bucketsFor(this.versions.size, this.layout) !== this.layout);
  }

  /** Forgets everything; the next `learn` learns from the notes (a full build is under way). */
  reset(): void {
    this.startOver({ kind: "learn" });
    // Whatever the cache holds of the lane is of notes no longer indexed as they were.
    this.changed = true;
  }

  /** The index came from `cache`: the next `learn` takes the meanings saved there, if any. */
  loadFrom(cache: IndexCache, fingerprint: string): void {
    this.startOver({ kind: "load", cache, fingerprint });
  }

  /**
   * Stops a learning under way at its next pause, its worker's job aborted (the plugin is unloaded),
   * and learns nothing from now on. What the lane holds stays, for the save the unload makes: dropped
   * here, meanings learned in the session after the last save (the first build's, or learned again
   * once much of the vault changed) were lost, and the next start read the whole vault to learn them.
   */
  stop(): void {
    this.stopped = true;
    this.plan = { kind: "none" };
    this.abort.abort();
  }

  /** Whether the learning of `generation` is no longer wanted: a reset, load or stop came since. */
  private overtaken(generation: number): boolean {
    return generation !== this.generation || this.stopped;
  }

  /** Drops the model and all work under way (a learning that outlives this is thrown away). */
  private startOver(plan: Plan): void {
    this.generation++;
    this.abort.abort();
    this.abort = new AbortController();
    this.model = null;
    this.learnedIn = null;
    this.plan = this.stopped ? { kind: "none" } : plan;
    this.tooSmallAt = null;
    this.versions.clear();
    this.dirtyBuckets.clear();
    this.layout = null;
    this.learning = null;
    this.workingOn = null;
    this.pending = null;
    this.nearWordCache.clear();
    this.changed = false;
    this.learnedAt = null;
    this.forgetChanges();
  }

  /** A note was (re)indexed: once meanings are known, its vector follows its new words. */
  noteIndexed(path: string, doc: EngineDoc, analyzer: Analyzer, engine: SearchEngine, version: NoteVersion): void {
    this.pending?.set(path, { doc, analyzer, engine, version });
    // Not while a build indexes every note before any learning: those are what it learns from.
    if (this.model || this.workingOn) this.countChanged(path, version);
    if (!this.model) return;
    // Weighed by the postings' lengths (its old version's still among them), not `notesHolding`:
    // that walks every word's postings, a quarter of a second for a note of 170 words in a made-up
    // vault of 50,000, at each edit. Its vector is saved as made: a later run ranks with the same one.
    this.model.setNote(path, docTermCounts(doc, analyzer), (t) => notesWithTerm(engine, t), engine.documentCount);
    this.known(path, version);
  }

  /** A note left the index; `version`: the date and size it was indexed at. */
  noteRemoved(path: string, version?: NoteVersion): void {
    this.pending?.set(path, null);
    if (this.model || this.workingOn) this.countRemoved(path, version);
    if (!this.model) return;
    this.model.removeNote(path);
    this.versions.delete(path);
    this.dirty(path);
  }

  /** A note indexed since the meanings were learned: unseen by them, unless it is one that left just
   * now and came back as it was (read again to prove its text: the same date and size), or one that
   * left another path with its date and size (renamed or moved: its words are the ones learned from).
   * Counted as a change, a folder of a twentieth of the vault renamed had every meaning learned again,
   * which the same rename made while no process ran (counted at a start by the notes' dates) did not. */
  private countChanged(path: string, version: NoteVersion): void {
    if (this.leaving.has(path)) {
      const left = this.leaving.get(path);
      this.leaving.delete(path);
      this.leftAs.delete(path);
      if (!left || left.mtime !== version.mtime || left.size !== version.size) this.unseen.add(path);
      return;
    }
    const from = this.leftAs.find(version);
    if (from !== undefined) {
      this.leaving.delete(from);
      this.leftAs.delete(from);
    } else if (!this.unseen.has(path)) {
      this.unseen.add(path);
      this.arrivedAs.add(path, version);
    }
  }

  /** A note left since the meanings were learned: counted (`leaving`), unless it is new since (counted
   * already) or one new at another path has its date and size (it moved there: no change). */
  private countRemoved(path: string, left?: NoteVersion): void {
    if (this.unseen.has(path)) {
      this.arrivedAs.delete(path);
      return;
    }
    // The index's word for the version that left: while meanings are first learned or taken from the
    // cache, the lane knows no note's yet, and a folder renamed then counted each of its notes twice
    // (gone, and new elsewhere), enough to have the meanings learned again as soon as they were ready.
    const version = left ?? this.versions.get(path) ?? null;
    const to = version ? this.arrivedAs.find(version) : undefined;
    if (to !== undefined) {
      this.unseen.delete(to);
      this.arrivedAs.delete(to);
      return;
    }
    this.leaving.set(path, version);
    if (version) this.leftAs.add(path, version);
    else this.leftAs.delete(path);
  }

  /** No note counted changed: meanings are about to be learned from them all (or there are none). */
  private forgetChanges(): void {
    this.unseen.clear();
    this.leaving.clear();
    this.leftAs.clear();
    this.arrivedAs.clear();
  }

  private known(path: string, version: NoteVersion): void {
    this.versions.set(path, version);
    this.dirty(path);
  }

  private dirty(path: string): void {
    this.dirtyBuckets.add(bucketOf(path, this.layout ?? NOTE_BUCKETS));
  }

  /** Does what the last reset or load planned (once; later calls wait on the same work). A cache
   * without meanings (an older one, a vault grown since it was too small) means learning them. */
  learn(source: LaneSource): Promise<void> {
    if (this.learning) return this.learning;
    const plan = this.plan;
    this.plan = { kind: "none" };
    if (plan.kind === "none") return Promise.resolve();
    const generation = this.generation;
    const learning = (async () => {
      const work = stoppable(source.slice(), () => this.overtaken(generation));
      await this.learnOrLoad(plan, source, work, generation);
      // Meanings saved before much of the vault changed (the notes dated since they were learned)
      // are learned again at once, the loaded ones serving meanwhile; while changes are being
      // applied, once they are in (the index asks for it then: they are `stale`).
      if (plan.kind === "load" && !this.overtaken(generation) && this.changedSinceLearned() && !source.relearnHeld?.()) await this.learnOrLoad({ kind: "learn" }, source, work, generation);
    })().catch(() => {
      // Nothing here is meant to throw (reads fail per note, parsing never throws); should
      // something slip through, the vault has no lane until the next build, and search is words alone.
    });
    this.learning = learning;
    this.workingOn = learning;
    void learning.then(() => {
      if (this.workingOn === learning) this.workingOn = null;
    });
    return learning;
  }

  /**
   * Whether enough of the vault changed since its meanings were learned that they are to be learned
   * again (`relearn`): a word taken up since has none, and the lane never answered for it.
   */
  get stale(): boolean {
    return this.workingOn === null && this.changedSinceLearned();
  }

  private changedSinceLearned(): boolean {
    return this.model !== null && !this.stopped && this.unseen.size + this.leaving.size >= Math.max(RELEARN_MIN_NOTES, RELEARN_SHARE * this.versions.size);
  }

  /** Learns the meanings again from the notes as they are now, when `stale`; the meanings in use
   * serve until the new ones and every note's vector are ready. */
  relearn(source: LaneSource): Promise<void> {
    if (!this.stale) return Promise.resolve();
    this.plan = { kind: "learn" };
    this.learning = null;
    return this.learn(source);
  }

  /** One plan carried out: the meanings taken from the cache or learned, then every note's vector. */
  private async learnOrLoad(plan: Exclude<Plan, { kind: "none" }>, source: LaneSource, work: WorkSlice, generation: number): Promise<void> {
    // What changes from here on, this learning may not see (counted again from 0 even if it learns
    // nothing: a vault that shrank below learning size is not read again at every change). Taken for
    // a load too, which learns when the cache has no usable meanings: saved without a date, those
    // were taken as learned at every later start, and no start counted the notes changed since.
    const startedAt = source.now();
    if (plan.kind === "learn") this.forgetChanges();
    const loaded = plan.kind === "load" ? await loadPart(plan.cache, plan.fingerprint, work) : null;
    if (loaded?.kind === "too_small" && source.bytes() < loaded.bytes * GROWN_AGAIN) {
      this.tooSmallAt = loaded.bytes;
      return;
    }
    const model = loaded?.kind === "model" ? loaded.model : await this.learnModel(source, work, generation);
    if (this.overtaken(generation)) return;
    if (!model) {
      // Learned again and found too little to learn from (a vault that shrank): the meanings in use
      // stay, dated as of this learning and saved so. Left at their old date, the notes dated since
      // were counted again at every start, and every start read the whole vault to learn nothing.
      if (this.model) {
        this.learnedAt = startedAt;
        this.changed = true;
      }
      return;
    }
    const saved = loaded?.kind === "model" && plan.kind === "load" ? await loadNoteVectors(plan.cache, model, plan.fingerprint, work) : { notes: [], layout: null };
    if (this.overtaken(generation)) return;
    this.layout = saved.layout;
    await this.fill(model, source, work, saved.notes);
    if (this.overtaken(generation)) return;
    this.model = model;
    this.nearWordCache.clear();
    if (loaded?.kind !== "model") {
      this.learnedAt = startedAt;
      this.changed = true;
      // Every part of notes' vectors is written anew with these meanings: a save while they were
      // learned again (the old ones serving) wrote parts with the old, and marked them saved; a part
      // no later note touched kept vectors the next start could not use, and worked out again.
      this.layout = null;
      return;
    }
    const now = source.now();
    this.learnedAt = loaded.learnedAt ?? now;
    await this.notesChangedSince(this.learnedAt, now, source, work);
  }

  /**
   * The notes dated after `learnedAt` (changed or added since the meanings were learned, in this
   * process or another) are counted unseen; not one dated after `now`: a date ahead of the clock
   * (a note from a device whose clock runs ahead, a disk that shifts dates by a time zone) says
   * nothing of when it changed, and learning again moves `learnedAt` only to now, so such notes
   * had the meanings learned again at every start until the clock caught up with them.
   */
  private async notesChangedSince(learnedAt: number, now: number, source: LaneSource, work: WorkSlice): Promise<void> {
    for (const [i, path] of source.paths().entries()) {
      if (i % 1024 === 1023 && work.over()) await work.pause();
      const version = source.noteVersion(path);
      if (version && version.mtime > learnedAt && version.mtime <= now) this.unseen.add(path);
    }
  }

  /** Whether the next `learn` learns the meanings from the notes (after a full build), not from a cache. */
  get learnsFromNotes(): boolean {
    return this.plan.kind === "learn";
  }

  /** Whether meanings are being learned, or taken back with the notes' vectors, right now. */
  get working(): boolean {
    return this.workingOn !== null;
  }

  /**
   * The notes' vectors: the saved ones of the version indexed, the rest from the notes themselves
   * (a few read again) or, when many are missing, from every posting. Notes indexed or removed
   * meanwhile get theirs (or lose them) after.
   */
  private async fill(model: VaultLanguage, source: LaneSource, work: WorkSlice, saved: readonly SavedNoteVector[]): Promise<void> {
    const pending: NonNullable<LanguageLane["pending"]> = new Map();
    this.pending = pending;
    const versions = new Map<string, NoteVersion>();
    // Every loop over the notes pauses: 100,000 saved vectors taken back at once blocked for 600 ms.
    model.reserveNotes(saved.length);
    for (const [i, s] of saved.entries()) {
      if (i % 256 === 0 && work.over()) await work.pause();
      const now = source.noteVersion(s.path);
      if (!now || now.mtime !== s.version.mtime || now.size !== s.version.size) {
        // Its part is rewritten at the next save, without it (a note gone while the vault was closed).
        this.dirty(s.path);
        continue;
      }
      if (s.vector.invNorm > 0) model.restoreNote(s.path, s.vector);
      versions.set(s.path, now);
    }
    if (work.over()) await work.pause();
    const paths = source.paths();
    const missing = paths.filter((p) => !versions.has(p));
    if (missing.length > Math.max(MAX_REREAD, paths.length * MAX_REREAD_SHARE)) {
      await fillNoteVectors(model, source.engine, work);
      for (const [i, path] of paths.entries()) {
        if (i % 1024 === 0 && work.over()) await work.pause();
        this.versionNow(path, source);
      }
    } else {
      let done = 0;
      for (const [path, version] of versions) {
        if (++done % 1024 === 0 && work.over()) await work.pause();
        this.versions.set(path, version);
      }
      await vectorsFromNotes(model, missing, source, work);
      for (const path of missing) this.versionNow(path, source);
    }
    if (this.pending === pending) this.pending = null;
    for (const [path, note] of pending) {
      if (note) {
        model.setNote(path, docTermCounts(note.doc, note.analyzer), (t) => notesWithTerm(note.engine, t), note.engine.documentCount);
        this.known(path, note.version);
      } else {
        model.removeNote(path);
        this.versions.delete(path);
        this.dirty(path);
      }
    }
  }

  private versionNow(path: string, source: LaneSource): void {
    const version = source.noteVersion(path);
    if (version) this.known(path, version);
  }

  private async learnModel(source: LaneSource, work: WorkSlice, generation: number): Promise<VaultLanguage | null> {
    // A passage is 30 words, at least BYTES_PER_PASSAGE of markdown: fewer bytes than that many
    // passages need cannot make enough of them (and is cheap to see again: nothing is kept).
    const bytes = source.bytes();
    if (bytes < this.options.minPassages * BYTES_PER_PASSAGE) return null;
    const meanings = await this.learnMeanings(source, work, generation);
    if (this.overtaken(generation)) return null;
    if (!meanings) {
      // Read and found wanting: saved, so the next start does not read every note again.
      this.tooSmallAt = bytes;
      this.changed = true;
      return null;
    }
    return new VaultLanguage(await keepMeanings(meanings, work));
  }

  /**
   * The meanings of the notes' passages (null: too few to learn from). With a worker, the notes are
   * read here and handed to it as they are read, and it samples, parses and learns (the same code,
   * so the same meanings); without one, or when it fails, cannot start or answers in another shape,
   * all of it happens here between pauses.
   */
  private async learnMeanings(source: LaneSource, work: WorkSlice, generation: number): Promise<WordMeanings | null> {
    const stale = () => this.overtaken(generation);
    if (this.workers && !this.workerWentQuiet) {
      try {
        const request = meaningsRequest(source.analyzer.options.stemming, this.options.maxPassages, this.options.minPassages, this.options.words);
        // Waiting on the worker is no work of this thread's (its reading of the notes for it is).
        const answered = await waitOn(work, this.workers.run(request, this.abort.signal, notesForWorker(source, work, stale)));
        const answer = readMeaningsAnswer(answered, this.options.words);
        if (answer !== undefined) {
          // An answer that came as a reset overtook its learning is not this lane's meanings.
          if (!stale()) this.learnedIn = "worker";
          return answer;
        }
      } catch (error) {
        // A worker that cannot start or fails: learned here instead (below), unless overtaken.
        if (error instanceof WorkerWentQuiet) this.workerWentQuiet = true;
      }
      if (stale()) throw new LearningOvertaken("the vault-language learning was overtaken");
    }
    this.learnedIn = "this thread";
    const passages = await samplePassages(source, this.options.maxPassages, work, stale);
    if (stale()) return null;
    return passages.length < this.options.minPassages ? null : learnWordMeanings(passages, isTopicTerm, work, this.options.words);
  }

  /**
   * Writes what changed since the last save to `cache`: the meanings when they changed (or the
   * finding that the notes were too few; or, with neither, their part goes), and the parts of
   * notes' vectors that changed, or all of them when the vault outgrew their layout (then every
   * other part of notes' vectors goes). One part at a time, pausing between them. What changes
   * meanwhile is for the next save; a reset, load or stop meanwhile ends it; a write that fails
   * leaves all of it for the next save.
   */
  async save(cache: IndexCache, fingerprint: string, slice: WorkSlice): Promise<void> {
    const generation = this.generation;
    const model = this.model;
    const changed = this.changed;
    const dirty = new Set(this.dirtyBuckets);
    const from = this.layout;
    const buckets = model ? bucketsFor(this.versions.size, from) : null;
    const anew = model !== null && buckets !== from;
    // Taken now, and notes changed from here on are marked in the layout being written.
    this.changed = false;
    this.dirtyBuckets.clear();
    this.layout = buckets;
    try {
      if (changed) {
        if (model) await waitOn(slice, cache.write(LANGUAGE_PART, encodeLanguage(model, fingerprint, this.learnedAt)));
        else if (this.tooSmallAt !== null) await waitOn(slice, cache.write(LANGUAGE_PART, encodeTooSmall(this.tooSmallAt, fingerprint)));
        else await waitOn(slice, cache.remove([LANGUAGE_PART]));
      }
      const written = model && buckets !== null ? await this.writeNotesParts(cache, model, fingerprint, buckets, anew ? null : dirty, slice, generation) : new Set<string>();
      if (generation === this.generation && (anew || (!model && changed))) {
        const stale = (await waitOn(slice, cache.names())).filter((name) => isNotesPartName(name) && !written.has(name));
        if (stale.length > 0) await waitOn(slice, cache.remove(stale));
      }
    } catch (error) {
      if (generation === this.generation) {
        this.changed ||= changed;
        for (const b of dirty) this.dirtyBuckets.add(b);
        // Parts of two layouts may be in the cache now: the next save lays them out anew.
        if (anew) this.layout = null;
      }
      throw error;
    }
  }

  /** Writes the parts of notes' vectors in `only` (all `buckets` when null); a part left empty
   * goes. Returns the names written. */
  private async writeNotesParts(cache: IndexCache, model: VaultLanguage, fingerprint: string, buckets: number, only: ReadonlySet<number> | null, slice: WorkSlice, generation: number): Promise<Set<string>> {
    const listed = await pathsByBucket(Array.from(this.versions.keys()), buckets, slice);
    const id = model.meaningsId();
    const written = new Set<string>();
    for (let b = 0; b < buckets; b++) {
      if (only && !only.has(b)) continue;
      if (slice.over()) await slice.pause();
      if (generation !== this.generation) break;
      // A note removed since the list was made is left out (its part is marked for the next save).
      const paths: string[] = [];
      for (let i = listed.starts[b]; i < listed.starts[b + 1]; i++) {
        const path = listed.paths[listed.order[i]];
        if (this.versions.has(path)) paths.push(path);
      }
      const name = notesPartName(b);
      if (paths.length > 0) {
        const notes = { paths, version: (i: number) => this.versions.get(paths[i])!, vectorInto: (i: number, values: Int8Array, norms: Float32Array) => model.writeNoteVector(paths[i], values, norms, i) };
        // The wait is not the slice's work, the encoding is: restarted after each write (as if the
        // write gave the event loop a turn), a cache that answers without one (a memory cache, a
        // quick IndexedDB) had all 256 parts written in one 53 ms stretch at 50,000 notes.
        await waitOn(slice, cache.write(name, encodeNotesPart(notes, model.dimensions, id, fingerprint, buckets)));
        written.add(name);
      } else if (only) await waitOn(slice, cache.remove([name]));
    }
    return written;
  }

  /** Resolves when a learning under way is done (at once when there is none). */
  async settled(): Promise<void> {
    // A learning may follow the one waited on (a loaded lane found stale learns again).
    let waited: Promise<void> | null = null;
    while (this.learning !== waited) await (waited = this.learning);
  }

  /**
   * For each word of the question a note lacks, the note's own words nearest it in meaning
   * ("unstaged" for "uncommitted"), strongest first: what the judge may count as partly covering it.
   */
  standInsFor(path: string, missing: readonly { word: string; term: string }[], engine: SearchEngine): Record<string, { term: string; strength: number }[]> {
    const limits = this.options.standIns;
    const out = wordRecord<{ term: string; strength: number }[]>();
    if (!this.model || !limits) return out;
    for (const { word, term } of missing) {
      let near = this.nearWordCache.get(term);
      if (near) {
        // Asked again: it moves to the end, as if new (a Map keeps the order keys came in).
        this.nearWordCache.delete(term);
      } else {
        near = this.model.nearWords(term, 30, limits.minSimilarity);
        // The word asked about longest ago goes first.
        if (this.nearWordCache.size >= NEAR_WORDS_KEPT) this.nearWordCache.delete(this.nearWordCache.keys().next().value!);
      }
      this.nearWordCache.set(term, near);
      const held = near.filter((n) => noteHoldsTerm(engine, path, n.term)).slice(0, limits.perWord);
      if (held.length > 0) out[word] = held.map((n) => ({ term: n.term, strength: roundTo(n.similarity, 3) }));
    }
    return out;
  }

  /** The notes nearest a question's terms; empty without a model or when no term is known. */
  nearest(terms: readonly string[], engine: SearchEngine, keep?: (path: string) => boolean): NearNote[] {
    if (!this.model) return [];
    const counts = new Map<string, number>();
    for (const t of terms) counts.set(t, 1);
    // Made anew at every search, so weighed by the notes that hold each word now, as every later
    // run weighs it (not by postings a note read again left behind: note-term-counts.ts).
    const query = this.model.textVector(counts, (t) => notesHolding(engine, t), engine.documentCount);
    return query ? this.model.nearest(query, this.options.fusion.depth, keep) : [];
  }
}

/** Paths by the version (date and size) their note had: what a rename keeps. */
class PathsByVersion {
  private readonly byVersion = new Map<string, Set<string>>();
  private readonly versionOf = new Map<string, string>();

  add(path: string, version: NoteVersion): void {
    this.delete(path);
    const key = `${version.mtime}:${version.size}`;
    this.versionOf.set(path, key);
    const paths = this.byVersion.get(key);
    if (paths) paths.add(path);
    else this.byVersion.set(key, new Set([path]));
  }

  delete(path: string): void {
    const key = this.versionOf.get(path);
    if (key === undefined) return;
    this.versionOf.delete(path);
    const paths = this.byVersion.get(key)!;
    paths.delete(path);
    if (paths.size === 0) this.byVersion.delete(key);
  }

  /** A path whose note had `version`, if any. */
  find(version: NoteVersion): string | undefined {
    return this.byVersion.get(`${version.mtime}:${version.size}`)?.values().next().value;
  }

  clear(): void {
    this.byVersion.clear();
    this.versionOf.clear();
  }
}

/** Thrown at a pause of a learning that a reset, a load or a stop overtook: it ends there. */
class LearningOvertaken extends Error {}

/** The slice, whose pause ends the work once `stale` says it is no longer wanted. */
function stoppable(slice: WorkSlice, stale: () => boolean): WorkSlice {
  return {
    over: slice.over,
    restart: slice.restart,
    waitFor: slice.waitFor,
    pause: async () => {
      await slice.pause();
      if (stale()) throw new LearningOvertaken("the vault-language learning was overtaken");
    },
  };
}

/** What a worker learning the meanings is handed after its request: the notes as read again, a
 * batch at a time, then the end (none once the learning is overtaken: the worker is ended then). */
async function* notesForWorker(source: LaneSource, work: WorkSlice, stale: () => boolean): AsyncGenerator<unknown> {
  for await (const batch of notesReadAgain(source, work, stale)) yield notesBatch(batch);
  if (!stale()) yield NOTES_END;
}

/**
 * `paths` grouped by bucket, in their order within each: bucket `b`'s are `paths[order[i]]` for i
 * from `starts[b]` to `starts[b + 1]`. Two typed arrays for the vault, not an array a part grown
 * path by path (100,000 notes a save).
 */
async function pathsByBucket(paths: string[], buckets: number, slice: WorkSlice): Promise<{ paths: string[]; order: Uint32Array; starts: Uint32Array }> {
  const bucketOfPath = new Uint32Array(paths.length);
  const starts = new Uint32Array(buckets + 1);
  for (let i = 0; i < paths.length; i++) {
    if (i % 1024 === 1023 && slice.over()) await slice.pause();
    const b = bucketOf(paths[i], buckets);
    bucketOfPath[i] = b;
    starts[b + 1]++;
  }
  for (let b = 0; b < buckets; b++) starts[b + 1] += starts[b];
  const order = new Uint32Array(paths.length);
  const next = starts.slice(0, buckets);
  for (let i = 0; i < paths.length; i++) order[next[bucketOfPath[i]]++] = i;
  return { paths, order, starts };
}

/** The saved notes' vectors made with these meanings (parts missing or unusable give none), and
 * the number of parts they are spread over (null when none was read, or the parts disagree). */
async function loadNoteVectors(cache: IndexCache, model: VaultLanguage, fingerprint: string, work: WorkSlice): Promise<{ notes: SavedNoteVector[]; layout: number | null }> {
  let names: string[];
  try {
    names = (await waitOn(work, cache.names())).filter(isNotesPartName);
  } catch {
    return { notes: [], layout: null };
  }
  const notes: SavedNoteVector[] = [];
  const layouts = new Set<number>();
  const id = model.meaningsId();
  // Unreadable: its notes' vectors are worked out again.
  const readPart = (name: string) => cache.read(name).catch(() => null);
  // A few parts on their way while one is taken in, so reading overlaps decoding.
  const ahead = names.slice(0, PARTS_AHEAD).map(readPart);
  for (let i = 0; i < names.length; i++) {
    const part = await waitOn(work, ahead[i]);
    if (i + PARTS_AHEAD < names.length) ahead.push(readPart(names[i + PARTS_AHEAD]));
    const read = await readNotesPart(part, model.dimensions, id, fingerprint, work);
    // An unusable part is of no layout: the next save writes every part anew and prunes it.
    layouts.add(read?.buckets ?? 0);
    if (read) notes.push(...read.notes);
  }
  return { notes, layout: layouts.size === 1 && !layouts.has(0) ? [...layouts][0] : null };
}

/** The vectors of a few notes from their own text, read again (as the index analyses it). */
async function vectorsFromNotes(model: VaultLanguage, paths: string[], source: LaneSource, work: WorkSlice): Promise<void> {
  const texts = await waitOn(work, readNotes(source.store, paths));
  for (const [i, text] of texts.entries()) {
    if (typeof text !== "string" || !source.holds(paths[i])) continue;
    const doc = toEngineDoc(parseNoteSafely(paths[i], text));
    model.setNote(paths[i], docTermCounts(doc, source.analyzer), (t) => notesWithTerm(source.engine, t), source.engine.documentCount);
    if (work.over()) await work.pause();
  }
}

async function loadPart(cache: IndexCache, fingerprint: string, work: WorkSlice): Promise<LoadedLanguage | null> {
  let part: unknown = null;
  try {
    part = await waitOn(work, cache.read(LANGUAGE_PART));
  } catch {
    // An unreadable part is no lane, as a missing one is.
  }
  return readLanguagePart(part, fingerprint);
}

/** Notes whose sums share one block of memory while every note's vector is filled (512 KB at 128
 * dimensions): the blocks come one at a time as notes are met, and go once their notes are set. */
const SUM_ROWS = 1024;

/**
 * Every note's vector, from the postings of the words that have a meaning: word by word, each note
 * that holds it gets (1 + log count) × rarity of its meaning added, the weighting `textVector` uses
 * (note-term-counts.ts pins that postings and a note's own fields give the same counts).
 */
export async function fillNoteVectors(model: VaultLanguage, engine: SearchEngine, slice: WorkSlice): Promise<void> {
  const dims = model.dimensions;
  if (slice.over()) await slice.pause();
  // Every note's sum a row (in the order first met) in blocks of SUM_ROWS rows, not an array a note
  // nor one block for the vault: 100,000 small arrays kept the garbage collector busy for the whole
  // fill, and one block of every note's sum was 51 MB at 100,000 notes, made in one step inside a
  // slice (and the more notes, the longer that step). Rows, counts and the notes a word is in by
  // short id, in arrays made once (a Map filled for each word was garbage too).
  const ids = engine.nextShortId;
  const rowOf = new Int32Array(ids).fill(-1);
  const noteOfRow = new Uint32Array(ids);
  let rows = 0;
  const sums: Float32Array[] = [];
  const counts = new Float64Array(ids);
  const notes = new Uint32Array(ids);
  const noteCount = engine.documentCount;
  for (const [word, row] of model.words) {
    if (slice.over()) await slice.pause();
    const met = await wordCountsInto(engine, word, counts, notes, slice);
    if (met === 0) continue;
    // The notes that hold it, not its postings' length (a walk of them only while a discarded
    // note's may be among them): the vectors of a clean index, whatever the engine kept.
    const rarity = Math.log(1 + noteCount / Math.max(1, await notesHoldingInSlices(engine, word, slice)));
    for (let i = 0; i < met; i++) {
      if (i % 1024 === 1023 && slice.over()) await slice.pause();
      const note = notes[i];
      let at = rowOf[note];
      if (at < 0) {
        rowOf[note] = at = rows++;
        noteOfRow[at] = note;
        if (at % SUM_ROWS === 0) sums.push(new Float32Array(SUM_ROWS * dims));
      }
      model.addWord(sums[Math.floor(at / SUM_ROWS)], row, (1 + Math.log(counts[note])) * rarity, (at % SUM_ROWS) * dims);
      counts[note] = 0;
    }
  }
  model.reserveNotes(rows);
  for (let at = 0; at < rows; at++) {
    if (at % 256 === 255 && slice.over()) await slice.pause();
    const block = Math.floor(at / SUM_ROWS);
    const from = (at % SUM_ROWS) * dims;
    const path = engine.pathOf(noteOfRow[at]);
    if (path !== undefined) model.setNoteSum(path, sums[block].subarray(from, from + dims));
    // Its notes are set: the block goes while the notes' own block fills.
    if (from + dims === SUM_ROWS * dims) sums[block] = NO_SUMS;
  }
}

/** A block of sums whose notes are set. */
const NO_SUMS = new Float32Array(0);
