// The CLI's Node adapters under index and search: the folder vault (never leaves its root, never
// overwrites, skips hidden folders) and the cache file (atomic: a failed save keeps the old one).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultCacheDir, FileIndexCache } from "../../src/cli/file-index-cache";
import { FsNoteStore } from "../../src/cli/fs-note-store";

let tmp: string;
let vault: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-adapters-"));
  vault = path.join(tmp, "vault");
  mkdirSync(path.join(vault, "Projects"), { recursive: true });
  mkdirSync(path.join(vault, ".obsidian"));
  mkdirSync(path.join(vault, "node_modules"));
  writeFileSync(path.join(vault, "Home.md"), "# Home\n");
  writeFileSync(path.join(vault, "Projects", "Plan.md"), "# Plan\n\nDetails.\n");
  writeFileSync(path.join(vault, "Projects", "diagram.png"), "png");
  writeFileSync(path.join(vault, ".obsidian", "Hidden.md"), "# Hidden\n");
  writeFileSync(path.join(vault, "node_modules", "README.md"), "# Package\n");
  writeFileSync(path.join(tmp, "outside.md"), "# Outside the vault\n");
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe("FsNoteStore", () => {
  it("lists markdown notes with forward-slash paths, mtime and size, skipping hidden folders", async () => {
    const when = new Date("2024-05-01T12:00:00Z");
    utimesSync(path.join(vault, "Projects", "Plan.md"), when, when);
    const files = await new FsNoteStore(vault).list();
    expect(files.map((f) => f.path)).toEqual(["Home.md", "Projects/Plan.md"]);
    expect(files[1]).toEqual({ path: "Projects/Plan.md", mtime: when.getTime(), size: Buffer.byteLength("# Plan\n\nDetails.\n") });
  });

  it("refuses every path that escapes the vault", async () => {
    const store = new FsNoteStore(vault);
    await expect(store.read("../outside.md")).rejects.toThrow(/outside the vault/);
    await expect(store.read(path.join(tmp, "outside.md"))).rejects.toThrow(/outside the vault/);
    await expect(store.exists("Projects/../../outside.md")).rejects.toThrow(/outside the vault/);
    await expect(store.create("../escaped.md", "x")).rejects.toThrow(/outside the vault/);
    expect(readdirSync(tmp).sort()).toEqual(["outside.md", "vault"]);
  });

  it("does not read through a link that points outside the vault, but does through one inside it", async () => {
    symlinkSync(path.join(tmp, "outside.md"), path.join(vault, "Sneaky.md"));
    symlinkSync(path.join(vault, "Home.md"), path.join(vault, "Projects", "Home link.md"));
    const store = new FsNoteStore(vault);
    await expect(store.read("Sneaky.md")).rejects.toThrow(/outside the vault/);
    expect(await store.read("Projects/Home link.md")).toBe("# Home\n");
  });

  it("does not mistake a sibling folder sharing the vault's name prefix for the vault", async () => {
    mkdirSync(path.join(tmp, "vault-other"));
    writeFileSync(path.join(tmp, "vault-other", "Note.md"), "x");
    await expect(new FsNoteStore(vault).read("../vault-other/Note.md")).rejects.toThrow(/outside the vault/);
  });

  it("creates a note and its folders, and never overwrites an existing one", async () => {
    const store = new FsNoteStore(vault);
    await store.create("Research/Sources/New.md", "# New\n");
    expect(readFileSync(path.join(vault, "Research/Sources/New.md"), "utf8")).toBe("# New\n");
    await expect(store.create("Home.md", "replaced")).rejects.toThrow();
    expect(readFileSync(path.join(vault, "Home.md"), "utf8")).toBe("# Home\n");
  });

  it("answers stat and exists for present and absent notes", async () => {
    const store = new FsNoteStore(vault);
    expect(await store.exists("Home.md")).toBe(true);
    expect(await store.exists("Nope.md")).toBe(false);
    expect(await store.stat("Nope.md")).toBeNull();
    expect(await store.stat("Home.md")).toMatchObject({ path: "Home.md", size: 7 });
  });
});

describe("FileIndexCache", () => {
  it("has nothing to load before the first save, then loads what was saved", async () => {
    const cache = new FileIndexCache(path.join(tmp, "cache"), vault);
    expect(await cache.load()).toBeNull();
    await cache.save('{"saved":1}');
    expect(await cache.load()).toBe('{"saved":1}');
    await cache.clear();
    expect(await cache.load()).toBeNull();
  });

  it("leaves only the cache file behind after a save (the temporary file is renamed into place)", async () => {
    const dir = path.join(tmp, "cache");
    const cache = new FileIndexCache(dir, vault);
    await cache.save("one");
    await cache.save("two");
    expect(readdirSync(dir)).toEqual([path.basename(cache.file)]);
    expect(readFileSync(cache.file, "utf8")).toBe("two");
  });

  it("keeps the previous cache whole when a save fails part-way", async () => {
    const dir = path.join(tmp, "cache");
    const cache = new FileIndexCache(dir, vault);
    await cache.save("previous index");
    // A directory where the temporary file should go makes the write fail before the rename.
    mkdirSync(`${cache.file}.${process.pid}.tmp`);
    await expect(cache.save("new index")).rejects.toThrow();
    expect(await cache.load()).toBe("previous index");
  });

  it("keeps one cache file per vault", () => {
    const dir = path.join(tmp, "cache");
    const a = new FileIndexCache(dir, vault);
    const b = new FileIndexCache(dir, path.join(tmp, "another"));
    expect(a.file).not.toBe(b.file);
    expect(new FileIndexCache(dir, `${vault}/`).file).toBe(a.file);
  });

  it("honours VAULT_RESEARCH_CACHE_DIR, then XDG_CACHE_HOME on Linux", () => {
    expect(defaultCacheDir({ VAULT_RESEARCH_CACHE_DIR: "/x/cache" })).toBe("/x/cache");
    if (process.platform === "linux") expect(defaultCacheDir({ XDG_CACHE_HOME: "/xdg" })).toBe(path.join("/xdg", "vault-research"));
  });
});
