// The notes the embedding job tried and left out (refused by the server, unreadable) are kept in
// the saved root beside the vectors, so a process that only loads them (the CLI's `search`, the MCP
// server) still tells them from notes waiting their turn. A root without the list, or with one that
// is not of its shape, loads the vectors as before, with the record empty.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { VaultSearch } from "../../../src/index/dial/vault-search";
import { EmbeddingJob } from "../../../src/index/embeddings/embedding-job";
import { loadStoredVectors, ROOT_PART, saveStoredVectors } from "../../../src/index/embeddings/vector-parts";
import { VectorStore } from "../../../src/index/embeddings/vector-store";
import { VaultIndex } from "../../../src/index/vault-index";
import { startStandInServer, type StandInServer } from "../../llm/embeddings/stand-in-embedding-server";
import { standInEmbedder } from "../../support/embedded-vault";
import { ControlledStore } from "../../support/controlled-note-store";
import { MemoryVectorCache, rewriteRoot, rootOf } from "./memory-vector-cache";
import { randomUnitVector } from "./random-vectors";

const MODEL = "ollama:nomic-embed-text";

const NOTES: Record<string, string> = {
  "Recipes/Soup.md": "# Soup\n\nLeek and potato soup with bread.\n",
  "Recipes/Bread.md": "# Bread\n\nFlour, water, salt and time.\n",
  "Pets/Dogs.md": "# Dogs\n\nMy puppy likes long walks in the park.\n",
};

const title = { kind: "title" as const, headingPath: [], line: 1, start: 0, end: 8, text: "A title" };

/** A store of two notes embedded and three left out, one for each reason. */
function storeWithLeftOut(): VectorStore {
  const s = new VectorStore(MODEL);
  s.adoptDimensions(8);
  s.put({ path: "a.md", mtime: 1, size: 10 }, [title], [randomUnitVector(8, 1)]);
  s.put({ path: "b.md", mtime: 2, size: 20 }, [title], [randomUnitVector(8, 2)]);
  s.leaveOut({ path: "Refused.md", mtime: 3, size: 30 }, "server_error");
  s.leaveOut({ path: "Nulls.md", mtime: 4, size: 40 }, "not_a_vector");
  // Edited and refused again: its old vectors stay, the record is of the note as it is now.
  s.leaveOut({ path: "b.md", mtime: 5, size: 21 }, "unreadable");
  return s;
}

