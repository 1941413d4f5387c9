// An API key pasted where a model, an embedding model, a level or the vault folder goes is refused
// (exit 2) without being repeated: one the environment does not hold is in no scrubber's list, and
// would reach the terminal, and any log of it, whole.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli, type CliIo } from "../../src/cli/run";

const SAMPLE_VAULT = path.resolve(__dirname, "../../examples/vault");
const KEY = "sk-proj-Pasted0123456789abcdefXYZ";

let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-key-as-value-"));
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t), env: {}, cwd: tmp };
  return { code: await runCli(argv, io), out, err };
}

describe("a key given as a flag's value", () => {
  it.each([
    ["--model", "Unknown model kind a value that looks like an API key."],
    ["--embed", "Unknown embedding kind a value that looks like an API key."],
    ["--level", "--level must be 1, 2, 3 or 4 (got a value that looks like an API key)"],
  ])("%s is refused without repeating it", async (flag, words) => {
    const run = await cli(["search", "sync", "--vault", SAMPLE_VAULT, "--cache-dir", path.join(tmp, "cache"), flag, KEY]);
    expect(run.code).toBe(2);
    expect(run.err).toContain(words);
    expect(run.err + run.out).not.toContain("Pasted0123456789");
  });

  it("as --vault is refused without repeating it", async () => {
    const run = await cli(["search", "sync", "--vault", KEY, "--cache-dir", path.join(tmp, "cache")]);
    expect(run.code).toBe(2);
    expect(run.err).toContain("Vault folder (a value that looks like an API key) does not exist.");
    expect(run.err + run.out).not.toContain("Pasted0123456789");
  });
});
