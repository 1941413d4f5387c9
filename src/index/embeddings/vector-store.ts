// The embedding lane's memory: per note, its file facts (for the same path/mtime/size diff the
// index uses), where each unit sits, and the units' int8 vectors with, in row 0, the note's own
// vector (the mean of its units, level 2). Searched by brute force: every row's cosine against the
// query, the best k kept in a heap. That is linear in the rows; bench/bench-embeddings.ts measures
// where it stops being fast enough.
import type { NoteFileInfo } from "../../ports";
import { UNITS_CUT, unitsTextHash, type EmbeddingUnit, type UnitPlace } from "./embedding-units";
import { centroid, isZeroVector, quantize } from "./quantize";
import { TopK } from "./top-k";
import type { VectorReset } from "./vector-reset";

export interface NoteVectors {
  path: string;
  mtime: number;
  size: number;
  units: UnitPlace[];
  /** How the units were cut (`UNITS_CUT` when they were made; "" in files from before it was kept). */
  cut: string;
  /** `unitsTextHash` of what the units sent ("" when not known). */
  textHash: string;
  /** (units.length + 1) rows of `dimensions` int8 values: row 0 is the note's vector, row i + 1 unit i's. */
  values: Int8Array;
  /** 1 / |row| for each row. */
  invNorms: Float32Array;
}

export interface NearNote {
  path: string;
  similarity: number;
}

export interface NearSection extends NearNote {
  /** The note's best-matching unit. */
  unit: UnitPlace;
}

/**
 * Why the job left a note without vectors of its text as it is now: the server refused it (an error
 * for its text, or an answer that is no vector), or it could not be read. Each run tries it again,
 * but it is not waiting its turn: the dial says so instead of "until embedding catches up".
 */
export type LeftOutReason = "server_error" | "not_a_vector" | "unreadable";

/** A note the job tried and left out, with the date and size it had then. */
export interface LeftOutNote {
  path: string;
  mtime: number;
  size: number;
  reason: LeftOutReason;
}

/** What a sync of the vectors against the index's notes has to do. */
export interface VectorPlan {
  /** Added or changed since their vectors were made, in the order given. */
  toEmbed: NoteFileInfo[];
  /**
   * Unchanged on disk, but their units were cut by an older version (`UNITS_CUT`): each is read
   * again and embedded again only if its units' text now differs. Their old vectors serve until then.
   */
  toCheck: NoteFileInfo[];
  /**
   * New at their path, with the date and size of a note whose vectors left (a folder renamed keeps
   * both): each is read, and takes those vectors when its units send what they were made from
   * (`follow`); any other is embedded.
   */
  toMove: NoteFileInfo[];
  /** Paths whose vectors were dropped: the note is gone (or renamed: see `toMove`). */
  removed: string[];
  unchanged: number;
}

/**
 * What the embedding job sends first in every run (as a query), to recognise the model by its answer:
 * a server may put another model of the same dimensions behind the same name (llama.cpp's ignores
 * the name; an Ollama tag pulled again), and its vectors must not be mixed with the stored ones.
 */
export const FINGERPRINT_TEXT = "Vault Research fingerprint: a quick brown fox jumps over the lazy dog beside the river bank.";
/**
 * Cosine between two answers for FINGERPRINT_TEXT at or above which they are one model's. The same
 * model on other hardware or at another precision stays above 0.99; another model's space is not
 * aligned with it at all.
 */
const SAME_MODEL_COSINE = 0.9;

export class VectorStore {
  private readonly notes = new Map<string, NoteVectors>();
  /**
   * Vectors of notes the index no longer lists, by the hash of the text they were made from, until
   * a run is done (`forgetDeparted`): a note renamed is listed under a new name, and matched by
   * path its vectors went and it was embedded again (a folder of 3,000 notes renamed, 3,000 notes'
   * requests). Never searched; saved at their old paths (`savedEntries`) until then, so a process
   * ended before its run was done leaves them to the next one's plan, as they were before it.
   */
  private readonly departed = new Map<string, NoteVectors[]>();
  /** Notes the last run that tried them left out, by path (`leaveOut`); never searched, saved in the vectors' root (vector-parts.ts). */
  private readonly leftOut = new Map<string, LeftOutNote>();
  private modelName: string | null;
  private dims: number | null;
  private print: Float32Array | null;
  /** The model was asked for its fingerprint since these vectors were loaded (this session). */
  private printAsked = false;