describe("notes left out, saved and loaded", () => {
  it("a fresh store loaded from the cache knows which notes were left out, and why", async () => {
    const cache = new MemoryVectorCache();
    const saved = storeWithLeftOut();
    await saveStoredVectors(cache, saved);
    const { store, reset } = await loadStoredVectors(cache, MODEL);
    expect(reset).toBeNull();
    expect(store.size).toBe(2);
    expect(store.leftOutAs({ path: "Refused.md", mtime: 3, size: 30 })).toBe("server_error");
    expect(store.leftOutAs({ path: "Nulls.md", mtime: 4, size: 40 })).toBe("not_a_vector");
    expect(store.leftOutAs({ path: "b.md", mtime: 5, size: 21 })).toBe("unreadable");
    expect(store.note("b.md")).toEqual(saved.note("b.md"));
    // Edited since it was tried: waiting again, as the store's rule says.
    expect(store.leftOutAs({ path: "Refused.md", mtime: 6, size: 30 })).toBeNull();
    expect(store.leftOutAs({ path: "Nulls.md", mtime: 4, size: 41 })).toBeNull();
  });

  it("a root without the list loads the vectors as before, nothing left out, and writes none when none was left out", async () => {
    const cache = new MemoryVectorCache();
    const s = storeWithLeftOut();
    await saveStoredVectors(cache, s);
    await rewriteRoot(cache, ({ leftOut: _, ...older }) => older);
    const { store, reset } = await loadStoredVectors(cache, MODEL);
    expect(reset).toBeNull();
    expect(store.size).toBe(2);
    expect([...store.leftOutNotes()]).toEqual([]);
    const none = new MemoryVectorCache();
    const plain = new VectorStore(MODEL);
    plain.adoptDimensions(8);
    plain.put({ path: "a.md", mtime: 1, size: 10 }, [title], [randomUnitVector(8, 1)]);
    await saveStoredVectors(none, plain);
    expect(Object.keys(rootOf(none))).not.toContain("leftOut");
  });

  it.each([
    ["not a list", () => "Refused.md"],
    ["an entry without its date", () => [{ path: "Refused.md", size: 30, reason: "server_error" }]],
    ["an entry with a size that is no count", () => [{ path: "Refused.md", mtime: 3, size: -1, reason: "server_error" }]],
    ["an entry that is no object", () => [null]],
  ])("a list that is %s is ignored: the vectors load, the record is empty", async (_, malformed) => {
    const cache = new MemoryVectorCache();
    const s = storeWithLeftOut();
    await saveStoredVectors(cache, s);
    await rewriteRoot(cache, (root) => ({ ...root, leftOut: malformed() }));
    const { store, reset } = await loadStoredVectors(cache, MODEL);
    expect(reset).toBeNull();
    expect(store.size).toBe(2);
    for (const note of s.entries()) expect(store.note(note.path)).toEqual(note);
    expect([...store.leftOutNotes()]).toEqual([]);
  });

  it("a reason this version does not know (a newer one's) leaves that note waiting, the others as they were", async () => {
    const cache = new MemoryVectorCache();
    await saveStoredVectors(cache, storeWithLeftOut());
    await rewriteRoot(cache, (root) => ({ ...root, leftOut: [...(root.leftOut as object[]), { path: "Huge.md", mtime: 7, size: 70, reason: "too_long" }] }));
    const { store } = await loadStoredVectors(cache, MODEL);
    expect(store.leftOutAs({ path: "Huge.md", mtime: 7, size: 70 })).toBeNull();
    expect(store.leftOutAs({ path: "Refused.md", mtime: 3, size: 30 })).toBe("server_error");
  });

  it("another model's record goes with its vectors", async () => {
    const cache = new MemoryVectorCache();
    await saveStoredVectors(cache, storeWithLeftOut());
    const { store } = await loadStoredVectors(cache, "ollama:other");
    expect([...store.leftOutNotes()]).toEqual([]);
  });

  it("a note embedded at last leaves the record at the next save", async () => {
    const cache = new MemoryVectorCache();
    const s = storeWithLeftOut();
    await saveStoredVectors(cache, s);
    s.put({ path: "Refused.md", mtime: 3, size: 30 }, [title], [randomUnitVector(8, 3)]);
    await saveStoredVectors(cache, s);
    const { store } = await loadStoredVectors(cache, MODEL);
    expect(store.leftOutAs({ path: "Refused.md", mtime: 3, size: 30 })).toBeNull();
    expect(store.note("Refused.md")).toBeDefined();
    expect(store.leftOutAs({ path: "Nulls.md", mtime: 4, size: 40 })).toBe("not_a_vector");
    expect(cache.parts.has(ROOT_PART)).toBe(true);
  });
});

describe("the dial, over vectors loaded from the cache", () => {
  let server: StandInServer;
  beforeAll(async () => {
    server = await startStandInServer({ dimensions: 32 });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.script = { dimensions: 32 };
  });

  it("says a note the server refused was refused, not that it waits for embedding to catch up", async () => {
    const vault = new ControlledStore();
    for (const [path, text] of Object.entries(NOTES)) vault.write(path, text, 1_000);
    vault.write("Notes/Poisoned.md", "# Poisoned\n\nA word the server chokes on: zqxpoison.\n", 1_000);
    const index = new VaultIndex();
    await index.sync(vault, null);
    const cache = new MemoryVectorCache();
    server.script.nullFor = "zqxpoison";
    const files = index.paths().map((p) => ({ path: p, mtime: index.note(p)!.mtime, size: index.note(p)!.size }));
    expect(await new EmbeddingJob({ store: new VectorStore(), embedder: standInEmbedder(server), notes: vault, cache }).run(files)).toMatchObject({ state: "done", notesDone: 3, refused: { notes: 1 } });
    server.script.nullFor = undefined;
    // Another process: the vectors as the cache holds them, nothing of the run's memory.
    const { store: loaded, reset } = await loadStoredVectors(cache, MODEL);
    expect(reset).toBeNull();
    const response = await new VaultSearch({ index, notes: vault, vectors: loaded, embedder: standInEmbedder(server) }).search({ query: "soup", level: 2 });
    expect(response.notices).toEqual([
      expect.objectContaining({
        kind: "vectors_partial",
        embedded: 3,
        notes: 4,
        waiting: 0,
        refused: 1,
        message: "Vectors cover 3 of 4 notes; the others are found by their words only: 1 the embedding server refused (its answer was not a vector).",
      }),
    ]);
  });
});
