// A trace note left in a folder that is no longer the trace folder (the setting changed since) is
// still a trace: `search` never returns it as the vault's evidence, and `index` does not count it.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run";

const GOLDEN_TRACE = path.resolve(__dirname, "../golden/notes/trace-outside-vault.md");

let tmp: string;
let vault: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-trace-out-"));
  vault = path.join(tmp, "vault");
  mkdirSync(path.join(vault, "Research", "Traces"), { recursive: true });
  mkdirSync(path.join(vault, "Libraries"));
  copyFileSync(GOLDEN_TRACE, path.join(vault, "Research", "Traces", "run1.md"));
  writeFileSync(path.join(vault, "Libraries", "Automerge.md"), "# Automerge\n\nWe chose Automerge 2 for sync.\n");
  writeFileSync(path.join(tmp, "config.json"), JSON.stringify({ notes: { traceFolder: "AI Traces" } }));
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; out: string }> {
  let out = "";
  const code = await runCli(argv, { out: (t) => (out += t), err: () => undefined, env: {}, cwd: tmp });
  return { code, out };
}

describe("a trace note outside the trace folder", () => {
  it("is not searched as vault evidence, nor counted as a note", async () => {
    const common = ["--vault", vault, "--cache-dir", path.join(tmp, "cache"), "--config", path.join(tmp, "config.json"), "--json"];
    const search = await cli("search", "Automerge release compaction", ...common);
    expect(search.code).toBe(0);
    const paths = (JSON.parse(search.out) as { results: { path: string }[] }).results.map((r) => r.path);
    expect(paths).toEqual(["Libraries/Automerge.md"]);
    expect(JSON.parse((await cli("index", ...common)).out)).toMatchObject({ notes: 1 });
  });
});
