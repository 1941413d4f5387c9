// Every command's question or query: from its words or standard input, and never an API key —
// refused before the command opens a vault or reaches a web source.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/args";
import { readQuestion } from "../../src/cli/question-input";
import { runCli } from "../../src/cli/run";
import { REPO_ROOT } from "../support/recording-http";

const KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
const args = (...positionals: string[]) => ({ positionals, values: {} }) as unknown as Parameters<typeof readQuestion>[0];

let tmp = "";
afterEach(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  tmp = "";
});

describe("readQuestion", () => {
  it("joins the words, or reads standard input as one line", async () => {
    expect(await readQuestion(args("why", "Automerge?"), { env: {} })).toBe("why Automerge?");
    expect(await readQuestion(args("-"), { env: {}, readStdin: async () => "why\n  Automerge?\n" })).toBe("why Automerge?");
  });

  it("refuses a key, typed or piped, with a usage error that does not repeat it", async () => {
    for (const io of [{ env: {} }, { env: {}, readStdin: async () => `${KEY}\n` }]) {
      const refused = await readQuestion(args(...("readStdin" in io ? [] : [KEY])), io).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(UsageError);
      expect((refused as Error).message).toMatch(/looks like an API key/);
      expect((refused as Error).message).not.toContain(KEY.slice(0, 8));
    }
  });
});

describe("a key given as the query of a command that reaches the web", () => {
  it("websearch: exit 2, and no request is made (it was sent to every source as the query)", async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), "vr-question-input-"));
    const log = path.join(tmp, "requests.jsonl");
    let out = "";
    let err = "";
    const env = { VAULT_RESEARCH_REPLAY_LOG: log };
    const code = await runCli(["websearch", KEY, "--external-provider", "wikipedia", "--replay", path.join(REPO_ROOT, "fixtures/replay/free-sources-demo")], { out: (t) => (out += t), err: (t) => (err += t), env, cwd: tmp });

    expect(code).toBe(2);
    expect(err).toContain("looks like an API key");
    expect(`${out}${err}`).not.toContain(KEY.slice(0, 8));
    expect(existsSync(log) ? readFileSync(log, "utf8") : "").toBe("");
  });
});
