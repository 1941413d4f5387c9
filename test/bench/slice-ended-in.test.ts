// The bench's slice recorder says where its longest slice ended: the work below the pausing frames.
import { describe, expect, it } from "vitest";
import { sliceEndedIn, sliceRecorder } from "../../bench/bench-tools";

describe("where the bench's longest slice ended", () => {
  it("names the functions below the last pausing frame, innermost first, at most three", () => {
    // The shape Node gives at the recorder's yield while the lane learns (paths shortened).
    const stack = [
      "Error",
      "    at Object.yieldToUi (/repo/dist/bench.cjs:10:5)",
      "    at VaultIndex.pauseForUi (/repo/dist/bench.cjs:20:17)",
      "    at <anonymous> (/repo/dist/bench.cjs:21:48)",
      "    at Object.pause (/repo/dist/bench.cjs:30:13)",
      "    at Object.pause (/repo/dist/bench.cjs:40:19)",
      "    at multiply (/repo/dist/bench.cjs:50:35)",
      "    at async topEigenpairs (/repo/dist/bench.cjs:60:43)",
      "    at async learnWordMeanings (/repo/dist/bench.cjs:70:17)",
      "    at async LanguageLane.learnModel (/repo/dist/bench.cjs:80:74)",
      "    at async /repo/dist/bench.cjs:90:7",
    ].join("\n");
    expect(sliceEndedIn(stack)).toBe("multiply ← topEigenpairs ← learnWordMeanings");
    expect(sliceEndedIn("Error\n    at Object.pause (x:1:1)\n    at process.processTicksAndRejections (node:internal:1:1)")).toBeNull();
    expect(sliceEndedIn("")).toBeNull();
    // An unnamed function has no name to give: its frame is skipped.
    expect(sliceEndedIn("Error\n    at Object.pause (x:1:1)\n    at LanguageLane.fill (/repo/dist/bench.cjs:1:1)\n    at /repo/dist/bench.cjs:2:7\n    at async Promise.all (index 0)")).toBe("LanguageLane.fill ← Promise.all");
  });

  it("keeps the longest slice's place, not the last one's", async () => {
    const recorder = sliceRecorder();
    async function restorePostings(ms: number): Promise<void> {
      await recorder.yieldToUi(ms);
    }
    async function trimPostings(ms: number): Promise<void> {
      await recorder.yieldToUi(ms);
    }
    await restorePostings(30);
    await trimPostings(12);
    expect(recorder.longest()).toBe(30);
    expect(recorder.longestEndedIn()?.split(" ← ")[0]).toBe("restorePostings");
    await trimPostings(41);
    expect(recorder.longestEndedIn()?.split(" ← ")[0]).toBe("trimPostings");
  });
});
