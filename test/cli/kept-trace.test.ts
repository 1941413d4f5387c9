// Kept traces live in the cache folder, never in the vault: one kept there would be read back as a
// note; they follow the vault's cache folder's name, and only so many are kept.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as indexCache from "../../src/cli/file-index-cache";
import { keepTrace, keptTraceFolder, placeOnDisk } from "../../src/cli/kept-trace";
import { KEPT_TRACES } from "../../src/cli/kept-trace-retention";
import { traceWith } from "../support/promote-fixtures";

// The cache folder's naming, spied on: kept traces must follow it, not a copy of its hash.
vi.mock("../../src/cli/file-index-cache", async (importOriginal) => {
  const actual = await importOriginal<typeof indexCache>();
  return { ...actual, vaultCacheFolder: vi.fn(actual.vaultCacheFolder) };
});

let tmp: string;
let vault: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-kept-"));
  vault = path.join(tmp, "vault");
  mkdirSync(vault);
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe("the kept traces' folder", () => {
  it("is in the cache folder when that is outside the vault, even one whose name starts alike", () => {
    expect(keptTraceFolder(path.join(tmp, "cache"), vault).startsWith(path.join(tmp, "cache", "traces"))).toBe(true);
    expect(() => keptTraceFolder(`${vault}-cache`, vault)).not.toThrow();
  });

  it("is named after the vault's id as its cache folder is, by the one rule (a second copy of the hash could disagree)", () => {
    const cache = path.join(tmp, "cache");
    const id = path.basename(indexCache.vaultCacheFolder(cache, vault)).replace(/^index-/, "");
    expect(keptTraceFolder(cache, vault)).toBe(path.join(cache, "traces", id));
    vi.mocked(indexCache.vaultCacheFolder).mockReturnValueOnce(path.join(cache, "index-0123456789abcdef"));
    expect(keptTraceFolder(cache, vault)).toBe(path.join(cache, "traces", "0123456789abcdef"));
  });

  it("is refused inside the vault, as written, through a link, or not made yet", () => {
    symlinkSync(vault, path.join(tmp, "link"));
    for (const cache of [vault, path.join(vault, "cache"), path.join(tmp, "link", "not", "yet")]) {
      expect(() => keptTraceFolder(cache, vault), cache).toThrow(/inside the vault/);
    }
  });
});

describe("placeOnDisk", () => {
  it("tells the folder itself, below it and elsewhere apart, links followed", () => {
    symlinkSync(vault, path.join(tmp, "link"));
    expect(placeOnDisk(vault, path.join(tmp, "link"))).toBe("same");
    expect(placeOnDisk(vault, path.join(tmp, "link", "a", "b"))).toBe("inside");
    expect(placeOnDisk(vault, path.join(tmp, "..vault"))).toBe("outside");
    expect(placeOnDisk(vault, path.join(vault, "..", "other"))).toBe("outside");
  });

  it("tells a place below a hidden folder or node_modules of the vault, where no note is read", () => {
    expect(placeOnDisk(vault, path.join(vault, ".cache", "vault-research"))).toBe("hidden");
    expect(placeOnDisk(vault, path.join(vault, "Notes", "node_modules", "x"))).toBe("hidden");
    expect(placeOnDisk(vault, path.join(vault, "Notes", "a.b"))).toBe("inside");
    expect(() => keptTraceFolder(path.join(vault, ".cache", "vault-research"), vault)).not.toThrow();
  });
});

describe("keeping a trace", () => {
  it("leaves no temporary file behind when the rename into place fails", async () => {
    const folder = path.join(tmp, "traces");
    const trace = traceWith("what changed?", []);
    // A folder (not empty) where the trace goes: the rename of the written temporary file over it fails.
    mkdirSync(path.join(folder, `${trace.run_id}.md`), { recursive: true });
    writeFileSync(path.join(folder, `${trace.run_id}.md`, "someone else's.md"), "kept");
    await expect(keepTrace(folder, trace)).rejects.toThrow();
    expect(readdirSync(folder)).toEqual([`${trace.run_id}.md`]);
    expect(readdirSync(path.join(folder, `${trace.run_id}.md`))).toEqual(["someone else's.md"]);
  });
});

