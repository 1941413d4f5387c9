import { describe, expect, it } from "vitest";
import type { IndexStatus } from "../../src/index/types";
import { describeIndexStatus, indexIssues } from "../../src/index/index-status-text";

function status(over: Partial<IndexStatus> = {}): IndexStatus {
  return { notes: 0, lastUpdated: null, state: "empty", problems: [], ...over };
}

describe("index status text", () => {
  it("tells a fresh start from an empty vault", () => {
    expect(describeIndexStatus(null, []).text).toBe("Index not built yet");
    expect(describeIndexStatus(status(), []).text).toBe("Index not built yet");
    expect(describeIndexStatus(status({ lastUpdated: 5 }), []).text).toBe("No notes indexed");
  });

  it("shows progress while building and updating", () => {
    expect(describeIndexStatus(status({ state: "building" }), []).text).toBe("Indexing…");
    expect(describeIndexStatus(status({ state: "building", notes: 1200 }), [], "en-US").text).toBe("Indexing… 1,200 notes");
    expect(describeIndexStatus(status({ state: "updating", notes: 1 }), []).text).toBe("Updating index… 1 note");
  });

  it("counts notes and problems of both kinds once ready", () => {
    const s = status({
      state: "ready",
      notes: 9300,
      lastUpdated: Date.UTC(2025, 0, 2, 3, 4),
      problems: [{ path: "a.md", problem: { kind: "frontmatter", message: "Broken frontmatter; indexed as text." } }],
    });
    const described = describeIndexStatus(s, [{ message: "The index could not be saved." }], "en-US");
    expect(described.text).toBe("9,300 notes indexed · 2 problems");
    expect(described.problemCount).toBe(2);
    expect(described.tooltip).toMatch(/^Last updated .*2025.*Click to see the problems\.$/);
    expect(describeIndexStatus(status({ state: "ready", notes: 3, lastUpdated: 1 }), []).text).toBe("3 notes indexed");
  });

  it("says when the vault's language is being learned behind the ready index, and what it adds once learned", () => {
    const learning = describeIndexStatus(status({ state: "ready", notes: 3, lastUpdated: 1, vaultLanguage: "learning" }), [{ message: "x" }]);
    expect(learning.text).toBe("3 notes indexed · learning its words… · 1 problem");
    expect(learning.tooltip).toContain("Learning which words this vault uses alike, on this device; search uses words alone until then.");
    const ready = describeIndexStatus(status({ state: "ready", notes: 3, lastUpdated: 1, vaultLanguage: "ready" }), []);
    expect(ready.text).toBe("3 notes indexed");
    expect(ready.tooltip).toContain("Search also finds notes that say it in other words, learned from this vault.");
    expect(describeIndexStatus(status({ state: "ready", notes: 3, lastUpdated: 1 }), []).tooltip).not.toMatch(/other words|Learning/);
  });

  // A relearning said "search uses words alone until then" while the meanings learned before served every search.
  it("says the vault's language is learned again while what it learned before still serves, never that search uses words alone", () => {
    const relearning = describeIndexStatus(status({ state: "ready", notes: 3, lastUpdated: 1, vaultLanguage: "relearning" }), []);
    expect(relearning.text).toBe("3 notes indexed · learning its words again…");
    expect(relearning.tooltip).toContain("Learning again which words this vault uses alike, on this device, since much of it changed; search uses what it learned before until then.");
    expect(relearning.tooltip).not.toMatch(/words alone/);
  });

  it("lists the index's note problems before the plugin's own", () => {
    const s = status({ problems: [{ path: "b.md", problem: { kind: "read", message: "Could not be read" } }] });
    expect(indexIssues(s, [{ message: "Update failed" }])).toEqual([{ path: "b.md", message: "Could not be read" }, { message: "Update failed" }]);
  });
});
