// The notes' vault-language vectors, saved beside the meanings in parts (a note's part is a hash
// of its path), so a start does not work them out from every posting again and a save after one
// edit rewrites one small part. The number of parts grows with the vault (a power of two, 64 at
// least, about 300 notes a part), so that part stays small in a vault of 100,000 notes too. Each vector is kept with the note's mtime and size
// as it was indexed, and the meanings it was made with (their id): a vector of another version of
// the note, or of other meanings, is not used. A part that is missing or not the shape it claims is
// worked out again, never an error.
import { inverseNorm, type QuantizedVector } from "../embeddings/quantize";
import type { WorkSlice } from "../work-slice";
import { LANGUAGE_PART } from "./vault-language-file";
import { fnv1a32 } from "../../text/string-hash";

/** The fewest parts the notes' vectors are spread over (as many as a vault of up to 19,200 notes is given). */
export const NOTE_BUCKETS = 64;
/** Notes a part is made to hold when the parts are laid out anew… */
const NOTES_PER_PART = 300;
/** …and the range a layout is kept in as the vault grows or shrinks (so it does not flap). */
const MOST_PER_PART = 600;
const FEWEST_PER_PART = 100;
const PREFIX = `${LANGUAGE_PART}-notes-`;
const FORMAT = "vault-research-vault-language-notes";
const VERSION = 1;

/** The version of a note a vector was made from. */
export interface NoteVersion {
  mtime: number;
  size: number;
}

export interface SavedNoteVector {
  path: string;
  version: NoteVersion;
  vector: QuantizedVector;
}

interface NotesPart {
  format: typeof FORMAT;
  version: number;
  fingerprint: string;
  /** Which meanings the vectors were made with (see `meaningsId`). */
  meanings: number;
  dimensions: number;
  /** The parts the notes were spread over when this one was written (64 in parts saved before it was kept). */
  buckets?: number;
  paths: string[];
  /** Per note: mtime and size. */
  versions: Float64Array;
  values: Int8Array;
  /** Per note: 1 / |values| and the scale (see embeddings/quantize.ts). */
  norms: Float32Array;
}

/** Whether a cache part is one of the vault language's (the meanings or a part of notes' vectors). */
export function isLanguagePartName(name: string): boolean {
  return name === LANGUAGE_PART || name.startsWith(PREFIX);
}

/** Whether a cache part is one of the notes' vectors (not the meanings). */
export function isNotesPartName(name: string): boolean {
  return name.startsWith(PREFIX);
}

export function notesPartName(bucket: number): string {
  return `${PREFIX}${bucket}`;
}

/** The bucket of a path among `buckets`: FNV-1a of its characters. */
export function bucketOf(path: string, buckets: number): number {
  return fnv1a32(path) % buckets;
}

/**
 * A path's place in the order that fills the parts one after another: every part's paths together,
 * at any number of parts `bucketsFor` gives (a power of two). `bucketOf` is then the hash's lowest
 * bits, so the hash read from its lowest bit up sorts by part at 64 parts, at 128, and so on. Work
 * done in this order and saved as it goes (the embedding job) rewrites few parts at each save.
 */
export function partOrder(path: string): number {
  let hash = fnv1a32(path);
  let reversed = 0;
  for (let bit = 0; bit < 32; bit++, hash >>>= 1) reversed = (reversed << 1) | (hash & 1);
  return reversed >>> 0;
}

/** How many parts `notes` vectors are spread over: the layout `current` while each part holds a
 * fair number of them, else a power of two near NOTES_PER_PART notes a part (NOTE_BUCKETS at least). */
export function bucketsFor(notes: number, current: number | null): number {
  if (current !== null && notes <= current * MOST_PER_PART && (current <= NOTE_BUCKETS || notes >= current * FEWEST_PER_PART)) return current;
  let buckets = NOTE_BUCKETS;
  while (buckets * NOTES_PER_PART < notes) buckets *= 2;
  return buckets;
}

/** A number that tells one set of meanings from another: FNV-1a over about 4,096 of their `length`
 * int8 values, evenly spaced (`valueAt` is asked for those only). */
export function meaningsId(length: number, valueAt: (i: number) => number, words: number): number {
  let hash = 0x811c9dc5 ^ words;
  const step = Math.max(1, Math.floor(length / 4096));
  for (let i = 0; i < length; i += step) hash = Math.imul(hash ^ (valueAt(i) & 0xff), 0x01000193);
  return hash >>> 0;
}

/** The notes a part is written from, in its order: each one's version, and its vector written
 * straight into the part's arrays by the lane's block (no copy of each on the way). */
