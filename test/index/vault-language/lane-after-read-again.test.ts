// The lane of a warm start that read a note again ranks as the run that learned it. A note read too
// soon after its date (read-too-soon.ts) is read again at the next start and indexed anew; the
// engine keeps the old version's postings until it cleans up (after 200 notes, between timers), and
// the lane, which weighed a word by the length of its postings, weighed "quartz" as if 5 notes held
// it: for "quartz violin" the CLI's first search and its second showed note 5 at the lane's rank 2
// and 5 (fused 0.1347 and 0.1259), once, when the vault was written just before it was indexed.
import { describe, expect, it } from "vitest";
import { parseQuery } from "../../../src/index/query";
import { VaultIndex } from "../../../src/index/vault-index";
import { fakeClock } from "../../support/fake-clock";
import { laneVault } from "../../support/lane-vault";
import { MemoryIndexCache } from "../../support/memory-index-cache";
import { MemoryNoteStore } from "../../support/memory-note-store";

/** Each note the lane ranked for `query`, with its rank and similarity there. */
function laneRanks(index: VaultIndex, query: string): Map<string, unknown> {
  // Far more than the words' hits and the lane's 50 together: none is cut off.
  const hits = index.rank(parseQuery(query), 200, { asYouType: false });
  return new Map(hits.flatMap((h) => (h.explanation.vaultLanguage ? [[h.path, h.explanation.vaultLanguage]] : [])));
}

describe("the vault-language lane after a note was read again", () => {
  it("ranks a warm start that read a note again (its old postings not cleaned up) as the run that learned the lane", async () => {
    const clock = fakeClock();
    const store = new MemoryNoteStore(laneVault());
    // One note (a "quartz" one) dated half a second before the build reads it: not proven by its date.
    for (const [path, file] of store.files) file.mtime = clock.now() - (path === "t1/note 5.md" ? 500 : 60_000);
    const cache = new MemoryIndexCache();
    const cold = new VaultIndex({ clock });
    await cold.sync(store, cache);
    await cold.languageSettled();
    await cold.save(cache);
    const learned = laneRanks(cold, "quartz violin");
    expect(learned.size).toBe(50);

    clock.advance(10_000);
    const warm = new VaultIndex({ clock });
    const report = await warm.sync(store, cache);
    await warm.languageSettled();
    expect(report.mode).toBe("cache");
    // It was read again, to prove it, and found unchanged.
    expect(warm.hasUnsavedChanges()).toBe(true);
    expect(laneRanks(warm, "quartz violin")).toEqual(learned);
  }, 60_000);
});
