// EmbeddingKeeper when things change under a run, with an embedding client and IndexedDB faked at
// their ports: a backend switched off while the run waits for the index sends nothing; a folder
// excluded mid-run is not sent and its vectors go; vectors that cannot be saved are said once per
// failure episode, in plain words.
import { describe, expect, it } from "vitest";
import type { Embedder, EmbedderAnswer } from "../../src/index/embeddings/embedder";
import type { VectorStore } from "../../src/index/embeddings/vector-store";
import { EmbeddingKeeper } from "../../src/plugin/embedding-keeper";
import { IndexedDbVectorCache } from "../../src/plugin/indexeddb-vector-cache";
import type { NoteFileInfo } from "../../src/ports";
import { defaultSettings, type Settings } from "../../src/settings";
import { MemoryNoteStore } from "../support/memory-note-store";
import { FakeIndexedDb } from "./fake-indexeddb";

const BASE = "http://127.0.0.1:11434";

/** An embedding client at the port: four-dimensional vectors, every text it was sent kept; `hold` keeps calls waiting. */
class RecordingEmbedder implements Embedder {
  readonly name = "ollama:nomic-embed-text";
  readonly sent: string[] = [];
  hold = false;
  private readonly held: (() => void)[] = [];
  async embed(texts: string[]): Promise<EmbedderAnswer> {
    this.sent.push(...texts);
    if (this.hold) await new Promise<void>((resolve) => this.held.push(resolve));
    return { ok: true, dimensions: 4, vectors: texts.map((_, i) => Float32Array.from([1, i % 2, 0, 0]).map((v, _j, a) => v / Math.hypot(...a))) };
  }
  get waiting(): number {
    return this.held.length;
  }
  releaseAll(): void {
    this.hold = false;
    for (const release of this.held.splice(0)) release();
  }
}

function consented(): Settings {
  const settings = defaultSettings();
  settings.search.embedding = { ...settings.search.embedding, kind: "ollama", baseUrl: BASE, requestsPerSecond: 50, consentedTo: `ollama@${BASE}` };
  return settings;
}

