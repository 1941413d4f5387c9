// Learning the words' meanings as a worker's job (ports.ts `Workers`): the notes are read on the
// lane's thread and handed over as they are read, a batch at a time; the worker draws the sample
// from them (passage-sample.ts, the same code), learns, and sends back the meanings as one string
// and one Float32Array. Parsing every note again and learning both happen there, with their garbage.
// Both sides check what they are given: a message of another shape is refused, never half-read.
import { isTopicTerm } from "../stopwords";
import { createAnalyzer } from "../tokenize";
import { NO_SLICES } from "../work-slice";
import { PassageSampler } from "./passage-sample";
import { learnWordMeanings, type WordMeaningOptions, type WordMeanings } from "./word-meanings";

export const MEANINGS_JOB = "learn-meanings";
const VERSION = 2;
/** Between the words of one string: index terms are cut at white space, so none holds a newline. */
const SEPARATOR = "\n";

/** The first message: how to read the notes and learn from them. */
export interface MeaningsRequest {
  job: typeof MEANINGS_JOB;
  version: number;
  /** The index's analyser (tokenize.ts), so the worker cuts words as the index does. */
  stemming: boolean;
  maxPassages: number;
  /** Fewer passages than this is no model (null meanings). */
  minPassages: number;
  options: WordMeaningOptions;
}

/** Then the notes, in path order, a batch at a time: [path, text]; then `{ end: true }`. */
export interface NotesBatch {
  job: typeof MEANINGS_JOB;
  notes: [string, string][];
}

export interface MeaningsAnswer {
  job: typeof MEANINGS_JOB;
  version: number;
  meanings: { words: string; dimensions: number; vectors: Float32Array } | null;
}

export function meaningsRequest(stemming: boolean, maxPassages: number, minPassages: number, options: WordMeaningOptions): MeaningsRequest {
  return { job: MEANINGS_JOB, version: VERSION, stemming, maxPassages, minPassages, options };
}

export function notesBatch(notes: [string, string][]): NotesBatch {
  return { job: MEANINGS_JOB, notes };
}

export const NOTES_END = { job: MEANINGS_JOB, end: true } as const;

export function isMeaningsRequest(message: unknown): boolean {
  return typeof message === "object" && message !== null && (message as { job?: unknown }).job === MEANINGS_JOB;
}

/** In the worker: one learning, message by message. */
export class MeaningsJob {
  private constructor(
    private readonly request: MeaningsRequest,
    private readonly sampler: PassageSampler,
  ) {}

  /** The job a request asks for; throws when it is not a request this worker can read. */
  static start(message: unknown): MeaningsJob {
    if (!isRequest(message)) throw new Error("not a request to learn meanings this worker can read");
    return new MeaningsJob(message, new PassageSampler(message.maxPassages, createAnalyzer({ stemming: message.stemming })));
  }

  /** Takes the next message: a batch of notes is sampled (nothing to answer yet: null); the end is
   * answered with the meanings, and the buffers to move (not copy) back. Throws on anything else. */
  take(message: unknown): Promise<{ answer: MeaningsAnswer; transfer: ArrayBuffer[] }> | null {
    if (typeof message !== "object" || message === null || (message as { job?: unknown }).job !== MEANINGS_JOB) throw new Error("not a message of this learning");
    const m = message as Partial<NotesBatch & { end: boolean }>;
    if (m.end === true) return this.answer();
    if (!Array.isArray(m.notes) || !m.notes.every((n) => Array.isArray(n) && n.length === 2 && typeof n[0] === "string" && typeof n[1] === "string")) throw new Error("not a batch of notes this worker can read");
    for (const [path, text] of m.notes) this.sampler.offer(path, text);
    return null;
  }

  private async answer(): Promise<{ answer: MeaningsAnswer; transfer: ArrayBuffer[] }> {
    const passages = this.sampler.items();
    const meanings = passages.length < this.request.minPassages ? null : await learnWordMeanings(passages, isTopicTerm, NO_SLICES, this.request.options);
    if (!meanings) return { answer: { job: MEANINGS_JOB, version: VERSION, meanings: null }, transfer: [] };
    const vectors = meanings.vectors;
    return {
      answer: { job: MEANINGS_JOB, version: VERSION, meanings: { words: meanings.words.join(SEPARATOR), dimensions: meanings.dimensions, vectors } },
      transfer: [vectors.buffer as ArrayBuffer],
    };
  }
}

const whole = (v: unknown, min: number, max: number) => typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;
const real = (v: unknown, min: number, max: number) => typeof v === "number" && Number.isFinite(v) && v >= min && v <= max;

function isRequest(message: unknown): message is MeaningsRequest {
  if (typeof message !== "object" || message === null) return false;
  const m = message as Partial<MeaningsRequest>;
  return m.job === MEANINGS_JOB && m.version === VERSION && typeof m.stemming === "boolean" && whole(m.maxPassages, 1, 10_000_000) && whole(m.minPassages, 0, 10_000_000) && isOptions(m.options);
}

function isOptions(o: unknown): o is WordMeaningOptions {
  if (typeof o !== "object" || o === null) return false;
  const w = o as Partial<Record<keyof WordMeaningOptions, unknown>>;
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

/** The meanings a worker answered (null: too little to learn from), or undefined when the answer
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
