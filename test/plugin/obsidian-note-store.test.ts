import { describe, expect, it } from "vitest";
import type { Vault as ObsidianVault } from "obsidian";
import { Vault } from "../stubs/obsidian";
import { NoteStoreError, ObsidianNoteStore } from "../../src/plugin/obsidian-note-store";

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
