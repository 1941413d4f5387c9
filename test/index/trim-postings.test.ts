// After a warm load only the posting lists that grew by pushes are copied to their size: a list
// restored from one segment is exact already, and copying all of them (25,000 lists at 9,282 notes)
// was garbage the collector paid for on every warm start. Counted by which arrays were replaced.
import { describe, expect, it } from "vitest";
import { readSegment, writeSegment, type SegmentEntry } from "../../src/index/cache-file";
import { parseNote } from "../../src/index/markdown";
import { createEngine, FIELDS, toEngineDoc, type SearchEngine } from "../../src/index/search-engine";
import { createAnalyzer } from "../../src/index/tokenize";
import type { IndexedNote } from "../../src/index/types";
import { NO_SLICES } from "../../src/index/work-slice";

const BODY = FIELDS.indexOf("body");
const analyzer = () => createAnalyzer({ stemming: false });
const meta = (path: string): IndexedNote => ({ path, mtime: 1, size: 1, title: path, aliases: [], tags: [], sourceUrls: [], problems: [] });
const noSlices = (): [() => boolean, () => Promise<void>] => [() => false, () => Promise.resolve()];

/** Six notes: "everywhere" in all, "early" in the first three, "late" in the last three. */
function builtEngine(): SearchEngine {
  const engine = createEngine(analyzer());
  for (let n = 0; n < 6; n++) engine.add(toEngineDoc(parseNote(`n${n}.md`, `everywhere ${n < 3 ? "early" : "late"} plenty`)));
  return engine;
}

/** `built` saved as two segments (notes 0–2 and 3–5) and loaded into a fresh engine, as SavedIndex.load does. */
async function loadedFromTwoSegments(built: SearchEngine): Promise<SearchEngine> {
  const loaded = createEngine(analyzer());
  loaded.restoreCounters(built.nextShortId, built.averageFieldLengths);
  for (const [first, end] of [
    [0, 3],
    [3, 6],
  ]) {
    const { part, notes } = await writeSegment(built, meta, first, end, NO_SLICES);
    const entry: SegmentEntry = { name: `segment-1-${first}`, first, end, notes, left: [] };
    expect(await readSegment(part, entry, loaded, () => undefined, NO_SLICES)).toBeNull();
  }
  return loaded;
}

const bodyList = (engine: SearchEngine, term: string) => engine.terms.get(term)![BODY]!;

describe("trimming posting lists", () => {
  it("after a warm load, copies only the lists that grew across segments: those restored from one segment stay as they are", async () => {
    const loaded = await loadedFromTwoSegments(builtEngine());
    const [early, late, everywhere] = ["early", "late", "everywhere"].map((t) => bodyList(loaded, t));
    await loaded.trimPostings(...noSlices());
    expect(bodyList(loaded, "early")).toBe(early);
    expect(bodyList(loaded, "late")).toBe(late);
    // Pushed onto when the second segment came: copied, with the same postings.
    expect(bodyList(loaded, "everywhere")).not.toBe(everywhere);
    expect(bodyList(loaded, "everywhere")).toEqual(everywhere);
  });

  it("after a warm load, also copies the lists of notes indexed since (pushed onto as they were added)", async () => {
    const loaded = await loadedFromTwoSegments(builtEngine());
    loaded.add(toEngineDoc(parseNote("n6.md", "early")));
    const early = bodyList(loaded, "early");
    await loaded.trimPostings(...noSlices());
    expect(bodyList(loaded, "early")).not.toBe(early);
    expect(bodyList(loaded, "early")).toHaveLength(4);
  });

  it("after a build from the notes, copies every list of more than one posting, and so does any later trim", async () => {
    const built = builtEngine();
    const before = bodyList(built, "early");
    await built.trimPostings(...noSlices());
    const trimmed = bodyList(built, "early");
    expect(trimmed).not.toBe(before);
    expect(trimmed).toEqual(before);
    await built.trimPostings(...noSlices());
    expect(bodyList(built, "early")).not.toBe(trimmed);
  });
});
