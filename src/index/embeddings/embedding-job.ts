// Embedding a vault is long work: hours for a large vault on a laptop's CPU. So it runs in the
// background in batches of notes, reports progress (notes done / total, rate, ETA), can be paused,
// resumed and cancelled between batches, and saves what it has every few batches — a restart plans
// again from the stored vectors and embeds only what is still missing or changed. Search keeps
// working at level 1 the whole time and uses whatever vectors are already there.
//
// The notes to embed come from the index (its paths with mtime and size), so trace notes and
// excluded folders are left out exactly as the index leaves them out.
import { monotonicReading, systemClock, type Clock, type NoteFileInfo, type NoteStore } from "../../ports";
import { errorMessage } from "../../text/error-message";
import { joinSentences } from "../../text/sentence-ends";
import { indexedPart, MAX_NOTE_CHARS } from "../note-limit";
import { parseNoteSafely } from "../parse-note-safely";
import { readNotes } from "../read-notes";
import type { EmbedRole, Embedder, EmbedderAnswer, EmbedderFailure } from "./embedder";
import { embeddingUnits, type EmbeddingUnit } from "./embedding-units";
import { isZeroVector } from "./quantize";
import { durationWords } from "./progress-words";
import type { VectorCache } from "./vector-cache";
import { partOrder } from "../vault-language/note-vector-file";
import { saveStoredVectors } from "./vector-parts";
import type { VectorReset } from "./vector-reset";
import { FINGERPRINT_TEXT, type VectorStore } from "./vector-store";

export type EmbeddingJobState = "idle" | "running" | "paused" | "done" | "cancelled" | "failed";

export interface EmbeddingProgress {
  state: EmbeddingJobState;
  /** Notes embedded by this run (one job is one run). */
  notesDone: number;
  /** Notes this run has to embed (added or changed since their vectors were made). */
  notesTotal: number;
  /** Notes whose stored vectors were still good (those found so when read again included). */
  notesUnchanged: number;
  /**
   * Notes read again because their vectors were cut by an older version (`UNITS_CUT`); those whose
   * text was the same are counted in notesUnchanged, the others embedded again and in notesDone.
   */
  notesRechecked: number;
  /** Of the notes this run reads again, those not read yet (they come first: see `workList`). */
  checksLeft: number;
  /**
   * Notes whose vectors followed them from another name (a folder renamed): read, found to send the
   * text those vectors were made from, and counted in notesUnchanged too. Absent in older progress.
   */
  notesMoved?: number;
  /**
   * Of the notes planned to take a departed note's vectors, those not read yet: they are read before
   * any note is embedded, and meanwhile the progress says vectors are being moved. Absent in older progress.
   */
  movesLeft?: number;
  /** Notes that could not be read; they are tried again next run. */
  notesUnreadable: number;
  /**
   * Notes the embedding server could not embed, even alone (a vector of NaN, an error for that
   * text), with the first one and the server's words: left out, and tried again next run.
   */
  refused?: { notes: number; first: string; message: string };
  unitsDone: number;
  /** Notes per second while running (pauses left out); null before the first batch. */
  notesPerSecond: number | null;
  /** At that rate, ms until done; null before the first batch. */
  etaMs: number | null;
  /** Stored vectors thrown away during this run, and why. */
  resets: VectorReset[];
  /** Why the run failed (state "failed"): the embedding client's own words. */
  error?: EmbedderFailure;
  /** The last save that failed (the run goes on; its vectors are saved next time). */
  saveProblem?: string;
}

export interface EmbeddingJobOptions {
  store: VectorStore;
  embedder: Embedder;
  /** Where the notes' text is read from. */
  notes: NoteStore;
  /** Saved every `saveEveryBatches` batches and whenever the run stops. */
  cache?: VectorCache | null;
  clock?: Clock;
  /** Notes per batch (default 16); the client splits a batch's texts into its own requests. */
  notesPerBatch?: number;
  /** Default 10. */
  saveEveryBatches?: number;
  /** Called between batches, so a UI thread can breathe. */
  yieldToUi?: () => Promise<void>;
  /** Notes longer than this are embedded by their first part only (default: the index's, `MAX_NOTE_CHARS`). */
  maxNoteChars?: number;
}

