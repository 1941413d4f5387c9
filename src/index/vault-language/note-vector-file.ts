// The notes' vault-language vectors, saved beside the meanings in NOTE_BUCKETS parts (a note's
// part is a hash of its path), so a start does not work them out from every posting again and a
// save after one edit rewrites one small part. Each vector is kept with the note's mtime and size
// as it was indexed, and the meanings it was made with (their id): a vector of another version of
// the note, or of other meanings, is not used. A part that is missing or not the shape it claims is
// worked out again, never an error.
import type { QuantizedVector } from "../embeddings/quantize";
import type { WorkSlice } from "../work-slice";
import { LANGUAGE_PART } from "./vault-language-file";

/** Parts the notes' vectors are spread over: about 150 notes each in a 10,000-note vault. */
export const NOTE_BUCKETS = 64;
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

export function notesPartName(bucket: number): string {
  return `${PREFIX}${bucket}`;
}

/** The bucket of a path: FNV-1a of its characters. */
export function bucketOf(path: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % NOTE_BUCKETS;
}

/** A number that tells one set of meanings from another (FNV-1a over their int8 values). */
export function meaningsId(values: Int8Array, words: number): number {
  let hash = 0x811c9dc5 ^ words;
  const step = Math.max(1, Math.floor(values.length / 4096));
  for (let i = 0; i < values.length; i += step) hash = Math.imul(hash ^ (values[i] & 0xff), 0x01000193);
  return hash >>> 0;
}

export function encodeNotesPart(notes: readonly SavedNoteVector[], dimensions: number, meanings: number, fingerprint: string): NotesPart {
  const versions = new Float64Array(notes.length * 2);
  const values = new Int8Array(notes.length * dimensions);
  const norms = new Float32Array(notes.length * 2);
  notes.forEach((n, i) => {
    versions[i * 2] = n.version.mtime;
    versions[i * 2 + 1] = n.version.size;
    values.set(n.vector.values, i * dimensions);
    norms[i * 2] = n.vector.invNorm;
    norms[i * 2 + 1] = n.vector.scale;
  });
  return { format: FORMAT, version: VERSION, fingerprint, meanings, dimensions, paths: notes.map((n) => n.path), versions, values, norms };
}

/** The vectors of a saved part made with these meanings, or null when the part cannot be used. */
export async function readNotesPart(part: unknown, dimensions: number, meanings: number, fingerprint: string, slice: WorkSlice): Promise<SavedNoteVector[] | null> {
  if (!isNotesPart(part) || part.fingerprint !== fingerprint || part.meanings !== meanings || part.dimensions !== dimensions) return null;
  const out: SavedNoteVector[] = [];
  for (let i = 0; i < part.paths.length; i++) {
    if (i % 512 === 0 && slice.over()) await slice.pause();
    const values = part.values.slice(i * dimensions, (i + 1) * dimensions);
    out.push({ path: part.paths[i], version: { mtime: part.versions[i * 2], size: part.versions[i * 2 + 1] }, vector: { values, invNorm: part.norms[i * 2], scale: part.norms[i * 2 + 1] } });
  }
  return out;
}

function isNotesPart(part: unknown): part is NotesPart {
  if (typeof part !== "object" || part === null) return false;
  const p = part as Partial<NotesPart>;
  if (p.format !== FORMAT || p.version !== VERSION || typeof p.fingerprint !== "string" || typeof p.meanings !== "number") return false;
  if (typeof p.dimensions !== "number" || !Number.isInteger(p.dimensions) || p.dimensions < 1) return false;
  if (!Array.isArray(p.paths) || !p.paths.every((x) => typeof x === "string")) return false;
  const n = p.paths.length;
  if (!(p.versions instanceof Float64Array) || p.versions.length !== n * 2 || !p.versions.every(Number.isFinite)) return false;
  if (!(p.values instanceof Int8Array) || p.values.length !== n * p.dimensions) return false;
  return p.norms instanceof Float32Array && p.norms.length === n * 2 && p.norms.every((x) => Number.isFinite(x) && x >= 0);
}
