// A promotion from a kept trace that cannot record it (its properties edited, so it is not the
// trace the CLI kept as written): the note is still written, and the output says why the trace
// does not record it, as a trace note's promotion does. It said only "trace note: not updated".
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keepTrace, keptTraceFolder, recordPromotionInKeptTrace } from "../../src/cli/kept-trace";
import { promoteCommand } from "../../src/cli/promote-command";
import { defaultSettings } from "../../src/settings";
import { PAGES_DIR, PAGE_ROWS, traceWith } from "../support/promote-fixtures";

const ROWS = Object.values(PAGE_ROWS);

let tmp: string;
let vault: string;
let cacheDir: string;
let kept: string;

beforeEach(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-kept-unrecorded-"));
  vault = path.join(tmp, "vault");
  mkdirSync(vault);
  writeFileSync(path.join(vault, "Readme.md"), "# A note\n");
  cacheDir = path.join(tmp, "cache");
  kept = await keepTrace(keptTraceFolder(cacheDir, vault), { ...traceWith("What is kept?", ROWS), run_id: "20260305-115900-abcdef" });
  // As a person's edit leaves it: the run id in the properties no longer the block's.
  writeFileSync(kept, readFileSync(kept, "utf8").replace("run_id: 20260305-115900-abcdef", "run_id: mine"));
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

async function promote(json: boolean): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t), env: {}, cwd: tmp };
  const code = await promoteCommand({ vault, trace: kept, sourceKey: ROWS[0].source_key, replayDir: PAGES_DIR, settings: defaultSettings(), cacheDir, json }, io);
  return { code, out: out.join(""), err: err.join("") };
}

describe("a kept trace whose properties were edited", () => {
  it("is left as it is, and recordPromotionInKeptTrace says why", async () => {
    const before = readFileSync(kept, "utf8");
    expect(await recordPromotionInKeptTrace(kept, { source_key: ROWS[0].source_key, note_path: "Sources/0.md", at: "2026-03-05T12:00:00.000Z" })).toEqual({
      recorded: false,
      why: "its run_id property is not the run id in its trace block, so it was left as it is",
    });
    expect(readFileSync(kept, "utf8")).toBe(before);
  });

  it("gets the note written, and the output says why the kept trace does not record it", async () => {
    const { code, out, err } = await promote(false);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out).toContain("  trace note: not updated\n");
    expect(out).toContain(`  warning: The kept trace ${kept} does not record the promotion: its run_id property is not the run id in its trace block, so it was left as it is.\n`);
  });
});
