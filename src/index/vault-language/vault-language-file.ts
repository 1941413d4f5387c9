// The learned meanings as one cache part beside the index: the words, and their vectors as int8
// (a byte a dimension and one scale a word: 20,000 words of 128 dimensions take 2.6 MB). The
// notes' vectors are not saved: they follow from the postings on load. Or, when the notes were
// read and held too little to learn from, that finding and the vault's size then, so a start does
// not read them all again until the vault has grown. A part that is missing, of another format,
// saved under other index settings or not the shape it claims is no lane (learned again), never an error.
import { quantize } from "../embeddings/quantize";
import type { WorkSlice } from "../work-slice";
import { VaultLanguage } from "./vault-language";

export const LANGUAGE_PART = "vault-language";
const FORMAT = "vault-research-vault-language";
const VERSION = 1;

export interface LanguagePart {
  format: typeof FORMAT;
  version: number;
  /** The index settings it was learned under (VaultIndex's fingerprint). */
  fingerprint: string;
  words: string[];
  dimensions: number;
  values: Int8Array;
  scales: Float32Array;
}

/** The notes were read and were too few to learn from, at `bytes` bytes of notes. */
export interface TooSmallPart {
  format: typeof FORMAT;
  version: number;
  fingerprint: string;
  tooSmallAt: number;
}

/** What a saved part gives: meanings, or the finding that the vault was too small at that size. */
export type LoadedLanguage = { kind: "model"; model: VaultLanguage } | { kind: "too_small"; bytes: number };

export function encodeTooSmall(bytes: number, fingerprint: string): TooSmallPart {
  return { format: FORMAT, version: VERSION, fingerprint, tooSmallAt: bytes };
}

export function encodeLanguage(model: VaultLanguage, fingerprint: string): LanguagePart {
  const { words, dimensions, vectors } = model.meanings();
  const values = new Int8Array(words.length * dimensions);
  const scales = new Float32Array(words.length);
  for (let w = 0; w < words.length; w++) {
    const q = quantize(vectors.subarray(w * dimensions, (w + 1) * dimensions));
    values.set(q.values, w * dimensions);
    scales[w] = q.scale;
  }
  return { format: FORMAT, version: VERSION, fingerprint, words, dimensions, values, scales };
}

/** What a saved part holds, or null when the part cannot be used. */
export async function readLanguagePart(part: unknown, fingerprint: string, slice: WorkSlice): Promise<LoadedLanguage | null> {
  if (isTooSmallPart(part)) return part.fingerprint === fingerprint ? { kind: "too_small", bytes: part.tooSmallAt } : null;
  const model = await decodeLanguage(part, fingerprint, slice);
  return model ? { kind: "model", model } : null;
}

/** The meanings as saving and loading leave them (int8): a lane just learned ranks as it will after a restart. */
export async function asSaved(model: VaultLanguage, slice: WorkSlice): Promise<VaultLanguage> {
  return (await decodeLanguage(encodeLanguage(model, ""), "", slice)) ?? model;
}

function isTooSmallPart(part: unknown): part is TooSmallPart {
  if (typeof part !== "object" || part === null) return false;
  const p = part as Partial<TooSmallPart>;
  return p.format === FORMAT && p.version === VERSION && typeof p.fingerprint === "string" && typeof p.tooSmallAt === "number" && Number.isFinite(p.tooSmallAt) && p.tooSmallAt >= 0;
}

/** The model in a saved part, or null when the part cannot be used. */
export async function decodeLanguage(part: unknown, fingerprint: string, slice: WorkSlice): Promise<VaultLanguage | null> {
  if (!isLanguagePart(part) || part.fingerprint !== fingerprint) return null;
  const { words, dimensions, values } = part;
  const vectors = new Float32Array(words.length * dimensions);
  for (let w = 0; w < words.length; w++) {
    if (w % 1024 === 0 && slice.over()) await slice.pause();
    // A word's vector is of unit length, so its scale drops out: the int8 values over their norm.
    const base = w * dimensions;
    let norm = 0;
    for (let j = 0; j < dimensions; j++) norm += values[base + j] * values[base + j];
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let j = 0; j < dimensions; j++) vectors[base + j] = values[base + j] * inv;
  }
  return new VaultLanguage({ words, dimensions, vectors });
}

function isLanguagePart(part: unknown): part is LanguagePart {
  if (typeof part !== "object" || part === null) return false;
  const p = part as Partial<LanguagePart>;
  if (p.format !== FORMAT || p.version !== VERSION || typeof p.fingerprint !== "string") return false;
  if (!Array.isArray(p.words) || !p.words.every((w) => typeof w === "string" && w.length > 0)) return false;
  if (new Set(p.words).size !== p.words.length) return false;
  if (typeof p.dimensions !== "number" || !Number.isInteger(p.dimensions) || p.dimensions < 1 || p.dimensions > 1024) return false;
  if (!(p.values instanceof Int8Array) || p.values.length !== p.words.length * p.dimensions) return false;
  return p.scales instanceof Float32Array && p.scales.length === p.words.length && p.scales.every((s) => Number.isFinite(s) && s >= 0);
}
