// The learned meanings as one cache part beside the index: the words, and their vectors as int8,
// as the lane keeps them (a byte a dimension and one scale a word: 20,000 words of 128 dimensions
// take 2.6 MB; the notes' vectors have parts of their own, note-vector-file.ts), and when they were
// learned (notes dated after it changed since: language-lane.ts learns again once enough did). Or, when the notes were
// read and held too little to learn from, that finding and the vault's size then, so a start does
// not read them all again until the vault has grown. A part that is missing, of another format,
// saved under other index settings or not the shape it claims is no lane (learned again), never an error.
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
  /** Per word, what its values are multiplied by for its unit vector (max / 127 in older parts: only the direction is read). */
  scales: Float32Array;
  /** When the meanings were learned (wall time): notes dated after it changed since. Absent in older parts. */
  learnedAt?: number;
}

/** The notes were read and were too few to learn from, at `bytes` bytes of notes. */
export interface TooSmallPart {
  format: typeof FORMAT;
  version: number;
  fingerprint: string;
  tooSmallAt: number;
}

/** What a saved part gives: meanings, or the finding that the vault was too small at that size. */
export type LoadedLanguage = { kind: "model"; model: VaultLanguage; learnedAt: number | null } | { kind: "too_small"; bytes: number };

export function encodeTooSmall(bytes: number, fingerprint: string): TooSmallPart {
  return { format: FORMAT, version: VERSION, fingerprint, tooSmallAt: bytes };
}

export function encodeLanguage(model: VaultLanguage, fingerprint: string, learnedAt: number | null = null): LanguagePart {
  const { words, dimensions, values, units } = model.kept();
  const part: LanguagePart = { format: FORMAT, version: VERSION, fingerprint, words, dimensions, values, scales: Float32Array.from(units) };
  if (learnedAt !== null) part.learnedAt = learnedAt;
  return part;
}

/** What a saved part holds, or null when the part cannot be used. */
export function readLanguagePart(part: unknown, fingerprint: string): LoadedLanguage | null {
  if (isTooSmallPart(part)) return part.fingerprint === fingerprint ? { kind: "too_small", bytes: part.tooSmallAt } : null;
  const model = decodeLanguage(part, fingerprint);
  if (!model) return null;
  const learnedAt = (part as Partial<LanguagePart>).learnedAt;
  // A date that is no number is read as none: the notes changed since are counted from the load.
  return { kind: "model", model, learnedAt: typeof learnedAt === "number" && Number.isFinite(learnedAt) ? learnedAt : null };
}

function isTooSmallPart(part: unknown): part is TooSmallPart {
  if (typeof part !== "object" || part === null) return false;
  const p = part as Partial<TooSmallPart>;
  return p.format === FORMAT && p.version === VERSION && typeof p.fingerprint === "string" && typeof p.tooSmallAt === "number" && Number.isFinite(p.tooSmallAt) && p.tooSmallAt >= 0;
}

/** The model in a saved part, or null when the part cannot be used. Its int8 values are kept as
 * they are: only their direction counts, so a word's scale is not needed (older parts hold another). */
export function decodeLanguage(part: unknown, fingerprint: string): VaultLanguage | null {
  if (!isLanguagePart(part) || part.fingerprint !== fingerprint) return null;
  return new VaultLanguage({ words: part.words, dimensions: part.dimensions, values: part.values });
}

/**
 * The typed arrays' lengths are checked before the words are walked: their bytes are really there,
 * while a list's length is only a number (v8 and IndexedDB give back a list of 4 billion holes in a
 * few bytes, and walking it froze the load for minutes). The words are walked by index, so a hole is
 * found (`every` skips one, and a word that is none threw in the model's constructor).
 */
function isLanguagePart(part: unknown): part is LanguagePart {
  if (typeof part !== "object" || part === null) return false;
  const p = part as Partial<LanguagePart>;
  if (p.format !== FORMAT || p.version !== VERSION || typeof p.fingerprint !== "string") return false;
  if (typeof p.dimensions !== "number" || !Number.isInteger(p.dimensions) || p.dimensions < 1 || p.dimensions > 1024) return false;
  if (!Array.isArray(p.words) || !(p.scales instanceof Float32Array) || p.scales.length !== p.words.length) return false;
  if (!(p.values instanceof Int8Array) || p.values.length !== p.words.length * p.dimensions) return false;
  if (!areDistinctWords(p.words)) return false;
  return p.scales.every((s) => Number.isFinite(s) && s >= 0);
}

/** Every item a word (a non-empty string), none twice: holes visited too. */
function areDistinctWords(words: unknown[]): boolean {
  const seen = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (typeof word !== "string" || word.length === 0 || seen.has(word)) return false;
    seen.add(word);
  }
  return true;
}
