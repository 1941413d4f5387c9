// Which passages a vault too large to learn from whole is learned from. Each passage has a key
// made from its note's path and its place in the note, and the sample is the passages with the
// smallest keys: whether a passage is kept depends on it and on the cut-off key alone, not on the
// notes read before it. So adding, editing or removing a note changes the sample by that note's
// passages and the few at the cut-off, and the meanings learned after a rebuild move no more than
// the vault did. (A reservoir drawn in reading order, as before, changed most of the sample when
// one note sorted early came or went.) Below the limit, the sample is every passage in the order
// read; above it, the order is no matter (learning counts co-occurrences).
import type { NoteStore } from "../../ports";
import { fnv1a32, mix32 } from "../../text/string-hash";
import { notePassages } from "../associations/passages";
import { parseNoteSafely } from "../parse-note-safely";
import { indexedPart } from "../note-limit";
import { readNotes } from "../read-notes";
import { BestKept } from "./best-kept";
import { createAnalyzer, type Analyzer } from "../tokenize";
import { waitOn, type WorkSlice } from "../work-slice";

/** Notes read at a time while sampling passages. */
const READ_BATCH = 64;
/** At most this many characters of notes' text a batch handed on (a batch holds at least one note):
 * a worker is handed a few batches ahead of what it has taken, and they stay this small. */
export const BATCH_CHARS = 8_000_000;

/** What sampling reads: the indexed notes, and how the index cuts their words. */
export interface PassageSource {
  store: NoteStore;
  analyzer: Analyzer;
  /** The indexed notes' paths. */
  paths: () => string[];
  /** Whether a path is still indexed (a note removed while sampling is skipped). */
  holds: (path: string) => boolean;
  /** The index's limit on a note's text (note-limit.ts): what is past it was not indexed, and is not read. */
  maxNoteChars: number;
}

/** A passage's key: a number below 2^53 made of two 32-bit hashes of (path, place). */
export function passageKey(path: string, place: number): number {
  return passageKeys(path)(place);
}

/** The keys of one note's passages by place: its path hashed once, not once a passage. */
function passageKeys(path: string): (place: number) => number {
  const first = fnv1a32(path);
  const second = fnv1a32(path, 0x01234567);
  return (place) => mix32(first ^ Math.imul(place + 1, 0x9e3779b1)) * 0x200000 + (mix32(second + place) >>> 11);
}

/**
 * The `limit` items of smallest key offered: in the order they came while under the limit (a vault
 * under it gives every passage in reading order), in no particular order after (learning counts,
 * and counts do not depend on it).
 */
export class SmallestKeys<T> {
  private readonly kept: BestKept<{ key: number; item: T }>;

  constructor(limit: number) {
    this.kept = new BestKept(limit, (a, b) => a.key - b.key);
  }

  offer(key: number, item: T): void {
    this.kept.offer({ key, item });
  }

  items(): T[] {
    return this.kept.items().map((k) => k.item);
  }
}

/** The sample being drawn: each note's passages offered as the note is read (here, or in a worker). */
export class PassageSampler {
  private readonly sample: SmallestKeys<string[]>;

  constructor(
    max: number,
    private readonly analyzer: Analyzer,
  ) {
    this.sample = new SmallestKeys(max);
  }

  /** One note's passages, from its text as read. */
  offer(path: string, text: string): void {
    const keyOf = passageKeys(path);
    for (const [place, passage] of notePassages(parseNoteSafely(path, text), this.analyzer).entries()) this.sample.offer(keyOf(place), passage);
  }

  items(): string[][] {
    return this.sample.items();
  }
}

/** The indexed notes read again, in path order, a batch at a time (of at most `batchChars` of text,
 * or one note): each note still indexed and read, with the part of its text the index indexed.
 * Ends early once `stale` says the work is no longer wanted. */
export async function* notesReadAgain(source: PassageSource, work: WorkSlice, stale: () => boolean, batchChars = BATCH_CHARS): AsyncGenerator<[string, string][]> {
  const paths = source.paths().sort();
  for (let at = 0; at < paths.length; at += READ_BATCH) {
    const batch = paths.slice(at, at + READ_BATCH);
    // The reads' wait is no work of this slice; the work on both sides of it is (a store answering
    // without a turn would otherwise run many batches in one stretch).
    const texts = await waitOn(work, readNotes(source.store, batch));
    if (stale()) return;
    let out: [string, string][] = [];
    let chars = 0;
    for (let i = 0; i < batch.length; i++) {
      const text = texts[i];
      if (typeof text !== "string" || !source.holds(batch[i])) continue;
      const part = indexedPart(text, source.maxNoteChars);
      if (out.length > 0 && chars + part.length > batchChars) {
        yield out;
        if (stale()) return;
        out = [];
        chars = 0;
      }
      out.push([batch[i], part]);
      chars += part.length;
    }
    yield out;
  }
}

/** The indexed notes' passages, read again in batches; beyond `max`, those of smallest key (passage-sample.ts). */
export async function samplePassages(source: PassageSource, max: number, work: WorkSlice, stale: () => boolean): Promise<string[][]> {
  // An analyser of its own (the index's options, as a worker makes one): through the index's, every
  // word of the vault read again stayed in its memo for as long as the index lived (a build lets
  // its memo go for that reason), tens of megabytes, hundreds in a vault full of block ids.
  const sampler = new PassageSampler(max, createAnalyzer(source.analyzer.options));
  for await (const batch of notesReadAgain(source, work, stale)) {
    for (const [path, text] of batch) {
      // A note removed while this batch was parsed is left out.
      if (!source.holds(path)) continue;
      sampler.offer(path, text);
      if (work.over()) await work.pause();
    }
  }
  return stale() ? [] : sampler.items();
}
