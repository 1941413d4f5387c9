// A loaded index holds its postings in no more room than the one built from the notes: most terms
// are in a single note, and a list of one posting pushed into an empty array kept room for many for
// the rest of the session (7.5 MB of the 47 MB a loaded engine held at 9,282 notes).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { writeSegment, readSegment, type SegmentEntry } from "../../src/index/cache-file";
import { parseNote } from "../../src/index/markdown";
import { createEngine, toEngineDoc, type SearchEngine } from "../../src/index/search-engine";
import { createAnalyzer } from "../../src/index/tokenize";
import type { IndexedNote } from "../../src/index/types";
import { NO_SLICES } from "../../src/index/work-slice";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function heapAfterCollecting(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** 1,200 notes of 25 words each that no other note holds: 30,000 terms of one posting each. */
function notes(): [string, string][] {
  return Array.from({ length: 1200 }, (_, n) => [`n${n}.md`, Array.from({ length: 25 }, (_, w) => `zq${n.toString(36)}x${w.toString(36)}`).join(" ")]);
}

/** The heap freed by giving every posting list of `engine` an array of exactly its length. */
function roomLeftInLists(engine: SearchEngine): number {
  const before = heapAfterCollecting();
  for (const [, postings] of engine.termsIn(0, engine.nextShortId)) {
    for (let f = 0; f < postings.length; f++) postings[f] = postings[f]?.slice();
  }
  return before - heapAfterCollecting();
}

describe("postings loaded from a saved segment", () => {
  it("sit in arrays of their own length, as those built from the notes do: no room is left to free", async () => {
    const built = createEngine(createAnalyzer({ stemming: true }));
    for (const [path, text] of notes()) await built.addInSlices(toEngineDoc(parseNote(path, text)), NO_SLICES);
    const meta = (path: string): IndexedNote => ({ path, mtime: 1, size: 1, title: path, aliases: [], tags: [], sourceUrls: [], problems: [] });
    const { part, notes: count } = await writeSegment(built, meta, 0, built.nextShortId, NO_SLICES);
    const entry: SegmentEntry = { name: "segment-1-0", first: 0, end: built.nextShortId, notes: count, left: [] };
    const loaded = createEngine(createAnalyzer({ stemming: true }));
    // As SavedIndex.load does from the manifest.
    loaded.restoreCounters(built.nextShortId, built.averageFieldLengths);
    expect(await readSegment(part, entry, loaded, () => undefined, NO_SLICES)).toBeNull();
    // As a sync does after loading the cache.
    await loaded.trimPostings(() => false, () => Promise.resolve());
    expect(loaded.documentCount).toBe(1200);
    // Each list of one posting pushed into an empty array kept room for more: 8 MB of these 30,000.
    const [fromNotes, fromSegment] = [roomLeftInLists(built), roomLeftInLists(loaded)];
    expect(fromSegment).toBeLessThan(500_000);
    expect(Math.abs(fromNotes)).toBeLessThan(500_000);
  });
});
