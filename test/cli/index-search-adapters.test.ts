// The CLI's Node adapters under index and search: the folder vault (never leaves its root, never
// overwrites, skips hidden folders) and the cache file (atomic: a failed save keeps the old one).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultCacheDir, FileIndexCache } from "../../src/cli/file-index-cache";
import { FsNoteStore } from "../../src/cli/fs-note-store";
import { describeRebuildReason } from "../../src/index/rebuild-reason";
import { VaultIndex } from "../../src/index/vault-index";

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

  it("lists notes in path order, folders where their notes' paths put them", async () => {
    const names = ["a.md", "a/x.md", "a/b/c.md", "a-b.md", "a0.md", "B.md", "ab.md", "a b.md"];
    for (const name of names) {
      mkdirSync(path.dirname(path.join(vault, "Sorted", name)), { recursive: true });
      writeFileSync(path.join(vault, "Sorted", name), "# Note\n");
    }
    const listed = (await new FsNoteStore(vault).list()).map((f) => f.path);
    expect(listed).toEqual([...listed].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(listed.filter((p) => p.startsWith("Sorted/"))).toHaveLength(names.length);
  });

  it("knows whether a folder holds any note without listing it all", () => {
    expect(new FsNoteStore(vault).hasNotes()).toBe(true);
    const empty = path.join(tmp, "empty");
    mkdirSync(path.join(empty, ".obsidian"), { recursive: true });
    mkdirSync(path.join(empty, "Attachments"));
    writeFileSync(path.join(empty, ".obsidian", "Hidden.md"), "# Hidden\n");
    writeFileSync(path.join(empty, "Attachments", "diagram.png"), "png");
    expect(new FsNoteStore(empty).hasNotes()).toBe(false);
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

  it("gives no facts for what it does not list: a link to a note, a folder named like one", async () => {
    symlinkSync(path.join(vault, "Home.md"), path.join(vault, "Alias.md"));
    mkdirSync(path.join(vault, "Ideas.md"));
    const store = new FsNoteStore(vault);
    expect((await store.list()).map((f) => f.path)).toEqual(["Home.md", "Projects/Plan.md"]);
    expect(await store.stat("Alias.md")).toBeNull();
    expect(await store.stat("Ideas.md")).toBeNull();
    // So a watcher's event for either adds nothing to the index, and names no problem.
    const index = new VaultIndex();
    await index.sync(store, null);
    await index.updateFile(store, "Alias.md");
    await index.updateFile(store, "Ideas.md");
    expect(index.paths().sort()).toEqual(["Home.md", "Projects/Plan.md"]);
    expect(index.status().problems).toEqual([]);
  });
});

describe("FileIndexCache", () => {
  it("has nothing to load before the first save, then loads each part as it was saved", async () => {
    const cache = new FileIndexCache(path.join(tmp, "cache"), vault);
    expect(await cache.read("manifest")).toBeNull();
    expect(await cache.names()).toEqual([]);
    await cache.write("manifest", { saved: 1 });
    await cache.write("segment-1-0", { postings: Uint32Array.from([7, 8]) });
    expect(await cache.read("manifest")).toEqual({ saved: 1 });
    expect(await cache.read("segment-1-0")).toEqual({ postings: Uint32Array.from([7, 8]) });
    expect((await cache.names()).sort()).toEqual(["manifest", "segment-1-0"]);
    await cache.remove(["segment-1-0"]);
    expect(await cache.names()).toEqual(["manifest"]);
    await cache.clear();
    expect(await cache.read("manifest")).toBeNull();
  });

  it("leaves only the part files behind after a save (the temporary file is renamed into place)", async () => {
    const dir = path.join(tmp, "cache");
    const cache = new FileIndexCache(dir, vault);
    await cache.write("manifest", "one");
    await cache.write("manifest", "two");
    expect(readdirSync(dir)).toEqual([path.basename(cache.folder)]);
    expect(readdirSync(cache.folder)).toEqual([path.basename(cache.file)]);
    expect(await cache.read("manifest")).toBe("two");
  });

  it("keeps the previous part whole when a save fails part-way", async () => {
    const dir = path.join(tmp, "cache");
    const cache = new FileIndexCache(dir, vault);
    await cache.write("manifest", "previous index");
    // A directory where the temporary file should go makes the write fail before the rename.
    mkdirSync(`${cache.file}.${process.pid}.tmp`);
    await expect(cache.write("manifest", "new index")).rejects.toThrow();
    expect(await cache.read("manifest")).toBe("previous index");
  });

  it("takes its temporary file away when the part cannot be put in place (a folder where the part goes)", async () => {
    const cache = new FileIndexCache(path.join(tmp, "cache"), vault);
    mkdirSync(cache.file, { recursive: true });
    await expect(cache.write("manifest", "new index")).rejects.toThrow();
    await expect(cache.write("manifest", "new index")).rejects.toThrow();
    expect(readdirSync(cache.folder)).toEqual([path.basename(cache.file)]);
  });

  it("keeps one cache per vault", () => {
    const dir = path.join(tmp, "cache");
    const a = new FileIndexCache(dir, vault);
    const b = new FileIndexCache(dir, path.join(tmp, "another"));
    expect(a.file).not.toBe(b.file);
    expect(new FileIndexCache(dir, `${vault}/`).file).toBe(a.file);
  });

  it("refuses a part name that could reach outside its folder", async () => {
    const cache = new FileIndexCache(path.join(tmp, "cache"), vault);
    await expect(cache.write("../escaped", "x")).rejects.toThrow(/not a name/);
    await expect(cache.read("../../etc/passwd")).rejects.toThrow(/not a name/);
    expect(readdirSync(tmp).sort()).toEqual(["outside.md", "vault"]);
  });

  it("removes the single cache file of earlier versions at the first save", async () => {
    const dir = path.join(tmp, "cache");
    const cache = new FileIndexCache(dir, vault);
    mkdirSync(dir);
    const legacy = path.join(dir, `${path.basename(cache.folder)}.json`);
    writeFileSync(legacy, '{"format":"vault-research-index","version":5}');
    await cache.write("manifest", { m: 1 });
    expect(readdirSync(dir)).toEqual([path.basename(cache.folder)]);
  });

  it.each([
    ["garbage", (file: string) => writeFileSync(file, "\u0000not an index at all{")],
    ["cut short", (file: string) => writeFileSync(file, readFileSync(file).subarray(0, 40))],
  ])("a part that is %s makes the index rebuild, saying the cache is corrupt", async (_what, spoil) => {
    const cacheDir = path.join(tmp, "cache");
    const store = new FsNoteStore(vault);
    const first = new VaultIndex();
    await first.sync(store, null);
    await first.save(new FileIndexCache(cacheDir, vault));
    const cache = new FileIndexCache(cacheDir, vault);
    for (const name of await cache.names()) spoil(path.join(cache.folder, `${name}.v8`));
    const report = await new VaultIndex().sync(store, cache);
    expect(report.mode).toBe("rebuild");
    expect(describeRebuildReason(report.rebuildReason!)).toMatch(/corrupt/);
    expect(report.added).toBe(2);
  });

  it("honours VAULT_RESEARCH_CACHE_DIR, then XDG_CACHE_HOME on Linux", () => {
    expect(defaultCacheDir({ VAULT_RESEARCH_CACHE_DIR: "/x/cache" })).toBe("/x/cache");
    if (process.platform === "linux") expect(defaultCacheDir({ XDG_CACHE_HOME: "/xdg" })).toBe(path.join("/xdg", "vault-research"));
  });
});
