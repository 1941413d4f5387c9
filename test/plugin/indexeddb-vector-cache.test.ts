// The vectors' IndexedDB cache: parts of bytes in, the same bytes out, in a database of their own
// per vault, so the index cache's clear and tidy-up never touch them; a failed write rejects.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { IndexedDbCache } from "../../src/plugin/indexeddb-cache";
import { loadStoredVectors, saveStoredVectors } from "../../src/index/embeddings/vector-parts";
import { VectorStore } from "../../src/index/embeddings/vector-store";
import { IndexedDbVectorCache } from "../../src/plugin/indexeddb-vector-cache";
import { UNLISTED_PART_GRACE_MS } from "../../src/index/unlisted-parts";
import { FakeIndexedDb } from "./fake-indexeddb";

let warnings: string[];

beforeEach(() => {
  warnings = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warnings.push(args.map(String).join(" ")));
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("IndexedDbVectorCache", () => {
  it("keeps the bytes across instances (a restart), per vault", async () => {
    const idb = new FakeIndexedDb();
    await new IndexedDbVectorCache("garden", idb.asFactory()).write("vectors", new Uint8Array([86, 82, 86, 49, 1, 2, 3]));
    expect(await new IndexedDbVectorCache("garden", idb.asFactory()).read("vectors")).toEqual(new Uint8Array([86, 82, 86, 49, 1, 2, 3]));
    expect(await new IndexedDbVectorCache("kitchen", idb.asFactory()).read("vectors")).toBeNull();
  });

  it("lives in its own database: clearing the index cache leaves the vectors, and the index never lists them", async () => {
    const idb = new FakeIndexedDb();
    const vectors = new IndexedDbVectorCache("garden", idb.asFactory());
    const index = new IndexedDbCache("garden", idb.asFactory());
    await vectors.write("vectors", new Uint8Array([1, 2, 3]));
    await index.write("manifest", { version: 1 });
    expect(await index.names()).toEqual(["manifest"]);
    await index.clear();
    expect(await vectors.read("vectors")).toEqual(new Uint8Array([1, 2, 3]));
    await vectors.clear();
    expect(await vectors.read("vectors")).toBeNull();
    expect([...idb.databases.keys()].sort()).toEqual(["vault-research-cache/garden", "vault-research-vectors/garden"]);
  });

  it("rejects a failed write (the job reports the save as not done) and names the vectors in the warning", async () => {
    const idb = new FakeIndexedDb();
    const vectors = new IndexedDbVectorCache("garden", idb.asFactory());
    idb.faults.write = true;
    await expect(vectors.write("vectors", new Uint8Array([1]))).rejects.toThrow(/Quota/);
    expect(warnings.join("\n")).toMatch(/could not save the stored vectors/);
  });

  // Read as "nothing stored", the next save would put a few notes' vectors over hours of embedding.
  it("rejects a load, saying the stored vectors are kept, when IndexedDB cannot be opened or the read fails", async () => {
    const idb = new FakeIndexedDb();
    await new IndexedDbVectorCache("garden", idb.asFactory()).write("vectors", new Uint8Array([1, 2, 3]));
    idb.faults.open = "error";
    await expect(new IndexedDbVectorCache("garden", idb.asFactory()).read("vectors")).rejects.toThrow(/^the stored vectors could not be read \(.*\); they are kept/);
    idb.faults.open = undefined;
    idb.faults.read = true;
    await expect(new IndexedDbVectorCache("garden", idb.asFactory()).read("vectors")).rejects.toThrow(/they are kept/);
    idb.faults.read = false;
    expect(await new IndexedDbVectorCache("garden", idb.asFactory()).read("vectors")).toEqual(new Uint8Array([1, 2, 3]));
  });

  it("loads nothing on a device without IndexedDB, where nothing was ever stored", async () => {
    expect(await new IndexedDbVectorCache("garden", undefined).read("vectors")).toBeNull();
  });

  // Hours of embedding would otherwise be "saved" into nothing, and the keeper's notice that the
  // vectors cannot be saved (one per episode of failed saves) would never come.
  it("rejects a save when IndexedDB cannot be opened", async () => {
    const idb = new FakeIndexedDb();
    idb.faults.open = "error";
    await expect(new IndexedDbVectorCache("garden", idb.asFactory()).write("vectors", new Uint8Array([1]))).rejects.toThrow(/the stored vectors could not be opened/);
  });

  it("keeps the vectors as parts, the root under the key the one blob of earlier versions had", async () => {
    const idb = new FakeIndexedDb();
    const store = new VectorStore("ollama:m");
    store.adoptDimensions(4);
    const unit = { kind: "section" as const, line: 1, start: 0, end: 10, headingPath: ["A"], text: "a" };
    store.put({ path: "A.md", mtime: 1, size: 10 }, [unit], [new Float32Array([0.6, -0.8, 0, 0])]);
    await saveStoredVectors(new IndexedDbVectorCache("garden", idb.asFactory()), store);
    const records = idb.databases.get("vault-research-vectors/garden")!.stores.get("index")!;
    expect([...records.keys()].sort()).toEqual(["v2/vectors", expect.stringMatching(/^v2\/vectors-[0-9a-f]{16}-\d+$/), "written-at-v2/vectors", expect.stringMatching(/^written-at-v2\/vectors-[0-9a-f]{16}-\d+$/)]);
    const loaded = await loadStoredVectors(new IndexedDbVectorCache("garden", idb.asFactory()), "ollama:m");
    expect([loaded.reset, loaded.store.note("A.md")]).toEqual([null, store.note("A.md")]);
  });

  // A session killed mid-save (Obsidian quit, the plugin reloaded) leaves parts no root names. Dated only
  // by when a save first found them, they went only after two saves of one session ten minutes apart.
  it("dates each part, so the next session's first save takes away the parts a session killed mid-save wrote ten minutes ago", async () => {
    const idb = new FakeIndexedDb();
    let now = 1_800_000_000_000;
    const clock = () => now;
    const store = new VectorStore("ollama:m");
    store.adoptDimensions(4);
    const unit = { kind: "section" as const, line: 1, start: 0, end: 10, headingPath: ["A"], text: "a" };
    store.put({ path: "A.md", mtime: 1, size: 10 }, [unit], [new Float32Array([0.6, -0.8, 0, 0])]);
    await saveStoredVectors(new IndexedDbVectorCache("garden", idb.asFactory(), clock), store, 0, { now: clock });
    const killed = new IndexedDbVectorCache("garden", idb.asFactory(), clock);
    await killed.write("vectors-00112233445566ff-3", new Uint8Array([1, 2, 3]));
    expect(await killed.writtenAt("vectors-00112233445566ff-3")).toBe(now);
    now += UNLISTED_PART_GRACE_MS;
    const next = new IndexedDbVectorCache("garden", idb.asFactory(), clock);
    const loaded = await loadStoredVectors(next, "ollama:m");
    await saveStoredVectors(next, loaded.store, 0, { now: clock });
    expect(await next.names()).not.toContain("vectors-00112233445566ff-3");
    const records = idb.databases.get("vault-research-vectors/garden")!.stores.get("index")!;
    expect([...records.keys()].map(String).filter((key) => key.includes("00112233445566ff"))).toEqual([]);
  });

  // Taken for "no parts", a save with no list of what is stored would write over parts the root names.
  it("rejects a listing of the parts that fails", async () => {
    const idb = new FakeIndexedDb();
    const vectors = new IndexedDbVectorCache("garden", idb.asFactory());
    await vectors.write("vectors-1-0", new Uint8Array([1]));
    expect(await vectors.names()).toEqual(["vectors-1-0"]);
    idb.faults.read = true;
    await expect(vectors.names()).rejects.toThrow();
  });
});