/** A rate-limited batch is tried again this many times, after the server's Retry-After (or 5 s) when it is a minute at most. */
const RATE_LIMIT_RETRIES = 3;
const ZEROS_MESSAGE = "The embedding server answered a test text with a vector of zeros, which no embedding model gives; embedding stopped and the stored vectors were kept. Check the server's model and settings, then resume.";
const ZERO_TEXT_MESSAGE = "The embedding server answered a text with a vector of zeros, which no embedding model gives.";
const RATE_LIMIT_WAIT_MS = 5_000;
const MAX_RATE_LIMIT_WAIT_MS = 60_000;

/**
 * The server's words, ended as a sentence, then how long it asks for: it read "…(HTTP 429): slow
 * down It asks for no more requests for about Infinity h NaN min". A wait of a day or more (the most
 * a Retry-After is believed, text/retry-after.ts) is said so by `durationWords`, not as hours: it may be a mistake.
 */
function rateLimitStopMessage(said: string, askedMs: number): string {
  return joinSentences(said, `It asks for no more requests for ${durationWords(askedMs)}; embedding stopped, and what was embedded is kept.`);
}

export class EmbeddingJob {
  private readonly clock: Clock;
  private readonly listeners = new Set<(progress: EmbeddingProgress) => void>();
  private readonly abort = new AbortController();
  private current: EmbeddingProgress = emptyProgress();
  private resumeGate: { promise: Promise<void>; open: () => void } | null = null;
  private activeMs = 0;
  private activeSince: number | null = null;
  /** The notes the store holds once this run is done: what its parts are laid out for. */
  private notesComing = 0;

  constructor(private readonly options: EmbeddingJobOptions) {
    this.clock = options.clock ?? systemClock;
  }

  progress(): EmbeddingProgress {
    return { ...this.current, resets: [...this.current.resets] };
  }