  constructor(model: string | null = null, dimensions: number | null = null, fingerprint: Float32Array | null = null) {
    this.modelName = model;
    this.dims = dimensions;
    this.print = fingerprint;
  }

  get model(): string | null {
    return this.modelName;
  }

  get dimensions(): number | null {
    return this.dims;
  }

  /** Whether the model's fingerprint was compared with these vectors' since they were loaded. */
  get fingerprintAsked(): boolean {
    return this.printAsked;
  }

  /** The model's unit vector for FINGERPRINT_TEXT when these vectors were made (null: not known). */
  get fingerprint(): Float32Array | null {
    return this.print;
  }

  /** Notes with vectors. */
  get size(): number {
    return this.notes.size;
  }

  /** Units (title, outline, sections) with vectors, over all notes. */
  unitCount(): number {
    let n = 0;
    for (const note of this.notes.values()) n += note.units.length;
    return n;
  }

  note(path: string): NoteVectors | undefined {
    return this.notes.get(path);
  }

  entries(): IterableIterator<NoteVectors> {
    return this.notes.values();
  }

  /**
   * What a save keeps: every note's vectors, and those set aside for a renamed note at the path they
   * left, where no note is now. A run cancelled (Ctrl-C, the plugin unloaded) or failed (a server
   * down while notes moved and dated anew wait to embed) saves before it is done; saved without them,
   * the next process found those notes new and sent every one to the model again. Loaded, they are
   * set aside again by that process's plan. One left where a note is now is let go: a path holds one note.
   */
  *savedEntries(): IterableIterator<NoteVectors> {
    yield* this.notes.values();
    const paths = new Set<string>();
    for (const same of this.departed.values()) {
      for (const note of same) {
        if (this.notes.has(note.path) || paths.has(note.path)) continue;
        paths.add(note.path);
        yield note;
      }
    }
  }

  /** Vectors are for this model from now on; another model's are thrown away (and said so). */
  adoptModel(model: string): VectorReset | null {
    if (this.modelName === model) return null;
    const previous = this.modelName;
    const notes = this.notes.size;
    this.modelName = model;
    if (previous === null || notes === 0) {
      this.notes.clear();
      this.departed.clear();
      this.leftOut.clear();
      this.dims = null;
      this.print = null;
      return null;
    }
    this.clear();
    return { kind: "model_changed", from: previous, to: model, notes };
  }

  /** The model answers with this many dimensions; vectors of another length are thrown away. */
  adoptDimensions(dimensions: number): VectorReset | null {
    if (this.dims === dimensions) return null;
    const previous = this.dims;
    const notes = this.notes.size;
    this.notes.clear();
    this.departed.clear();
    this.leftOut.clear();
    this.dims = dimensions;
    this.print = null;
    return previous === null || notes === 0 ? null : { kind: "dimension_changed", from: previous, to: dimensions, notes };
  }

  /**
   * The model's answer for FINGERPRINT_TEXT now (unit length, this store's dimensions): kept as the
   * fingerprint; when another was kept and this one is not the same model's, every vector is thrown
   * away. A store without one (older files) trusts its vectors and keeps this one from now on.
   */
  adoptFingerprint(vector: Float32Array): VectorReset | null {
    const same = this.sameModelAs(vector);
    this.print = Float32Array.from(vector);
    this.printAsked = true;
    if (same) return null;
    const notes = this.notes.size;
    this.notes.clear();
    this.departed.clear();
    this.leftOut.clear();
    return notes === 0 ? null : { kind: "model_swapped", model: this.modelName ?? "the embedding model", notes };
  }

  /**
   * Compares the index's notes with the stored vectors (by path, mtime and size). The vectors of
   * notes that are gone leave the store, but are kept aside by their text (`follow`) until a run is
   * done: a note of the same date and size new at another path is planned `toMove`.
   */
  plan(files: readonly NoteFileInfo[]): VectorPlan {
    const plan: VectorPlan = { toEmbed: [], toCheck: [], toMove: [], removed: this.departNotesNotIn(files), unchanged: 0 };
    const departedFacts = new Set(Array.from(this.departed.values(), (same) => same.map(factsKey)).flat());
    for (const file of files) {
      const known = this.notes.get(file.path);
      if (!known) (departedFacts.has(factsKey(file)) ? plan.toMove : plan.toEmbed).push(file);
      else if (known.mtime !== file.mtime || known.size !== file.size || holdsZeroRow(known)) plan.toEmbed.push(file);
      else if (known.cut !== UNITS_CUT) plan.toCheck.push(file);
      else plan.unchanged++;
    }
    return plan;
  }