export interface NotesToSave {
  /** Taken as the part's own list (a packed array: v8 writes a holey one in another form). */
  paths: string[];
  version(i: number): NoteVersion;
  /** Writes the `i`th note's values at row `i` of `values` and its 1 / |v| and scale at `norms[i × 2]`
   * and the next; false for a note without a vector (its row stays zeros, as a zero vector's). */
  vectorInto(i: number, values: Int8Array, norms: Float32Array): boolean;
}

/** Vectors in hand (as `readNotesPart` gives them) as notes to save. */
export function savedNotes(notes: readonly SavedNoteVector[]): NotesToSave {
  return {
    paths: notes.map((n) => n.path),
    version: (i) => notes[i].version,
    vectorInto: (i, values, norms) => {
      values.set(notes[i].vector.values, i * notes[i].vector.values.length);
      norms[i * 2] = notes[i].vector.invNorm;
      norms[i * 2 + 1] = notes[i].vector.scale;
      return true;
    },
  };
}

export function encodeNotesPart(notes: NotesToSave, dimensions: number, meanings: number, fingerprint: string, buckets: number): NotesPart {
  const count = notes.paths.length;
  const versions = new Float64Array(count * 2);
  const values = new Int8Array(count * dimensions);
  const norms = new Float32Array(count * 2);
  for (let i = 0; i < count; i++) {
    const version = notes.version(i);
    versions[i * 2] = version.mtime;
    versions[i * 2 + 1] = version.size;
    notes.vectorInto(i, values, norms);
  }
  return { format: FORMAT, version: VERSION, fingerprint, meanings, dimensions, buckets, paths: notes.paths, versions, values, norms };
}

/** A saved part's vectors, and the number of parts it was written among. */
export interface ReadNotesPart {
  buckets: number;
  notes: SavedNoteVector[];
}

/**
 * The vectors of a saved part made with these meanings, or null when the part cannot be used. Each
 * 1 / |v| is worked out again from the values (the lane multiplies every similarity of the note by
 * it): one stored that disagrees with them means the part is damaged, and it is none.
 */
export async function readNotesPart(part: unknown, dimensions: number, meanings: number, fingerprint: string, slice: WorkSlice): Promise<ReadNotesPart | null> {
  if (!isNotesPart(part) || part.fingerprint !== fingerprint || part.meanings !== meanings || part.dimensions !== dimensions) return null;
  const out: SavedNoteVector[] = [];
  for (let i = 0; i < part.paths.length; i++) {
    if (i % 512 === 0 && slice.over()) await slice.pause();
    // A view, not a copy: the vector is copied once, into the lane's block (note-vectors.ts).
    const values = part.values.subarray(i * dimensions, (i + 1) * dimensions);
    // Stored as float32, so compared as one; kept as quantize made it, so a restart ranks as a lane just learned.
    const invNorm = inverseNorm(values);
    if (Math.fround(invNorm) !== part.norms[i * 2]) return null;
    out.push({ path: part.paths[i], version: { mtime: part.versions[i * 2], size: part.versions[i * 2 + 1] }, vector: { values, invNorm, scale: part.norms[i * 2 + 1] } });
  }
  return { buckets: part.buckets ?? NOTE_BUCKETS, notes: out };
}

/**
 * The typed arrays' lengths are checked before the paths are walked: their bytes are really there,
 * while a list's length is only a number (v8 and IndexedDB give back a list of 4 billion holes in a
 * few bytes, and walking it froze the load for minutes). The paths are walked by index, so a hole is
 * found (`every` skips one, and its note's vector was kept under no path).
 */
function isNotesPart(part: unknown): part is NotesPart {
  if (typeof part !== "object" || part === null) return false;
  const p = part as Partial<NotesPart>;
  if (p.format !== FORMAT || p.version !== VERSION || typeof p.fingerprint !== "string" || typeof p.meanings !== "number") return false;
  if (typeof p.dimensions !== "number" || !Number.isInteger(p.dimensions) || p.dimensions < 1) return false;
  if (p.buckets !== undefined && (typeof p.buckets !== "number" || !Number.isSafeInteger(p.buckets) || p.buckets < 1)) return false;
  if (!Array.isArray(p.paths) || !(p.versions instanceof Float64Array) || p.versions.length !== p.paths.length * 2) return false;
  const n = p.paths.length;
  if (!(p.values instanceof Int8Array) || p.values.length !== n * p.dimensions) return false;
  if (!(p.norms instanceof Float32Array) || p.norms.length !== n * 2) return false;
  if (!arePaths(p.paths)) return false;
  return p.versions.every(Number.isFinite) && p.norms.every((x) => Number.isFinite(x) && x >= 0);
}

/** Every item a string: holes visited too. */
function arePaths(paths: unknown[]): boolean {
  for (let i = 0; i < paths.length; i++) if (typeof paths[i] !== "string") return false;
  return true;
}
