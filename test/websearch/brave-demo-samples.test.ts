// The Brave demo's answers (fixtures/replay/brave-demo) are sample responses we wrote in Brave's real
// format. Its README says each snippet and description opens with its sample mark, as every text of
// the free-source samples does (free-sources-demo-samples.test.ts): at the start, so a display that
// cuts a long snippet still shows it. Checked through the real parsers, so a mark they drop fails too.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { websearchCommand } from "../../src/cli/websearch-command";
import { readWebsearch } from "../support/cli-json";
import { fakeClock, repoRoot } from "./helpers";
import { fixtureSettings } from "./providers/source-harness";

const BRAVE_DEMO = path.join(repoRoot, "fixtures/replay/brave-demo");
const OPENING_MARK = /^\(Sample (snippet|description) written for the Vault Research demo\.\)/;

describe("the Brave demo's sample texts", () => {
  for (const provider of ["brave", "brave-web"] as const) {
    it(`every text ${provider} reads from them opens with the sample mark`, async () => {
      const io = { stdout: "", stderr: "", out: (s: string) => void (io.stdout += s), err: (s: string) => void (io.stderr += s), env: {}, clock: fakeClock() };
      const code = await websearchCommand({ query: "What changed in the latest Automerge release?", providers: [provider], freshness: "any", count: 10, settings: fixtureSettings(), json: true, replayDir: BRAVE_DEMO }, io);
      expect(code).toBe(0);
      const { results } = readWebsearch(io.stdout);
      expect(results.length).toBeGreaterThan(0);
      const unmarked = results.flatMap((r) => (r.content_sections.length === 0 ? [`${r.title}: no text`] : r.content_sections.filter((s) => !OPENING_MARK.test(s.text)).map((s) => `${r.title}: ${s.text}`)));
      expect(unmarked).toEqual([]);
    });
  }
});