  /** Drops the vectors of notes not among `files`, keeping them aside by their text hash; their paths. */
  private departNotesNotIn(files: readonly NoteFileInfo[]): string[] {
    const present = new Set(files.map((f) => f.path));
    for (const path of Array.from(this.leftOut.keys())) if (!present.has(path)) this.leftOut.delete(path);
    const removed: string[] = [];
    for (const note of Array.from(this.notes.values())) {
      if (present.has(note.path)) continue;
      this.notes.delete(note.path);
      removed.push(note.path);
      // Without a hash nothing proves a note the same; such vectors were cut by an older version
      // and are embedded again at their own path too (`confirm`).
      if (note.textHash === "") continue;
      const same = this.departed.get(note.textHash);
      if (same) same.push(note);
      else this.departed.set(note.textHash, [note]);
    }
    return removed;
  }

  /**
   * A note read and cut into `units` takes the vectors of a departed note whose units sent the very
   * same text (true): a note renamed or moved, its text unchanged. Its title is in that text, so a
   * note titled by its old file name sends other text now, and is embedded again (false).
   */
  follow(file: NoteFileInfo, units: readonly EmbeddingUnit[]): boolean {
    const hash = unitsTextHash(units);
    const same = this.departed.get(hash);
    const index = same?.findIndex((n) => n.units.length === units.length) ?? -1;
    if (!same || index < 0) return false;
    const [known] = same.splice(index, 1);
    if (same.length === 0) this.departed.delete(hash);
    // A new object, as `put` makes: the saved parts rewrite the buckets whose notes are not the ones they wrote.
    this.notes.set(file.path, { ...known, path: file.path, mtime: file.mtime, size: file.size, units: placesOf(units), cut: UNITS_CUT });
    this.leftOut.delete(file.path);
    return true;
  }

  /** A run is done: every note that could take the departed vectors has been read; they go for good. */
  forgetDeparted(): void {
    this.departed.clear();
  }

  /** Stores a note's unit vectors (unit length, `dimensions` long); replaces what it had. */
  put(file: NoteFileInfo, units: readonly EmbeddingUnit[], vectors: readonly Float32Array[]): void {
    const d = this.dims;
    if (d === null) throw new Error("VectorStore.put before adoptDimensions");
    if (vectors.length !== units.length || vectors.some((v) => v.length !== d)) throw new Error(`VectorStore.put: ${vectors.length} vectors for ${units.length} units`);
    const rows = [centroid(vectors, d), ...vectors];
    const values = new Int8Array(rows.length * d);
    const invNorms = new Float32Array(rows.length);
    rows.forEach((row, i) => {
      const q = quantize(row);
      values.set(q.values, i * d);
      invNorms[i] = q.invNorm;
    });
    this.notes.set(file.path, { path: file.path, mtime: file.mtime, size: file.size, units: placesOf(units), cut: UNITS_CUT, textHash: unitsTextHash(units), values, invNorms });
    this.leftOut.delete(file.path);
  }

  /**
   * The job tried this note as it is (`file`'s date and size) and left it out, for `reason`; its old
   * vectors, if any, stay. A load puts back what a save kept the same way, after the vectors.
   */
  leaveOut(file: NoteFileInfo, reason: LeftOutReason): void {
    this.leftOut.set(file.path, { path: file.path, mtime: file.mtime, size: file.size, reason });
  }

  /** Why the note as it is now (same date and size) was left out by the run that last tried it; null when it was not, or it changed since. */
  leftOutAs(file: { path: string; mtime: number; size: number }): LeftOutReason | null {
    const known = this.leftOut.get(file.path);
    return known && known.mtime === file.mtime && known.size === file.size ? known.reason : null;
  }

  /** The notes left out (`leaveOut`), for a caller that keeps them beside the vectors. */
  leftOutNotes(): IterableIterator<LeftOutNote> {
    return this.leftOut.values();
  }

