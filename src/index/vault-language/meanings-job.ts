// Learning the words' meanings as a job for a worker (ports.ts `Workers`): the passage book goes
// in as typed arrays and one string, the meanings come back as one string and one Float32Array.
// Both sides check what they are given: a message of another shape is refused, never half-read.
import { NO_SLICES } from "../work-slice";
import { learnFromBook, type PassageBook, type WordMeaningOptions, type WordMeanings } from "./word-meanings";

export const MEANINGS_JOB = "learn-meanings";
const VERSION = 1;
/** Between the words of one string: index terms are cut at white space, so none holds a newline. */
const SEPARATOR = "\n";

export interface MeaningsRequest {
  job: typeof MEANINGS_JOB;
  version: number;
  terms: string;
  start: Uint32Array;
  entries: Uint32Array;
  options: WordMeaningOptions;
}

export interface MeaningsAnswer {
  job: typeof MEANINGS_JOB;
  version: number;
  meanings: { words: string; dimensions: number; vectors: Float32Array } | null;
}

/** The request for `book`, or null when a term would not survive the joining (learned here instead). */
export function meaningsRequest(book: PassageBook, options: WordMeaningOptions): MeaningsRequest | null {
  if (book.terms.some((t) => t.length === 0 || t.includes(SEPARATOR))) return null;
  return { job: MEANINGS_JOB, version: VERSION, terms: book.terms.join(SEPARATOR), start: book.start, entries: book.entries, options };
}

/** In the worker: learns what `request` asks, or throws when it is not a request it can read. The
 * buffers to move (not copy) back are listed beside the answer. */
export async function answerMeaningsRequest(request: unknown): Promise<{ answer: MeaningsAnswer; transfer: ArrayBuffer[] }> {
  const book = readRequest(request);
  if (!book) throw new Error("not a request to learn meanings this worker can read");
  const meanings = await learnFromBook(book.book, NO_SLICES, book.options);
  if (!meanings) return { answer: { job: MEANINGS_JOB, version: VERSION, meanings: null }, transfer: [] };
  const vectors = meanings.vectors;
  return {
    answer: { job: MEANINGS_JOB, version: VERSION, meanings: { words: meanings.words.join(SEPARATOR), dimensions: meanings.dimensions, vectors } },
    transfer: [vectors.buffer as ArrayBuffer],
  };
}

export function isMeaningsRequest(message: unknown): boolean {
  return typeof message === "object" && message !== null && (message as { job?: unknown }).job === MEANINGS_JOB;
}

function readRequest(message: unknown): { book: PassageBook; options: WordMeaningOptions } | null {
  if (typeof message !== "object" || message === null) return null;
  const m = message as Partial<MeaningsRequest>;
  if (m.job !== MEANINGS_JOB || m.version !== VERSION || typeof m.terms !== "string") return null;
  if (!(m.start instanceof Uint32Array) || !(m.entries instanceof Uint32Array) || m.start.length < 1 || !isOptions(m.options)) return null;
  const terms = m.terms.length === 0 ? [] : m.terms.split(SEPARATOR);
  const { start, entries } = m;
  if (start[0] !== 0 || start[start.length - 1] !== entries.length) return null;
  for (let i = 1; i < start.length; i++) if (start[i] < start[i - 1]) return null;
  for (let k = 0; k < entries.length; k++) if (entries[k] >= terms.length) return null;
  return { book: { terms, start, entries }, options: m.options };
}

function isOptions(o: unknown): o is WordMeaningOptions {
  if (typeof o !== "object" || o === null) return false;
  const w = o as Partial<Record<keyof WordMeaningOptions, unknown>>;
  const whole = (v: unknown, min: number, max: number) => typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;
  const real = (v: unknown, min: number, max: number) => typeof v === "number" && Number.isFinite(v) && v >= min && v <= max;
  return (
    whole(w.dimensions, 1, 1024) &&
    whole(w.minPassages, 1, Number.MAX_SAFE_INTEGER) &&
    whole(w.maxWords, 1, 1_000_000) &&
    whole(w.oversample, 0, 1024) &&
    whole(w.powerSteps, 0, 64) &&
    real(w.smoothing, 0, 1) &&
    (w.maxPassageShare === undefined || real(w.maxPassageShare, 0, 1)) &&
    (w.seed === undefined || whole(w.seed, 0, 0xffffffff))
  );
}

/** The meanings a worker answered (null: too few words to learn from), or undefined when the answer
 * is not one this side can use (the meanings are then learned here). */
export function readMeaningsAnswer(answer: unknown, options: WordMeaningOptions): WordMeanings | null | undefined {
  if (typeof answer !== "object" || answer === null) return undefined;
  const a = answer as Partial<MeaningsAnswer>;
  if (a.job !== MEANINGS_JOB || a.version !== VERSION || a.meanings === undefined) return undefined;
  if (a.meanings === null) return null;
  const { words: joined, dimensions, vectors } = a.meanings;
  if (typeof joined !== "string" || typeof dimensions !== "number" || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > options.dimensions) return undefined;
  if (!(vectors instanceof Float32Array)) return undefined;
  const words = joined.length === 0 ? [] : joined.split(SEPARATOR);
  if (vectors.length !== words.length * dimensions || words.some((w) => w.length === 0) || new Set(words).size !== words.length) return undefined;
  return { words, dimensions, vectors };
}
