// The vector files adapter: parts written atomically beside the index cache, read back whole; a
// missing part is none, a damaged or unreadable store an empty store and a reason (the file named) — never a throw.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileVectorCache, loadVectors, VECTOR_FILE_NAME } from "../../src/cli/file-vector-cache";
import { saveStoredVectors } from "../../src/index/embeddings/vector-parts";
import { serializeVectors } from "../../src/index/embeddings/vector-file";
import { VectorStore } from "../../src/index/embeddings/vector-store";
import { UNLISTED_PART_GRACE_MS } from "../../src/index/unlisted-parts";
import { fakeClock } from "../support/fake-clock";
import { hasMkfifo, makeNamedPipe, releaseNamedPipes } from "./named-pipes";

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
  it("saves through temporary files and loads the same vectors back", async () => {
    const cache = new FileVectorCache(folder);
    expect(await loadVectors(cache, "ollama:m")).toMatchObject({ reset: null });
    await saveStoredVectors(cache, storeWithOneNote());
    const files = readdirSync(folder).sort();
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/^vectors-[0-9a-f]{16}-\d+\.bin$/);
    expect(files[1]).toBe(VECTOR_FILE_NAME);
    expect(await cache.storedBytes()).toBeGreaterThan(40 + 40);
    const loaded = await loadVectors(cache, "ollama:m");
    expect(loaded.reset).toBeNull();
    expect(loaded.store.size).toBe(1);
    expect(loaded.store.note("A.md")).toMatchObject({ mtime: 1, size: 10 });
  });

  it("never lists or removes the index's parts, nor takes a name that could leave the folder", async () => {
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, "manifest.v8"), "the index's");
    writeFileSync(path.join(folder, "vectors (1).bin"), "a sync tool's copy");
    const cache = new FileVectorCache(folder);
    await saveStoredVectors(cache, storeWithOneNote());
    await cache.clear();
    expect(readdirSync(folder).sort()).toEqual(["manifest.v8", "vectors (1).bin"]);
    await expect(cache.write("../escape", new Uint8Array([1]))).rejects.toThrow(/not a name/);
  });

  // `vault-research embed` beside the MCP server: each loads the vectors, both save note A, then the
  // first saves again. Parts named after a count of saves gave the second's rows under the first's root.
  it("two processes saving into one folder: the load gives back what the last root's save held", async () => {
    await saveStoredVectors(new FileVectorCache(folder), storeWithOneNote());
    const first = (await loadVectors(new FileVectorCache(folder), "ollama:m")).store;
    const second = (await loadVectors(new FileVectorCache(folder), "ollama:m")).store;
    const unit = { kind: "section" as const, line: 1, start: 0, end: 10, headingPath: ["A"], text: "a" };
    const clock = fakeClock(Date.now());
    first.put({ path: "A.md", mtime: 2, size: 11 }, [unit], [new Float32Array([0, 0, 1, 0])]);
    await saveStoredVectors(new FileVectorCache(folder), first, 0, clock);
    second.put({ path: "A.md", mtime: 3, size: 12 }, [unit], [new Float32Array([0, 1, 0, 0])]);
    await saveStoredVectors(new FileVectorCache(folder), second, 0, clock);
    await saveStoredVectors(new FileVectorCache(folder), first, 0, clock);
    const loaded = await loadVectors(new FileVectorCache(folder), "ollama:m");
    expect([loaded.reset, loaded.store.note("A.md")]).toEqual([null, first.note("A.md")]);
    // The parts the last root does not name stay ten minutes (another process may be about to name
    // them, or loading them), then go.
    expect(readdirSync(folder)).toHaveLength(4);
    clock.advance(UNLISTED_PART_GRACE_MS);
    await saveStoredVectors(new FileVectorCache(folder), first, 0, clock);
    expect(readdirSync(folder)).toHaveLength(2);
  });

  // An embed killed mid-save leaves parts no root names; another embed's save under way has written
  // parts its root does not name yet. The file's date tells them apart.
  it("takes a part no root names away once its file was written ten minutes ago, under the names of earlier versions too", async () => {
    mkdirSync(folder, { recursive: true });
    const leftovers = ["vectors-3-7.bin", "vectors-00112233445566ff-2.bin"];
    const underWay = "vectors-8899aabbccddeeff-2.bin";
    // Whole seconds: every file system keeps them as they are.
    const longAgo = new Date(Math.floor((Date.now() - UNLISTED_PART_GRACE_MS - 60_000) / 1000) * 1000);
    for (const file of [...leftovers, underWay]) writeFileSync(path.join(folder, file), "a part no root names");
    for (const file of leftovers) utimesSync(path.join(folder, file), longAgo, longAgo);
    const cache = new FileVectorCache(folder);
    expect((await cache.names()).sort()).toEqual(["vectors-00112233445566ff-2", "vectors-3-7", "vectors-8899aabbccddeeff-2"]);
    expect(await cache.writtenAt("vectors-3-7")).toBe(longAgo.getTime());
    await saveStoredVectors(cache, storeWithOneNote());
    const parts = readdirSync(folder).filter((f) => f.startsWith("vectors-"));
    expect(parts).toContain(underWay);
    expect(parts.filter((f) => f !== underWay)).toEqual([expect.stringMatching(/^vectors-[0-9a-f]{16}-\d+\.bin$/)]);
  });

  it("fails a save that cannot put the file in place, and takes its temporary file away", async () => {
    const cache = new FileVectorCache(folder);
    mkdirSync(cache.file, { recursive: true });
    await expect(saveStoredVectors(cache, storeWithOneNote())).rejects.toThrow();
    await expect(saveStoredVectors(cache, storeWithOneNote())).rejects.toThrow();
    // The parts the failed saves wrote went with them: nothing but the folder in the root's place.
    expect(readdirSync(folder)).toEqual([VECTOR_FILE_NAME]);
  });

  // An embed killed mid-save (the out-of-memory killer, SIGKILL) cannot clean up after itself.
  it("removes the temporary file a process that is gone left mid-save, not one of a process still running", async () => {
    mkdirSync(folder, { recursive: true });
    const gone = path.join(folder, `vectors-3-7.bin.99999999.tmp`);
    const running = path.join(folder, `${VECTOR_FILE_NAME}.${process.ppid}.tmp`);
    const dayAgo = new Date(Date.now() - 24 * 3600 * 1000);
    for (const file of [gone, running]) {
      writeFileSync(file, "half the vectors");
      utimesSync(file, dayAgo, dayAgo);
    }
    await saveStoredVectors(new FileVectorCache(folder), storeWithOneNote());
    expect(readdirSync(folder).filter((f) => f.endsWith(".tmp"))).toEqual([`${VECTOR_FILE_NAME}.${process.ppid}.tmp`]);
  });

  it("another model's vectors are thrown away with the words that say so", async () => {
    const cache = new FileVectorCache(folder);
    await saveStoredVectors(cache, storeWithOneNote("ollama:old"));
    const loaded = await loadVectors(cache, "ollama:new");
    expect(loaded.reset).toMatchObject({ kind: "model_changed", from: "ollama:old", to: "ollama:new", notes: 1 });
    expect(loaded.store.size).toBe(0);
  });

  it("reads the one file of earlier versions", async () => {
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, VECTOR_FILE_NAME), serializeVectors(storeWithOneNote()));
    expect((await loadVectors(new FileVectorCache(folder), "ollama:m")).store.size).toBe(1);
  });

  it("a part that is there and cannot be read is 'unreadable', naming its file (Node's words for a folder name none)", async () => {
    const cache = new FileVectorCache(folder);
    await saveStoredVectors(cache, storeWithOneNote());
    const part = readdirSync(folder).find((f) => f !== VECTOR_FILE_NAME)!;
    rmSync(path.join(folder, part));
    mkdirSync(path.join(folder, part));
    const loaded = await loadVectors(cache, "ollama:m");
    expect(loaded.reset).toEqual({ kind: "unreadable", detail: `${path.join(folder, part)} is a folder, not a file` });
  });

  it.skipIf(!hasMkfifo)("a named pipe in a part's place is 'unreadable', without waiting on it (skipped where there is no mkfifo)", async () => {
    const cache = new FileVectorCache(folder);
    await saveStoredVectors(cache, storeWithOneNote());
    const part = readdirSync(folder).find((f) => f !== VECTOR_FILE_NAME)!;
    rmSync(path.join(folder, part));
    makeNamedPipe(path.join(folder, part));
    try {
      // A plain read waited for a writer to open the pipe: the search held for ever.
      const loaded = await loadVectors(cache, "ollama:m");
      expect(loaded.reset).toMatchObject({ kind: "unreadable", detail: expect.stringContaining(`${path.join(folder, part)} is `) });
    } finally {
      releaseNamedPipes();
    }
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
