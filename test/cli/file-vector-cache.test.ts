// The vector file adapter: written atomically beside the index cache, read back whole; a missing
// file is an empty store, a damaged or unreadable one an empty store and a reason — never a throw.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileVectorCache, loadVectors, VECTOR_FILE_NAME } from "../../src/cli/file-vector-cache";
import { serializeVectors } from "../../src/index/embeddings/vector-file";
import { VectorStore } from "../../src/index/embeddings/vector-store";

let folder: string;
beforeEach(() => {
  folder = path.join(mkdtempSync(path.join(os.tmpdir(), "vr-vec-")), "index-abc");
});
afterEach(() => rmSync(path.dirname(folder), { recursive: true, force: true }));

function storeWithOneNote(model = "ollama:m"): VectorStore {
  const store = new VectorStore(model);
  store.adoptDimensions(4);
  const unit = { kind: "section" as const, line: 1, start: 0, end: 10, headingPath: ["A"], text: "a" };
  store.put({ path: "A.md", mtime: 1, size: 10 }, [unit], [new Float32Array([1, 0, 0, 0])]);
  return store;
}

describe("FileVectorCache", () => {
  it("saves through a temporary file and loads the same vectors back", async () => {
    const cache = new FileVectorCache(folder);
    expect(await loadVectors(cache, "ollama:m")).toMatchObject({ reset: null });
    await cache.save(serializeVectors(storeWithOneNote()));
    expect(readdirSync(folder)).toEqual([VECTOR_FILE_NAME]);
    const loaded = await loadVectors(cache, "ollama:m");
    expect(loaded.reset).toBeNull();
    expect(loaded.store.size).toBe(1);
    expect(loaded.store.note("A.md")).toMatchObject({ mtime: 1, size: 10 });
  });

  it("fails a save that cannot put the file in place, and takes its temporary file away", async () => {
    const cache = new FileVectorCache(folder);
    mkdirSync(cache.file, { recursive: true });
    await expect(cache.save(serializeVectors(storeWithOneNote()))).rejects.toThrow();
    await expect(cache.save(serializeVectors(storeWithOneNote()))).rejects.toThrow();
    expect(readdirSync(folder)).toEqual([VECTOR_FILE_NAME]);
  });

  // An embed killed mid-save (the out-of-memory killer, SIGKILL) cannot clean up after itself, and
  // its temporary file is as big as the vectors: nothing removed it, one more each time.
  it("removes the temporary file a process that is gone left mid-save, not one of a process still running", async () => {
    mkdirSync(folder, { recursive: true });
    const gone = path.join(folder, `${VECTOR_FILE_NAME}.99999999.tmp`);
    const running = path.join(folder, `${VECTOR_FILE_NAME}.${process.ppid}.tmp`);
    const dayAgo = new Date(Date.now() - 24 * 3600 * 1000);
    for (const file of [gone, running]) {
      writeFileSync(file, "half the vectors");
      utimesSync(file, dayAgo, dayAgo);
    }
    await new FileVectorCache(folder).save(serializeVectors(storeWithOneNote()));
    expect(readdirSync(folder).sort()).toEqual([VECTOR_FILE_NAME, `${VECTOR_FILE_NAME}.${process.ppid}.tmp`]);
  });

  it("another model's vectors are thrown away with the words that say so", async () => {
    const cache = new FileVectorCache(folder);
    await cache.save(serializeVectors(storeWithOneNote("ollama:old")));
    const loaded = await loadVectors(cache, "ollama:new");
    expect(loaded.reset).toMatchObject({ kind: "model_changed", from: "ollama:old", to: "ollama:new", notes: 1 });
    expect(loaded.store.size).toBe(0);
  });

  it("a damaged file or one that cannot be read is an empty store and a reason", async () => {
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, VECTOR_FILE_NAME), "VRV1garbage");
    expect((await loadVectors(new FileVectorCache(folder), "ollama:m")).reset).toMatchObject({ kind: "corrupt" });
    rmSync(path.join(folder, VECTOR_FILE_NAME));
    mkdirSync(path.join(folder, VECTOR_FILE_NAME));
    const unreadable = await loadVectors(new FileVectorCache(folder), "ollama:m");
    expect(unreadable.reset).toMatchObject({ kind: "unreadable" });
    expect(unreadable.store.size).toBe(0);
  });
});
