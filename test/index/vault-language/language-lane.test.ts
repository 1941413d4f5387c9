// The vault-language lane's life beside the index, over a generated vault big enough to learn from
// (400 notes, about 2,800 passages, eight topics, each with two words for one thing that no note
// uses together): after a full build the lane finds a synonym's notes; a warm start restores it from
// the cache part without learning again; a changed note moves in it, a removed one never comes
// back; a lane turned off, a vault too small or a corrupt part is the words' ranking alone; typing
// and #tag filters are never fused. Then the lane on its own: sampling, resets while learning.
import { serialize } from "node:v8";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { notePassages } from "../../../src/index/associations/passages";
import { parseNote } from "../../../src/index/markdown";
import { parseQuery } from "../../../src/index/query";
import type { RankedHit } from "../../../src/index/ranking/explain";
import { createEngine, notesWithTerm, toEngineDoc, type EngineDoc } from "../../../src/index/search-engine";
import { createAnalyzer } from "../../../src/index/tokenize";
import { VaultIndex } from "../../../src/index/vault-index";
import { DEFAULT_VAULT_LANGUAGE, LanguageLane, type LaneSource, type VaultLanguageOptions } from "../../../src/index/vault-language/language-lane";
import { docTermCounts } from "../../../src/index/vault-language/note-term-counts";
import { seededRandom } from "../../../src/index/vault-language/top-eigenvectors";
import { VaultLanguage } from "../../../src/index/vault-language/vault-language";
import { encodeNotesPart, isNotesPartName, readNotesPart, savedNotes, type SavedNoteVector } from "../../../src/index/vault-language/note-vector-file";
import { NoteVectors } from "../../../src/index/vault-language/note-vectors";
import { encodeLanguage, LANGUAGE_PART } from "../../../src/index/vault-language/vault-language-file";
import { learnWordMeanings } from "../../../src/index/vault-language/word-meanings";
import { NO_SLICES, SLICE_MS, timeSlices, type WorkSlice } from "../../../src/index/work-slice";
import { FAKE_NOW, fakeClock } from "../../support/fake-clock";
import { unwrapWorkerReply, WorkerWentQuiet } from "../../../src/index/worker-jobs";
import type { Workers } from "../../../src/ports";
import { ControlledStore } from "../../support/controlled-note-store";
import { MemoryIndexCache } from "../../support/memory-index-cache";
import { MemoryNoteStore } from "../../support/memory-note-store";
import { cosine } from "../../support/cosine";
import { workerHere } from "../../support/worker-here";
import { MAX_NOTE_CHARS } from "../../../src/index/note-limit";

// Learning is counted: a warm start must restore the lane, not learn it again.
vi.mock(import("../../../src/index/vault-language/word-meanings"), async (importOriginal) => {
  const actual = await importOriginal();
  return { ...actual, learnWordMeanings: vi.fn(actual.learnWordMeanings) };
});
const learned = vi.mocked(learnWordMeanings);

// ── the generated vault ─────────────────────────────────────────────────────────────────────