  /**
   * A note planned `toCheck`, read again and cut into `units` as this version cuts it: when they
   * send what its vectors were made from, the vectors are kept as this version's (true); otherwise
   * nothing changes and the note is to be embedded again (false).
   */
  confirm(path: string, units: readonly EmbeddingUnit[]): boolean {
    const known = this.notes.get(path);
    if (!known || known.textHash === "" || known.textHash !== unitsTextHash(units)) return false;
    // The places are taken anew too: a parser's change can move a section without changing its text.
    this.notes.set(path, { ...known, units: placesOf(units), cut: UNITS_CUT });
    this.leftOut.delete(path);
    return true;
  }

  /**
   * Whether this answer for FINGERPRINT_TEXT is the model's these vectors were made with (true when
   * that is not known: none kept, or zeros, which a version before the job refused them kept).
   */
  sameModelAs(fingerprint: Float32Array): boolean {
    const known = this.print;
    if (known === null || known.length !== fingerprint.length || isZeroVector(known)) return true;
    return dot(known, fingerprint) >= SAME_MODEL_COSINE;
  }

  /** Puts back a note exactly as it was stored (loading from the cache file). */
  restore(note: NoteVectors): void {
    this.notes.set(note.path, note);
  }

  remove(path: string): boolean {
    this.leftOut.delete(path);
    return this.notes.delete(path);
  }

  clear(): void {
    this.notes.clear();
    this.departed.clear();
    this.leftOut.clear();
    this.dims = null;
    this.print = null;
  }

  /** The k notes whose own vector (the mean of its units) is closest to the query (level 2). */
  nearestNotes(query: Float32Array, k: number, accept: (path: string) => boolean = () => true): NearNote[] {
    const d = this.checkQuery(query);
    const best = new TopK<string>(k);
    for (const note of this.notes.values()) {
      // A row of zeros (see `holdsZeroRow`) has no direction: at cosine 0 it would rank as near as any.
      if (note.invNorms[0] === 0 || !accept(note.path)) continue;
      best.push(rowCosine(query, note, 0, d), note.path);
    }
    return best.sorted().map(({ score, item }) => ({ path: item, similarity: score }));
  }

  /** The k notes with the closest single unit — title, outline or a section — and that unit (level 3). */
  nearestSections(query: Float32Array, k: number, accept: (path: string) => boolean = () => true): NearSection[] {
    const d = this.checkQuery(query);
    const best = new TopK<{ path: string; unit: UnitPlace }>(k);
    for (const note of this.notes.values()) {
      if (!accept(note.path)) continue;
      let top = -Infinity;
      let topUnit = -1;
      for (let u = 0; u < note.units.length; u++) {
        if (note.invNorms[u + 1] === 0) continue;
        const similarity = rowCosine(query, note, u + 1, d);
        if (similarity > top) [top, topUnit] = [similarity, u];
      }
      if (topUnit >= 0 && top > best.threshold) best.push(top, { path: note.path, unit: note.units[topUnit] });
    }
    return best.sorted().map(({ score, item }) => ({ path: item.path, unit: item.unit, similarity: score }));
  }

  private checkQuery(query: Float32Array): number {
    if (this.dims !== null && query.length !== this.dims) throw new Error(`A query vector of ${query.length} dimensions against vectors of ${this.dims}`);
    return query.length;
  }
}

/**
 * Whether a row of the note's is zeros (1 / |row| is 0 for those alone): what a version before the job
 * refused them stored for a text the server answered with zeros, counted as embedded and never sent
 * again. It is embedded again (`plan`), and searched by its other rows only until then.
 */
function holdsZeroRow(note: NoteVectors): boolean {
  return note.invNorms.some((inv) => inv === 0);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** A note's date and size as one key: what a rename keeps. */
function factsKey(file: { mtime: number; size: number }): string {
  return `${file.mtime}:${file.size}`;
}

/** The units' places without their text: what a note keeps. */
function placesOf(units: readonly EmbeddingUnit[]): UnitPlace[] {
  return units.map(({ kind, headingPath, line, start, end }) => ({ kind, headingPath, line, start, end }));
}

/** Cosine of a unit-length query with one stored row. The hot loop: four products a turn. */
function rowCosine(query: Float32Array, note: NoteVectors, row: number, d: number): number {
  const values = note.values;
  const base = row * d;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < d; i += 4) {
    s0 += query[i] * values[base + i];
    s1 += query[i + 1] * values[base + i + 1];
    s2 += query[i + 2] * values[base + i + 2];
    s3 += query[i + 3] * values[base + i + 3];
  }
  for (; i < d; i++) s0 += query[i] * values[base + i];
  return (s0 + s1 + s2 + s3) * note.invNorms[row];
}