function harness(options: { notes: MemoryNoteStore; indexFiles?: () => Promise<NoteFileInfo[]>; mayEmbed?: (path: string) => boolean; idb?: FakeIndexedDb }) {
  let settings = consented();
  const embedder = new RecordingEmbedder();
  const idb = options.idb ?? new FakeIndexedDb();
  const seen = { vectors: null as VectorStore | null, notices: [] as string[] };
  const keeper = new EmbeddingKeeper({
    notes: options.notes,
    cache: new IndexedDbVectorCache("garden", idb.asFactory()),
    clock: { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
    settings: () => settings,
    createEmbedder: async () => embedder,
    indexFiles: options.indexFiles ?? (() => options.notes.list()),
    onVectors: (vectors) => (seen.vectors = vectors),
    onProgress: () => {},
    notify: (message) => seen.notices.push(message),
    ...(options.mayEmbed ? { mayEmbed: options.mayEmbed } : {}),
  });
  const change = (edit: (s: Settings) => void) => {
    settings = structuredClone(settings);
    edit(settings);
    return keeper.applySettings();
  };
  return { keeper, embedder, idb, seen, change };
}

function notesIn(folder: string, count: number, word: string): Record<string, string> {
  const notes: Record<string, string> = {};
  for (let i = 0; i < count; i++) notes[`${folder}/Note ${String(i).padStart(3, "0")}.md`] = `# ${word} ${i}\n\nA note about ${word} number ${i}.\n`;
  return notes;
}

describe("EmbeddingKeeper under change", () => {
  it("sends nothing when embedding is switched off while the run still waits for the index", async () => {
    let indexBuilt: () => void = () => {};
    const built = new Promise<void>((resolve) => (indexBuilt = resolve));
    const notes = new MemoryNoteStore(notesIn("Journal", 5, "diary"));
    const { keeper, embedder, change, seen } = harness({ notes, indexFiles: async () => (await built, notes.list()) });
    await keeper.applySettings(); // the run now waits for the first build
    const off = change((s) => (s.search.embedding.kind = "none"));
    indexBuilt();
    await off;
    await keeper.idle();
    expect(embedder.sent).toEqual([]);
    expect(seen.vectors).toBeNull();
  });

  it("does not send notes of a folder excluded while a run is under way, and drops their vectors after", async () => {
    const notes = new MemoryNoteStore({ ...notesIn("Public", 16, "garden"), ...notesIn("Private", 24, "secret") });
    let excluded = false;
    const indexable = (path: string) => !(excluded && path.startsWith("Private/"));
    const { keeper, embedder, seen } = harness({
      notes,
      indexFiles: async () => (await notes.list()).filter((f) => indexable(f.path)).sort((a, b) => b.path.localeCompare(a.path)),
      mayEmbed: indexable,
    });
    embedder.hold = true;
    await keeper.applySettings();
    await until(() => embedder.waiting > 0); // the first batch (16 Public notes) is with the server
    excluded = true;
    keeper.notesChanged(); // what the index keeper says once the exclusion is applied
    embedder.releaseAll();
    await keeper.idle();
    expect(embedder.sent.join(" ")).not.toMatch(/secret/);
    expect(seen.vectors?.size).toBe(16);
  });

  it("says once per failure episode that the vectors could not be saved, in plain words", async () => {
    const idb = new FakeIndexedDb();
    // 200 notes: saved every 10 batches of 16 and at the end, so one run tries twice.
    const notes = new MemoryNoteStore(notesIn("Notes", 200, "topic"));
    const { keeper, seen } = harness({ notes, idb });
    idb.faults.write = true;
    await keeper.applySettings();
    await keeper.idle();
    expect(seen.notices).toHaveLength(1);
    expect(seen.notices[0]).toBe(
      "Vault Research: the embedding vectors could not be saved on this device (there is no room left for them). They are kept while Obsidian is open and saving is tried again; until it works, a restart embeds those notes again.",
    );

    // Another run, still failing: nothing new to say.
    notes.files.set("Notes/Note 000.md", { text: "# Changed\n\nNew words.\n", mtime: 1_700_000_100_000 });
    keeper.notesChanged();
    await keeper.idle();
    expect(seen.notices).toHaveLength(1);

    // A save that works ends the episode; the next failure is news again.
    idb.faults.write = false;
    notes.files.set("Notes/Note 001.md", { text: "# Changed\n\nOther words.\n", mtime: 1_700_000_200_000 });
    keeper.notesChanged();
    await keeper.idle();
    expect(seen.notices).toHaveLength(1);
    idb.faults.write = true;
    notes.files.set("Notes/Note 002.md", { text: "# Changed\n\nMore words.\n", mtime: 1_700_000_300_000 });
    keeper.notesChanged();
    await keeper.idle();
    expect(seen.notices).toHaveLength(2);
  });

  // The keeper hands the job its own view of the cache; without the parts' write times there, a part
  // a session killed mid-save left went only after two saves of one session ten minutes apart.
  it("a run's save takes away the parts a session killed mid-save wrote more than ten minutes ago", async () => {
    const idb = new FakeIndexedDb();
    const leftover = "vectors-00112233445566ff-3";
    const longAgo = Date.now() - 20 * 60_000;
    await new IndexedDbVectorCache("garden", idb.asFactory(), () => longAgo).write(leftover, new Uint8Array([1, 2, 3]));
    const notes = new MemoryNoteStore(notesIn("Notes", 5, "topic"));
    const { keeper, seen } = harness({ notes, idb });
    await keeper.applySettings();
    await keeper.idle();
    expect(seen.vectors?.size).toBe(5);
    expect(await new IndexedDbVectorCache("garden", idb.asFactory()).names()).not.toContain(leftover);
  });

  it("says nothing of a failed save after it was unloaded", async () => {
    const idb = new FakeIndexedDb();
    const notes = new MemoryNoteStore(notesIn("Notes", 40, "topic"));
    const { keeper, embedder, seen } = harness({ notes, idb });
    idb.faults.write = true;
    embedder.hold = true;
    await keeper.applySettings();
    await until(() => embedder.waiting > 0);
    keeper.dispose(); // the run stops and tries to keep what it has
    embedder.releaseAll();
    await keeper.idle();
    expect(seen.notices).toEqual([]);
  });
});

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
