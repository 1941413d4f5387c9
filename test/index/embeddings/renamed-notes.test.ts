// A folder renamed leaves its notes' text as it was: their vectors follow them to the new names
// instead of every note being sent to the embedding model again (a folder of 3,000 notes was 3,000
// notes' worth of requests, for a paid API real money). Only a note whose units now send other
// text — its title was its old file name, or it was edited too — is embedded again. Over a real
// socket to the stand-in embedding server, with the index moving the notes as the plugin does.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EmbeddingJob } from "../../../src/index/embeddings/embedding-job";
import { embeddingProgressWords } from "../../../src/index/embeddings/progress-words";
import { loadStoredVectors } from "../../../src/index/embeddings/vector-parts";
import { FINGERPRINT_TEXT, VectorStore, type NoteVectors } from "../../../src/index/embeddings/vector-store";
import { VaultIndex } from "../../../src/index/vault-index";
import { ollamaEmbeddingModel } from "../../../src/llm/embeddings/ollama-embedding";
import type { NoteFileInfo } from "../../../src/ports";
import { fetchHttp, startStandInServer, type StandInServer } from "../../llm/embeddings/stand-in-embedding-server";
import { ControlledStore, renameFolder } from "../../support/controlled-note-store";
import { fakeClock, FAKE_NOW } from "../../support/fake-clock";
import { MemoryVectorCache } from "./memory-vector-cache";

/** Well before the fake clock's now: read at FAKE_NOW, these notes are proven by their date and size. */
const WRITTEN = FAKE_NOW - 60_000;

let server: StandInServer;
beforeAll(async () => {
  server = await startStandInServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.script = { dimensions: 64 };
  server.embedCalls.length = 0;
});

const ollama = () => ollamaEmbeddingModel({ http: fetchHttp, model: "nomic-embed-text", baseUrl: server.base, requestsPerSecond: 0, timeoutMs: 5000 });

/** 30 notes in Projects/ (titles from an H1, a property, the file name) and 3 beside them. */
function seededStore(): ControlledStore {
  const store = new ControlledStore();
  for (let i = 0; i < 30; i++) {
    const head = i % 3 === 0 ? `---\ntitle: Study ${i}\n---\n` : i % 3 === 1 ? `# Heading ${i}\n\n` : "";
    store.write(`Projects/Notes ${i}.md`, `${head}About the lighthouse number ${i}.\n\n## Details\n\nMore on keepers ${i}.\n`, WRITTEN);
  }
  for (let i = 0; i < 3; i++) store.write(`Elsewhere ${i}.md`, `# Elsewhere ${i}\n\nThe sourdough starter again.\n`, WRITTEN);
  return store;
}


/** The index's notes as the plugin hands them to the job (search-dial-services.ts). */
function indexFiles(index: VaultIndex): NoteFileInfo[] {
  return index.paths().flatMap((path) => {
    const note = index.note(path);
    return note ? [{ path, mtime: note.mtime, size: note.size }] : [];
  });
}

/** A note's rows and places, without its path and facts: what must be the same after a move. */
function vectorsOf(note: NoteVectors | undefined) {
  return note && { units: note.units, values: Array.from(note.values), textHash: note.textHash };
}

async function embeddedVault(): Promise<{ store: ControlledStore; index: VaultIndex; vectors: VectorStore; cache: MemoryVectorCache }> {
  const store = seededStore();
  const index = new VaultIndex({ clock: fakeClock() });
  await index.sync(store, null);
  const vectors = new VectorStore();
  const cache = new MemoryVectorCache();
  const first = await new EmbeddingJob({ store: vectors, embedder: ollama(), notes: store, cache }).run(indexFiles(index));
  expect(first).toMatchObject({ state: "done", notesDone: 33 });
  server.embedCalls.length = 0;
  return { store, index, vectors, cache };
}

