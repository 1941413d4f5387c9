// The one way a new note is written (notes/create-note.ts): the first free name, the next one when
// another writer takes it first, a last-resort name when every numbered one is taken, and a clear
// refusal when even that is — never a write over a file.
import { describe, expect, it } from "vitest";
import { createNoteAtFreeName, NoFreeNoteName } from "../../src/notes/create-note";
import { MemoryNoteStore } from "../support/memory-note-store";

describe("createNoteAtFreeName", () => {
  it("writes at the first free name", async () => {
    const store = new MemoryNoteStore({ "Research/Traces/Q.md": "old", "Research/Traces/Q 2.md": "old" });
    expect(await createNoteAtFreeName(store, "Research/Traces", "Q", "new")).toBe("Research/Traces/Q 3.md");
    expect(store.files.get("Research/Traces/Q.md")?.text).toBe("old");
  });

  it("takes the next name when another writer took the free one between the look and the write, and never tries a name twice", async () => {
    const store = new MemoryNoteStore();
    const create = store.create.bind(store);
    let raced = 0;
    store.create = async (p, content) => {
      // Another device writes each of the first two names just before this write lands.
      if (raced < 2) {
        raced++;
        store.files.set(p, { text: "theirs", mtime: 1 });
      }
      return create(p, content);
    };
    expect(await createNoteAtFreeName(store, "Sources", "Page", "ours")).toBe("Sources/Page 3.md");
    expect(store.createCalls).toEqual(["Sources/Page.md", "Sources/Page 2.md", "Sources/Page 3.md"]);
    expect(store.files.get("Sources/Page.md")?.text).toBe("theirs");
  });

  it("takes a name as taken when a note's differs from it only by case or Unicode normalisation (one file on Windows and macOS)", async () => {
    const store = new MemoryNoteStore({ "Research/Sources/sync engines compared.md": "the user's", "research/sources/Cafe\u0301.md": "the user's" });
    expect(await createNoteAtFreeName(store, "Research/Sources", "Sync Engines Compared", "ours")).toBe("Research/Sources/Sync Engines Compared 2.md");
    expect(await createNoteAtFreeName(store, "Research/Sources", "Caf\u00e9", "ours")).toBe("Research/Sources/Caf\u00e9 2.md");
    expect(store.text("Research/Sources/sync engines compared.md")).toBe("the user's");
  });

  it("passes on a failure that is not a taken name (no permission) as it is", async () => {
    const store = new MemoryNoteStore();
    store.create = async () => {
      throw new Error("EACCES: permission denied");
    };
    await expect(createNoteAtFreeName(store, "Sources", "Page", "x")).rejects.toThrow("EACCES: permission denied");
  });

  it("uses the last-resort name once every numbered name is taken, and refuses with words when that is taken too", async () => {
    const taken = new Set<string>();
    const store = {
      exists: async (p: string) => /^(T\/)?Q( \d+)?\.md$/.test(p) || taken.has(p),
      create: async (p: string) => {
        if (taken.has(p)) throw new Error("exists");
        taken.add(p);
      },
    };
    expect(await createNoteAtFreeName(store, "T", "Q", "x", { lastResortName: "Q 2026-12-06 21.14.07.123" })).toBe("T/Q 2026-12-06 21.14.07.123.md");
    const again = createNoteAtFreeName(store, "T", "Q", "x", { lastResortName: "Q 2026-12-06 21.14.07.123" });
    await expect(again).rejects.toBeInstanceOf(NoFreeNoteName);
    await expect(createNoteAtFreeName(store, "", "Q", "x")).rejects.toThrow('Could not find a free file name for "Q" in the vault root.');
  });
});
