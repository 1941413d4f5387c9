// The web stage's progress lines on stderr, as a person at a terminal reads them: each source's line
// names the source, a stage that partly failed is not ticked, a rate wait is said as it starts and as
// it ends, and a replayed run, which reaches no service, waits no pacing turn and says none.
// In-process, over the sample vault, with the recorded sample answers under fixtures/replay.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run";
import { fakeClock } from "../support/fake-clock";

const ROOT = path.resolve(__dirname, "../..");
const FREE_SOURCES = path.join(ROOT, "fixtures/replay/free-sources-demo");
const BRAVE = path.join(ROOT, "fixtures/replay/brave-demo");

let tmp: string;
let vault: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-web-progress-"));
  vault = path.join(tmp, "vault");
  cpSync(path.join(ROOT, "examples/vault"), vault, { recursive: true });
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function research(question: string, ...flags: string[]) {
  let err = "";
  // stderr stands in for a terminal, where progress lines are printed.
  const io = { out: () => undefined, err: (t: string) => (err += t), env: { NO_COLOR: "1" }, cwd: ROOT, clock: fakeClock(), stderrIsTerminal: true };
  const code = await runCli(["research", question, "--vault", vault, "--cache-dir", path.join(tmp, "cache"), "--no-trace", "--external-search", "always", ...flags], io);
  return { code, lines: err.split("\n") };
}

describe("research progress lines for the web stage", () => {
  it("names the source on each source's line: two sources' counts read as whose", async () => {
    const { code, lines } = await research("TypeError: cannot read properties of undefined in yjs observeDeep", "--external-provider", "github", "--external-provider", "stackexchange", "--replay", FREE_SOURCES);
    expect(code).toBe(0);
    expect(lines).toContain("✓ GitHub: 2 results");
    expect(lines).toContain("✓ Stack Exchange: 1 result");
    // The stage's own line, which counts every source's, names none.
    expect(lines).toContain("✓ 3 web results from 2 answers");
  });

  it("a web stage that partly failed is marked so, not ticked as done", async () => {
    const replay = path.join(tmp, "stack-exchange-down");
    mkdirSync(replay, { recursive: true });
    cpSync(path.join(FREE_SOURCES, "github.json"), path.join(replay, "github.json"));
    writeFileSync(path.join(replay, "stackexchange.json"), JSON.stringify({ method: "GET", url: "https://api.stackexchange.com/2.3/search/advanced", status: 503, headers: { "content-type": "text/plain" }, body: "down" }));
    const { code, lines } = await research("TypeError: cannot read properties of undefined in yjs observeDeep", "--external-provider", "github", "--external-provider", "stackexchange", "--replay", replay);
    expect(code).toBe(0);
    expect(lines).toContain("✓ GitHub: 2 results");
    expect(lines).toContain("✗ Stack Exchange: answered with a server error");
    expect(lines).toContain("! 2 web results from 1 answer; 1 provider error");
  });

  it("a replayed run asks Brave twice without waiting Brave's rate turn, and says no wait", async () => {
    const { code, lines } = await research("What changed in the latest Automerge release?", "--external-provider", "brave", "--replay", BRAVE);
    expect(code).toBe(0);
    expect(lines.filter((l) => l === "✓ Brave: 5 results")).toHaveLength(2);
    expect(lines.filter((l) => l.includes("Waiting"))).toEqual([]);
  });

  it("a pause Brave asked for is said as it starts and as it ends, when Brave is asked again", async () => {
    // The first query is refused with a 429 asking for 2 s; the second waits them out, then is answered.
    const replay = path.join(tmp, "brave-429-then-answer");
    mkdirSync(replay, { recursive: true });
    cpSync(path.join(BRAVE, "llm-context.json"), path.join(replay, "llm-context.json"));
    const first = "https://api.search.brave.com/res/v1/llm/context?q=What+changed+in+the+latest+Automerge+release%3F&country=US&search_lang=en&maximum_number_of_urls=5&maximum_number_of_tokens=8192&maximum_number_of_tokens_per_url=1638";
    writeFileSync(path.join(replay, "z-rate-limited.json"), JSON.stringify({ method: "GET", url: first, status: 429, headers: { "content-type": "application/json", "retry-after": "2" }, body: { error: { code: "RATE_LIMITED" } } }));
    const { code, lines } = await research("What changed in the latest Automerge release?", "--external-provider", "brave", "--replay", replay);
    expect(code).toBe(0);
    const waitLines = lines.filter((l) => l.includes("Waiting"));
    expect(waitLines).toEqual(["… Waiting 2 s: Brave asked us to slow down", "… Waiting for Brave's answer (after the 2 s pause it asked for)"]);
    expect(lines.indexOf(waitLines[1])).toBeLessThan(lines.indexOf("✓ Brave: 5 results"));
  });
});