interface Topic {
  context: string[];
  /** Two words for one thing: a note of the topic uses one of them, never both. */
  pair: [string, string];
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/** Made-up six-letter words, each three edits from every other (no typo tolerance joins two). */
function madeUpWords(count: number, random: () => number, taken: string[]): string[] {
  const pick = (letters: string) => letters[Math.floor(random() * letters.length)];
  const out: string[] = [];
  while (out.length < count) {
    const word = pick("bdfgklmnprtvz") + pick("aiou") + pick("bdfgklmnprtvz") + pick("aiou") + pick("bdfgklmnprtvz") + pick("aou");
    if (taken.some((w) => editDistance(w, word) < 3)) continue;
    taken.push(word);
    out.push(word);
  }
  return out;
}

const TOPIC_COUNT = 8;
const NOTE_COUNT = 400;

function makeTopics(): Topic[] {
  const random = seededRandom(3);
  const taken: string[] = [];
  return Array.from({ length: TOPIC_COUNT }, () => {
    const context = madeUpWords(40, random, taken);
    const [a, b] = madeUpWords(2, random, taken);
    return { context, pair: [a, b] };
  });
}

const TOPICS = makeTopics();
/** Each topic's words: its context and its pair. */
const TOPIC_WORDS = TOPICS.map((t) => new Set([...t.context, ...t.pair]));

/** Which of its topic's two words note `n` uses. */
const variantOf = (n: number) => Math.floor(n / TOPIC_COUNT) % 2;
const pathOf = (n: number) => `topic${n % TOPIC_COUNT}/note${n}.md`;

/** A note of seven paragraphs of 30 words: 24 of its topic, 5 of another, and one of its pair. */
function noteText(topic: number, variant: number, seed: number): string {
  const random = seededRandom(seed);
  const { context, pair } = TOPICS[topic];
  const other = TOPICS[(topic + 1 + (seed % (TOPIC_COUNT - 1))) % TOPIC_COUNT].context;
  const paragraphs = Array.from({ length: 7 }, () => {
    const words = [...Array.from({ length: 24 }, () => context[Math.floor(random() * 40)]), ...Array.from({ length: 5 }, () => other[Math.floor(random() * 40)])];
    words.splice(Math.floor(random() * words.length), 0, pair[variant]);
    return `${words.join(" ")}.`;
  });
  return `---\ntags: [group${topic % 2}]\n---\n# ${context[seed % 40]} ${context[(seed * 3) % 40]}\n\n${paragraphs.join("\n\n")}\n`;
}

function generatedVault(count = NOTE_COUNT): Record<string, string> {
  const notes: Record<string, string> = {};
  for (let n = 0; n < count; n++) notes[pathOf(n)] = noteText(n % TOPIC_COUNT, variantOf(n), n + 1);
  return notes;
}

/** The vault's passages, as the index cuts them. */
function passageCount(notes: Record<string, string>): number {
  const analyzer = createAnalyzer({ stemming: true });
  return Object.entries(notes).reduce((sum, [path, text]) => sum + notePassages(parseNote(path, text), analyzer).length, 0);
}

// ── helpers ─────────────────────────────────────────────────────────────────────────────────

const OFF = { vaultLanguage: null };
const rankFor = (index: VaultIndex, query: string, opts: { asYouType: boolean; loose?: boolean } = { asYouType: false }) => index.rank(parseQuery(query), 60, opts);
const paths = (hits: RankedHit[]) => hits.map((h) => h.path);
/** The notes only the language lane found: no word of the question matched them. */
const languageOnly = (hits: RankedHit[]) => hits.filter((h) => h.score === 0);
const laneRank = (hits: RankedHit[], path: string) => hits.find((h) => h.path === path)?.explanation.vaultLanguage?.rank;

/** Topic 0's notes that use its second word, and never its first. */
const SECOND_WORD_NOTES = Array.from({ length: NOTE_COUNT }, (_, n) => n)
  .filter((n) => n % TOPIC_COUNT === 0 && variantOf(n) === 1)
  .map(pathOf);
const [FIRST_WORD, SECOND_WORD] = TOPICS[0].pair;

async function built(notes: Record<string, string>, ranking: Partial<{ vaultLanguage: VaultLanguageOptions | null }> = {}) {
  const store = new MemoryNoteStore(notes);
  const index = new VaultIndex({ ranking });
  const report = await index.sync(store, null);
  await index.languageSettled();
  return { store, index, report };
}

/** A cache whose reads are recorded by part name. */
function recordingCache(from?: MemoryIndexCache): MemoryIndexCache & { reads: string[] } {
  const cache = Object.assign(new MemoryIndexCache(), { reads: [] as string[] });
  if (from) for (const [name, value] of from.parts) cache.parts.set(name, structuredClone(value));
  const read = cache.read.bind(cache);
  cache.read = (name: string) => {
    cache.reads.push(name);
    return read(name);
  };
  return cache;
}

// ── the lane inside the index ───────────────────────────────────────────────────────────────

describe("the vault-language lane in VaultIndex", () => {
  const notes = generatedVault();
  let store: MemoryNoteStore;
  let index: VaultIndex;
  /** What the learned index saved. */
  let saved: MemoryIndexCache;
  /** The same vault indexed with the lane off: the words' ranking alone. */
  let wordsOnly: VaultIndex;

  beforeAll(async () => {
    ({ store, index } = await built(notes));
    saved = new MemoryIndexCache();
    await index.save(saved);
    ({ index: wordsOnly } = await built(notes, OFF));
  });

  // (A block, not an arrow returning the mock: vitest would call a returned function as a clean-up.)
  beforeEach(() => {
    learned.mockClear();
  });

  it("has a generated vault fit for the purpose: words kept as they are, enough passages, synonyms never together", () => {
    const analyzer = createAnalyzer({ stemming: true });
    for (const topic of TOPICS) for (const word of [...topic.context, ...topic.pair]) expect(analyzer.terms(word)).toEqual([word]);
    expect(passageCount(notes)).toBeGreaterThan(DEFAULT_VAULT_LANGUAGE.minPassages + 500);
    expect(Object.values(notes).some((text) => text.includes(FIRST_WORD) && text.includes(SECOND_WORD))).toBe(false);
    expect(SECOND_WORD_NOTES).toHaveLength(25);
    for (const path of SECOND_WORD_NOTES) expect(notes[path]).not.toContain(FIRST_WORD);
  });

  it("gives no more hits than asked for once the lanes are fused", () => {
    for (const limit of [1, 5, 10, 30]) {
      const hits = index.rank(parseQuery(FIRST_WORD), limit);
      expect(hits).toHaveLength(limit);
      expect(languageOnly(index.rank(parseQuery(`${FIRST_WORD} ${SECOND_WORD}`), limit)).length).toBeLessThanOrEqual(limit);
    }
  });

  it("finds, for a question in one word, the notes that say it in the other (score 0, lane rank set)", () => {
    const hits = rankFor(index, FIRST_WORD);
    const found = languageOnly(hits);
    // Nearly all of topic 0's notes of the other word, and nothing else without the question's word.
    expect(found.length).toBeGreaterThanOrEqual(20);
    for (const hit of found) {
      expect(SECOND_WORD_NOTES).toContain(hit.path);
      expect(hit.explanation.vaultLanguage!.rank).toBeGreaterThan(0);
      expect(hit.explanation.vaultLanguage!.similarity).toBeGreaterThan(0.5);
      expect(hit.explanation.matchedTerms).toEqual([]);
      expect(hit.explanation.missingTerms).toEqual([FIRST_WORD]);
    }
    // The words alone find none of them.
    expect(paths(rankFor(wordsOnly, FIRST_WORD)).filter((p) => SECOND_WORD_NOTES.includes(p))).toEqual([]);
    // The notes the words found lead, with the lane's rank in their explanation too.
    const first = hits[0];
    expect(first.score).toBeGreaterThan(0);
    expect(first.explanation.vaultLanguage).toBeDefined();
    expect(first.explanation.parts.at(-1)?.name).toBe("vault language");
  });

  it("saves its meanings as one cache part, and a warm start restores them without learning again", async () => {
    expect(saved.parts.has(LANGUAGE_PART)).toBe(true);
    const cache = recordingCache(saved);
    const warm = new VaultIndex();
    const report = await warm.sync(store, cache);
    await warm.languageSettled();
    expect(report.mode).toBe("cache");
    expect(cache.reads).toContain(LANGUAGE_PART);
    expect(learned).not.toHaveBeenCalled();
    for (const query of [FIRST_WORD, SECOND_WORD, `${TOPICS[3].pair[1]} ${TOPICS[3].context[5]}`]) {
      const cold = rankFor(index, query);
      const restored = rankFor(warm, query);
      // A lane just learned already holds the int8 meanings a restart loads: both rank alike.
      expect(paths(restored)).toEqual(paths(cold));
      expect(restored.map((h) => h.explanation.vaultLanguage)).toEqual(cold.map((h) => h.explanation.vaultLanguage));
    }
    // A second warm start from the same part is the first, exactly.
    const again = new VaultIndex();
    await again.sync(store, recordingCache(saved));
    await again.languageSettled();
    for (const query of [FIRST_WORD, SECOND_WORD]) expect(rankFor(again, query)).toEqual(rankFor(warm, query));
    // Nothing changed: saving again leaves the part as it is.
    cache.written.length = 0;
    await warm.save(cache);
    expect(cache.written).not.toContain(LANGUAGE_PART);
    expect(cache.parts.get(LANGUAGE_PART)).toEqual(saved.parts.get(LANGUAGE_PART));
  });

  it("takes the saved notes' vectors back a few hundred at a time, pausing between (400 notes at once blocked a 100,000-note vault for 600 ms)", async () => {
    const spy = vi.spyOn(VaultLanguage.prototype, "restoreNote");
    const yieldToUi = vi.fn(() => Promise.resolve());
    try {
      // Every look at the clock finds the slice over: the work pauses wherever it looks.
      let now = 0;
      const warm = new VaultIndex({ clock: { now: () => (now += 20), sleep: () => Promise.resolve() }, yieldToUi });
      await warm.sync(store, recordingCache(saved));
      await warm.languageSettled();
      // How many pauses came before each note's vector was taken back.
      const pausedAt = yieldToUi.mock.invocationCallOrder;
      const restoredAt = spy.mock.invocationCallOrder.map((order) => pausedAt.filter((p) => p < order).length);
      expect(restoredAt).toHaveLength(NOTE_COUNT);
      const perPause = new Map<number, number>();
      for (const at of restoredAt) perPause.set(at, (perPause.get(at) ?? 0) + 1);
      expect(Math.max(...perPause.values())).toBeLessThanOrEqual(256);
      expect(rankFor(warm, FIRST_WORD)).toEqual(rankFor(index, FIRST_WORD));
    } finally {
      spy.mockRestore();
    }
  });

  it("gives a note changed while the vault was closed its vector from the postings on a warm start", async () => {
    const changed = pathOf(3); // a note of topic 3
    const later = new MemoryNoteStore({ ...notes, [changed]: noteText(0, 1, 9999) });
    later.files.get(changed)!.mtime += 1;
    const warm = new VaultIndex();
    expect((await warm.sync(later, recordingCache(saved))).updated).toBe(1);
    await warm.languageSettled();
    expect(laneRank(rankFor(index, FIRST_WORD), changed)).toBeUndefined();
    expect(languageOnly(rankFor(warm, FIRST_WORD)).map((h) => h.path)).toContain(changed);
  });

  it("moves a note changed after learning to its new place in the lane, and back", async () => {
    const warm = new VaultIndex();
    await warm.sync(store, recordingCache(saved));
    await warm.languageSettled();
    const moved = pathOf(5); // a note of topic 5
    expect(laneRank(rankFor(warm, FIRST_WORD), moved)).toBeUndefined();
    warm.applyText(moved, noteText(0, 1, 4242), 2, 100);
    const rank = laneRank(rankFor(warm, FIRST_WORD), moved);
    expect(rank).toBeDefined();
    expect(rank!).toBeLessThanOrEqual(DEFAULT_VAULT_LANGUAGE.fusion.depth);
    expect(rankFor(warm, FIRST_WORD).find((h) => h.path === moved)!.score).toBe(0);
    warm.applyText(moved, notes[moved], 3, 100);
    expect(laneRank(rankFor(warm, FIRST_WORD), moved)).toBeUndefined();
    expect(laneRank(rankFor(warm, TOPICS[5].pair[variantOf(5)]), moved)).toBeDefined();
    expect(learned).not.toHaveBeenCalled();
  });

  it("neither saves its meanings again nor loses them when a note changed and the index is saved", async () => {
    const cache = recordingCache(saved);
    const warm = new VaultIndex();
    await warm.sync(store, cache);
    await warm.languageSettled();
    warm.applyText(pathOf(5), noteText(0, 1, 4242), 2, 100);
    warm.removeFile(pathOf(6));
    cache.written.length = 0;
    await warm.save(cache);
    expect(cache.written.length).toBeGreaterThan(0);
    expect(cache.written).not.toContain(LANGUAGE_PART);
    // Nor does the index's own save drop it: the next warm start has its lane.
    expect(cache.parts.get(LANGUAGE_PART)).toEqual(saved.parts.get(LANGUAGE_PART));
    const next = new VaultIndex();
    await next.sync(store, cache);
    await next.languageSettled();
    expect(languageOnly(rankFor(next, FIRST_WORD)).length).toBeGreaterThanOrEqual(19);
    expect(learned).not.toHaveBeenCalled();
  });

  it("lays the notes' vectors out anew over a cache of another layout, and the old layout's parts go", async () => {
    const cache = recordingCache(saved);
    const layouts = () => [...cache.parts].filter(([name]) => name.startsWith("vault-language-notes-")).map(([name, part]) => [name, (part as { buckets?: number }).buckets]);
    expect(new Set(layouts().map(([, buckets]) => buckets))).toEqual(new Set([64]));
    // The same vectors laid out over 1,024 parts, too many for this vault: all in one of them.
    const old = [...cache.parts.keys()].filter((n) => n.startsWith("vault-language-notes-"));
    const first = cache.parts.get(old[0]) as { fingerprint: string; meanings: number; dimensions: number };
    const all: SavedNoteVector[] = [];
    for (const n of old) all.push(...(await readNotesPart(cache.parts.get(n), first.dimensions, first.meanings, first.fingerprint, NO_SLICES))!.notes);
    expect(all.length).toBe(Object.keys(notes).length);
    for (const n of old) cache.parts.delete(n);
    cache.parts.set("vault-language-notes-900", encodeNotesPart(savedNotes(all), first.dimensions, first.meanings, first.fingerprint, 1024));
    const warm = new VaultIndex();
    await warm.sync(store, cache);
    await warm.languageSettled();
    expect(learned).not.toHaveBeenCalled();
    await warm.save(cache);
    expect(cache.parts.has("vault-language-notes-900")).toBe(false);
    expect(new Set(layouts().map(([, buckets]) => buckets))).toEqual(new Set([64]));
    expect(layouts().length).toBeGreaterThan(10);
    // Taken back whole: the next start reads every vector from its part.
    const next = new VaultIndex();
    await next.sync(store, cache);
    await next.languageSettled();
    cache.written.length = 0;
    await next.save(cache);
    expect(cache.written.filter((n) => n.startsWith("vault-language-notes-"))).toEqual([]);
    expect(languageOnly(rankFor(next, FIRST_WORD)).length).toBeGreaterThanOrEqual(19);
  });

  it("writes every part of notes anew over a cache of two layouts (a save cut short), and the stray part goes", async () => {
    const cache = recordingCache(saved);
    const some = [...cache.parts.keys()].find((n) => n.startsWith("vault-language-notes-"))!;
    const part = cache.parts.get(some) as { fingerprint: string; meanings: number; dimensions: number };
    const read = (await readNotesPart(part, part.dimensions, part.meanings, part.fingerprint, NO_SLICES))!;
    cache.parts.set("vault-language-notes-77", encodeNotesPart(savedNotes(read.notes.slice(0, 1)), part.dimensions, part.meanings, part.fingerprint, 128));
    const warm = new VaultIndex();
    await warm.sync(store, cache);
    await warm.languageSettled();
    cache.written.length = 0;
    await warm.save(cache);
    const notesParts = [...saved.parts.keys()].filter((n) => n.startsWith("vault-language-notes-"));
    expect(cache.written.filter((n) => n.startsWith("vault-language-notes-")).sort()).toEqual(notesParts.sort());
    expect(cache.parts.has("vault-language-notes-77")).toBe(false);
    expect(learned).not.toHaveBeenCalled();
  });

  it("rewrites, at the next save, the part of a note removed while the vault was closed", async () => {
    const cache = recordingCache(saved);
    const gone = pathOf(7);
    const smaller = new MemoryNoteStore(notes);
    smaller.files.delete(gone);
    const warm = new VaultIndex();
    await warm.sync(smaller, cache);
    await warm.languageSettled();
    cache.written.length = 0;
    await warm.save(cache);
    const notesParts = cache.written.filter((n) => n.startsWith("vault-language-notes-"));
    expect(notesParts).toHaveLength(1);
    const part = cache.parts.get(notesParts[0]) as { paths: string[] };
    expect(part.paths).not.toContain(gone);
    expect((saved.parts.get(notesParts[0]) as { paths: string[] }).paths).toContain(gone);
  });

  it("never brings a removed note back, before or after a save and a warm start", async () => {
    const cache = recordingCache(saved);
    const warm = new VaultIndex();
    await warm.sync(store, cache);
    await warm.languageSettled();
    const gone = SECOND_WORD_NOTES[0];
    expect(paths(rankFor(warm, FIRST_WORD))).toContain(gone);
    warm.removeFile(gone);
    expect(paths(rankFor(warm, FIRST_WORD))).not.toContain(gone);
    expect(paths(rankFor(warm, SECOND_WORD))).not.toContain(gone);
    await warm.save(cache);
    const smaller = new MemoryNoteStore(notes);
    smaller.files.delete(gone);
    const again = new VaultIndex();
    await again.sync(smaller, cache);
    await again.languageSettled();
    expect(paths(rankFor(again, FIRST_WORD))).not.toContain(gone);
    expect(languageOnly(rankFor(again, FIRST_WORD)).length).toBeGreaterThanOrEqual(19);
  });

  it("learns nothing and fuses nothing when turned off: the words' ranking alone, and no part saved", async () => {
    const off = new VaultIndex({ ranking: OFF });
    await off.sync(store, null);
    await off.languageSettled();
    expect(learned).not.toHaveBeenCalled();
    for (const query of [FIRST_WORD, SECOND_WORD, TOPICS[2].context[7]]) {
      const hits = rankFor(off, query);
      expect(hits).toEqual(rankFor(wordsOnly, query));
      expect(hits.every((h) => h.score > 0 && h.explanation.vaultLanguage === undefined)).toBe(true);
    }
    const cache = new MemoryIndexCache();
    await off.save(cache);
    expect(cache.parts.has(LANGUAGE_PART)).toBe(false);
    // A lane turned off ignores a part another index saved.
    const offWarm = new VaultIndex({ ranking: OFF });
    const reads = recordingCache(saved);
    await offWarm.sync(store, reads);
    expect(reads.reads).not.toContain(LANGUAGE_PART);
    expect(rankFor(offWarm, FIRST_WORD)).toEqual(rankFor(wordsOnly, FIRST_WORD));
  });

  it("learns again from the notes, without an error, after loading a corrupt or unreadable part, and saves a good one", async () => {
    const unreadable = recordingCache(saved);
    const read = unreadable.read.bind(unreadable);
    unreadable.read = (name: string) => (name === LANGUAGE_PART ? Promise.reject(new Error("EIO: the disk said no")) : read(name));
    const caches = [{ format: "vault-research-vault-language", version: 1 }, "garbage", 42].map((corrupt) => {
      const cache = recordingCache(saved);
      cache.parts.set(LANGUAGE_PART, corrupt);
      return cache;
    });
    for (const [i, cache] of [...caches, unreadable].entries()) {
      learned.mockClear();
      const warm = new VaultIndex();
      const report = await warm.sync(store, cache);
      await warm.languageSettled();
      expect(report.mode).toBe("cache");
      expect(learned, `cache ${i}`).toHaveBeenCalledTimes(1);
      expect(languageOnly(rankFor(warm, FIRST_WORD)).length).toBeGreaterThanOrEqual(20);
      if (cache === unreadable) continue;
      await warm.save(cache);
      // The part written is a whole one: the next start loads it and learns nothing.
      learned.mockClear();
      const next = new VaultIndex();
      await next.sync(store, cache);
      await next.languageSettled();
      expect(learned).not.toHaveBeenCalled();
      expect(languageOnly(rankFor(next, FIRST_WORD))).toEqual(languageOnly(rankFor(warm, FIRST_WORD)));
    }
  });

  it("says in its status that it is learning behind the ready index, and then that it is ready, telling listeners both times", async () => {
    const fresh = new VaultIndex();
    const seen: (string | undefined)[] = [];
    fresh.onChange((s) => seen.push(s.vaultLanguage));
    await fresh.sync(store, null);
    expect(fresh.status()).toMatchObject({ state: "ready", vaultLanguage: "learning" });
    await fresh.languageSettled();
    await Promise.resolve();
    expect(fresh.status().vaultLanguage).toBe("ready");
    expect(seen).toContain("learning");
    expect(seen[seen.length - 1]).toBe("ready");
    expect(new VaultIndex({ ranking: { vaultLanguage: null } }).status().vaultLanguage).toBeUndefined();
  });

  it("fuses neither while typing, nor under a #tag filter, nor in the loose search", () => {
    for (const query of [FIRST_WORD, `${FIRST_WORD} ${TOPICS[0].context[1]}`]) {
      const typing = rankFor(index, query, { asYouType: true });
      expect(typing).toEqual(rankFor(wordsOnly, query, { asYouType: true }));
      expect(typing.some((h) => h.explanation.vaultLanguage)).toBe(false);
      const tagged = rankFor(index, `#group0 ${query}`);
      expect(tagged).toEqual(rankFor(wordsOnly, `#group0 ${query}`));
      expect(tagged.some((h) => h.explanation.vaultLanguage)).toBe(false);
      expect(rankFor(index, query, { asYouType: false, loose: true })).toEqual(rankFor(wordsOnly, query, { asYouType: false, loose: true }));
    }
    // The same question without the filter is fused.
    expect(rankFor(index, FIRST_WORD).some((h) => h.explanation.vaultLanguage)).toBe(true);
  });

  it("explains a note only the lane brought in by the question's words it holds (fuse-lanes.test.ts has one that holds some)", () => {
    // The lane's first notes pass the words' last ones; each says which of the two words it holds.
    let found = 0;
    for (const topic of [0, 3, 6]) {
      for (const word of TOPICS[topic].context.slice(0, 8)) {
        const hits = index.rank(parseQuery(`${word} ${FIRST_WORD}`), 60);
        expect(hits.length).toBeLessThanOrEqual(60);
        for (const hit of languageOnly(hits)) {
          found++;
          const holds = [word, FIRST_WORD].filter((w) => new RegExp(`\\b${w}\\b`).test(notes[hit.path]));
          expect(hit.explanation.matchedTerms).toEqual(holds);
          expect(hit.explanation.missingTerms).toEqual([word, FIRST_WORD].filter((w) => !holds.includes(w)));
          expect(hit.score).toBe(0);
        }
      }
    }
    expect(found).toBeGreaterThan(5);
  });

  it("changes nothing for a question none of whose words has a meaning", () => {
    expect(rankFor(index, "zzzqqq")).toEqual(rankFor(wordsOnly, "zzzqqq"));
  });
});

describe("meanings learned again once much of the vault changed", () => {
  // A ninth topic the vault takes up after its meanings were learned: its words had none, so the
  // lane never answered for them. The MCP server and a plugin session kept those meanings for as long
  // as they ran, and every start took them back from the cache: a fresh build searched better, for good.
  const NEW_TOPIC = (() => {
    const random = seededRandom(41);
    const taken = TOPICS.flatMap((t) => [...t.context, ...t.pair]);
    return { context: madeUpWords(40, random, taken), pair: madeUpWords(2, random, taken) as [string, string] };
  })();
  const [NEW_FIRST] = NEW_TOPIC.pair;
  const newNote = (n: number) => {
    const random = seededRandom(1000 + n);
    const paragraphs = Array.from({ length: 7 }, () => {
      const words = Array.from({ length: 29 }, () => NEW_TOPIC.context[Math.floor(random() * 40)]);
      words.splice(Math.floor(random() * words.length), 0, NEW_TOPIC.pair[n % 2]);
      return `${words.join(" ")}.`;
    });
    return `# ${NEW_TOPIC.context[n % 40]} ${NEW_TOPIC.context[(n * 7) % 40]}\n\n${paragraphs.join("\n\n")}\n`;
  };
  const newPath = (n: number) => `newtopic/note${n}.md`;
  /** Notes of the new topic that say its second word: only the lane finds them for its first. */
  const sayingSecond = (hits: RankedHit[]) => languageOnly(hits).filter((h) => h.path.startsWith("newtopic/")).length;

  beforeEach(() => {
    learned.mockClear();
  });

  it("a long-lived index learns them again behind once a tenth of its notes are new, and then finds the new topic's other word", async () => {
    const { store, index } = await built(generatedVault());
    learned.mockClear();
    // Every note read again as it was (read too soon after its date to be vouched for): no change.
    for (const path of index.paths()) await index.updateFile(store, path);
    await index.languageSettled();
    expect(learned).not.toHaveBeenCalled();
    // A few new notes: the meanings stay (learning costs seconds on a large vault), and say nothing of the new words.
    for (let n = 0; n < 10; n++) {
      store.files.set(newPath(n), { text: newNote(n), mtime: 1_700_000_100_000 + n });
      await index.updateFile(store, newPath(n));
    }
    await index.languageSettled();
    expect(learned).not.toHaveBeenCalled();
    expect(rankFor(index, NEW_FIRST).some((h) => h.explanation.vaultLanguage)).toBe(false);
    for (let n = 10; n < 60; n++) {
      store.files.set(newPath(n), { text: newNote(n), mtime: 1_700_000_100_000 + n });
      await index.updateFile(store, newPath(n));
    }
    // While it learns again the old meanings serve, and the status says so: not "words alone".
    expect(index.status().vaultLanguage).toBe("relearning");
    await index.languageSettled();
    expect(index.status().vaultLanguage).toBe("ready");
    expect(learned).toHaveBeenCalledTimes(1);
    const hits = rankFor(index, NEW_FIRST);
    expect(hits.some((h) => h.explanation.vaultLanguage)).toBe(true);
    expect(sayingSecond(hits)).toBeGreaterThan(0);
    // As a fresh build of the same notes finds them.
    const fresh = await built(Object.fromEntries([...store.files].map(([path, f]) => [path, f.text])));
    expect(sayingSecond(hits)).toBe(sayingSecond(rankFor(fresh.index, NEW_FIRST)));
  });

  it("a start from the cache learns them again when a tenth of the notes are dated after they were learned", async () => {
    const store = new MemoryNoteStore(generatedVault());
    const first = new VaultIndex({ clock: fakeClock() });
    await first.sync(store, null);
    await first.languageSettled();
    const cache = new MemoryIndexCache();
    await first.save(cache);
    // Written while no process ran (or by another), after the meanings were learned.
    for (let n = 0; n < 60; n++) store.files.set(newPath(n), { text: newNote(n), mtime: FAKE_NOW + 60_000 + n });
    learned.mockClear();
    const next = new VaultIndex({ clock: fakeClock(FAKE_NOW + 3_600_000) });
    expect((await next.sync(store, cache)).mode).toBe("cache");
    await next.languageSettled();
    expect(learned).toHaveBeenCalledTimes(1);
    expect(sayingSecond(rankFor(next, NEW_FIRST))).toBeGreaterThan(0);
    // Saved with their date: the start after takes them back without learning.
    await next.save(cache);
    learned.mockClear();
    const third = new VaultIndex({ clock: fakeClock(FAKE_NOW + 7_200_000) });
    await third.sync(store, cache);
    await third.languageSettled();
    expect(learned).not.toHaveBeenCalled();
    expect(sayingSecond(rankFor(third, NEW_FIRST))).toBeGreaterThan(0);
  });

  it("held back while a batch of changes is applied, learns nothing: not a build's first learning, nor a start's learning again; let go, it learns once", async () => {
    const store = new MemoryNoteStore(generatedVault());
    const first = new VaultIndex({ clock: fakeClock() });
    const releaseFirst = first.holdRelearning();
    learned.mockClear();
    await first.sync(store, null);
    await first.languageSettled();
    expect(learned).not.toHaveBeenCalled();
    expect(first.status().vaultLanguage).toBeUndefined();
    releaseFirst();
    expect(first.status().vaultLanguage).toBe("learning");
    await first.languageSettled();
    expect(learned).toHaveBeenCalledTimes(1);
    const cache = new MemoryIndexCache();
    await first.save(cache);
    for (let n = 0; n < 60; n++) store.files.set(newPath(n), { text: newNote(n), mtime: FAKE_NOW + 60_000 + n });
    learned.mockClear();
    // A start from the cache whose meanings are out of date: taken back, and learned again only once let go.
    const next = new VaultIndex({ clock: fakeClock(FAKE_NOW + 3_600_000) });
    const release = next.holdRelearning();
    await next.sync(store, cache);
    await next.languageSettled();
    expect(learned).not.toHaveBeenCalled();
    expect(next.status().vaultLanguage).toBe("ready");
    release();
    release(); // a second call lets go of nothing more
    expect(next.status().vaultLanguage).toBe("relearning");
    await next.languageSettled();
    expect(learned).toHaveBeenCalledTimes(1);
    expect(sayingSecond(rankFor(next, NEW_FIRST))).toBeGreaterThan(0);
  });

  it("meanings learned at a start whose cache had none keep their date: a later start learns them again when enough changed since", async () => {
    // A cache saved with the lane off (or its part damaged, or from before the lane): the start
    // after learns them. Saved undated, every later start took them as learned just then.
    const store = new MemoryNoteStore(generatedVault());
    const off = new VaultIndex({ clock: fakeClock(), ranking: OFF });
    await off.sync(store, null);
    const cache = new MemoryIndexCache();
    await off.save(cache);
    const learning = new VaultIndex({ clock: fakeClock(FAKE_NOW + 60_000) });
    await learning.sync(store, cache);
    await learning.languageSettled();
    expect(learning.status().vaultLanguage).toBe("ready");
    await learning.save(cache);
    for (let n = 0; n < 60; n++) store.files.set(newPath(n), { text: newNote(n), mtime: FAKE_NOW + 120_000 + n });
    learned.mockClear();
    const next = new VaultIndex({ clock: fakeClock(FAKE_NOW + 3_600_000) });
    await next.sync(store, cache);
    await next.languageSettled();
    expect(learned).toHaveBeenCalledTimes(1);
    expect(sayingSecond(rankFor(next, NEW_FIRST))).toBeGreaterThan(0);
  });

  it("does not learn them again at every start for notes dated ahead of the clock", async () => {
    // A tenth of the notes dated a year ahead (synced from a device whose clock runs ahead, a disk
    // that shifts dates): learning again dates the meanings now, still before those notes, so every
    // start from the cache learned them all once more, until the clock caught up.
    const store = new MemoryNoteStore(generatedVault());
    let n = 0;
    for (const file of store.files.values()) if (n++ % 8 === 0) file.mtime = FAKE_NOW + 365 * 86_400_000;
    const first = new VaultIndex({ clock: fakeClock() });
    await first.sync(store, null);
    await first.languageSettled();
    const cache = new MemoryIndexCache();
    await first.save(cache);
    for (let start = 1; start <= 2; start++) {
      learned.mockClear();
      const next = new VaultIndex({ clock: fakeClock(FAKE_NOW + start * 3_600_000) });
      expect((await next.sync(store, cache)).mode).toBe("cache");
      await next.languageSettled();
      expect(learned, `start ${start}`).not.toHaveBeenCalled();
      expect(next.status().vaultLanguage).toBe("ready");
      expect(next.hasUnsavedChanges()).toBe(false);
    }
  });

  it("learning again and finding too few passages keeps the meanings, dated anew: no start reads every note for it again", async () => {
    const store = new MemoryNoteStore(generatedVault());
    const index = new VaultIndex({ clock: fakeClock() });
    await index.sync(store, null);
    await index.languageSettled();
    // Half the notes go (too few passages are left to learn from), and a fourth of the rest is
    // edited later, while no process runs.
    let n = 0;
    for (const path of [...store.files.keys()]) {
      if (n++ % 2 === 1) continue;
      store.files.delete(path);
      index.removeFile(path);
    }
    await index.languageSettled();
    const cache = new MemoryIndexCache();
    await index.save(cache);
    n = 0;
    for (const file of store.files.values()) if (n++ % 4 === 0) file.mtime = FAKE_NOW + 60_000;
    const reads: number[] = [];
    for (let start = 1; start <= 3; start++) {
      const counted = Object.assign(new MemoryNoteStore(), { reads: 0 });
      for (const [path, file] of store.files) counted.files.set(path, file);
      const read = counted.read.bind(counted);
      counted.read = (path: string) => {
        counted.reads++;
        return read(path);
      };
      const next = new VaultIndex({ clock: fakeClock(FAKE_NOW + start * 3_600_000) });
      await next.sync(counted, cache);
      await next.languageSettled();
      // The meanings learned before still serve.
      expect(next.status().vaultLanguage).toBe("ready");
      reads.push(counted.reads);
      await next.save(cache);
    }
    // The first start reads the notes edited since, and every note once to learn from; none after.
    expect(reads[0]).toBeGreaterThan(store.files.size);
    expect(reads.slice(1)).toEqual([0, 0]);
  });

  it("a folder renamed while the process runs is no change to learn again from, as it is not at a start", async () => {
    const { store, index } = await built(generatedVault());
    learned.mockClear();
    // An eighth of the vault: counted as notes gone and notes new, it was a fourth.
    const renames = [...store.files.keys()].filter((p) => p.startsWith("topic0/")).map((oldPath) => ({ oldPath, path: oldPath.replace("topic0/", "renamed/") }));
    expect(renames).toHaveLength(NOTE_COUNT / TOPIC_COUNT);
    for (const { oldPath, path } of renames) {
      store.files.set(path, store.files.get(oldPath)!);
      store.files.delete(oldPath);
    }
    await index.renameFiles(store, renames);
    expect(index.status().vaultLanguage).toBe("ready");
    // Renamed one at a time (each read again at its new name), in another folder.
    const more = [...store.files.keys()].filter((p) => p.startsWith("topic1/")).map((oldPath) => ({ oldPath, path: oldPath.replace("topic1/", "elsewhere/") }));
    for (const { oldPath, path } of more) {
      store.files.set(path, store.files.get(oldPath)!);
      store.files.delete(oldPath);
      await index.renameFile(store, oldPath, path);
    }
    // Found by a listing (the MCP server's, after a burst of events): the new names first, then the old
    // ones gone. Counted as 40 changes, these and 20 new notes were enough to learn again.
    const listed = [...store.files.keys()].filter((p) => p.startsWith("topic4/")).slice(0, 20).map((oldPath) => ({ oldPath, path: oldPath.replace("topic4/", "listed/") }));
    for (const { oldPath, path } of listed) {
      store.files.set(path, store.files.get(oldPath)!);
      store.files.delete(oldPath);
      await index.updateFile(store, path);
    }
    for (const { oldPath } of listed) index.removeFile(oldPath);
    for (let n = 0; n < 20; n++) {
      store.files.set(newPath(n), { text: newNote(n), mtime: 1_700_000_100_000 + n });
      await index.updateFile(store, newPath(n));
    }
    await index.languageSettled();
    expect(learned).not.toHaveBeenCalled();
    // A note edited as it moved is a change: enough of them are learned from again.
    const edited = [...store.files.keys()].filter((p) => p.startsWith("topic2/")).map((oldPath) => ({ oldPath, path: oldPath.replace("/", "-moved/") }));
    for (const { oldPath, path } of edited) {
      const file = store.files.get(oldPath)!;
      store.files.set(path, { text: `${file.text}\nMoved.\n`, mtime: file.mtime + 1 });
      store.files.delete(oldPath);
    }
    await index.renameFiles(store, edited);
    await index.languageSettled();
    expect(learned).toHaveBeenCalledTimes(1);
  });
});

describe("a vault too small to learn from", () => {
  // (A block, not an arrow returning the mock: vitest would call a returned function as a clean-up.)
  beforeEach(() => {
    learned.mockClear();
  });

  it("has no lane: the ranking is the words' alone and no part is saved", async () => {
    const notes = generatedVault(60);
    expect(passageCount(notes)).toBeLessThan(DEFAULT_VAULT_LANGUAGE.minPassages);
    const { index } = await built(notes);
    const { index: off } = await built(notes, OFF);
    expect(learned).not.toHaveBeenCalled();
    for (const query of [FIRST_WORD, SECOND_WORD]) expect(rankFor(index, query)).toEqual(rankFor(off, query));
    const cache = new MemoryIndexCache();
    await index.save(cache);
    expect(cache.parts.has(LANGUAGE_PART)).toBe(false);
  });

  it("does not read a vault plainly too small again; one big enough is read once more to learn from", async () => {
    const storeOf = (notes: Record<string, string>) => {
      const store = new ControlledStore();
      for (const [path, text] of Object.entries(notes)) store.write(path, text);
      return store;
    };
    const small = storeOf(generatedVault(60));
    const index = new VaultIndex();
    await index.sync(small, null);
    await index.languageSettled();
    expect(small.reads).toHaveLength(60);
    const larger = storeOf(generatedVault(120));
    const learning = new VaultIndex({ ranking: { vaultLanguage: { ...DEFAULT_VAULT_LANGUAGE, minPassages: 500 } } });
    await learning.sync(larger, null);
    await learning.languageSettled();
    expect(larger.reads).toHaveLength(240);
    expect(learned).toHaveBeenCalledTimes(1);
  });

  it("learns from exactly minPassages passages, not from one fewer", async () => {
    const notes = generatedVault(120);
    const passages = passageCount(notes);
    const options = { ...DEFAULT_VAULT_LANGUAGE, words: { ...DEFAULT_VAULT_LANGUAGE.words, dimensions: 16 } };
    const { index: enough } = await built(notes, { vaultLanguage: { ...options, minPassages: passages } });
    expect(learned).toHaveBeenCalledTimes(1);
    expect(learned.mock.calls[0][0]).toHaveLength(passages);
    expect(languageOnly(rankFor(enough, FIRST_WORD)).length).toBeGreaterThan(0);
    learned.mockClear();
    const { index: short } = await built(notes, { vaultLanguage: { ...options, minPassages: passages + 1 } });
    expect(learned).not.toHaveBeenCalled();
    expect(languageOnly(rankFor(short, FIRST_WORD))).toEqual([]);
  });

  it("learns from a fair sample of maxPassages when there are more", async () => {
    const notes = generatedVault(120);
    const passages = passageCount(notes);
    const options = { ...DEFAULT_VAULT_LANGUAGE, words: { ...DEFAULT_VAULT_LANGUAGE.words, dimensions: 16 }, minPassages: 100, maxPassages: 300 };
    await built(notes, { vaultLanguage: options });
    expect(learned).toHaveBeenCalledTimes(1);
    const sample = learned.mock.calls[0][0];
    expect(sample).toHaveLength(300);
    // Reservoir sampling: the passages of the notes read last are kept as often as the first ones'.
    const analyzer = createAnalyzer({ stemming: true });
    const lastRead = new Set(
      Object.keys(notes)
        .sort()
        .slice(60)
        .flatMap((path) => notePassages(parseNote(path, notes[path]), analyzer).map((p) => p.join(" "))),
    );
    const fromLastRead = sample.filter((p) => lastRead.has(p.join(" "))).length;
    expect(passages).toBeGreaterThan(600);
    expect(fromLastRead).toBeGreaterThan(100);
    expect(fromLastRead).toBeLessThan(200);
  });
});

// ── the lane on its own ─────────────────────────────────────────────────────────────────────

/** A slice that pauses at every check; once held (after `after` more pauses), a pause waits for `release`. */
function holdingSlice() {
  let holdIn = Infinity;
  let waiting: (() => void)[] = [];
  let pauses = 0;
  const slice: WorkSlice = {
    over: () => true,
    pause: () => {
      pauses++;
      if (--holdIn > 0) return Promise.resolve();
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    restart: () => undefined,
  };
  return {
    slice,
    pauses: () => pauses,
    hold: (after = 1) => void (holdIn = after),
    /** Resolves once some work is waiting at a pause. */
    paused: async () => {
      while (waiting.length === 0) await new Promise((r) => setTimeout(r, 0));
    },
    release: () => {
      holdIn = Infinity;
      const wake = waiting;
      waiting = [];
      for (const w of wake) w();
    },
  };
}

const SMALL: VaultLanguageOptions = { ...DEFAULT_VAULT_LANGUAGE, words: { ...DEFAULT_VAULT_LANGUAGE.words, dimensions: 16, oversample: 10 }, minPassages: 500 };
const FINGERPRINT = "settings";

/** Saves `lane` to `cache` (a new one when absent) and gives the names written. */
async function savedTo(lane: LanguageLane, cache = new MemoryIndexCache()): Promise<{ cache: MemoryIndexCache; written: string[] }> {
  cache.written.length = 0;
  await lane.save(cache, FINGERPRINT, NO_SLICES);
  return { cache, written: [...cache.written] };
}

/** A lane beside an engine and a store of the notes, told of each note as the index tells it. */
function laneWorld(notes: Record<string, string>, options = SMALL, workers: Workers | null = null) {
  const analyzer = createAnalyzer({ stemming: true });
  const engine = createEngine(analyzer);
  const store = new MemoryNoteStore();
  const lane = new LanguageLane(options, workers);
  const docs = new Map<string, EngineDoc>();
  const index = (path: string, text: string) => {
    store.files.set(path, { text, mtime: 1 });
    if (engine.shortIdOf(path) !== undefined) engine.discard(path);
    const doc = toEngineDoc(parseNote(path, text));
    engine.add(doc);
    docs.set(path, doc);
    lane.noteIndexed(path, doc, analyzer, engine, { mtime: 1, size: text.length });
  };
  const remove = (path: string) => {
    const version = { mtime: 1, size: store.files.get(path)!.text.length };
    engine.discard(path);
    docs.delete(path);
    store.files.delete(path);
    lane.noteRemoved(path, version);
  };
  const bytes = () => [...docs.keys()].reduce((sum, p) => sum + store.files.get(p)!.text.length, 0);
  const noteVersion = (p: string) => (docs.has(p) ? { mtime: 1, size: store.files.get(p)!.text.length } : undefined);
  const source = (slice: WorkSlice = NO_SLICES): LaneSource => ({ engine, analyzer, store, paths: () => [...docs.keys()], holds: (p) => docs.has(p), maxNoteChars: MAX_NOTE_CHARS, now: () => FAKE_NOW, bytes, noteVersion, slice: () => slice });
  /** The vector `setNote` gives a note from its own fields, in a copy of the lane's meanings. */
  const ownVector = (path: string) => {
    const own = new VaultLanguage(lane.current()!.meanings());
    own.setNote(path, docTermCounts(docs.get(path)!, analyzer), (t) => notesWithTerm(engine, t), engine.documentCount);
    return own.noteVector(path);
  };
  lane.reset();
  for (const [path, text] of Object.entries(notes)) index(path, text);
  return { lane, engine, store, docs, index, remove, source, ownVector };
}


/**
 * A worker in this thread: each message answered as the worker's code answers it, both ways
 * through the structured clone a worker's messages pass. `hold` keeps the next answer until
 * `release` (or the abort, which rejects, as the real adapters do).
 */
function workerInThread(answer: (message: unknown, more?: AsyncIterable<unknown>) => Promise<unknown> = answerAsWorker) {
  const signals: AbortSignal[] = [];
  let held: { resolve: () => void } | null = null;
  let holding = false;
  return {
    signals,
    hold: () => void (holding = true),
    release: () => held?.resolve(),
    async run(message: unknown, signal: AbortSignal, more?: AsyncIterable<unknown>): Promise<unknown> {
      signals.push(signal);
      if (holding) {
        holding = false;
        await new Promise<void>((resolve, reject) => {
          held = { resolve };
          signal.addEventListener("abort", () => reject(new Error("the work was no longer wanted")), { once: true });
        });
      }
      return answer(message, more);
    },
  };
}

/** The request and then each message of `more`, to the worker's own code; its one reply's answer. */
async function answerAsWorker(message: unknown, more?: AsyncIterable<unknown>): Promise<unknown> {
  const worker = workerHere();
  worker.send(message);
  if (more)
    for await (const next of more) if (!worker.answering()) worker.send(next);
  if (!worker.answering()) throw new Error("the worker stopped before it answered");
  return structuredClone(unwrapWorkerReply(await worker.reply));
}

describe("LanguageLane with a worker", () => {
  const notes = generatedVault(120);

  /** The int8 meanings a lane kept. */
  const keptOf = (lane: LanguageLane) => {
    const { words, values } = lane.current()!.kept();
    return { words, values: Array.from(values) };
  };

  it("learns its meanings in the worker, the same as in this thread, and fills the notes' vectors as before", async () => {
    const here = laneWorld(notes);
    await here.lane.learn(here.source());
    expect(here.lane.learnedIn).toBe("this thread");
    const workers = workerInThread();
    const there = laneWorld(notes, SMALL, workers);
    expect(there.lane.learnedIn).toBeNull();
    await there.lane.learn(there.source());
    expect(workers.signals).toHaveLength(1);
    expect(there.lane.learnedIn).toBe("worker");
    expect(keptOf(there.lane)).toEqual(keptOf(here.lane));
    // Meanings taken back from a cache were learned nowhere this time; a reset forgets where.
    const cache = new MemoryIndexCache();
    await there.lane.save(cache, FINGERPRINT, NO_SLICES);
    there.lane.loadFrom(cache, FINGERPRINT);
    expect(there.lane.learnedIn).toBeNull();
    await there.lane.learn(there.source());
    expect([there.lane.ready, there.lane.learnedIn]).toEqual([true, null]);
    expect(there.lane.current()!.noteCount).toBe(there.docs.size);
    for (const path of [...there.docs.keys()].slice(0, 20)) expect(cosine(there.lane.current()!.noteVector(path)!.values, there.ownVector(path)!.values), path).toBeGreaterThan(0.9999);
  });

  it("learns in this thread, to the same meanings, when the worker fails, cannot start or answers what it cannot read", async () => {
    const here = laneWorld(notes);
    await here.lane.learn(here.source());
    const failing: Record<string, (message: unknown) => Promise<unknown>> = {
      fails: () => Promise.reject(new Error("the worker failed: out of memory")),
      "cannot start": () => {
        throw new Error("Worker is not defined");
      },
      "answers another shape": async () => ({ job: "learn-meanings", version: 1, meanings: { words: "one", dimensions: 16, vectors: new Float32Array(3) } }),
    };
    for (const [what, answer] of Object.entries(failing)) {
      const world = laneWorld(notes, SMALL, workerInThread(answer));
      await world.lane.learn(world.source());
      expect(world.lane.ready, what).toBe(true);
      expect(world.lane.learnedIn, what).toBe("this thread");
      expect(keptOf(world.lane), what).toEqual(keptOf(here.lane));
    }
  });

  it("asks a worker that went quiet no more while the lane lives, and learns here; one that failed fast is asked again", async () => {
    for (const [failure, askedAgain] of [
      [new WorkerWentQuiet(600_000), false],
      [new Error("the worker failed: out of memory"), true],
    ] as const) {
      let calls = 0;
      const workers = workerInThread(async (message, more) => {
        if (++calls === 1) throw failure;
        return answerAsWorker(message, more);
      });
      const world = laneWorld(notes, SMALL, workers);
      await world.lane.learn(world.source());
      expect([world.lane.ready, world.lane.learnedIn], failure.message).toEqual([true, "this thread"]);
      // A full build again: the lane learns anew.
      world.lane.reset();
      await world.lane.learn(world.source());
      expect(world.lane.ready, failure.message).toBe(true);
      expect(workers.signals.length, failure.message).toBe(askedAgain ? 2 : 1);
      expect(world.lane.learnedIn, failure.message).toBe(askedAgain ? "worker" : "this thread");
    }
  });

  it("ends the worker's job when a reset, load or stop overtakes it, and keeps nothing of it", async () => {
    for (const overtake of ["reset", "stop", "load"] as const) {
      const workers = workerInThread();
      const { lane, source } = laneWorld(notes, SMALL, workers);
      workers.hold();
      const learning = lane.learn(source());
      await vi.waitFor(() => expect(workers.signals).toHaveLength(1));
      expect(workers.signals[0].aborted).toBe(false);
      if (overtake === "reset") lane.reset();
      else if (overtake === "stop") lane.stop();
      else lane.loadFrom(new MemoryIndexCache(), FINGERPRINT);
      expect(workers.signals[0].aborted, overtake).toBe(true);
      await learning;
      expect(lane.ready, overtake).toBe(false);
      expect(lane.learnedIn, overtake).toBeNull();
      expect(lane.working, overtake).toBe(false);
    }
  });

  it("counts the wait on its worker as no slice of its own (a slice starts afresh when the answer comes)", async () => {
    const clock = fakeClock();
    const slices: number[] = [];
    const slice = timeSlices(clock, async (ms) => void slices.push(ms));
    // The worker takes five seconds; nothing else moves the clock.
    const workers = workerInThread(async (message, more) => {
      const answered = await answerAsWorker(message, more);
      clock.advance(5000);
      return answered;
    });
    const { lane, source } = laneWorld(notes, SMALL, workers);
    await lane.learn(source(slice));
    expect(lane.learnedIn).toBe("worker");
    expect(clock.now() - FAKE_NOW).toBe(5000);
    expect(Math.max(0, ...slices)).toBeLessThan(1000);
  });

  it("keeps what the worker answered only for the learning that asked (a reset while the answer comes in)", async () => {
    const workers = workerInThread();
    const { lane, source } = laneWorld(notes, SMALL, workers);
    workers.hold();
    const learning = lane.learn(source());
    await vi.waitFor(() => expect(workers.signals).toHaveLength(1));
    // The answer is on its way when the reset comes: the abort is too late to stop it.
    workers.release();
    lane.reset();
    await learning;
    expect(lane.ready).toBe(false);
    expect(lane.learnedIn).toBeNull();
    await lane.learn(source());
    expect(lane.ready).toBe(true);
    expect(lane.learnedIn).toBe("worker");
  });
});

describe("LanguageLane", () => {
  const notes = generatedVault(120);

  // (A block, not an arrow returning the mock: vitest would call a returned function as a clean-up.)
  beforeEach(() => {
    learned.mockClear();
  });

  it("is not ready and finds nothing before it learned; then finds a question's notes, filtered by `keep`", async () => {
    const { lane, engine, source } = laneWorld(notes);
    expect(lane.ready).toBe(false);
    expect(lane.current()).toBeNull();
    expect(lane.nearest([FIRST_WORD], engine)).toEqual([]);
    await lane.learn(source());
    expect(lane.ready).toBe(true);
    expect(lane.unsaved).toBe(true);
    await savedTo(lane);
    expect(lane.unsaved).toBe(false);
    expect(lane.nearest(["zzzqqq"], engine)).toEqual([]);
    const near = lane.nearest([FIRST_WORD], engine);
    expect(near).toHaveLength(SMALL.fusion.depth);
    expect(near.slice(0, 10).every((n) => n.path.startsWith("topic0/"))).toBe(true);
    const elsewhere = lane.nearest([FIRST_WORD], engine, (p) => !p.startsWith("topic0/"));
    expect(elsewhere).toHaveLength(SMALL.fusion.depth);
    expect(elsewhere.every((n) => !n.path.startsWith("topic0/"))).toBe(true);
  });

  it("writes each part of notes' vectors straight from its block: no vector copied on the way, and the very parts copies of them made", async () => {
    const world = laneWorld(notes);
    await world.lane.learn(world.source());
    // A note removed, and one known without a vector (no word of it has a meaning): its row stays zeros.
    world.remove(pathOf(7));
    world.index("odd/unknown.md", "zzzqqq");
    // The parts as handed to the cache (a structured clone's arrays are written by v8 in another form).
    const cache = new MemoryIndexCache();
    const handed = new Map<string, unknown>();
    const write = cache.write.bind(cache);
    cache.write = (name, value) => {
      handed.set(name, value);
      return write(name, value);
    };
    const copies = vi.spyOn(NoteVectors.prototype, "get");
    await savedTo(world.lane, cache);
    expect(copies).not.toHaveBeenCalled();
    copies.mockRestore();
    const model = world.lane.current()!;
    expect(model.noteVector("odd/unknown.md")).toBeUndefined();
    const zero = { values: new Int8Array(model.dimensions), invNorm: 0, scale: 0 };
    const parts = [...handed].filter(([name]) => isNotesPartName(name)).map(([, part]) => part as { paths: string[]; versions: Float64Array; buckets: number });
    expect(parts.length).toBeGreaterThan(10);
    for (const part of parts) {
      const copied = part.paths.map((path, i) => ({ path, version: { mtime: part.versions[i * 2], size: part.versions[i * 2 + 1] }, vector: model.noteVector(path) ?? zero }));
      expect(serialize(part)).toEqual(serialize(encodeNotesPart(savedNotes(copied), model.dimensions, model.meaningsId(), FINGERPRINT, part.buckets)));
    }
    expect(parts.flatMap((p) => p.paths).sort()).toEqual([...world.docs.keys()].sort());
  });

  it("learns once: a second call waits on the same work", async () => {
    const { lane, source } = laneWorld(notes);
    const first = lane.learn(source());
    expect(lane.learn(source())).toBe(first);
    await first;
    await lane.learn(source());
    expect(learned).toHaveBeenCalledTimes(1);
  });

  it("gives every note the vector its own words give it: the postings and the fields agree", async () => {
    const { lane, docs, source, ownVector } = laneWorld(notes);
    await lane.learn(source());
    expect(lane.current()!.noteCount).toBe(docs.size);
    for (const path of docs.keys()) expect(cosine(lane.current()!.noteVector(path)!.values, ownVector(path)!.values), path).toBeGreaterThan(0.9999);
  });

  it("learns nothing when there is nothing planned (never reset nor loaded)", async () => {
    const { source } = laneWorld(notes);
    const fresh = new LanguageLane(SMALL);
    await fresh.learn(source());
    expect(fresh.ready).toBe(false);
    expect(learned).not.toHaveBeenCalled();
  });

  it("takes saved meanings from a cache instead of learning, and finds what the learned lane found", async () => {
    const world = laneWorld(notes);
    await world.lane.learn(world.source());
    const cache = new MemoryIndexCache();
    await cache.write(LANGUAGE_PART, encodeLanguage(world.lane.current()!, FINGERPRINT));
    learned.mockClear();
    const loaded = new LanguageLane(SMALL);
    loaded.loadFrom(cache, FINGERPRINT);
    expect(loaded.ready).toBe(false);
    await loaded.learn(world.source());
    expect(learned).not.toHaveBeenCalled();
    expect(loaded.ready).toBe(true);
    // The cache held no notes' vectors: they were worked out, and are for the next save; the meanings are not.
    const { written } = await savedTo(loaded);
    expect(written).not.toContain(LANGUAGE_PART);
    expect(written.length).toBeGreaterThan(0);
    expect(loaded.current()!.noteCount).toBe(world.docs.size);
    const was = world.lane.nearest([SECOND_WORD], world.engine).slice(0, 10);
    const is = loaded.nearest([SECOND_WORD], world.engine).slice(0, 10);
    expect(new Set(is.map((n) => n.path))).toEqual(new Set(was.map((n) => n.path)));
  });

  it("takes saved meanings and notes' vectors back with no cache call's wait counted as a slice's work (a listing's wait stretched a warm start's slice past 70 ms)", async () => {
    const world = laneWorld(notes);
    await world.lane.learn(world.source());
    const { cache } = await savedTo(world.lane);
    // The cache's listing answers a whole minute later on the slice's clock (a busy disk, a garbage
    // collection meanwhile): a slice that counted that wait as work would report it. (Not its reads:
    // those read ahead answer while the lane works, as a real cache's do.)
    const clock = fakeClock();
    const later = <T>(answer: Promise<T>): Promise<T> => answer.then((value) => (clock.advance(60_000), value));
    const slow = { read: cache.read.bind(cache), write: cache.write.bind(cache), names: () => later(cache.names()), remove: cache.remove.bind(cache) };
    const slices: number[] = [];
    const slice = timeSlices(clock, async (ms) => void slices.push(ms));
    const loaded = new LanguageLane(SMALL);
    loaded.loadFrom(slow as unknown as MemoryIndexCache, FINGERPRINT);
    await loaded.learn(world.source(slice));
    expect(loaded.ready).toBe(true);
    expect(slices.filter((ms) => ms >= 60_000)).toEqual([]);
  });

  it("saves the notes' vectors in parts, takes them back on the next start, and rewrites only a changed note's part", async () => {
    const world = laneWorld(notes);
    await world.lane.learn(world.source());
    const cache = new MemoryIndexCache();
    const save = async (lane: LanguageLane) => (await savedTo(lane, cache)).written;
    const first = await save(world.lane);
    expect(first).toContain(LANGUAGE_PART);
    expect(first.length).toBeGreaterThan(10);
    const postingsRead = vi.spyOn(world.engine.terms, "get");
    const loaded = new LanguageLane(SMALL);
    loaded.loadFrom(cache, FINGERPRINT);
    await loaded.learn(world.source());
    // Every vector came from its part: no posting was read for it.
    expect(postingsRead).not.toHaveBeenCalled();
    postingsRead.mockRestore();
    expect(loaded.unsaved).toBe(false);
    for (const path of world.docs.keys()) {
      const is = loaded.current()!.noteVector(path)!;
      const was = world.lane.current()!.noteVector(path)!;
      expect(is.values, path).toEqual(was.values);
      expect(is.invNorm).toBeCloseTo(was.invNorm, 6);
    }
    // One note changed: one part of notes is written, not the meanings.
    world.index(pathOf(3), noteText(0, 1, 17));
    const again = await save(world.lane);
    expect(again).toEqual([expect.stringMatching(/^vault-language-notes-\d+$/)]);
    // A note changed since its vector was saved gets it from its own text on the next start.
    const changed = pathOf(4);
    world.store.files.set(changed, { text: noteText(1, 2, 9), mtime: 2 });
    const stale = new LanguageLane(SMALL);
    stale.loadFrom(cache, FINGERPRINT);
    const source = world.source();
    await stale.learn({ ...source, noteVersion: (p) => (p === changed ? { mtime: 2, size: world.store.files.get(p)!.text.length } : source.noteVersion(p)) });
    expect(stale.current()!.noteVector(changed)!.values).not.toEqual(world.lane.current()!.noteVector(changed)!.values);
  });

  /** A learned lane whose save is held at its `holdAt`th pause. */
  async function saveHeld(holdAt: number) {
    const world = laneWorld(notes);
    await world.lane.learn(world.source());
    const cache = new MemoryIndexCache();
    const gate = holdingSlice();
    gate.hold(holdAt);
    const saving = world.lane.save(cache, FINGERPRINT, gate.slice);
    await gate.paused();
    return { world, cache, gate, saving };
  }

  it("saves one part at a time between pauses, and leaves a note changed meanwhile for the next save", async () => {
    const { world, cache, gate, saving } = await saveHeld(3);
    const partsBefore = cache.written.filter((n) => n.startsWith("vault-language-notes-")).length;
    world.index(pathOf(3), noteText(0, 1, 18));
    gate.release();
    await saving;
    // It paused between parts, not once for all of them.
    expect(partsBefore).toBeGreaterThan(0);
    expect(gate.pauses()).toBeGreaterThanOrEqual(cache.written.filter((n) => n.startsWith("vault-language-notes-")).length);
    // The note changed while it wrote: still to save, and saved by the next one (its part alone).
    expect(world.lane.unsaved).toBe(true);
    const { written } = await savedTo(world.lane, cache);
    expect(written).toEqual([expect.stringMatching(/^vault-language-notes-\d+$/)]);
    expect(world.lane.unsaved).toBe(false);
  });

  // A cache that answers without giving the event loop a turn (a memory cache, a quick IndexedDB):
  // with the slice started afresh after each write, it never ended, and 256 parts were written in
  // one 53 ms stretch of CPU at 50,000 notes.
  it("ends a slice once the work of its parts adds up to one, though the cache's writes give no turn", async () => {
    const world = laneWorld(notes);
    await world.lane.learn(world.source());
    const clock = fakeClock();
    const slices: number[] = [];
    const cache = new MemoryIndexCache();
    const write = cache.write.bind(cache);
    // Taking each part in costs the adapter a millisecond of this thread, and the write resolves at once.
    cache.write = (name, value) => (clock.advance(1), write(name, value));
    await world.lane.save(cache, FINGERPRINT, timeSlices(clock, async (ms) => void slices.push(ms)));
    const parts = cache.written.filter(isNotesPartName).length;
    expect(parts).toBeGreaterThan(2 * SLICE_MS);
    expect(slices.length).toBeGreaterThanOrEqual(Math.floor(parts / SLICE_MS));
    expect(Math.max(...slices)).toBeLessThanOrEqual(SLICE_MS);
  });

  it("counts no wait on the cache as a slice's work (a slow disk is no block of its own)", async () => {
    const world = laneWorld(notes);
    await world.lane.learn(world.source());
    const clock = fakeClock();
    const slices: number[] = [];
    const cache = new MemoryIndexCache();
    const write = cache.write.bind(cache);
    cache.write = async (name, value) => {
      await new Promise((resolve) => setTimeout(resolve, 0));
      clock.advance(500);
      return write(name, value);
    };
    await world.lane.save(cache, FINGERPRINT, timeSlices(clock, async (ms) => void slices.push(ms)));
    expect(cache.written.filter(isNotesPartName).length).toBeGreaterThan(2 * SLICE_MS);
    expect(Math.max(0, ...slices)).toBeLessThan(SLICE_MS);
  });

  it("leaves everything for the next save when a write fails, and writes it then", async () => {
    const world = laneWorld(notes);
    await world.lane.learn(world.source());
    const cache = new MemoryIndexCache();
    let failures = 1;
    cache.failWrite = (name) => name.startsWith("vault-language-notes-") && failures-- > 0;
    await expect(world.lane.save(cache, FINGERPRINT, NO_SLICES)).rejects.toThrow(/disk full/);
    expect(world.lane.unsaved).toBe(true);
    const { written } = await savedTo(world.lane, cache);
    expect(written).toContain(LANGUAGE_PART);
    const loaded = new LanguageLane(SMALL);
    loaded.loadFrom(cache, FINGERPRINT);
    const postingsRead = vi.spyOn(world.engine.terms, "get");
    await loaded.learn(world.source());
    expect(postingsRead).not.toHaveBeenCalled();
    postingsRead.mockRestore();
    expect(loaded.current()!.noteCount).toBe(world.lane.current()!.noteCount);
  });

  it("ends a save that a reset overtook, and leaves the reset's work to save", async () => {
    const { world, cache, gate, saving } = await saveHeld(2);
    const writtenBefore = cache.written.length;
    world.lane.reset();
    gate.release();
    await saving;
    expect(cache.written.length).toBe(writtenBefore);
    expect(world.lane.unsaved).toBe(true);
  });

  it("learns from the notes when the cache has no part, a corrupt one, one of other settings or one it cannot read", async () => {
    const world = laneWorld(notes);
    await world.lane.learn(world.source());
    const good = encodeLanguage(world.lane.current()!, FINGERPRINT);
    const caches: [string, MemoryIndexCache][] = [["missing", new MemoryIndexCache()]];
    const corrupt = new MemoryIndexCache();
    await corrupt.write(LANGUAGE_PART, { ...good, words: good.words.slice(1) });
    caches.push(["corrupt", corrupt]);
    const foreign = new MemoryIndexCache();
    await foreign.write(LANGUAGE_PART, good);
    caches.push(["of other settings", foreign]);
    const unreadable = new MemoryIndexCache();
    unreadable.failRead = new Error("EIO");
    caches.push(["unreadable", unreadable]);
    for (const [what, cache] of caches) {
      learned.mockClear();
      const lane = new LanguageLane(SMALL);
      lane.loadFrom(cache, what === "of other settings" ? "other settings" : FINGERPRINT);
      await lane.learn(world.source());
      expect(lane.ready, what).toBe(true);
      expect(learned, what).toHaveBeenCalledTimes(1);
      expect(lane.unsaved, what).toBe(true);
    }
  });

  it("remembers a vault read and found too small, and reads it again only once it has grown by half", async () => {
    const world = laneWorld(notes);
    // Enough bytes to be worth reading, too few passages to learn from.
    const wanting = new LanguageLane({ ...SMALL, minPassages: 1_000_000 });
    wanting.reset();
    const source = world.source();
    const bytes = source.bytes();
    await wanting.learn({ ...source, bytes: () => Math.max(bytes, 1_000_000 * 120) });
    expect(wanting.ready).toBe(false);
    const { cache, written } = await savedTo(wanting);
    expect(written).toEqual([LANGUAGE_PART]);
    expect(cache.parts.get(LANGUAGE_PART)).toMatchObject({ tooSmallAt: Math.max(bytes, 1_000_000 * 120) });
    for (const [grownBy, reads] of [[1.4, false], [1.6, true]] as const) {
      const lane = new LanguageLane({ ...SMALL, minPassages: 1_000_000 });
      lane.loadFrom(cache, FINGERPRINT);
      const read = vi.fn(source.store.read.bind(source.store));
      await lane.learn({ ...source, store: { ...source.store, list: source.store.list.bind(source.store), read }, bytes: () => Math.max(bytes, 1_000_000 * 120) * grownBy });
      expect(read.mock.calls.length > 0, `grown by ${grownBy}`).toBe(reads);
      expect(lane.ready).toBe(false);
    }
  });

  it("stops a learning under way at its next pause, and keeps no lane", async () => {
    const { lane, source } = laneWorld(notes);
    const gate = holdingSlice();
    gate.hold(3);
    const learning = lane.learn(source(gate.slice));
    await gate.paused();
    const before = gate.pauses();
    lane.stop();
    gate.release();
    await learning;
    // The pause it was waiting at is the last one it took.
    expect(gate.pauses()).toBe(before);
    expect(lane.ready).toBe(false);
    expect(lane.working).toBe(false);
    expect((await savedTo(lane)).written).toEqual([]);
  });

  it("stopped while it learns again (the plugin unloaded), keeps the meanings in use and the notes changed since, for the unload's save", async () => {
    const world = laneWorld(notes);
    await world.lane.learn(world.source());
    const inUse = world.lane.current()!;
    const cache = new MemoryIndexCache();
    await world.lane.save(cache, FINGERPRINT, NO_SLICES);
    const added = Object.entries(generatedVault(200)).filter(([path]) => !(path in notes)).slice(0, 50);
    for (const [path, text] of added) world.index(path, text);
    expect(world.lane.stale).toBe(true);
    const gate = holdingSlice();
    gate.hold(3);
    const relearning = world.lane.relearn(world.source(gate.slice));
    await gate.paused();
    world.lane.stop();
    gate.release();
    await relearning;
    expect(world.lane.working).toBe(false);
    expect(world.lane.current()).toBe(inUse);
    // Stopped for good: nothing is learned again, however much changed.
    expect(world.lane.stale).toBe(false);
    await savedTo(world.lane, cache);
    const saved: string[] = [];
    for (const [name, part] of cache.parts) {
      if (isNotesPartName(name)) saved.push(...((await readNotesPart(part, inUse.dimensions, inUse.meaningsId(), FINGERPRINT, NO_SLICES))?.notes.map((n) => n.path) ?? []));
    }
    expect(saved).toEqual(expect.arrayContaining(added.map(([path]) => path)));
  });

  it("a save under way when it is stopped writes all it took, as it would have unstopped", async () => {
    const partsSaved = async (stopped: boolean) => {
      const { lane, source } = laneWorld(notes);
      await lane.learn(source());
      const cache = new MemoryIndexCache();
      const gate = holdingSlice();
      gate.hold(2);
      const saving = lane.save(cache, FINGERPRINT, gate.slice);
      await gate.paused();
      if (stopped) lane.stop();
      gate.release();
      await saving;
      expect(lane.unsaved).toBe(false);
      return [...cache.parts.keys()].sort();
    };
    const unstopped = await partsSaved(false);
    expect(unstopped.filter(isNotesPartName).length).toBeGreaterThan(1);
    expect(await partsSaved(true)).toEqual(unstopped);
  });

  it("counts no note of a folder renamed while it first learns as a change: the meanings are not learned again once ready", async () => {
    const world = laneWorld(notes);
    const gate = holdingSlice();
    gate.hold(3);
    const learning = world.lane.learn(world.source(gate.slice));
    await gate.paused();
    // 40 notes moved to another folder (the line is 50): each leaves its path and is new at another, as it was.
    for (const path of Object.keys(notes).slice(0, 40)) {
      const text = world.store.files.get(path)!.text;
      world.remove(path);
      world.index(`moved/${path}`, text);
    }
    gate.release();
    await learning;
    expect(world.lane.ready).toBe(true);
    expect(world.lane.stale).toBe(false);
  });

  it("stays stopped: a reset or load after stop (a build ending after unload) learns nothing and reads no note", async () => {
    const { lane, source } = laneWorld(notes);
    lane.stop();
    for (const next of [() => lane.reset(), () => lane.loadFrom(new MemoryIndexCache(), FINGERPRINT)]) {
      next();
      const src = source();
      const read = vi.fn(src.store.read.bind(src.store));
      await lane.learn({ ...src, store: { ...src.store, list: src.store.list.bind(src.store), read } });
      expect(read).not.toHaveBeenCalled();
      expect(lane.ready).toBe(false);
      expect(lane.working).toBe(false);
    }
  });

  it("throws away a learning that a reset overtook, and a load that a reset overtook", async () => {
    const { lane, source } = laneWorld(notes);
    const gate = holdingSlice();
    gate.hold();
    const learning = lane.learn(source(gate.slice));
    await gate.paused();
    lane.reset();
    gate.release();
    await learning;
    expect(lane.ready).toBe(false);
    // The reset planned a learning of its own.
    await lane.learn(source());
    expect(lane.ready).toBe(true);
  });

  it("gives a note added or changed while it filled the notes' vectors the whole vector of its words, and none to one removed", async () => {
    // 300 notes: filling pauses once more after the last word's postings, at the 256th note set.
    const { lane, engine, index, remove, source, ownVector } = laneWorld(generatedVault(300));
    const gate = holdingSlice();
    const actual = await vi.importActual<typeof import("../../../src/index/vault-language/word-meanings")>("../../../src/index/vault-language/word-meanings");
    learned.mockImplementationOnce(async (...args) => {
      const meanings = await actual.learnWordMeanings(...args);
      // Filling pauses before each word's postings, then at every 256th note: hold at that one.
      gate.hold(meanings!.words.length + 1);
      return meanings;
    });
    const learning = lane.learn(source(gate.slice));
    await gate.paused();
    const changed = pathOf(5);
    const gone = SECOND_WORD_NOTES[0];
    index("added.md", noteText(0, 1, 777));
    index(changed, noteText(0, 0, 778));
    remove(gone);
    gate.release();
    await learning;
    expect(lane.ready).toBe(true);
    for (const path of ["added.md", changed]) {
      const vector = lane.current()!.noteVector(path);
      expect(vector, path).toBeDefined();
      expect(cosine(vector!.values, ownVector(path)!.values), path).toBeGreaterThan(0.9999);
    }
    expect(lane.current()!.noteVector(gone)).toBeUndefined();
    expect(lane.nearest([FIRST_WORD], engine).map((n) => n.path)).not.toContain(gone);
  });

  it("keeps no vector of a note removed while it learned", async () => {
    const { lane, engine, remove, source } = laneWorld(notes);
    const gate = holdingSlice();
    gate.hold(5);
    const learning = lane.learn(source(gate.slice));
    await gate.paused();
    const gone = SECOND_WORD_NOTES[0];
    remove(gone);
    gate.release();
    await learning;
    expect(lane.ready).toBe(true);
    expect(lane.current()!.noteVector(gone)).toBeUndefined();
    expect(lane.nearest([FIRST_WORD], engine).map((n) => n.path)).not.toContain(gone);
  });

  it("forgets a removed note and gives a changed one its new vector at once, once learned", async () => {
    const { lane, engine, index, remove, source } = laneWorld(notes);
    await lane.learn(source());
    await savedTo(lane);
    const moved = pathOf(5);
    const top = () => lane.nearest([FIRST_WORD], engine).slice(0, 15).map((n) => n.path);
    expect(top()).not.toContain(moved);
    index(moved, noteText(0, 1, 31));
    expect(top()).toContain(moved);
    remove(moved);
    expect(lane.nearest([FIRST_WORD], engine).map((n) => n.path)).not.toContain(moved);
    expect(lane.current()!.noteVector(moved)).toBeUndefined();
    // The meanings did not change: only the note's part of vectors is to save.
    expect((await savedTo(lane)).written).toEqual([expect.stringMatching(/^vault-language-notes-\d+$/)]);
  });

  it("offers a note's own words nearest in meaning as stand-ins for the question's words it lacks", async () => {
    const { lane, engine, source } = laneWorld(notes, { ...SMALL, standIns: { minSimilarity: 0.8, perWord: 2 } });
    await lane.learn(source());
    const note = SECOND_WORD_NOTES[0];
    const found = lane.standInsFor(note, [{ word: "First", term: FIRST_WORD }], engine);
    expect(Object.keys(found)).toEqual(["First"]);
    expect(found.First).toHaveLength(2);
    // Words of its own topic (sixteen dimensions hardly tell them apart), strongest first.
    for (const standIn of found.First) {
      expect(TOPIC_WORDS[0].has(standIn.term)).toBe(true);
      expect(notes[note]).toContain(standIn.term);
      expect(standIn.strength).toBeGreaterThan(0.8);
    }
    expect(found.First[0].strength).toBeGreaterThanOrEqual(found.First[1].strength);
    // Only words the note holds: a note of another topic has no stand-in for it.
    const elsewhere = Object.keys(notes).find((p) => p.startsWith("topic3/") && !TOPICS[0].context.some((w) => notes[p].includes(w)))!;
    expect(lane.standInsFor(elsewhere, [{ word: "First", term: FIRST_WORD }], engine)).toEqual({});
    // None for a word without a meaning, nor when stand-ins are off.
    expect(lane.standInsFor(note, [{ word: "zzz", term: "zzzqqq" }], engine)).toEqual({});
    const off = laneWorld(notes);
    await off.lane.learn(off.source());
    expect(off.lane.standInsFor(note, [{ word: "First", term: FIRST_WORD }], off.engine)).toEqual({});
  });

  it("remembers the nearest words of at most 2,000 words, forgetting those asked about longest ago", async () => {
    const { lane, engine, source } = laneWorld(notes, { ...SMALL, standIns: { minSimilarity: 0.8, perWord: 2 } });
    await lane.learn(source());
    const note = SECOND_WORD_NOTES[0];
    const ask = (term: string) => lane.standInsFor(note, [{ word: term, term }], engine);
    ask(FIRST_WORD);
    for (let i = 0; i < 1999; i++) ask(`unheard${i}`);
    const worked = vi.spyOn(lane.current()!, "nearWords");
    ask(FIRST_WORD);
    ask("unheard1998");
    expect(worked).not.toHaveBeenCalled();
    // One more word: the one asked about longest ago (unheard0) goes.
    ask("unheard1999");
    ask("unheard0");
    expect(worked.mock.calls.map(([term]) => term)).toEqual(["unheard1999", "unheard0"]);
  });

  it("forgets the stand-ins it worked out once the meanings are learned again", async () => {
    const { lane, engine, index, source } = laneWorld(notes, { ...SMALL, standIns: { minSimilarity: 0.8, perWord: 2 } });
    await lane.learn(source());
    // A note of topic 0 without a word of topic 3.
    const note = SECOND_WORD_NOTES.find((p) => !TOPICS[3].context.some((w) => notes[p].includes(w)))!;
    const before = lane.standInsFor(note, [{ word: "First", term: FIRST_WORD }], engine).First ?? [];
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((n) => TOPIC_WORDS[0].has(n.term))).toBe(true);
    // Relearned from a vault where the first word has moved to topic 3 (in place of topic 3's own word).
    const other = TOPICS[3].pair[0];
    lane.reset();
    for (const [path, text] of Object.entries(notes)) {
      const moved = path.startsWith("topic0/") ? text.split(FIRST_WORD).join(other) : path.startsWith("topic3/") ? text.split(other).join(FIRST_WORD) : text;
      index(path, moved);
    }
    await lane.learn(source());
    const after = lane.standInsFor(note, [{ word: "First", term: FIRST_WORD }], engine).First ?? [];
    expect(after.filter((n) => TOPIC_WORDS[0].has(n.term))).toEqual([]);
  });

  it("pauses while it learns, and learns the same in slices as at once", async () => {
    const whole = laneWorld(notes);
    await whole.lane.learn(whole.source());
    const sliced = laneWorld(notes);
    const gate = holdingSlice();
    await sliced.lane.learn(sliced.source(gate.slice));
    expect(gate.pauses()).toBeGreaterThan(100);
    expect(sliced.lane.current()!.meanings()).toEqual(whole.lane.current()!.meanings());
    expect(sliced.lane.nearest([FIRST_WORD], sliced.engine)).toEqual(whole.lane.nearest([FIRST_WORD], whole.engine));
  });
});

describe("LanguageLane learning again while a save runs", () => {
  it("writes every part of the notes' vectors with the new meanings at the next save, though one saved meanwhile wrote them with the old", async () => {
    // More than 1,024 notes, so the last pause of a relearning comes while its notes' vectors are
    // marked for the next save: a save there wrote the parts with the meanings still in use and
    // marked them saved, and a part no later note touched kept vectors the next start threw away.
    const notes = generatedVault(1100);
    const added = Object.entries(generatedVault(1250)).filter(([path]) => !(path in notes)).slice(0, 140);
    /** A relearning whose `saveAt`th pause (never when null) waits for a save; how many pauses it made, and the cache. */
    const relearnWithSaveAt = async (saveAt: number | null) => {
      const world = laneWorld(notes);
      await world.lane.learn(world.source());
      const before = world.lane.current();
      for (const [path, text] of added) world.index(path, text);
      expect(world.lane.stale).toBe(true);
      const cache = new MemoryIndexCache();
      await world.lane.save(cache, FINGERPRINT, NO_SLICES);
      let pauses = 0;
      const slice: WorkSlice = {
        over: () => true,
        restart: () => undefined,
        pause: async () => {
          if (++pauses === saveAt) await world.lane.save(cache, FINGERPRINT, NO_SLICES);
        },
      };
      await world.lane.relearn(world.source(slice));
      expect(world.lane.current()).not.toBe(before);
      return { world, cache, pauses };
    };
    // Learning is seeded: the same relearning again, with a save at its last pause.
    const { pauses } = await relearnWithSaveAt(null);
    const { world, cache } = await relearnWithSaveAt(pauses);
    await world.lane.save(cache, FINGERPRINT, NO_SLICES);
    const model = world.lane.current()!;
    const unusable: string[] = [];
    for (const [name, part] of cache.parts) {
      if (isNotesPartName(name) && !(await readNotesPart(part, model.dimensions, model.meaningsId(), FINGERPRINT, NO_SLICES))) unusable.push(name);
    }
    expect(unusable).toEqual([]);
  });
});
