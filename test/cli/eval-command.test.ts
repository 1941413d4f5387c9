import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseArgs, UsageError, type FlagSpecs } from "../../src/cli/args";
import { EVAL_FLAGS, evalCommand, replayClock } from "../../src/cli/eval-command";
import { monotonicReading } from "../../src/ports";
import { noteSourceKey } from "../../src/evidence/keys";
import { readEvalReport } from "../support/cli-json";

const repoRoot = path.resolve(__dirname, "../..");
const vault = path.join(repoRoot, "examples/vault");
const shippedCases = path.join(repoRoot, "evals/research/sample-vault.json");
const braveDemo = path.join(repoRoot, "fixtures/replay/brave-demo");
const work = mkdtempSync(path.join(os.tmpdir(), "vr-eval-"));
const cacheDir = path.join(work, "cache");

// The flags `run.ts` gives every command, plus eval's own.
const flags: FlagSpecs = { vault: { value: true }, config: { value: true }, "cache-dir": { value: true }, json: { value: false }, ...EVAL_FLAGS };

/** Runs `vault-research eval …` in-process, mapping errors to exit codes the way `runCli` does. */
async function runEval(argv: string[], env: Record<string, string | undefined> = {}) {
  const io = { stdout: "", stderr: "", out: (s: string) => void (io.stdout += s), err: (s: string) => void (io.stderr += s), env, cwd: repoRoot };
  let code: number;
  try {
    code = await evalCommand(parseArgs(argv, flags), io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr += error.message;
    code = 2;
  }
  return { code, stdout: io.stdout, stderr: io.stderr };
}

function casesFile(name: string, content: unknown): string {
  const file = path.join(work, name);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return file;
}

const evalArgs = (file: string, ...more: string[]) => ["--vault", vault, "--file", file, "--cache-dir", cacheDir, ...more];

describe("the shipped research eval set", () => {
  const shipped = JSON.parse(readFileSync(shippedCases, "utf8")) as { cases: { id: string; mode?: string; replay?: string }[] };

  it("has at least twelve cases, some of them going through recorded web answers", () => {
    expect(shipped.cases.length).toBeGreaterThanOrEqual(12);
    expect(shipped.cases.filter((c) => c.replay && c.mode && c.mode !== "never").length).toBeGreaterThanOrEqual(4);
  });

  it("passes over examples/vault, one PASS line per case and the summary on its own line", async () => {
    const { code, stdout, stderr } = await runEval(evalArgs(shippedCases));
    expect(stderr).toBe("");
    const lines = stdout.trimEnd().split("\n");
    for (const c of shipped.cases) expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^PASS ${c.id} — `)));
    expect(lines.filter((l) => l.startsWith("FAIL"))).toEqual([]);
    expect(lines.at(-1)).toBe(`${shipped.cases.length} passed, 0 failed`);
    expect(code).toBe(0);
  });

  it("reports each case as JSON with its stop reason, verdict and the requests it made", async () => {
    const { code, stdout } = await runEval(evalArgs(shippedCases, "--json"));
    expect(code).toBe(0);
    const report = readEvalReport(stdout);
    expect(report).toMatchObject({ passed: shipped.cases.length, failed: 0 });
    const byId = new Map(report.cases.map((c) => [c.id, c]));
    expect(byId.get("vault-only-automerge-over-yjs")).toMatchObject({ passed: true, failures: [], stop_reason: "enough_evidence", verdict: "enough_evidence", requests: [] });
    const failed = byId.get("provider-rate-limited-keeps-vault")!;
    expect(failed.stop_reason).toBe("external_failed_local_used");
    expect(failed.requests).toHaveLength(1);
    expect(failed.requests[0]).toMatchObject({ channel: "web", outcome: "answered", status: 429 });
    expect(new URL(failed.requests[0].url).pathname).toBe("/res/v1/llm/context");
  });
});

describe("a case that does not hold", () => {
  it("refuses VAULT_RESEARCH_REPLAY set but empty, as every command does, rather than read it as the live web", async () => {
    const file = casesFile("empty-replay.json", { cases: [{ id: "one", question: "How are encrypted backups protected?", expect: { no_requests: true } }] });
    const { code, stderr } = await runEval(evalArgs(file), { VAULT_RESEARCH_REPLAY: "" });
    expect(code).toBe(2);
    expect(stderr).toMatch(/VAULT_RESEARCH_REPLAY is set but empty/);
  });

  it("fails with exit 1 and says what was expected and what happened", async () => {
    const file = casesFile("false-expectation.json", {
      cases: [
        { id: "holds", question: "How are encrypted backups protected if the passphrase is lost?", expect: { note_paths: ["Projects/Encrypted backup.md"], no_requests: true } },
        {
          id: "wrong-on-purpose",
          question: "What is the capital of Australia?",
          expect: { verdict: "enough_evidence", note_paths: ["Libraries/Yjs.md"], counts: { vault_min: 1 } },
        },
      ],
    });
    const { code, stdout } = await runEval(evalArgs(file));
    expect(code).toBe(1);
    const lines = stdout.trimEnd().split("\n");
    expect(lines).toContain("PASS holds — enough_evidence · stop enough_evidence · 0 requests");
    const at = lines.indexOf("FAIL wrong-on-purpose — no_evidence · stop no_evidence · 0 requests");
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 4)).toEqual([
      '     - expected "Libraries/Yjs.md" in vault evidence; vault evidence was none',
      "     - expected at least 1 vault evidence rows; got 0",
      expect.stringMatching(/^ {5}- verdict: expected enough_evidence, got no_evidence \(/),
    ]);
    expect(lines.at(-1)).toBe("1 passed, 1 failed");
  });

  it("never reaches the live web: a case that needs it without a replay folder fails and its request is refused", async () => {
    const file = casesFile("needs-web.json", {
      cases: [{ id: "needs-web", question: "How do I upgrade a notes app from Automerge 2 to Automerge 3?", mode: "on-weak", expect: { providers: ["brave"] } }],
    });
    const { code, stdout } = await runEval(evalArgs(file, "--json"));
    expect(code).toBe(1);
    const [only] = readEvalReport(stdout).cases;
    expect(only.requests.map((r) => r.outcome)).toEqual(["refused_offline"]);
    expect(only.failures[0]).toMatch(/^needed the web but has no replay folder: GET https:\/\/api\.search\.brave\.com\/res\/v1\/llm\/context was not sent/);
    expect(only.failures).toContain('expected outside-vault rows from "brave"; they came from no provider');
  });

  it("uses --replay for cases without their own folder", async () => {
    const file = casesFile("flag-replay.json", {
      cases: [{ id: "flag-replay", question: "How do I upgrade a notes app from Automerge 2 to Automerge 3?", mode: "on-weak", expect: { providers: ["brave"], counts: { outside_min: 1 } } }],
    });
    expect((await runEval(evalArgs(file, "--replay", braveDemo))).code).toBe(0);
  });

  it("counts a model call as a request and checks the model's citations", async () => {
    const key = noteSourceKey("Projects/Encrypted backup.md");
    const server: Server = createServer((req, res) => {
      req.resume().on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ model: "stand-in", choices: [{ index: 0, message: { role: "assistant", content: `A printed recovery key unwraps the backup key [${key}].` }, finish_reason: "stop" }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const file = casesFile("model.json", {
        cases: [
          {
            id: "with-model",
            question: "How are encrypted backups protected if the passphrase is lost?",
            model: `openai:stand-in@${base}`,
            expect: { answer_kind: "model", answer_verified: true, citation_keys: [key], forbidden_provider_calls: ["brave", "exa"] },
          },
          { id: "model-is-a-request", question: "How are encrypted backups protected if the passphrase is lost?", model: `openai:stand-in@${base}`, expect: { no_requests: true } },
        ],
      });
      const { code, stdout } = await runEval(evalArgs(file, "--json"));
      const [withModel, noRequests] = readEvalReport(stdout).cases;
      expect(withModel).toMatchObject({ passed: true, requests: [{ method: "POST", channel: "model", url: `${base}/chat/completions`, status: 200 }] });
      expect(noRequests.passed).toBe(false);
      expect(noRequests.failures).toEqual([`expected no requests; 1 left: "POST ${base}/chat/completions"`]);
      expect(code).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("usage errors (exit 2)", () => {
  it("names the case and field of a malformed cases file", async () => {
    const file = casesFile("malformed.json", {
      cases: [
        { id: "fine", question: "q", expect: { no_requests: true } },
        { id: "broken", question: "q", mode: "sometimes", expect: { no_requests: true } },
      ],
    });
    const { code, stdout, stderr } = await runEval(evalArgs(file));
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain('case "broken" (#2), field mode:');
  });

  it("refuses a file that is not JSON, and a missing --file", async () => {
    const notJson = await runEval(evalArgs(casesFile("not-json.json", "{ cases: ")));
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("is not valid JSON");
    const missing = await runEval(["--vault", vault, "--cache-dir", cacheDir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--file CASES.json is required");
  });

  it("refuses a note path outside the vault, or spelt with '..', as a usage error naming the case (it crashed the run, or failed forever)", async () => {
    const outside = await runEval(evalArgs(casesFile("outside.json", { cases: [{ id: "up", question: "q", expect: { forbidden_note_paths: ["../README.md"] } }] })));
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('case "up" (#1), field expect.forbidden_note_paths.0: expected a note path as the vault names it');
    const roundabout = await runEval(evalArgs(casesFile("roundabout.json", { cases: [{ id: "via", question: "q", expect: { note_paths: ["Libraries/../Libraries/Yjs.md"] } }] })));
    expect(roundabout.code).toBe(2);
    expect(roundabout.stdout).toBe("");
  });

  it("refuses --read-pages out of range before the vault is indexed, as every other usage error", async () => {
    const freshCache = path.join(work, "cache-never-made");
    const { code, stdout, stderr } = await runEval(["--vault", vault, "--file", shippedCases, "--cache-dir", freshCache, "--read-pages", "9"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe("--read-pages must be between 0 and 5 (got 9).");
    // The whole vault was indexed into it first, then the flag refused.
    expect(existsSync(freshCache)).toBe(false);
  });

  it("refuses a note path that is not in the vault and a replay folder that does not exist", async () => {
    const typo = await runEval(evalArgs(casesFile("typo.json", { cases: [{ id: "typo", question: "q", expect: { note_paths: ["Libraries/Yjss.md"] } }] })));
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('case "typo", field expect.note_paths: there is no note "Libraries/Yjss.md"');
    const noReplay = await runEval(evalArgs(casesFile("no-replay.json", { cases: [{ id: "r", question: "q", replay: "nowhere", expect: { no_requests: true } }] })));
    expect(noReplay.code).toBe(2);
    expect(noReplay.stderr).toContain('case "r", field replay: Replay folder');
  });
});

describe("the replay clock", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("measures a run's time on its monotonic reading, moved by the sleeps it skips, not by the wall clock being set", async () => {
    vi.useFakeTimers({ toFake: ["Date", "performance"], now: Date.UTC(2026, 10, 30, 14, 0, 0) });
    const clock = replayClock();
    const wallBefore = clock.now();
    const started = monotonicReading(clock);
    vi.advanceTimersByTime(1_000);
    vi.setSystemTime(Date.now() - 3_600_000);
    await clock.sleep(2_000);
    expect(monotonicReading(clock) - started).toBe(3_000);
    // Its dates still follow the wall clock, skipped sleeps included.
    expect(clock.now()).toBe(wallBefore + 3_000 - 3_600_000);
  });
});
