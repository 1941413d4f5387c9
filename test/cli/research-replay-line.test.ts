// The research text's line above a replayed run's web results is replay-notice.ts's, not a copy of
// its words: research-command.ts wrote its own sentence, which the websearch text and the JSON's
// replay.note would have left behind the day replay-notice.ts's words changed. Here they change
// (the module stood in for), and the research text must follow.
import { describe, expect, it, vi } from "vitest";
import { formatResearchText } from "../../src/cli/research-command";
import { replayNoticeLine } from "../../src/cli/replay-notice";
import { sampleVaultHarness } from "../support/research-harness";

vi.mock("../../src/cli/replay-notice", async (original) => ({
  ...(await original<typeof import("../../src/cli/replay-notice")>()),
  replayNoticeLine: (dir: string) => `Replayed from ${dir} (the one wording, changed by this test).`,
}));

describe("research's text output of a replayed run", () => {
  it("opens with replay-notice's line, whatever its words", async () => {
    const result = await (await sampleVaultHarness()).run({ question: "How does Automerge merge concurrent edits?", mode: "never", writeTrace: false });
    const lines = formatResearchText(result, "fixtures/replay/brave-demo").split("\n");
    expect(lines[0]).toBe(replayNoticeLine("fixtures/replay/brave-demo"));
    expect(lines[0]).toBe("Replayed from fixtures/replay/brave-demo (the one wording, changed by this test).");
    // A run not replayed says nothing of it.
    expect(formatResearchText(result).split("\n")[0]).toBe(`Question: ${result.pack.question}`);
  });
});