  onProgress(listener: (progress: EmbeddingProgress) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops after the batch in flight; `resume` goes on from there. */
  pause(): void {
    if (this.current.state !== "running" || this.resumeGate) return;
    let open = (): void => undefined;
    const promise = new Promise<void>((resolve) => (open = resolve));
    this.resumeGate = { promise, open };
    this.stopClock();
    this.update({ state: "paused" });
  }

  resume(): void {
    const gate = this.resumeGate;
    if (!gate) return;
    this.resumeGate = null;
    this.startClock();
    this.update({ state: "running" });
    gate.open();
  }

  /** Stops as soon as it can (the request in flight is abandoned); what was embedded is kept and saved. */
  cancel(): void {
    this.abort.abort();
    this.resumeGate?.open();
    this.resumeGate = null;
  }

  /** Embeds what the files need (added or changed by path, mtime and size) and drops what is gone. */
  async run(files: readonly NoteFileInfo[]): Promise<EmbeddingProgress> {
    const { store, embedder } = this.options;
    const modelReset = store.adoptModel(embedder.name);
    this.notesComing = files.length;
    let plan = store.plan(files);
    const notesTotal = plan.toCheck.length + plan.toEmbed.length + plan.toMove.length;
    this.current = { ...emptyProgress(), state: "running", notesTotal, notesUnchanged: plan.unchanged, checksLeft: plan.toCheck.length, movesLeft: plan.toMove.length, resets: modelReset ? [modelReset] : [] };
    this.startClock();
    this.emit();
    const notMoved = await this.carryMoved(plan.toMove);
    if (notMoved === null) return this.finish("cancelled");
    let work = workList(plan.toCheck, [...plan.toEmbed, ...notMoved]);
    // Asked even when nothing changed, so a model swapped since the last run is found at the next
    // one (the plugin's at start-up), not only once a note changes — once per loaded store then:
    // the plugin's second run of a start (the index's build ended) asks nothing. With nothing to
    // embed, a server that cannot answer stops nothing.
    if (work.length > 0 || (store.size > 0 && !store.fingerprintAsked)) {
      const checked = await this.checkFingerprint();
      if (checked.kind === "cancelled") return this.finish("cancelled");
      if (checked.kind === "failed") return this.finish(work.length > 0 ? "failed" : "done", work.length > 0 ? checked.error : undefined);
      if (checked.kind === "dimensions_changed") {
        // Every stored vector went: every note is to embed.
        plan = store.plan(files);
        work = workList(plan.toCheck, [...plan.toEmbed, ...plan.toMove]);
        this.update({ notesTotal: work.length, notesUnchanged: 0, checksLeft: plan.toCheck.length, resets: [...this.current.resets, checked.reset] });
      }
    }
    const batchSize = this.batchSize();
    let batches = 0;
    for (let next = 0; next < work.length; ) {
      if (this.resumeGate) await this.resumeGate.promise;
      if (this.abort.signal.aborted) return this.finish("cancelled");
      const batch = work.slice(next, next + batchSize);
      const outcome = await this.embedBatch(batch);
      if (outcome.kind === "cancelled") return this.finish("cancelled");
      if (outcome.kind !== "embedded") return this.finish("failed", outcome.error);
      next += batch.length;
      if (++batches % (this.options.saveEveryBatches ?? 10) === 0) {
        await this.save();
        this.emit();
      }
      if (next < work.length) await (this.options.yieldToUi ?? noWait)();
    }
    return this.finish("done");
  }

  /**
   * Notes new at their path with the date and size of a note whose vectors left (`toMove`): read, and
   * each that sends the text of such vectors takes them; the others, returned, are read again when
   * their turn to embed comes (null: cancelled). Before the fingerprint, since carrying sends nothing: a server that is down leaves no
   * renamed note without its vectors, and another model found next throws them all away anyway.
   */
  private async carryMoved(files: readonly NoteFileInfo[]): Promise<NoteFileInfo[] | null> {
    const notMoved: NoteFileInfo[] = [];
    const ordered = inPartOrder(files).map((file) => ({ file, check: false }));
    for (let next = 0; next < ordered.length; next += this.batchSize()) {
      if (this.resumeGate) await this.resumeGate.promise;
      if (this.abort.signal.aborted) return null;
      const batch = ordered.slice(next, next + this.batchSize());
      const read = await this.readUnits(batch);
      for (const { file, units } of read) if (!this.followed(file, units)) notMoved.push(file);
      this.current.movesLeft = (this.current.movesLeft ?? 0) - batch.length;
      // The last carried with nothing left to embed: the run is as good as done, not "embedding 0 of 0".
      if (this.current.movesLeft > 0 || this.current.notesTotal > 0) this.emit();
      await (this.options.yieldToUi ?? noWait)();
    }
    return notMoved;
  }

  private async embedBatch(batch: WorkItem[]): Promise<NotesOutcome> {
    // A note whose date changed may still be one renamed (a sync tool dating it anew): its text says.
    const read = await this.readUnits(batch);
    const notes = read.filter(({ file, units, check }) => (check ? !this.confirmed(file, units) : !this.followed(file, units)));
    return this.embedNotes(notes);
  }

  private batchSize(): number {
    return Math.max(1, this.options.notesPerBatch ?? 16);
  }

  /** `alone`: one note of a batch tried by itself (`embedOneByOne`), whose failure is its own. */
  private async embedNotes(notes: ReadNote[], alone = false): Promise<NotesOutcome> {
    const { store } = this.options;
    const texts = notes.flatMap((n) => n.units.map((u) => u.text));
    const answer = withoutZeros(await this.embedWithRetries(texts));
    if (this.abort.signal.aborted) return { kind: "cancelled" };
    if (!answer.ok && answer.error.kind !== "cancelled" && !alone && notes.length > 0 && mayBeOneText(answer.error)) return this.embedOneByOne(notes, answer.error);
    if (!answer.ok) return answer.error.kind === "cancelled" ? { kind: "cancelled" } : { kind: "failed", error: answer.error };
    if (texts.length > 0 && answer.dimensions !== store.dimensions) return { kind: "failed", error: otherDimensions(store.dimensions, answer.dimensions) };
    let at = 0;
    for (const { file, units } of notes) {
      store.put(file, units, answer.vectors.slice(at, at + units.length));
      at += units.length;
    }
    this.update({ notesDone: this.current.notesDone + notes.length, unitsDone: this.current.unitsDone + texts.length });
    return { kind: "embedded" };
  }

  /**
   * A batch the server could not embed: each note alone, so that one note's text (a vector of NaN
   * for it, an error for its words) does not stop every note after it, run after run. When no
   * note of several embeds alone either, the server is at fault, not the notes: the run stops with
   * its words. A batch of one note (the only note changed, or one long enough to fill a batch) is
   * that note's failure: the server embedded the run's fingerprint a moment before.
   */
  private async embedOneByOne(notes: ReadNote[], batchError: EmbedderFailure): Promise<NotesOutcome> {
    const refused: { path: string; error: EmbedderFailure }[] = [];
    let embedded = 0;
    for (const note of notes) {
      const outcome = notes.length === 1 ? ({ kind: "failed", error: batchError } as const) : await this.embedNotes([note], true);
      if (outcome.kind === "failed" && mayBeOneText(outcome.error)) {
        refused.push({ path: note.file.path, error: outcome.error });
        // Kept by its date and size, so a search can say it was refused, not that it is waiting.
        this.options.store.leaveOut(note.file, outcome.error.kind === "parse" ? "not_a_vector" : "server_error");
        continue;
      }
      if (outcome.kind !== "embedded") return outcome;
      embedded++;
    }
    if (embedded === 0 && notes.length > 1) return { kind: "failed", error: batchError };
    const before = this.current.refused;
    const first = before ?? { first: refused[0].path, message: refused[0].error.message };
    this.update({ refused: { notes: (before?.notes ?? 0) + refused.length, first: first.first, message: first.message } });
    return { kind: "embedded" };
  }

  /**
   * Asks the model for FINGERPRINT_TEXT before the run's first batch and lets the store compare it
   * with the answer its vectors were made with: another number of dimensions, or another model of
   * the same number, throws them away here, before a single new vector could be mixed with them.
   */
  private async checkFingerprint(): Promise<FingerprintOutcome> {
    const { store } = this.options;
    // As a query: the dial compares its searches' answers for the same text with it (vault-search.ts).
    const answer = await this.embedWithRetries([FINGERPRINT_TEXT], "query");
    if (this.abort.signal.aborted) return { kind: "cancelled" };
    if (!answer.ok) return answer.error.kind === "cancelled" ? { kind: "cancelled" } : { kind: "failed", error: answer.error };
    // Zeros are no model's answer (a server misconfigured, a proxy's filler): compared, they would
    // throw every stored vector away as another model's.
    if (isZeroVector(answer.vectors[0])) return { kind: "failed", error: { kind: "parse", message: ZEROS_MESSAGE } };
    const resized = store.adoptDimensions(answer.dimensions);
    const reset = store.adoptFingerprint(answer.vectors[0]) ?? resized;
    return reset ? { kind: "dimensions_changed", reset } : { kind: "embedded" };
  }

  /** A note only to be checked whose units send what its vectors were made from: kept, not embedded. */
  private confirmed(file: NoteFileInfo, units: EmbeddingUnit[]): boolean {
    this.current.notesRechecked++;
    if (!this.options.store.confirm(file.path, units)) return false;
    this.current.notesUnchanged++;
    this.current.notesTotal--;
    return true;
  }

  /** A note that took the vectors a departed note made from the same text: moved, not embedded. */
  private followed(file: NoteFileInfo, units: EmbeddingUnit[]): boolean {
    if (!this.options.store.follow(file, units)) return false;
    this.current.notesMoved = (this.current.notesMoved ?? 0) + 1;
    this.current.notesUnchanged++;
    this.current.notesTotal--;
    return true;
  }

  /** Each readable note's units; unreadable notes are counted and left for the next run. */
  private async readUnits(batch: WorkItem[]): Promise<ReadNote[]> {
    const maxChars = this.options.maxNoteChars ?? MAX_NOTE_CHARS;
    const texts = await readNotes(
      this.options.notes,
      batch.map((w) => w.file.path),
    );
    const out: ReadNote[] = [];
    batch.forEach(({ file, check }, i) => {
      if (check) this.current.checksLeft--;
      const text = texts[i];
      if (typeof text !== "string") {
        this.current.notesUnreadable++;
        this.options.store.leaveOut(file, "unreadable");
        return;
      }
      out.push({ file, check, units: embeddingUnits(parseNoteSafely(file.path, indexedPart(text, maxChars))) });
    });
    return out;
  }

  private async embedWithRetries(texts: string[], role: EmbedRole = "document"): Promise<EmbedderAnswer> {
    if (texts.length === 0) return { ok: true, vectors: [], dimensions: this.options.store.dimensions ?? 0 };
    for (let attempt = 0; ; attempt++) {
      const answer = await this.options.embedder.embed(texts, role, this.abort.signal);
      if (answer.ok || answer.error.kind !== "rate_limited" || attempt >= RATE_LIMIT_RETRIES) return answer;
      const asked = answer.error.retryAfterMs;
      // Asked again after our longest wait, a server that said a day was sent three more requests
      // in three minutes (a hosted API may lock the key for it), and the run stopped without saying when.
      if (asked !== undefined && asked > MAX_RATE_LIMIT_WAIT_MS) return { ok: false, error: { ...answer.error, message: rateLimitStopMessage(answer.error.message, asked) } };
      const waitMs = asked ?? RATE_LIMIT_WAIT_MS;
      try {
        await this.clock.sleep(waitMs, this.abort.signal);
      } catch {
        return { ok: false, error: { kind: "cancelled", message: "The embedding run was cancelled." } };
      }
    }
  }

  private async finish(state: "done" | "cancelled" | "failed", error?: EmbedderFailure): Promise<EmbeddingProgress> {
    this.stopClock();
    // Done, every note that could take departed vectors was read; stopped, the next run may still.
    if (state === "done") this.options.store.forgetDeparted();
    await this.save();
    this.update({ state, ...(error ? { error } : {}), ...(state === "done" ? { etaMs: 0 } : {}) });
    return this.progress();
  }

  private async save(): Promise<void> {
    const cache = this.options.cache;
    if (!cache) return;
    try {
      await saveStoredVectors(cache, this.options.store, this.notesComing, this.clock);
      if (this.current.saveProblem !== undefined) delete this.current.saveProblem;
    } catch (error) {
      this.current.saveProblem = `The vectors could not be saved: ${errorMessage(error)}`;
    }
  }

  private update(change: Partial<EmbeddingProgress>): void {
    this.current = { ...this.current, ...change };
    this.emit();
  }

  private emit(): void {
    const elapsed = this.activeMs + (this.activeSince === null ? 0 : this.reading() - this.activeSince);
    const { notesDone, notesUnreadable, notesTotal } = this.current;
    const processed = notesDone + notesUnreadable + (this.current.refused?.notes ?? 0);
    if (processed > 0 && elapsed > 0) {
      const rate = processed / (elapsed / 1000);
      this.current.notesPerSecond = rate;
      this.current.etaMs = Math.round(((notesTotal - processed) / rate) * 1000);
    }
    const snapshot = this.progress();
    for (const listener of this.listeners) listener(snapshot);
  }

  private startClock(): void {
    this.activeSince = this.reading();
  }

  private stopClock(): void {
    if (this.activeSince !== null) this.activeMs += this.reading() - this.activeSince;
    this.activeSince = null;
  }

  /**
   * The running time's reading: the clock's monotonic one. On the wall clock, one set back during a
   * batch made the running time negative (the rate and the time left stopped changing), one stepped
   * forward a day made the time left days.
   */
  private reading(): number {
    return monotonicReading(this.clock);
  }
}

type NotesOutcome = { kind: "embedded" } | { kind: "cancelled" } | { kind: "failed"; error: EmbedderFailure };
/** The fingerprint's answer may throw the stored vectors away (another model): the one place a run does. */
type FingerprintOutcome = NotesOutcome | { kind: "dimensions_changed"; reset: VectorReset };

/**
 * A batch answered with another number of dimensions than the run's fingerprint: two models answer
 * at that address (a balancer over two servers, a model swapped midway). Taken for a model swapped,
 * one batch sent to the other threw every stored vector away; the run stops instead, and the next
 * one's fingerprint tells which model answers then.
 */
function otherDimensions(expected: number | null, got: number): EmbedderFailure {
  return {
    kind: "dimension_mismatch",
    message: `The embedding server answered with ${got} dimensions where it answered ${expected ?? "none"} at the start of this run, as if two models answered in turn; embedding stopped and the stored vectors were kept. Make sure one model answers at that address, then resume.`,
  };
}

/** A note read and cut into the units to embed. */
interface ReadNote {
  file: NoteFileInfo;
  units: EmbeddingUnit[];
  check: boolean;
}

/**
 * An answer holding a vector of zeros, as an answer that is no vector: zeros are at cosine 0 from
 * every query, so stored they put the note in every vector lane by the vault's order, counted as
 * embedded and never sent again. As a failure of its text (`mayBeOneText`), the batch is sent note
 * by note and only the notes with such a text are left out, as `not_a_vector`.
 */
function withoutZeros(answer: EmbedderAnswer): EmbedderAnswer {
  if (!answer.ok || !answer.vectors.some(isZeroVector)) return answer;
  return { ok: false, error: { kind: "parse", message: ZERO_TEXT_MESSAGE } };
}

/**
 * Failures a text can cause (an answer that is not numbers, an error status for that input), as
 * opposed to the key, the rate, the model, the connection or the clock, which no note changes.
 */
function mayBeOneText(error: EmbedderFailure): boolean {
  return error.kind === "parse" || error.kind === "http";
}

/** A note the run reads: to embed, or (`check`) to embed only if its units' text changed. */
interface WorkItem {
  file: NoteFileInfo;
  check: boolean;
}

/**
 * The notes to check come first: most are only read, so the total falls to what must really be
 * embedded within seconds, before the rate and the time left are worked out from it. Each kind goes
 * part by part (`partOrder`): in the index's order, the notes done between two saves fell into
 * nearly every part of the vectors, so each save of a first embedding rewrote almost all of them
 * (8,000 notes wrote 20 times what they take); part by part, a save writes the one or two filled since.
 */
function workList(toCheck: readonly NoteFileInfo[], toEmbed: readonly NoteFileInfo[]): WorkItem[] {
  return [...inPartOrder(toCheck).map((file) => ({ file, check: true })), ...inPartOrder(toEmbed).map((file) => ({ file, check: false }))];
}

function inPartOrder(files: readonly NoteFileInfo[]): NoteFileInfo[] {
  const keyed = files.map((file) => ({ file, key: partOrder(file.path) }));
  keyed.sort((a, b) => a.key - b.key || (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
  return keyed.map((k) => k.file);
}

function emptyProgress(): EmbeddingProgress {
  return { state: "idle", notesDone: 0, notesTotal: 0, notesUnchanged: 0, notesRechecked: 0, checksLeft: 0, notesMoved: 0, movesLeft: 0, notesUnreadable: 0, unitsDone: 0, notesPerSecond: null, etaMs: null, resets: [] };
}

function noWait(): Promise<void> {
  return Promise.resolve();
}
