import { existsSync, mkdirSync, mkdtempSync, promises as fsPromises, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Vault as ObsidianVault } from "obsidian";
import { Vault } from "../stubs/obsidian";
import { NoteStoreError, ObsidianNoteStore, placeCheckOf } from "../../src/plugin/obsidian-note-store";

function vaultWith(files: Record<string, string>) {
  const vault = new Vault();
  let t = 1_700_000_000_000;
  for (const [path, text] of Object.entries(files)) vault.seed(path, text, t++);
  return { vault, store: new ObsidianNoteStore(vault as unknown as ObsidianVault) };
}

describe("Obsidian note store", () => {
  it("lists only markdown notes, with their modification time and size in bytes", async () => {
    const { store } = vaultWith({ "a.md": "héllo", "img/pic.png": "binary", "Projects/Plan.md": "plan" });
    const listed = await store.list();
    expect(listed.map((f) => f.path).sort()).toEqual(["Projects/Plan.md", "a.md"]);
    const a = listed.find((f) => f.path === "a.md")!;
    expect(a.size).toBe(6); // é is two bytes
    expect(a.mtime).toBe(1_700_000_000_000);
  });

  it("reads a note's text, and fails with not_found for a missing note or a folder", async () => {
    const { store } = vaultWith({ "Projects/Plan.md": "plan text" });
    expect(await store.read("Projects/Plan.md")).toBe("plan text");
    await expect(store.read("nope.md")).rejects.toMatchObject({ kind: "not_found" });
    await expect(store.read("Projects")).rejects.toBeInstanceOf(NoteStoreError);
  });

  it("states one file, and nothing for a path that is not a file", async () => {
    const { store } = vaultWith({ "a.md": "abc" });
    expect(await store.stat("a.md")).toMatchObject({ path: "a.md", size: 3 });
    expect(await store.stat("missing.md")).toBeNull();
  });

  it("sees files the vault does not list, such as those in hidden folders", async () => {
    const { vault, store } = vaultWith({});
    vault.hiddenFiles.set(".trash/x.md", "old");
    expect(await store.exists(".trash/x.md")).toBe(true);
    expect(await store.exists("y.md")).toBe(false);
  });

  it("creates a note and the folders it needs, and fires the vault's create events", async () => {
    const { vault, store } = vaultWith({});
    const created: string[] = [];
    vault.on("create", (f) => void created.push((f as { path: string }).path));
    await store.create("Research/Sources/Page.md", "# Page");
    expect(await store.read("Research/Sources/Page.md")).toBe("# Page");
    expect(created).toEqual(["Research", "Research/Sources", "Research/Sources/Page.md"]);
  });

  it("refuses to overwrite an existing note and leaves it unchanged", async () => {
    const { store } = vaultWith({ "Notes/Keep.md": "precious" });
    await expect(store.create("Notes/Keep.md", "replacement")).rejects.toMatchObject({ kind: "exists" });
    await expect(store.create("/Notes//Keep.md", "replacement")).rejects.toMatchObject({ kind: "exists" });
    expect(await store.read("Notes/Keep.md")).toBe("precious");
  });

  it("refuses to create a note inside a path that is a file", async () => {
    const { store } = vaultWith({ "Notes.md": "x" });
    await expect(store.create("Notes.md/child.md", "y")).rejects.toMatchObject({ kind: "not_a_folder" });
  });
});

