// The vault-language lane's life beside the index: during a full build it keeps a sample of the
// notes' passages; when the build is done it learns the words' meanings from them (in slices, after
// the index is already searchable), gives every note its vector from the postings, and lets the
// passages go. A note indexed later gets its vector from its own words at once; a note removed
// loses it. Saved beside the index (vault-language-file.ts), so a warm start has the lane without
// learning again. A vault too small to learn from has no lane; nor does a cache saved without one.
import { isTopicTerm } from "../stopwords";
import { notesWithTerm, type EngineDoc, type SearchEngine } from "../search-engine";
import type { Analyzer } from "../tokenize";
import type { WorkSlice } from "../work-slice";
import { seededRandom } from "./top-eigenvectors";
import { docTermCounts, postingTermCounts } from "./note-term-counts";
import { VaultLanguage, type NearNote } from "./vault-language";
import { DEFAULT_WORD_MEANING, learnWordMeanings, type WordMeaningOptions } from "./word-meanings";
import type { LaneFusion } from "./fuse-lanes";

export interface VaultLanguageOptions {
  fusion: LaneFusion;
  words: WordMeaningOptions;
  /** Fewer passages than this (about 60,000 words of text) is too little to learn from. */
  minPassages: number;
  /** At most this many passages are kept for learning (a fair sample of a larger vault). */
  maxPassages: number;
}

export const DEFAULT_VAULT_LANGUAGE: VaultLanguageOptions = {
  fusion: { k: 10, weight: 0.4, depth: 50 },
  words: DEFAULT_WORD_MEANING,
  minPassages: 2000,
  maxPassages: 60_000,
};

export class LanguageLane {
  private model: VaultLanguage | null = null;
  private sample: string[][] | null = null;
  private seen = 0;
  private random = seededRandom(7);
  private learning: Promise<void> | null = null;
  /** Bumped by every reset: a learning that outlives it is thrown away. */
  private generation = 0;
  private changed = false;
  /** Meanings loaded from the cache, waiting for their notes' vectors. */
  private loaded: VaultLanguage | null = null;

  constructor(readonly options: VaultLanguageOptions) {}

  get ready(): boolean {
    return this.model !== null;
  }

  /** The model, for saving; null while there is none. */
  current(): VaultLanguage | null {
    return this.model;
  }

  /** Whether the lane changed since the last save (taken back by `saved`). */
  get unsaved(): boolean {
    return this.changed;
  }

  saved(): void {
    this.changed = false;
  }

  /** Forgets everything and starts keeping passages for the full build that follows. */
  reset(): void {
    this.generation++;
    this.model = null;
    this.sample = [];
    this.seen = 0;
    this.random = seededRandom(7);
    this.learning = null;
    this.loaded = null;
    this.changed = true;
  }

  /** Takes over meanings loaded from the cache: the notes' vectors follow from the postings once
   * the index is loaded (`learn`), and nothing is sampled for learning. */
  restore(model: VaultLanguage): void {
    this.generation++;
    this.model = null;
    this.loaded = model;
    this.sample = null;
    this.learning = null;
    this.changed = false;
  }

  /** The index was loaded from a cache that held no meanings: nothing to learn from until a full build. */
  stopSampling(): void {
    this.sample = null;
  }

  /** A note was (re)indexed: its passages join the sample while a build learns; its vector is redone once learned. */
  noteIndexed(path: string, passages: () => string[][], doc: EngineDoc, analyzer: Analyzer, engine: SearchEngine): void {
    if (this.sample) for (const p of passages()) this.keep(p);
    if (!this.model) return;
    this.model.setNote(path, docTermCounts(doc, analyzer), (t) => notesWithTerm(engine, t), engine.documentCount);
    this.changed = true;
  }

  noteRemoved(path: string): void {
    if (this.model?.noteVector(path)) this.changed = true;
    this.model?.removeNote(path);
  }

  /** Reservoir sampling: every passage seen has the same chance of being kept. */
  private keep(passage: string[]): void {
    const sample = this.sample!;
    this.seen++;
    if (sample.length < this.options.maxPassages) sample.push(passage);
    else {
      const at = Math.floor(this.random() * this.seen);
      if (at < sample.length) sample[at] = passage;
    }
  }

  /** Learns from the passages kept since `reset`, or gives loaded meanings their notes' vectors
   * (once; later calls wait on the same work). */
  learn(engine: SearchEngine, slice: () => WorkSlice): Promise<void> {
    if (this.learning) return this.learning;
    const sample = this.sample;
    const generation = this.generation;
    const loaded = this.loaded;
    if (loaded) {
      this.loaded = null;
      this.learning = (async () => {
        await fillNoteVectors(loaded, engine, slice());
        if (generation === this.generation) this.model = loaded;
      })();
      return this.learning;
    }
    if (!sample || sample.length < this.options.minPassages) {
      this.sample = null;
      return Promise.resolve();
    }
    this.learning = (async () => {
      const work = slice();
      const meanings = await learnWordMeanings(sample, isTopicTerm, work, this.options.words);
      if (generation !== this.generation) return;
      this.sample = null;
      if (!meanings) return;
      const model = new VaultLanguage(meanings);
      await fillNoteVectors(model, engine, work);
      if (generation !== this.generation) return;
      this.model = model;
      this.changed = true;
    })();
    return this.learning;
  }

  /** Resolves when a learning under way is done (at once when there is none). */
  async settled(): Promise<void> {
    await this.learning;
  }

  /** The notes nearest a question's terms; empty without a model or when no term is known. */
  nearest(terms: readonly string[], engine: SearchEngine, keep?: (path: string) => boolean): NearNote[] {
    if (!this.model) return [];
    const counts = new Map<string, number>();
    for (const t of terms) counts.set(t, 1);
    const query = this.model.textVector(counts, (t) => notesWithTerm(engine, t), engine.documentCount);
    return query ? this.model.nearest(query, this.options.fusion.depth, keep) : [];
  }
}

/** Every note's vector, from the postings of the words that have a meaning. */
export async function fillNoteVectors(model: VaultLanguage, engine: SearchEngine, slice: WorkSlice): Promise<void> {
  const counts = await postingTermCounts(engine, model.words.keys(), slice);
  let done = 0;
  for (const [path, c] of counts) {
    if (++done % 128 === 0 && slice.over()) await slice.pause();
    model.setNote(path, c, (t) => notesWithTerm(engine, t), engine.documentCount);
  }
}