describe("what a process killed while keeping a trace left", () => {
  const NOW = Date.parse("2025-06-01T12:00:00Z");
  const HOUR = 60 * 60 * 1000;
  const newTrace = () => ({ ...traceWith("what changed?", []), run_id: "20250601-120000-ffffff" });

  /** A file in `folder` written `age` before NOW. */
  function leftIn(folder: string, name: string, age: number): void {
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, name), "half a trace");
    const date = new Date(NOW - age);
    utimesSync(path.join(folder, name), date, date);
  }

  it("is taken away at the next keep once its process is gone and it is an hour old; another's write under way stays", async () => {
    const folder = path.join(tmp, "traces", "a");
    // 99999999: no process has that id (Linux's ids stop at 4,194,304).
    const killed = ["20250101-120000-abcdef.md.99999999.0123456789ab.tmp", "20250101-120000-abcdef.md.99999999.tmp"];
    const stays = [
      // Its process gone, but written a moment ago: one in another container sharing the cache looks gone from here.
      "20250101-120000-abcde0.md.99999999.ba9876543210.tmp",
      // Its process is alive (this one's parent), however old.
      `20250101-120000-abcde1.md.${process.ppid}.0123456789ab.tmp`,
      // Not a kept trace's temporary file: someone else's.
      "notes.md.99999999.0123456789ab.tmp",
    ];
    for (const name of killed) leftIn(folder, name, 2 * HOUR);
    leftIn(folder, stays[0], 60_000);
    leftIn(folder, stays[1], 2 * HOUR);
    leftIn(folder, stays[2], 2 * HOUR);
    leftIn(folder, "20250101-120000-abcdef.md", 2 * HOUR);
    await keepTrace(folder, newTrace(), NOW);
    expect(readdirSync(folder).sort()).toEqual(["20250101-120000-abcdef.md", "20250601-120000-ffffff.md", ...stays].sort());
  });

  it("is not taken from a kept traces' folder linked to an archive elsewhere", async () => {
    const archive = path.join(tmp, "archive");
    leftIn(archive, "20250101-120000-abcdef.md.99999999.0123456789ab.tmp", 2 * HOUR);
    mkdirSync(path.join(tmp, "cache", "traces"), { recursive: true });
    symlinkSync(archive, path.join(tmp, "cache", "traces", "a"));
    await keepTrace(path.join(tmp, "cache", "traces", "a"), newTrace(), NOW);
    expect(readdirSync(archive).sort()).toEqual(["20250101-120000-abcdef.md.99999999.0123456789ab.tmp", "20250601-120000-ffffff.md"]);
  });
});