describe("Obsidian note store writes on the desktop, where a folder may link out of the vault", () => {
  /** The stand-in vault with what the desktop adapter carries: the vault's folder and Node's fs.promises. */
  function desktopVault() {
    const tmp = mkdtempSync(path.join(os.tmpdir(), "vr-obsidian-store-"));
    const base = path.join(tmp, "vault");
    const outside = path.join(tmp, "outside");
    mkdirSync(base);
    mkdirSync(outside);
    const vault = new Vault();
    const adapter = vault.adapter as unknown as Record<string, unknown>;
    const inMemory = adapter.exists as (p: string) => Promise<boolean>;
    Object.assign(adapter, {
      getBasePath: () => base,
      getFullPath: (p: string) => path.join(base, p),
      fsPromises: fsPromises,
      exists: async (p: string) => (await inMemory(p)) || existsSync(path.join(base, p)),
      remove: async () => undefined,
    });
    return { tmp, base, outside, vault, store: new ObsidianNoteStore(vault as unknown as ObsidianVault) };
  }

  it("refuses to create a note in a folder that links out of the vault", async () => {
    const { tmp, base, outside, vault, store } = desktopVault();
    try {
      symlinkSync(outside, path.join(base, "Research"));
      await expect(store.create("Research/Traces/Run.md", "x")).rejects.toMatchObject({ kind: "outside_vault" });
      expect(vault.getAbstractFileByPath("Research/Traces/Run.md")).toBeNull();
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("creates and rewrites notes whose folders really are in the vault", async () => {
    const { tmp, base, store } = desktopVault();
    try {
      mkdirSync(path.join(base, "Research"));
      await store.create("Research/Run.md", "one");
      await store.rewrite("Research/Run.md", (t) => `${t} two`);
      expect(await store.read("Research/Run.md")).toBe("one two");
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("refuses to rewrite a note whose folder links out of the vault", async () => {
    const { tmp, base, outside, vault, store } = desktopVault();
    try {
      vault.seed("Research/Traces/Run.md", "trace", 1);
      symlinkSync(outside, path.join(base, "Research"));
      await expect(store.rewrite("Research/Traces/Run.md", () => "changed")).rejects.toMatchObject({ kind: "outside_vault" });
      expect(await store.read("Research/Traces/Run.md")).toBe("trace");
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe("Obsidian note store writes in a vault at the top of a drive (E:\\ on Windows, a USB stick)", () => {
  /** The desktop adapter of a vault opened at E:\\: Node's realpath on Windows keeps a drive's top as "E:\\", with its backslash. */
  function driveVault(folders: string[], links: Record<string, string> = {}) {
    const vault = new Vault();
    const root = "E:\\";
    const onDisk = new Set([root, ...folders.map((f) => path.win32.join(root, f))]);
    const realpath = async (full: string) => {
      const normal = path.win32.normalize(full);
      for (const [from, to] of Object.entries(links)) if (normal === path.win32.join(root, from)) return to;
      const inVault = vault.getAbstractFileByPath(normal.slice(root.length).replace(/\\/g, "/"));
      if (onDisk.has(normal) || inVault) return normal;
      throw new Error(`ENOENT: no such file or directory, realpath '${full}'`);
    };
    Object.assign(vault.adapter as unknown as Record<string, unknown>, {
      getBasePath: () => root,
      getFullPath: (p: string) => `${root}\\${p.replace(/\//g, "\\")}`,
      fsPromises: { realpath },
    });
    return { vault, store: new ObsidianNoteStore(vault as unknown as ObsidianVault) };
  }

  it("writes notes into its folders and its top", async () => {
    const { store } = driveVault(["Research"]);
    await store.create("Research/Traces/Run.md", "trace");
    await store.rewrite("Research/Traces/Run.md", (t) => `${t}!`);
    await store.create("Top.md", "top");
    expect(await store.read("Research/Traces/Run.md")).toBe("trace!");
    expect(await store.read("Top.md")).toBe("top");
  });

  it("still refuses a folder that links to another drive", async () => {
    const { store } = driveVault(["Research"], { Research: "D:\\Elsewhere" });
    await expect(store.create("Research/Run.md", "x")).rejects.toMatchObject({ kind: "outside_vault" });
  });
});

describe("what each adapter lets a write verify about where it leads", () => {
  it("the desktop FileSystemAdapter (getBasePath, getFullPath and its realpath): real paths", () => {
    const adapter = { getBasePath: () => "/v", getFullPath: (p: string) => `/v/${p}`, fsPromises: fsPromises };
    expect(placeCheckOf(adapter)).toMatchObject({ kind: "real_path", root: "/v" });
  });

  it("a desktop adapter without a realpath: unverifiable, so a write is refused and nothing is made", async () => {
    expect(placeCheckOf({ getBasePath: () => "/v", getFullPath: (p: string) => `/v/${p}` })).toMatchObject({ kind: "unverifiable" });
    const vault = new Vault();
    Object.assign(vault.adapter as unknown as Record<string, unknown>, { getBasePath: () => "/v", getFullPath: (p: string) => `/v/${p}` });
    const store = new ObsidianNoteStore(vault as unknown as ObsidianVault);
    await expect(store.create("Research/Traces/Run.md", "x")).rejects.toMatchObject({ kind: "place_unverified" });
    expect(vault.getAbstractFileByPath("Research/Traces/Run.md")).toBeNull();
    expect(vault.getAbstractFileByPath("Research")).toBeNull();
  });

  it("a mobile adapter (getFullPath, no getBasePath, no realpath): the path as written only, and writes go ahead", async () => {
    const vault = new Vault();
    Object.assign(vault.adapter as unknown as Record<string, unknown>, { getFullPath: (p: string) => `/var/mobile/Vault/${p}` });
    expect(placeCheckOf(vault.adapter)).toMatchObject({ kind: "as_written" });
    const store = new ObsidianNoteStore(vault as unknown as ObsidianVault);
    await store.create("Research/Traces/Run.md", "trace");
    await store.rewrite("Research/Traces/Run.md", (t) => `${t}!`);
    expect(await store.read("Research/Traces/Run.md")).toBe("trace!");
  });

  it("every adapter refuses a path that climbs out as written, before anything is made", async () => {
    const { vault, store } = vaultWith({ "Notes/Keep.md": "keep" });
    for (const bad of ["../outside.md", "Research/../../outside.md", "Research/./x.md"]) {
      await expect(store.create(bad, "x"), bad).rejects.toMatchObject({ kind: "outside_vault" });
    }
    await expect(store.rewrite("Notes/../Notes/Keep.md", () => "changed")).rejects.toMatchObject({ kind: "outside_vault" });
    expect(await store.read("Notes/Keep.md")).toBe("keep");
    expect(vault.getAbstractFileByPath("Research")).toBeNull();
  });
});
