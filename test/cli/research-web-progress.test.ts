// The web stage's progress lines on stderr, as a person at a terminal reads them: each source's line
// names the source, and a replayed run, which reaches no service, waits no rate turn and says none.
// In-process, over the sample vault, with the recorded sample answers under fixtures/replay.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
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

  it("a replayed run asks Brave twice without waiting Brave's rate turn, and says no wait", async () => {
    const { code, lines } = await research("What changed in the latest Automerge release?", "--external-provider", "brave", "--replay", BRAVE);
    expect(code).toBe(0);
    expect(lines.filter((l) => l === "✓ Brave: 5 results")).toHaveLength(2);
    expect(lines.filter((l) => l.includes("Waiting"))).toEqual([]);
  });
});