describe("how many kept traces a vault keeps", () => {
  const NOW = Date.parse("2025-06-01T12:00:00Z");
  const DAY = 24 * 60 * 60 * 1000;
  const kept = (folder: string) => readdirSync(folder).filter((f) => /^\d{8}-\d{6}-[0-9a-f]{6}\.md$/.test(f));

  /** `count` traces in `folder`, the first the newest, one a minute apart from `newestAge` back. */
  function tracesIn(folder: string, count: number, newestAge: number): string[] {
    mkdirSync(folder, { recursive: true });
    const names: string[] = [];
    for (let i = 0; i < count; i++) {
      const name = `20250101-${String(100000 + i).slice(1)}0-${i.toString(16).padStart(6, "0")}.md`;
      const file = path.join(folder, name);
      writeFileSync(file, "a kept trace");
      const date = new Date(NOW - newestAge - i * 60_000);
      utimesSync(file, date, date);
      names.push(name);
    }
    return names;
  }

  const newTrace = () => ({ ...traceWith("what changed?", []), run_id: "20250601-120000-ffffff" });

  it("keeps the newest 500 whatever their age, removing older ones as a new one is kept: they were never removed", async () => {
    const folder = path.join(tmp, "traces", "a");
    const old = tracesIn(folder, 550, 30 * DAY);
    await keepTrace(folder, newTrace(), NOW);
    expect(kept(folder).sort()).toEqual(["20250601-120000-ffffff.md", ...old.slice(0, KEPT_TRACES.newest - 1)].sort());
  });

  it("keeps those of the last days besides the newest 500, up to 2,000 in all", async () => {
    const folder = path.join(tmp, "traces", "a");
    const recent = tracesIn(folder, 900, DAY);
    await keepTrace(folder, newTrace(), NOW);
    expect(kept(folder)).toHaveLength(901);
    const burst = path.join(tmp, "traces", "b");
    const many = tracesIn(burst, KEPT_TRACES.atMost + 50, 60_000);
    await keepTrace(burst, newTrace(), NOW);
    expect(kept(burst).sort()).toEqual(["20250601-120000-ffffff.md", ...many.slice(0, KEPT_TRACES.atMost - 1)].sort());
    expect(recent).toHaveLength(900);
  });

  it("removes nothing but this vault's trace files: not another vault's, a link, a folder, a temporary file or another name", async () => {
    const folder = path.join(tmp, "traces", "a");
    tracesIn(folder, 600, 30 * DAY);
    const other = path.join(tmp, "traces", "b");
    tracesIn(other, 600, 30 * DAY);
    const aged = new Date(NOW - 365 * DAY);
    const strangers = ["notes.md", "20240101-000000-abcdef.md.123.456.tmp", "20240101-000000-abcdef (1).md"];
    for (const name of strangers) {
      writeFileSync(path.join(folder, name), "not a kept trace");
      utimesSync(path.join(folder, name), aged, aged);
    }
    mkdirSync(path.join(folder, "20240101-000000-000001.md"));
    writeFileSync(path.join(tmp, "elsewhere.md"), "someone's file");
    symlinkSync(path.join(tmp, "elsewhere.md"), path.join(folder, "20240101-000000-000002.md"));
    await keepTrace(folder, newTrace(), NOW);
    for (const name of [...strangers, "20240101-000000-000001.md", "20240101-000000-000002.md"]) expect(() => lstatSync(path.join(folder, name)), name).not.toThrow();
    expect(readdirSync(path.join(tmp))).toContain("elsewhere.md");
    expect(readdirSync(other)).toHaveLength(600);
    expect(kept(folder)).toHaveLength(KEPT_TRACES.newest + 2);
  });

  it("removes nothing through a link: a vault's traces folder, or the folder of all of them, linked to an archive elsewhere", async () => {
    for (const linked of ["vault's folder", "folder of all"] as const) {
      const archive = path.join(tmp, `archive of the ${linked}`);
      const old = tracesIn(linked === "vault's folder" ? archive : path.join(archive, "a"), 600, 30 * DAY);
      const cache = path.join(tmp, `cache for the ${linked}`);
      mkdirSync(linked === "vault's folder" ? path.join(cache, "traces") : cache, { recursive: true });
      if (linked === "vault's folder") symlinkSync(archive, path.join(cache, "traces", "a"));
      else symlinkSync(archive, path.join(cache, "traces"));
      const inArchive = linked === "vault's folder" ? archive : path.join(archive, "a");
      await keepTrace(path.join(cache, "traces", "a"), newTrace(), NOW);
      expect(kept(inArchive).sort(), linked).toEqual(["20250601-120000-ffffff.md", ...old].sort());
    }
    // The cache folder itself may be a link (~/.cache on another disk): what is below it is its own.
    const disk = path.join(tmp, "other disk");
    tracesIn(path.join(disk, "traces", "a"), 600, 30 * DAY);
    symlinkSync(disk, path.join(tmp, "linked cache"));
    await keepTrace(path.join(tmp, "linked cache", "traces", "a"), newTrace(), NOW);
    expect(kept(path.join(disk, "traces", "a"))).toHaveLength(KEPT_TRACES.newest);
  });
});
