// Every note's vault-language vector filled from the postings (`fillNoteVectors`, language-lane.ts)
// in a vault larger than one block of sums, with meanings made up for a few words (no learning):
// each note gets the vector its own words give it, no memory is made at once for the whole vault,
// a word every note holds is walked in pieces, with the slice looked at between them, and notes read
// again (their old postings still listed) weigh no word less than a clean index does.
import { describe, expect, it, vi } from "vitest";
import { parseNote } from "../../../src/index/markdown";
import { createEngine, notesWithTerm, toEngineDoc, type EngineDoc } from "../../../src/index/search-engine";
import { createAnalyzer } from "../../../src/index/tokenize";
import { fillNoteVectors } from "../../../src/index/vault-language/language-lane";
import { docTermCounts, wordCountsInto } from "../../../src/index/vault-language/note-term-counts";
import { dropPostings } from "../../../src/index/term-postings";
import { seededRandom } from "../../../src/index/vault-language/top-eigenvectors";
import { VaultLanguage } from "../../../src/index/vault-language/vault-language";
import { NO_SLICES, type WorkSlice } from "../../../src/index/work-slice";
import { cosine } from "../../support/cosine";

const DIMENSIONS = 16;
const WORDS = ["harbour", "lantern", "meadow", "orchard", "quarry", "thicket", "willow", "glacier"];

/** `count` small notes, each of a few of WORDS (the first in every note), with made-up meanings for them. */
function vault(count: number) {
  const analyzer = createAnalyzer({ stemming: false });
  const engine = createEngine(analyzer);
  const random = seededRandom(7);
  const docs: EngineDoc[] = [];
  for (let n = 0; n < count; n++) {
    const words = [WORDS[0], ...Array.from({ length: 3 }, () => WORDS[1 + Math.floor(random() * (WORDS.length - 1))])];
    const doc = toEngineDoc(parseNote(`notes/${n}.md`, `# ${words[1]} ${n}\n\n${words.join(" ")} ${words[0]}.\n`));
    engine.add(doc);
    docs.push(doc);
  }
  const vectors = Float32Array.from({ length: WORDS.length * DIMENSIONS }, () => random() * 2 - 1);
  const language = () => new VaultLanguage({ words: WORDS, dimensions: DIMENSIONS, vectors });
  return { analyzer, engine, docs, language };
}

describe("fillNoteVectors", () => {
  it("gives every note of a vault larger than one block of sums the vector its own words give it", async () => {
    const { analyzer, engine, docs, language } = vault(2500);
    const filled = language();
    await fillNoteVectors(filled, engine, NO_SLICES);
    const own = language();
    expect(filled.noteCount).toBe(docs.length);
    for (const doc of docs) {
      own.setNote(doc.path, docTermCounts(doc, analyzer), (t) => notesWithTerm(engine, t), engine.documentCount);
      expect(cosine(filled.noteVector(doc.path)!.values, own.noteVector(doc.path)!.values), doc.path).toBeGreaterThan(0.9999);
    }
  });

  it("gives the notes of an index with notes read again (their old postings not cleaned up yet) the vectors a clean index gives", async () => {
    const { engine, docs, language } = vault(300);
    const clean = language();
    await fillNoteVectors(clean, engine, NO_SLICES);
    // Fewer than the engine cleans up after: their discarded postings stay listed.
    for (const doc of docs.slice(0, 60)) {
      engine.discard(doc.path);
      engine.add(doc);
    }
    expect(notesWithTerm(engine, WORDS[0])).toBe(360);
    const reread = language();
    await fillNoteVectors(reread, engine, NO_SLICES);
    for (const doc of docs) expect(reread.noteVector(doc.path), doc.path).toEqual(clean.noteVector(doc.path));
  });

  it("makes no array as large as the vault's sums at once: they come a block of notes at a time (at 100,000 notes, 51 MB in one step)", async () => {
    const notes = 5000;
    const { engine, language } = vault(notes);
    const filled = language();
    const made: number[] = [];
    const real = Float32Array;
    vi.stubGlobal(
      "Float32Array",
      new Proxy(real, {
        construct(target, args: unknown[]) {
          if (typeof args[0] === "number") made.push(args[0]);
          return Reflect.construct(target, args) as object;
        },
      }),
    );
    try {
      await fillNoteVectors(filled, engine, NO_SLICES);
    } finally {
      vi.unstubAllGlobals();
    }
    expect(filled.noteCount).toBe(notes);
    expect(made.length).toBeGreaterThan(0);
    expect(Math.max(...made)).toBeLessThanOrEqual((notes * DIMENSIONS) / 4);
  });

  it("pauses within a word every note holds: its walk over the postings looks at the slice too", async () => {
    const { engine, language } = vault(10_000);
    const [common] = createAnalyzer({ stemming: false }).terms(WORDS[0]);
    const counts = new Float64Array(engine.nextShortId);
    const notes = new Uint32Array(engine.nextShortId);
    let pauses = 0;
    const slice: WorkSlice = { over: () => true, pause: async () => void pauses++, restart: () => undefined };
    expect(await wordCountsInto(engine, common, counts, notes, slice)).toBe(10_000);
    // 10,000 postings in each of two fields (the lead and the body), a look every few thousand.
    expect(pauses).toBeGreaterThanOrEqual(4);
    // Counted as without pauses: twice in the lead and twice in the body.
    expect(new Set(counts)).toEqual(new Set([4]));
    expect(language().dimensions).toBe(DIMENSIONS);
  });

  it("skips no note and counts none twice when a search cleans removed notes' postings out of the list while it pauses", async () => {
    const { engine } = vault(10_000);
    const [common] = createAnalyzer({ stemming: false }).terms(WORDS[0]);
    // Notes removed early in the list: their postings stay until cleaned up.
    const removed = Array.from({ length: 40 }, (_, i) => `notes/${100 + i}.md`);
    for (const path of removed) engine.discard(path);
    const counts = new Float64Array(engine.nextShortId);
    const notes = new Uint32Array(engine.nextShortId);
    let cleaned = false;
    const slice: WorkSlice = {
      over: () => true,
      pause: async () => {
        if (cleaned) return;
        // What a search or a vacuum does meanwhile: the removed notes' postings leave the lists.
        dropPostings(engine.terms.get(common)!, (id) => engine.holds(id));
        cleaned = true;
      },
      restart: () => undefined,
    };
    const met = await wordCountsInto(engine, common, counts, notes, slice);
    expect(cleaned).toBe(true);
    expect(met).toBe(10_000 - removed.length);
    const listed = new Set(Array.from(notes.subarray(0, met)));
    expect(listed.size).toBe(met);
    for (const id of listed) expect(counts[id], engine.pathOf(id)).toBe(4);
    for (const path of removed) expect(listed.has(engine.shortIdOf(path) ?? -1)).toBe(false);
  });
});
