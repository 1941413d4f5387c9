// `promote --trace` given a trace note by another spelling of its place than the vault's: the vault
// named through a link and the note by its real path (or the other way round) is still the vault's
// trace note, never a kept trace outside it. Read as kept, the promoted note linked to no trace and
// the trace note was rewritten by the kept-trace writer, past the vault's own checks. And the other
// way: a trace kept in the cache folder hidden inside a vault that is a home folder is a kept trace.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findKeptTrace, keepTrace, keptTraceFolder } from "../../src/cli/kept-trace";
import { locateTrace, promoteCommand } from "../../src/cli/promote-command";
import { renderTraceNote } from "../../src/notes/trace-note";
import { defaultSettings } from "../../src/settings";
import { PAGES_DIR, PAGE_ROWS, traceWith } from "../support/promote-fixtures";

const TRACE = "Research/Traces/2026-03-05 1159 Linked vault.md";
const ROWS = Object.values(PAGE_ROWS);

let tmp: string;
let vault: string;
let link: string;
let cacheDir: string;

beforeEach(() => {
  tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "vr-kept-link-")));
  vault = path.join(tmp, "vault");
  mkdirSync(path.join(vault, path.dirname(TRACE)), { recursive: true });
  writeFileSync(path.join(vault, "Readme.md"), "# A note\n");
  writeFileSync(path.join(vault, TRACE), renderTraceNote(traceWith("How do linked vaults promote?", ROWS)));
  link = path.join(tmp, "vlink");
  symlinkSync(vault, link, "dir");
  cacheDir = path.join(tmp, "cache");
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe("a trace note named by its real path while the vault is named through a link", () => {
  it("is no kept trace", () => {
    const real = path.join(vault, TRACE);
    expect(findKeptTrace(real, tmp, link, keptTraceFolder(cacheDir, link))).toBeNull();
  });

  it("is located as the vault's trace note, by its path in the vault", () => {
    const located = locateTrace({ trace: path.join(vault, TRACE), sourceKey: ROWS[0].source_key, vault: link }, tmp, link, cacheDir);
    expect(located).toEqual({ tracePath: TRACE });
  });

  it("and the other way round: the vault by its real path, the note through the link", () => {
    const located = locateTrace({ trace: path.join(link, TRACE), sourceKey: ROWS[0].source_key, vault }, tmp, vault, cacheDir);
    expect(located).toEqual({ tracePath: TRACE });
  });

  it("is promoted from as a trace note: the source note links to it, and it records the promotion", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t), env: {}, cwd: tmp };
    const code = await promoteCommand(
      { vault: link, trace: path.join(vault, TRACE), sourceKey: ROWS[0].source_key, replayDir: PAGES_DIR, settings: defaultSettings(), cacheDir, json: true },
      io,
    );
    expect(err.join("")).toBe("");
    expect(code).toBe(0);
    const result = JSON.parse(out.join("")) as { note_path: string; trace_source: string; trace_updated: boolean };
    expect(result.trace_source).toBe("vault_note");
    expect(result.trace_updated).toBe(true);
    expect(readFileSync(path.join(vault, result.note_path), "utf8")).toMatch(/^trace: /m);
    expect(readFileSync(path.join(vault, TRACE), "utf8")).toContain(`"note_path": ${JSON.stringify(result.note_path)}`);
  });
});

describe("a link outside the vault to a trace note inside it", () => {
  it("is the vault's note, never a kept trace the kept-trace writer would rewrite inside the vault", () => {
    const outside = path.join(tmp, "shortcut.md");
    symlinkSync(path.join(vault, TRACE), outside);
    expect(findKeptTrace(outside, tmp, vault, keptTraceFolder(cacheDir, vault))).toBeNull();
    expect(locateTrace({ trace: outside, sourceKey: ROWS[0].source_key, vault }, tmp, vault, cacheDir)).toEqual({ tracePath: TRACE });
  });
});

describe("a note of the vault whose name starts with two dots", () => {
  it("is the vault's, not a kept trace outside it", () => {
    writeFileSync(path.join(vault, "..dots.md"), "x");
    expect(findKeptTrace(path.join(vault, "..dots.md"), tmp, vault, keptTraceFolder(cacheDir, vault))).toBeNull();
  });
});

describe("a file outside the vault named through a link to it", () => {
  it("is still a kept trace", () => {
    const outside = path.join(tmp, "elsewhere.md");
    writeFileSync(outside, "x");
    symlinkSync(tmp, path.join(tmp, "tlink"), "dir");
    expect(findKeptTrace(path.join(tmp, "tlink", "elsewhere.md"), tmp, link, keptTraceFolder(cacheDir, link))).toBe(path.join(tmp, "tlink", "elsewhere.md"));
  });
});

describe("a trace kept for a vault that is a home folder, in the cache folder hidden inside it", () => {
  it("is a kept trace when named by its file, not a note of the vault at .cache/…", async () => {
    const home = path.join(tmp, "home");
    mkdirSync(home);
    writeFileSync(path.join(home, "Readme.md"), "# Home\n");
    const hiddenCache = path.join(home, ".cache", "vault-research");
    const kept = await keepTrace(keptTraceFolder(hiddenCache, home), { ...traceWith("What is kept at home?", ROWS), run_id: "20260305-115900-abcdef" });
    expect(findKeptTrace(kept, tmp, home, keptTraceFolder(hiddenCache, home))).toBe(kept);
    expect(locateTrace({ trace: kept, sourceKey: ROWS[0].source_key, vault: home }, tmp, home, hiddenCache)).toEqual({ keptFile: kept });

    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: () => undefined, env: {}, cwd: tmp };
    const code = await promoteCommand({ vault: home, trace: kept, sourceKey: ROWS[0].source_key, replayDir: PAGES_DIR, settings: defaultSettings(), cacheDir: hiddenCache, json: true }, io);
    expect(code).toBe(0);
    const result = JSON.parse(out.join("")) as { note_path: string; trace_source: string };
    expect(result.trace_source).toBe("kept_trace");
    // The note links to no trace: there is none in the vault (it linked to [[.cache/…]]).
    expect(readFileSync(path.join(home, result.note_path), "utf8")).not.toMatch(/^trace:/m);
  });
});