describe("vectors of renamed notes", () => {
  it("follow a renamed folder's notes: nothing of them is sent to the embedding model again", async () => {
    const { store, index, vectors, cache } = await embeddedVault();
    const before = vectorsOf(vectors.note("Projects/Notes 4.md"));
    await index.renameFiles(store, renameFolder(store, "Projects", "Archive/Projects 2024"));

    const progress = await new EmbeddingJob({ store: vectors, embedder: ollama(), notes: store, cache }).run(indexFiles(index));
    expect(progress).toMatchObject({ state: "done", notesDone: 0, notesTotal: 0, notesUnchanged: 33, notesMoved: 30 });
    // Not a request: the model's fingerprint was asked when these vectors were made, this session.
    expect(server.embedCalls).toEqual([]);
    expect(vectors.size).toBe(33);
    expect([...vectors.entries()].filter((n) => n.path.startsWith("Projects/"))).toEqual([]);
    expect(vectorsOf(vectors.note("Archive/Projects 2024/Notes 4.md"))).toEqual(before);
    expect(vectors.nearestNotes(new Float32Array(before!.values.slice(0, 64)).map((x) => x / 127), 1)[0].path).toBe("Archive/Projects 2024/Notes 4.md");
  });

  it("says while it carries vectors to renamed notes that it is moving them, not embedding 0 of a falling count", async () => {
    const { store, index, vectors, cache } = await embeddedVault();
    await index.renameFiles(store, renameFolder(store, "Projects", "Archive"));
    const said: string[] = [];
    const job = new EmbeddingJob({ store: vectors, embedder: ollama(), notes: store, cache, notesPerBatch: 8 });
    job.onProgress((p) => said.push(embeddingProgressWords(p)));
    const progress = await job.run(indexFiles(index));
    expect(said.filter((w) => w.startsWith("Embedding notes"))).toEqual([]);
    expect(said.slice(0, 5)).toEqual([
      "Moving the vectors of renamed notes: 30 to go",
      "Moving the vectors of renamed notes: 22 to go",
      "Moving the vectors of renamed notes: 14 to go",
      "Moving the vectors of renamed notes: 6 to go",
      // Each note read: its count goes, whatever it was.
      expect.stringMatching(/^(Embedded|Moving)/) as unknown as string,
    ]);
    expect(embeddingProgressWords(progress)).toBe("Embedded 0 notes; 33 already up to date (30 renamed, their vectors moved with them).");
  });

  it("saves the moved vectors under the new names, and a load finds them there and nothing to embed", async () => {
    const { store, index, vectors, cache } = await embeddedVault();
    const before = vectorsOf(vectors.note("Projects/Notes 7.md"));
    await index.renameFiles(store, renameFolder(store, "Projects", "Archive"));
    await new EmbeddingJob({ store: vectors, embedder: ollama(), notes: store, cache }).run(indexFiles(index));
    expect(server.embedCalls).toEqual([]);

    const loaded = await loadStoredVectors(cache, "ollama:nomic-embed-text");
    expect(loaded.reset).toBeNull();
    expect([...loaded.store.entries()].map((n) => n.path).sort()).toEqual(indexFiles(index).map((f) => f.path).sort());
    expect(vectorsOf(loaded.store.note("Archive/Notes 7.md"))).toEqual(before);
    server.embedCalls.length = 0;
    const again = await new EmbeddingJob({ store: loaded.store, embedder: ollama(), notes: store, cache }).run(indexFiles(index));
    expect(again).toMatchObject({ state: "done", notesDone: 0, notesUnchanged: 33 });
    // A store loaded anew asks the model's fingerprint once (a model swapped meanwhile), and sends no note.
    expect(server.embeddedTexts()).toEqual([FINGERPRINT_TEXT]);
  });

  it("embeds again a moved note whose title was its old file name, and one edited since", async () => {
    const { store, index, vectors, cache } = await embeddedVault();
    // Renamed, not only moved: Notes 2, 5, 8… take their title from their file name, which changed.
    const renames = renameFolder(store, "Projects", "Archive").map((r) => ({ ...r, path: r.path.replace("Notes", "Papers") }));
    for (const r of renames) {
      store.files.set(r.path, store.files.get(r.oldPath.replace("Projects", "Archive"))!);
      store.files.delete(r.oldPath.replace("Projects", "Archive"));
    }
    store.write("Archive/Papers 3.md", "---\ntitle: Study 3\n---\nRewritten about kites.\n", WRITTEN + 1);
    await index.renameFiles(store, renames);

    const progress = await new EmbeddingJob({ store: vectors, embedder: ollama(), notes: store, cache }).run(indexFiles(index));
    const embeddedTitles = server.embeddedTexts().filter((t) => /^(Papers|Study|Heading) \d+$/.test(t));
    expect(embeddedTitles.sort()).toEqual(["Study 3", ...renames.filter((_, i) => i % 3 === 2).map((r) => r.path.replace(/^Archive\/|\.md$/g, ""))].sort());
    expect(progress).toMatchObject({ state: "done", notesDone: 11, notesMoved: 19, notesUnchanged: 22 });
    expect(vectors.size).toBe(33);
  });

  it("follow notes moved and dated anew (a sync tool, a checkout): their text, read for embedding, proves them the same", async () => {
    const { store, index, vectors, cache } = await embeddedVault();
    const renames = renameFolder(store, "Projects", "Archive");
    for (const { path } of renames) store.write(path, store.files.get(path)!.text, WRITTEN + 5_000);
    await index.renameFiles(store, renames);
    const progress = await new EmbeddingJob({ store: vectors, embedder: ollama(), notes: store, cache }).run(indexFiles(index));
    expect(progress).toMatchObject({ state: "done", notesDone: 0, notesMoved: 30 });
    // Planned to embed, so the run asked the model's fingerprint first: that, and no note.
    expect(server.embeddedTexts()).toEqual([FINGERPRINT_TEXT]);
    expect(vectors.note("Archive/Notes 0.md")).toMatchObject({ mtime: WRITTEN + 5_000 });
  });

  it("a renamed folder's run cancelled midway: the notes not carried yet still follow at the next run", async () => {
    const { store, index, vectors, cache } = await embeddedVault();
    await index.renameFiles(store, renameFolder(store, "Projects", "Archive"));
    // Stopped after its first few notes were carried, as a user's cancel or an unload stops it.
    const job: EmbeddingJob = new EmbeddingJob({ store: vectors, embedder: ollama(), notes: store, cache, notesPerBatch: 4, yieldToUi: async (): Promise<void> => job.cancel() });
    expect(await job.run(indexFiles(index))).toMatchObject({ state: "cancelled", notesMoved: 4 });
    expect(vectors.size).toBe(7);
    const again = await new EmbeddingJob({ store: vectors, embedder: ollama(), notes: store, cache }).run(indexFiles(index));
    expect(again).toMatchObject({ state: "done", notesDone: 0, notesMoved: 26 });
    expect(server.embedCalls).toEqual([]);
    expect(vectors.size).toBe(33);
  });

  it("a renamed folder's run cancelled midway, then another process: the notes not carried yet still follow, nothing sent but the fingerprint", async () => {
    const { store, index, vectors, cache } = await embeddedVault();
    await index.renameFiles(store, renameFolder(store, "Projects", "Archive"));
    const job: EmbeddingJob = new EmbeddingJob({ store: vectors, embedder: ollama(), notes: store, cache, notesPerBatch: 4, yieldToUi: async (): Promise<void> => job.cancel() });
    expect(await job.run(indexFiles(index))).toMatchObject({ state: "cancelled", notesMoved: 4 });

    // The process ended (Ctrl-C, the plugin unloaded): the next one has only what the cancel saved.
    const loaded = await loadStoredVectors(cache, "ollama:nomic-embed-text");
    expect(loaded.reset).toBeNull();
    const again = await new EmbeddingJob({ store: loaded.store, embedder: ollama(), notes: store, cache }).run(indexFiles(index));
    expect(again).toMatchObject({ state: "done", notesDone: 0, notesMoved: 26 });
    expect(server.embeddedTexts()).toEqual([FINGERPRINT_TEXT]);
    expect([...loaded.store.entries()].map((n) => n.path).sort()).toEqual(indexFiles(index).map((f) => f.path).sort());
    // Done, the set-aside vectors go for good: the next load holds the vault's notes only.
    const last = await loadStoredVectors(cache, "ollama:nomic-embed-text");
    expect(last.store.size).toBe(33);
  });

  it("notes moved and dated anew while the server is down: a later process still carries their vectors", async () => {
    const { store, index, cache } = await embeddedVault();
    const renames = renameFolder(store, "Projects", "Archive");
    for (const { path } of renames) store.write(path, store.files.get(path)!.text, WRITTEN + 5_000);
    await index.renameFiles(store, renames);
    const down = ollamaEmbeddingModel({ http: fetchHttp, model: "nomic-embed-text", baseUrl: "http://127.0.0.1:9", requestsPerSecond: 0, timeoutMs: 5000 });
    const failed = await new EmbeddingJob({ store: (await loadStoredVectors(cache, down.name)).store, embedder: down, notes: store, cache }).run(indexFiles(index));
    // Planned to embed (their dates changed), so the fingerprint comes first, and it could not be asked.
    expect(failed.state).toBe("failed");

    const loaded = await loadStoredVectors(cache, "ollama:nomic-embed-text");
    const again = await new EmbeddingJob({ store: loaded.store, embedder: ollama(), notes: store, cache }).run(indexFiles(index));
    expect(again).toMatchObject({ state: "done", notesDone: 0, notesMoved: 30 });
    expect(server.embeddedTexts()).toEqual([FINGERPRINT_TEXT]);
  });

  it("does not give a new note the vectors of one that went with its date and size but other text", async () => {
    const { store, index, vectors, cache } = await embeddedVault();
    const gone = store.files.get("Elsewhere 1.md")!;
    store.files.delete("Elsewhere 1.md");
    index.removeFile("Elsewhere 1.md");
    // As long, as old, other words: only the text tells it from a rename.
    store.write("Fresh.md", gone.text.replace("sourdough", "porridges"), gone.mtime);
    await index.updateFile(store, "Fresh.md");
    const progress = await new EmbeddingJob({ store: vectors, embedder: ollama(), notes: store, cache }).run(indexFiles(index));
    expect(progress).toMatchObject({ state: "done", notesDone: 1, notesMoved: 0 });
    expect(server.embeddedTexts()).toContain("Elsewhere 1\n\nThe porridges starter again.");
  });

  it("a server that is down stops no renamed note's vectors from following", async () => {
    const { store, index, cache } = await embeddedVault();
    await index.renameFiles(store, renameFolder(store, "Projects", "Archive"));
    const down = ollamaEmbeddingModel({ http: fetchHttp, model: "nomic-embed-text", baseUrl: "http://127.0.0.1:9", requestsPerSecond: 0, timeoutMs: 5000 });
    const loaded = await loadStoredVectors(cache, down.name);
    const progress = await new EmbeddingJob({ store: loaded.store, embedder: down, notes: store, cache }).run(indexFiles(index));
    // Its fingerprint could not be asked; with nothing left to embed, that stops nothing.
    expect(progress).toMatchObject({ state: "done", notesMoved: 30, notesDone: 0 });
    expect((await loadStoredVectors(cache, down.name)).store.note("Archive/Notes 0.md")).toBeDefined();
  });
});
