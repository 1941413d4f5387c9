// The one rule by which the index's and the vectors' saves take away parts their manifest does not
// list: another process's save writes its parts before the manifest naming them, and a process that
// read an older manifest may be loading its parts.
import { describe, expect, it } from "vitest";
import { UNLISTED_PART_GRACE_MS, UnlistedParts, type DatedParts, type SaveClock } from "../../src/index/unlisted-parts";
import { fakeClock } from "../support/fake-clock";

const T0 = 1_800_000_000_000;
const MINUTE = 60_000;
const undated: DatedParts = {};
const all = () => true;

/** A save's clock reading `ms`: wall time only, which its waits are then measured on too. */
const at = (ms: number): SaveClock => ({ now: () => ms });

function datedAt(dates: Record<string, number>): DatedParts {
  return { writtenAt: async (name) => dates[name] ?? null };
}

describe("which unlisted parts a save may take away", () => {
  it("at once, a part this process wrote that no manifest named (a save of its own cut short)", async () => {
    const parts = new UnlistedParts();
    parts.writing("p-1");
    expect(await parts.partsToGo(undated, ["p-1"], new Set(), all, at(T0))).toEqual(["p-1"]);
  });

  it("a part a manifest of ours named, ten minutes after a manifest of ours stopped naming it, whenever it was written", async () => {
    const parts = new UnlistedParts();
    parts.writing("old");
    parts.nameParts(["old"], at(T0));
    parts.nameParts(["new"], at(T0 + MINUTE));
    const longAgo = datedAt({ old: T0 - 60 * MINUTE });
    expect(await parts.partsToGo(longAgo, ["old", "new"], new Set(["new"]), all, at(T0 + MINUTE))).toEqual([]);
    expect(await parts.partsToGo(longAgo, ["old", "new"], new Set(["new"]), all, at(T0 + MINUTE + UNLISTED_PART_GRACE_MS))).toEqual(["old"]);
  });

  it("a part a manifest we loaded named is kept as long as one we wrote", async () => {
    const parts = new UnlistedParts();
    parts.loaded(["theirs"]);
    parts.nameParts(["ours"], at(T0));
    expect(await parts.partsToGo(datedAt({ theirs: T0 - 60 * MINUTE }), ["theirs", "ours"], new Set(["ours"]), all, at(T0))).toEqual([]);
  });

  it("another process's part once written ten minutes ago, when the cache can tell", async () => {
    const parts = new UnlistedParts();
    const cache = datedAt({ fresh: T0 - MINUTE, stale: T0 - UNLISTED_PART_GRACE_MS });
    expect(await parts.partsToGo(cache, ["fresh", "stale"], new Set(), all, at(T0))).toEqual(["stale"]);
  });

  it("another process's part, when the cache cannot tell, ten minutes after a save first found it; a clock set back counts again from now", async () => {
    const parts = new UnlistedParts();
    expect(await parts.partsToGo(undated, ["theirs"], new Set(), all, at(T0))).toEqual([]);
    expect(await parts.partsToGo(undated, ["theirs"], new Set(), all, at(T0 - MINUTE))).toEqual([]);
    expect(await parts.partsToGo(undated, ["theirs"], new Set(), all, at(T0 - MINUTE + UNLISTED_PART_GRACE_MS - 1))).toEqual([]);
    expect(await parts.partsToGo(undated, ["theirs"], new Set(), all, at(T0 - MINUTE + UNLISTED_PART_GRACE_MS))).toEqual(["theirs"]);
  });

  // A wall clock set forward (by hand, a time sync, a machine waking) made both waits nothing: a part
  // went while a process that read the manifest naming it was loading it.
  it("a wall clock set forward shortens neither wait, nor does one set back lengthen them: they are timed on the monotonic reading", async () => {
    const clock = fakeClock(T0);
    const parts = new UnlistedParts();
    parts.nameParts(["old"], clock);
    parts.nameParts(["new"], clock);
    expect(await parts.partsToGo(undated, ["old", "new", "theirs"], new Set(["new"]), all, clock)).toEqual([]);
    clock.set(T0 + 24 * 60 * MINUTE);
    expect(await parts.partsToGo(undated, ["old", "new", "theirs"], new Set(["new"]), all, clock)).toEqual([]);
    clock.set(T0 - 24 * 60 * MINUTE);
    clock.advance(UNLISTED_PART_GRACE_MS - 1);
    expect(await parts.partsToGo(undated, ["old", "new", "theirs"], new Set(["new"]), all, clock)).toEqual([]);
    clock.advance(1);
    expect(await parts.partsToGo(undated, ["old", "new", "theirs"], new Set(["new"]), all, clock)).toEqual(["old", "theirs"]);
  });

  it("a part's write date is still read against the wall clock", async () => {
    const clock = fakeClock(T0);
    const parts = new UnlistedParts();
    const cache = datedAt({ theirs: T0 - UNLISTED_PART_GRACE_MS });
    expect(await parts.partsToGo(cache, ["theirs"], new Set(), all, clock)).toEqual(["theirs"]);
  });

  // The wall clock set forward an hour: a part another process wrote a moment before read as an hour
  // old, and went before that process's manifest could name it.
  it("a part's write date is read against the wall clock less how far it was set forward since this process first looked", async () => {
    const clock = fakeClock(T0);
    const parts = new UnlistedParts();
    const cache = datedAt({ theirs: T0 - MINUTE, old: T0 - UNLISTED_PART_GRACE_MS });
    expect(await parts.partsToGo(cache, ["theirs"], new Set(), all, clock)).toEqual([]);
    clock.set(T0 + 60 * MINUTE);
    expect(await parts.partsToGo(cache, ["theirs", "old"], new Set(), all, clock)).toEqual(["old"]);
    clock.advance(UNLISTED_PART_GRACE_MS - 2 * MINUTE);
    expect(await parts.partsToGo(cache, ["theirs"], new Set(), all, clock)).toEqual([]);
    // Time passed since: its date and the monotonic wait agree.
    clock.advance(MINUTE);
    expect(await parts.partsToGo(cache, ["theirs"], new Set(), all, clock)).toEqual(["theirs"]);
  });

  it("a part listed again, or gone, loses its date: found unlisted later, it waits anew", async () => {
    const parts = new UnlistedParts();
    await parts.partsToGo(undated, ["theirs"], new Set(), all, at(T0));
    await parts.partsToGo(undated, ["theirs"], new Set(["theirs"]), all, at(T0 + MINUTE));
    expect(await parts.partsToGo(undated, ["theirs"], new Set(), all, at(T0 + UNLISTED_PART_GRACE_MS))).toEqual([]);
  });

  it("a part the manifest this save replaces named (another process's), ten minutes after this save, however long ago it was written", async () => {
    const parts = new UnlistedParts();
    parts.nameParts(["ours"], at(T0 - 60 * MINUTE));
    parts.replacing(["theirs", "ours"]);
    parts.nameParts(["ours"], at(T0));
    const longAgo = datedAt({ theirs: T0 - 60 * MINUTE });
    expect(await parts.partsToGo(longAgo, ["theirs", "ours"], new Set(["ours"]), all, at(T0))).toEqual([]);
    expect(await parts.partsToGo(longAgo, ["theirs", "ours"], new Set(["ours"]), all, at(T0 + UNLISTED_PART_GRACE_MS))).toEqual(["theirs"]);
  });

  it("a part of ours a manifest named after all (one whose write was reported failed) is no longer taken for a save cut short", async () => {
    const parts = new UnlistedParts();
    parts.writing("mine");
    parts.replacing(["mine"]);
    parts.nameParts(["next"], at(T0));
    expect(await parts.partsToGo(undated, ["mine", "next"], new Set(["next"]), all, at(T0))).toEqual([]);
  });

  it("a part whose write date cannot be read waits as an undated one, and holds back no other part", async () => {
    const parts = new UnlistedParts();
    parts.writing("mine");
    const failing: DatedParts = {
      writtenAt: async (name) => {
        if (name === "unreadable") throw new Error("EACCES");
        return T0 - 60 * MINUTE;
      },
    };
    expect(await parts.partsToGo(failing, ["mine", "unreadable", "stale"], new Set(), all, at(T0))).toEqual(["mine", "stale"]);
    expect(await parts.partsToGo(failing, ["unreadable"], new Set(), all, at(T0 + UNLISTED_PART_GRACE_MS))).toEqual(["unreadable"]);
  });

  it("never a part of another kind, nor one the manifest lists", async () => {
    const parts = new UnlistedParts();
    parts.writing("mine");
    parts.writing("listed");
    expect(await parts.partsToGo(undated, ["mine", "listed", "language-1"], new Set(["listed"]), (name) => name !== "language-1", at(T0))).toEqual(["mine"]);
  });
});
