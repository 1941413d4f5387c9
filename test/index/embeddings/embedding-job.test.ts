// The embedding job: incremental re-embedding by the index's path/mtime/size diff, invalidation
// on a model or dimension change, progress (done / total / rate / ETA), pause, resume, cancel,
// and a restart that picks up from the stored vectors. Over a real socket to the stand-in
// embedding server where it matters, with a scripted embedder where timing must be exact.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Embedder, EmbedderAnswer } from "../../../src/index/embeddings/embedder";
import { EmbeddingJob, type EmbeddingProgress } from "../../../src/index/embeddings/embedding-job";
import { embeddingProgressWords } from "../../../src/index/embeddings/progress-words";
import { unitLength } from "../../../src/index/embeddings/quantize";
import { readVectors, serializeVectors } from "../../../src/index/embeddings/vector-file";
import { loadStoredVectors } from "../../../src/index/embeddings/vector-parts";
import { FINGERPRINT_TEXT, VectorStore } from "../../../src/index/embeddings/vector-store";
import { ollamaEmbeddingModel } from "../../../src/llm/embeddings/ollama-embedding";
import { partOrder } from "../../../src/index/vault-language/note-vector-file";
import type { Clock, Http, NoteFileInfo } from "../../../src/ports";
import { fetchHttp, hashedVector, startStandInServer, type StandInServer } from "../../llm/embeddings/stand-in-embedding-server";
import { fakeClock } from "../../support/fake-clock";
import { MemoryNoteStore } from "../../support/memory-note-store";
import { MemoryVectorCache, rootOf } from "./memory-vector-cache";
import { rewriteVectorHeader } from "./rewrite-vector-header";

let server: StandInServer;
beforeAll(async () => {
  server = await startStandInServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.script = { dimensions: 64 };
  server.embedCalls.length = 0;
});

function vault(count: number): MemoryNoteStore {
  const notes: Record<string, string> = {};
  for (let i = 0; i < count; i++) notes[`Notes/Note ${i}.md`] = `# Note ${i}\n\nBody of note number ${i}.\n\n## Part\n\nMore words ${i}.\n`;
  return new MemoryNoteStore(notes);
}

function storedBytes(cache: MemoryVectorCache): number {
  let total = 0;
  for (const bytes of cache.parts.values()) total += bytes.length;
  return total;
}

/** "Note 3" for "Notes/Note 3.md": the title the stand-in server is sent first for it. */
function titleOf(path: string): string {
  return path.replace(/^Notes\//, "").replace(/\.md$/, "");
}

function inPartOrder(files: readonly NoteFileInfo[]): string[] {
  return files.map((f) => f.path).sort((a, b) => partOrder(a) - partOrder(b));
}

const firstInPartOrder = (files: readonly NoteFileInfo[]): string => inPartOrder(files)[0];
const lastInPartOrder = (files: readonly NoteFileInfo[]): string => inPartOrder(files).at(-1)!;

const ollama = (model = "nomic-embed-text") => ollamaEmbeddingModel({ http: fetchHttp, model, baseUrl: server.base, requestsPerSecond: 0, timeoutMs: 5000 });

/** An embedder in memory whose every call of a batch takes `msPerCall` on the given clock (the run's fingerprint none). */
function scriptedEmbedder(clock: { advance(ms: number): void }, msPerCall = 1000): Embedder & { calls: number } {
  const embedder = {
    name: "scripted:m",
    calls: 0,
    async embed(texts: string[]): Promise<EmbedderAnswer> {
      embedder.calls++;
      if (texts[0] !== FINGERPRINT_TEXT) clock.advance(msPerCall);
      return { ok: true, vectors: texts.map((t) => unitLength(hashedVector(t, 8))), dimensions: 8 };
    },
  };
  return embedder;
}

describe("embedding job", () => {
  it("embeds every note, then only the notes that changed, and drops the vectors of notes that went", async () => {
    const notes = vault(6);
    const store = new VectorStore();
    const first = await new EmbeddingJob({ store, embedder: ollama(), notes, notesPerBatch: 4 }).run(await notes.list());
    // Title, outline ("Part"), and two sections each.
    expect(first).toMatchObject({ state: "done", notesDone: 6, notesTotal: 6, unitsDone: 6 * 4 });
    // The model's fingerprint first, then the notes.
    expect(server.embedCalls.map((c) => c.input.length)).toEqual([1, 16, 8]);

    server.embedCalls.length = 0;
    notes.files.set("Notes/Note 2.md", { text: "# Note 2\n\nRewritten about brakes.\n", mtime: 1_800_000_000_000 });
    notes.files.delete("Notes/Note 5.md");
    const second = await new EmbeddingJob({ store, embedder: ollama(), notes }).run(await notes.list());
    expect(second).toMatchObject({ state: "done", notesDone: 1, notesTotal: 1, notesUnchanged: 4, resets: [] });
    expect(server.embeddedTexts()).toEqual([FINGERPRINT_TEXT, "Note 2", "Note 2\n\nRewritten about brakes."]);
    expect(store.note("Notes/Note 5.md")).toBeUndefined();
    expect(store.size).toBe(5);
  });

  it("another embedding model invalidates every stored vector, says so, and embeds them all again", async () => {
    const notes = vault(3);
    const store = new VectorStore();
    await new EmbeddingJob({ store, embedder: ollama("nomic-embed-text"), notes }).run(await notes.list());
    server.embedCalls.length = 0;
    const progress = await new EmbeddingJob({ store, embedder: ollama("mxbai-embed-large"), notes }).run(await notes.list());
    expect(progress.resets).toEqual([{ kind: "model_changed", from: "ollama:nomic-embed-text", to: "ollama:mxbai-embed-large", notes: 3 }]);
    expect(progress).toMatchObject({ state: "done", notesDone: 3, notesUnchanged: 0 });
    expect(server.embedCalls.every((c) => c.model === "mxbai-embed-large")).toBe(true);
    expect(store.model).toBe("ollama:mxbai-embed-large");
  });

  it("a model that starts answering with another number of dimensions invalidates the old vectors too", async () => {
    const notes = vault(4);
    const store = new VectorStore();
    await new EmbeddingJob({ store, embedder: ollama(), notes }).run(await notes.list());
    notes.files.set("Notes/Note 0.md", { text: "# Note 0\n\nchanged", mtime: 1_800_000_000_000 });
    server.script.dimensions = 32;
    const progress = await new EmbeddingJob({ store, embedder: ollama(), notes, notesPerBatch: 1 }).run(await notes.list());
    expect(progress.resets).toEqual([{ kind: "dimension_changed", from: 64, to: 32, notes: 4 }]);
    expect(progress.state).toBe("done");
    expect(store.dimensions).toBe(32);
    expect(store.size).toBe(4);
    for (const note of store.entries()) expect(note.values.length).toBe((note.units.length + 1) * 32);
  });

  it("another model behind the same name and dimensions invalidates the old vectors instead of mixing them with its own", async () => {
    const notes = vault(4);
    const cache = new MemoryVectorCache();
    await new EmbeddingJob({ store: new VectorStore(), embedder: ollama(), notes, cache }).run(await notes.list());
    // The server now answers with another model of 64 dimensions too (llama.cpp ignores the model's name).
    server.script.variant = 1;
    notes.files.set("Notes/Note 0.md", { text: "# Note 0\n\nchanged", mtime: 1_800_000_000_000 });
    const loaded = (await loadStoredVectors(cache, "ollama:nomic-embed-text"));
    expect(loaded.reset).toBeNull();
    const progress = await new EmbeddingJob({ store: loaded.store, embedder: ollama(), notes, cache }).run(await notes.list());
    expect(progress.resets).toEqual([{ kind: "model_swapped", model: "ollama:nomic-embed-text", notes: 4 }]);
    expect(progress).toMatchObject({ state: "done", notesDone: 4, notesTotal: 4, notesUnchanged: 0 });
    // Every stored vector is the new model's: a note's title finds itself again.
    for (let i = 0; i < 4; i++) expect(loaded.store.nearestNotes(unitLength(hashedVector(`Note ${i}`, 64, 1)), 1)[0].path).toBe(`Notes/Note ${i}.md`);
    // The same model next time: only what changed, nothing thrown away.
    notes.files.set("Notes/Note 1.md", { text: "# Note 1\n\nchanged", mtime: 1_800_000_000_000 });
    const again = await new EmbeddingJob({ store: (await loadStoredVectors(cache, "ollama:nomic-embed-text")).store, embedder: ollama(), notes }).run(await notes.list());
    expect(again).toMatchObject({ state: "done", notesDone: 1, notesUnchanged: 3, resets: [] });
  });

  // Taken for another model's answer, zeros threw every stored vector away; kept as the fingerprint,
  // they threw the next run's away too, once the server answered rightly again.
  it("a server that answers the fingerprint with zeros stops the run and throws nothing away", async () => {
    const notes = vault(4);
    const cache = new MemoryVectorCache();
    await new EmbeddingJob({ store: new VectorStore(), embedder: ollama(), notes, cache }).run(await notes.list());
    const loaded = await loadStoredVectors(cache, "ollama:nomic-embed-text");
    notes.files.set("Notes/Note 0.md", { text: "# Note 0\n\nchanged", mtime: 1_800_000_000_000 });
    const zeros: Embedder = { name: "ollama:nomic-embed-text", embed: async (texts) => ({ ok: true, vectors: texts.map(() => new Float32Array(64)), dimensions: 64 }) };
    const progress = await new EmbeddingJob({ store: loaded.store, embedder: zeros, notes, cache }).run(await notes.list());
    expect(progress).toMatchObject({ state: "failed", resets: [], error: { kind: "parse" } });
    expect(progress.error?.message).toContain("zeros");
    expect(loaded.store.size).toBe(4);
    // The server answers rightly again: nothing thrown away then either.
    const again = await new EmbeddingJob({ store: (await loadStoredVectors(cache, "ollama:nomic-embed-text")).store, embedder: ollama(), notes, cache }).run(await notes.list());
    expect(again).toMatchObject({ state: "done", resets: [], notesDone: 1, notesUnchanged: 3 });
  });

  // Taken mid-run for a model swapped, one batch a balancer sent to another model threw every stored
  // vector away (hours of embedding), and the save at the end put that on disk.
  it("a batch answered with other dimensions than the run's fingerprint stops the run and throws nothing away", async () => {
    const notes = vault(4);
    const cache = new MemoryVectorCache();
    await new EmbeddingJob({ store: new VectorStore(), embedder: scriptedEmbedder(fakeClock(), 0), notes, cache }).run(await notes.list());
    notes.files.set("Notes/Note 0.md", { text: "# Note 0\n\nchanged", mtime: 1_800_000_000_000 });
    // The fingerprint as before (8 dimensions), the notes from another model (16).
    const twoModels: Embedder = {
      name: "scripted:m",
      embed: async (texts) => {
        const d = texts[0] === FINGERPRINT_TEXT ? 8 : 16;
        return { ok: true, vectors: texts.map((t) => unitLength(hashedVector(t, d))), dimensions: d };
      },
    };
    const loaded = await loadStoredVectors(cache, "scripted:m");
    const progress = await new EmbeddingJob({ store: loaded.store, embedder: twoModels, notes, cache }).run(await notes.list());
    expect(progress).toMatchObject({ state: "failed", resets: [], error: { kind: "dimension_mismatch" } });
    expect(progress.error?.message).toContain("16 dimensions where it answered 8");
    expect([loaded.store.size, loaded.store.dimensions]).toEqual([4, 8]);
    expect((await loadStoredVectors(cache, "scripted:m")).store.size).toBe(4);
  });

  it("after an update that cuts notes differently, reads each note again and embeds only those whose units now send other text", async () => {
    const notes = vault(6);
    const cache = new MemoryVectorCache();
    const store = new VectorStore();
    await new EmbeddingJob({ store, embedder: ollama(), notes, cache }).run(await notes.list());
    // As an older version would have left them: every note cut another way, and note 4's units
    // made from a text this version would no longer send.
    // The note the job checks last (it goes part by part: `partOrder`).
    const changed = lastInPartOrder(await notes.list());
    const older = rewriteVectorHeader(serializeVectors(store), (h) => ({ ...h, notes: h.notes.map((n) => ({ ...n, cut: "10.1", hash: n.path === changed ? "0123456789abcdef" : n.hash })) }));
    const loaded = readVectors(older, "ollama:nomic-embed-text");
    expect(loaded.reset).toBeNull();
    notes.files.set("Notes/New.md", { text: "# New\n\nA note added since.\n", mtime: 1_800_000_000_000 });
    server.embedCalls.length = 0;
    const seen: EmbeddingProgress[] = [];
    const job = new EmbeddingJob({ store: loaded.store, embedder: ollama(), notes, cache, notesPerBatch: 2 });
    job.onProgress((p) => seen.push(p));
    const progress = await job.run(await notes.list());
    expect(progress).toMatchObject({ state: "done", notesRechecked: 6, notesDone: 2, notesUnchanged: 5, notesTotal: 2, checksLeft: 0, resets: [] });
    // The notes to check come first, then the new one.
    expect(server.embeddedTexts().filter((t) => /^(Note \d+|New)$/.test(t))).toEqual([titleOf(changed), "New"]);
    // The total starts at every note to read and falls as notes are found unchanged; the status says it is checking meanwhile.
    const running = seen.filter((p) => p.state === "running");
    expect(running.map((p) => [p.checksLeft, p.notesTotal])).toEqual([
      [6, 7],
      [4, 5],
      [2, 3],
      [0, 2],
      [0, 2],
    ]);
    expect(embeddingProgressWords(running[0])).toBe("Checking notes after an update: 6 to go");
    // Saved as this version's: the next run reads nothing again.
    server.embedCalls.length = 0;
    const again = await new EmbeddingJob({ store: (await loadStoredVectors(cache, "ollama:nomic-embed-text")).store, embedder: ollama(), notes }).run(await notes.list());
    expect(again).toMatchObject({ notesRechecked: 0, notesDone: 0, notesUnchanged: 7 });
    // Only the model's fingerprint is asked for.
    expect(server.embeddedTexts()).toEqual([FINGERPRINT_TEXT]);
    // A second run over the same loaded vectors with nothing to embed (the plugin's after its build) asks nothing.
    server.embedCalls.length = 0;
    const reloaded = (await loadStoredVectors(cache, "ollama:nomic-embed-text")).store;
    await new EmbeddingJob({ store: reloaded, embedder: ollama(), notes }).run(await notes.list());
    await new EmbeddingJob({ store: reloaded, embedder: ollama(), notes }).run(await notes.list());
    expect(server.embeddedTexts()).toEqual([FINGERPRINT_TEXT]);
  });

  it("vectors kept before their text was fingerprinted are all embedded again, and serve until each is", async () => {
    const notes = vault(3);
    const cache = new MemoryVectorCache();
    const first = new VectorStore();
    await new EmbeddingJob({ store: first, embedder: ollama(), notes, cache }).run(await notes.list());
    // A file of the one-blob format (VRV1), as an older version left it.
    const older = rewriteVectorHeader(serializeVectors(first), (h) => ({ ...h, notes: h.notes.map(({ cut: _cut, hash: _hash, ...rest }) => rest) }));
    const store = readVectors(older, "ollama:nomic-embed-text").store;
    expect(store.nearestNotes(unitLength(hashedVector("Note 1", 64)), 1)[0].path).toBe("Notes/Note 1.md");
    server.embedCalls.length = 0;
    const progress = await new EmbeddingJob({ store, embedder: ollama(), notes }).run(await notes.list());
    expect(progress).toMatchObject({ notesRechecked: 3, notesDone: 3, notesUnchanged: 0 });
  });

  it("a note longer than the index's limit is embedded by the part the index indexed", async () => {
    const notes = new MemoryNoteStore({ "Long.md": `# Long\n\n${"word ".repeat(40)}TAIL` });
    await new EmbeddingJob({ store: new VectorStore(), embedder: ollama(), notes, maxNoteChars: 60 }).run(await notes.list());
    const texts = server.embeddedTexts();
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.some((t) => t.includes("TAIL"))).toBe(false);
    expect(texts.some((t) => t.includes("word"))).toBe(true);
  });

  // In the index's order, the notes embedded between two saves fell into nearly every part, so each
  // save of a first embedding rewrote almost all of them: 8,000 notes wrote 20 times what they take.
  it("a first embedding writes the vectors' parts about once each, not once a save", async () => {
    const clock = fakeClock();
    const notes = vault(1_280);
    const cache = new MemoryVectorCache();
    // A save every 32 notes: 40 saves, over 64 parts of about 20 notes.
    const progress = await new EmbeddingJob({ store: new VectorStore(), embedder: scriptedEmbedder(clock, 0), notes, cache, notesPerBatch: 8, saveEveryBatches: 4 }).run(await notes.list());
    expect(progress).toMatchObject({ state: "done", notesDone: 1_280 });
    expect(cache.saves).toBeGreaterThanOrEqual(40);
    expect(cache.bytesWritten).toBeLessThan(2 * storedBytes(cache));
  });

  it("a first embedding lays the vectors' parts out for the whole vault from its first save", async () => {
    const clock = fakeClock();
    const notes = vault(40_000);
    const cache = new MemoryVectorCache();
    const job = new EmbeddingJob({ store: new VectorStore(), embedder: scriptedEmbedder(clock, 0), notes, cache, notesPerBatch: 16, saveEveryBatches: 1 });
    job.onProgress(() => {
      if (cache.saves === 1) job.cancel();
    });
    expect(await job.run(await notes.list())).toMatchObject({ state: "cancelled" });
    // 256 parts hold 40,000 notes; 64 (what a few notes get) would all be written again at 38,400.
    expect(rootOf(cache).buckets).toBe(256);
  });

  it("reading every note again after an update writes the vectors' parts about once each too", async () => {
    const clock = fakeClock();
    const notes = vault(1_280);
    const first = new VectorStore();
    await new EmbeddingJob({ store: first, embedder: scriptedEmbedder(clock, 0), notes, notesPerBatch: 64 }).run(await notes.list());
    const older = rewriteVectorHeader(serializeVectors(first), (h) => ({ ...h, notes: h.notes.map((n) => ({ ...n, cut: "10.1" })) }));
    const cache = new MemoryVectorCache();
    const progress = await new EmbeddingJob({ store: readVectors(older, "scripted:m").store, embedder: scriptedEmbedder(clock, 0), notes, cache, notesPerBatch: 8, saveEveryBatches: 4 }).run(await notes.list());
    expect(progress).toMatchObject({ state: "done", notesRechecked: 1_280, notesUnchanged: 1_280, notesDone: 0 });
    // The first save writes every part (the one-blob file had none); each later one the few checked since.
    expect(cache.saves).toBeGreaterThanOrEqual(40);
    expect(cache.bytesWritten).toBeLessThan(3 * storedBytes(cache));
  });

  it("reports notes done, total, rate and ETA after every batch", async () => {
    const clock = fakeClock();
    const notes = vault(6);
    const seen: EmbeddingProgress[] = [];
    const job = new EmbeddingJob({ store: new VectorStore(), embedder: scriptedEmbedder(clock), notes, clock, notesPerBatch: 2 });
    job.onProgress((p) => seen.push(p));
    await job.run(await notes.list());
    const afterBatches = seen.filter((p) => p.state === "running" && p.notesDone > 0);
    expect(afterBatches.map((p) => [p.notesDone, p.notesTotal, p.notesPerSecond, p.etaMs])).toEqual([
      [2, 6, 2, 2000],
      [4, 6, 2, 1000],
      [6, 6, 2, 0],
    ]);
    expect(seen.at(-1)).toMatchObject({ state: "done", notesDone: 6, etaMs: 0 });
  });

  it("keeps its rate and time left when the wall clock is set back an hour or forward a day during a batch", async () => {
    for (const step of [-3_600_000, 24 * 3_600_000]) {
      const clock = fakeClock();
      const notes = vault(6);
      const embedder = scriptedEmbedder(clock);
      const seen: EmbeddingProgress[] = [];
      const job = new EmbeddingJob({ store: new VectorStore(), embedder, notes, clock, notesPerBatch: 2 });
      job.onProgress((p) => {
        seen.push(p);
        if (p.notesDone === 2 && seen.filter((s) => s.notesDone === 2).length === 1) clock.set(clock.now() + step);
      });
      await job.run(await notes.list());
      const afterBatches = seen.filter((p) => p.state === "running" && p.notesDone > 0);
      expect(afterBatches.map((p) => [p.notesDone, p.notesPerSecond, p.etaMs])).toEqual([
        [2, 2, 2000],
        [4, 2, 1000],
        [6, 2, 0],
      ]);
    }
  });

  it("pauses between batches, leaves paused time out of the rate, and resumes where it stopped", async () => {
    const clock = fakeClock();
    const notes = vault(6);
    const embedder = scriptedEmbedder(clock);
    const job = new EmbeddingJob({ store: new VectorStore(), embedder, notes, clock, notesPerBatch: 2 });
    let paused = false;
    job.onProgress((p) => {
      if (p.notesDone === 2 && !paused) {
        paused = true;
        job.pause();
      }
    });
    const running = job.run(await notes.list());
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(job.progress().state).toBe("paused");
    // The fingerprint and the first batch.
    expect(embedder.calls).toBe(2);
    clock.advance(60_000);
    job.resume();
    const done = await running;
    expect(done).toMatchObject({ state: "done", notesDone: 6, notesPerSecond: 2 });
    expect(embedder.calls).toBe(4);
  });

  it("cancel keeps and saves what was embedded; after a restart a new job embeds only the rest", async () => {
    const notes = vault(8);
    const cache = new MemoryVectorCache();
    const job = new EmbeddingJob({ store: new VectorStore(), embedder: ollama(), notes, cache, notesPerBatch: 3 });
    job.onProgress((p) => {
      if (p.notesDone === 3) job.cancel();
    });
    const cancelled = await job.run(await notes.list());
    expect(cancelled).toMatchObject({ state: "cancelled", notesDone: 3, notesTotal: 8 });
    expect(cache.saves).toBeGreaterThan(0);

    // A restart: nothing in memory, only the cache.
    server.embedCalls.length = 0;
    const loaded = await loadStoredVectors(cache, "ollama:nomic-embed-text");
    expect([loaded.reset, loaded.store.size]).toEqual([null, 3]);
    const kept = new Set(Array.from(loaded.store.entries(), (n) => titleOf(n.path)));
    const resumed = await new EmbeddingJob({ store: loaded.store, embedder: ollama(), notes, cache }).run(await notes.list());
    expect(resumed).toMatchObject({ state: "done", notesDone: 5, notesTotal: 5, notesUnchanged: 3 });
    const rest = Array.from({ length: 8 }, (_, i) => `Note ${i}`).filter((title) => !kept.has(title));
    expect(new Set(server.embeddedTexts().filter((t) => /^Note \d+$/.test(t)))).toEqual(new Set(rest));
  });

  it("cancel abandons the request in flight instead of waiting for it", async () => {
    // The server holds its answer for 3 s; the job is cancelled once its first request is on the
    // wire. Waiting for that answer would mean the request was answered before the job finished.
    server.script.embedDelayMs = 3000;
    const notes = vault(2);
    const requests: { answered: boolean; aborted: () => boolean }[] = [];
    const cancelOnceSent: Http = {
      async request(req) {
        const request = { answered: false, aborted: () => req.signal?.aborted === true };
        requests.push(request);
        if (requests.length === 1) queueMicrotask(() => job.cancel());
        const response = await fetchHttp.request(req);
        request.answered = true;
        return response;
      },
    };
    const embedder = ollamaEmbeddingModel({ http: cancelOnceSent, model: "nomic-embed-text", baseUrl: server.base, requestsPerSecond: 0, timeoutMs: 5000 });
    const job = new EmbeddingJob({ store: new VectorStore(), embedder, notes });
    expect(await job.run(await notes.list())).toMatchObject({ state: "cancelled", notesDone: 0 });
    expect(requests).toHaveLength(1);
    expect(requests[0].answered).toBe(false);
    expect(requests[0].aborted()).toBe(true);
  });

  it("waits out a rate limit (Retry-After) and goes on", async () => {
    server.script.embedFailure = { status: 429, body: { error: "slow down" }, headers: { "retry-after": "3" } };
    server.script.embedFailuresLeft = 1;
    const slept: number[] = [];
    const clock: Clock = { now: () => 0, sleep: (ms) => (slept.push(ms), Promise.resolve()) };
    const notes = vault(2);
    const progress = await new EmbeddingJob({ store: new VectorStore(), embedder: ollama(), notes, clock }).run(await notes.list());
    expect(progress.state).toBe("done");
    expect(slept).toEqual([3000]);
  });

  it("a Retry-After longer than it waits for stops the run at once, saying how long, and sends nothing more", async () => {
    server.script.embedFailure = { status: 429, body: { error: "slow down" }, headers: { "retry-after": "7200" } };
    const slept: number[] = [];
    const clock: Clock = { now: () => 0, sleep: (ms) => (slept.push(ms), Promise.resolve()) };
    const notes = vault(2);
    const progress = await new EmbeddingJob({ store: new VectorStore(), embedder: ollama(), notes, clock }).run(await notes.list());
    expect(progress).toMatchObject({ state: "failed", error: { kind: "rate_limited", retryAfterMs: 7_200_000 } });
    expect(progress.error?.message).toMatch(/: slow down\. It asks for no more requests for about 2 h; embedding stopped, and what was embedded is kept\.$/);
    expect(server.embedCalls).toHaveLength(1);
    expect(slept).toEqual([]);
  });

  // 400 nines were Infinity: "…(HTTP 429): slow down It asks for no more requests for about Infinity h NaN min; …".
  it.each([
    ["400 nines", "9".repeat(400)],
    ["a day", "86400"],
    ["a date in 2999", "Tue, 01 Jan 2999 00:00:00 GMT"],
  ])("a Retry-After of %s is said as a day or more, after the server's words ended as a sentence", async (_, header) => {
    server.script.embedFailure = { status: 429, body: { error: "slow down" }, headers: { "retry-after": header } };
    const notes = vault(2);
    const progress = await new EmbeddingJob({ store: new VectorStore(), embedder: ollama(), notes, clock: { now: () => 0, sleep: () => Promise.resolve() } }).run(await notes.list());
    expect(progress).toMatchObject({ state: "failed", error: { kind: "rate_limited", retryAfterMs: 86_400_000 } });
    expect(progress.error?.message).toMatch(/: slow down\. It asks for no more requests for a day or more; embedding stopped, and what was embedded is kept\.$/);
    expect(server.embedCalls).toHaveLength(1);
  });

  it("an embedder that says a wait of Infinity itself is told as a day or more, never in hours", async () => {
    const embedder: Embedder = {
      name: "stand-in",
      embed: () => Promise.resolve<EmbedderAnswer>({ ok: false, error: { kind: "rate_limited", message: "Too many requests", retryAfterMs: Number.POSITIVE_INFINITY } }),
    };
    const notes = vault(2);
    const progress = await new EmbeddingJob({ store: new VectorStore(), embedder, notes, clock: { now: () => 0, sleep: () => Promise.resolve() } }).run(await notes.list());
    expect(progress.error?.message).toBe("Too many requests. It asks for no more requests for a day or more; embedding stopped, and what was embedded is kept.");
  });

  it("a failure stops the job with the client's own words and keeps what was done for next time", async () => {
    const notes = vault(4);
    const store = new VectorStore();
    const cache = new MemoryVectorCache();
    const job = new EmbeddingJob({ store, embedder: ollama(), notes, cache, notesPerBatch: 2 });
    job.onProgress((p) => {
      if (p.notesDone === 2) server.script.embedFailure = { status: 500, body: { error: "out of memory" } };
    });
    const progress = await job.run(await notes.list());
    expect(progress).toMatchObject({ state: "failed", notesDone: 2, error: { kind: "http" } });
    expect(progress.error?.message).toContain("out of memory");
    expect((await loadStoredVectors(cache, "ollama:nomic-embed-text")).store.size).toBe(2);
  });

  it("a note the server cannot embed is left for the next run and does not stop the notes after it", async () => {
    const notes = vault(6);
    // The first note the job sends (it goes part by part: `partOrder`).
    const poisoned = firstInPartOrder(await notes.list());
    notes.files.set(poisoned, { text: `# ${titleOf(poisoned)}\n\nA word the server chokes on: zqxpoison.\n`, mtime: 1 });
    server.script.nullFor = "zqxpoison";
    const store = new VectorStore();
    const progress = await new EmbeddingJob({ store, embedder: ollama(), notes, notesPerBatch: 4 }).run(await notes.list());
    expect(progress).toMatchObject({ state: "done", notesDone: 5, notesTotal: 6, refused: { notes: 1, first: poisoned } });
    expect(progress.refused?.message).toContain("not a list of numbers");
    expect([...store.entries()].map((n) => n.path).sort()).toEqual([...notes.files.keys()].filter((p) => p !== poisoned).sort());
    // The fingerprint, the first batch as one request, then each of its notes alone; the second batch as usual.
    expect(server.embedCalls).toHaveLength(1 + 1 + 4 + 1);
    expect(embeddingProgressWords(progress)).toBe(
      `Embedded 5 notes; 1 the embedding server could not embed (first ${poisoned}: Ollama at ${server.base} sent a vector that is not a list of numbers.) and will be tried again.`,
    );
    // The next run tries it again, and only it.
    server.embedCalls.length = 0;
    server.script.nullFor = undefined;
    expect(await new EmbeddingJob({ store, embedder: ollama(), notes }).run(await notes.list())).toMatchObject({ state: "done", notesDone: 1, notesUnchanged: 5 });
  });

  // A vector of zeros is at cosine 0 from every query: stored, the note stood in every vector lane's
  // list by the vault's own order, counted as embedded, and was never sent again.
  it("a note a text of which the server answers with a vector of zeros is refused, not stored, and the notes after it are embedded", async () => {
    const notes = vault(6);
    const zeroed = firstInPartOrder(await notes.list());
    notes.files.set(zeroed, { text: `# ${titleOf(zeroed)}\n\nA section past what the model takes: zqxzero.\n`, mtime: 1 });
    const real = ollama();
    const zeros: Embedder = {
      name: real.name,
      embed: async (texts, role, signal) => {
        const answer = await real.embed(texts, role, signal);
        return answer.ok ? { ...answer, vectors: answer.vectors.map((v, i) => (texts[i].includes("zqxzero") ? new Float32Array(v.length) : v)) } : answer;
      },
    };
    const store = new VectorStore();
    const progress = await new EmbeddingJob({ store, embedder: zeros, notes, notesPerBatch: 4 }).run(await notes.list());
    expect(progress).toMatchObject({ state: "done", notesDone: 5, refused: { notes: 1, first: zeroed } });
    expect(progress.refused?.message).toContain("vector of zeros");
    expect(store.note(zeroed)).toBeUndefined();
    expect(store.leftOutAs((await notes.list()).find((f) => f.path === zeroed)!)).toBe("not_a_vector");
    // The next run sends it again, and only it.
    server.embedCalls.length = 0;
    expect(await new EmbeddingJob({ store, embedder: ollama(), notes }).run(await notes.list())).toMatchObject({ state: "done", notesDone: 1, notesUnchanged: 5 });
  });

  it("a note the server cannot embed, alone in its batch, is left for the next run too: the notes after it are embedded", async () => {
    // One note a batch: what a long note, or the only note changed since the last run, is.
    const notes = vault(3);
    notes.files.set("Notes/Note 1.md", { text: "# Note 1\n\nA word the server chokes on: zqxpoison.\n", mtime: 1 });
    server.script.nullFor = "zqxpoison";
    const store = new VectorStore();
    const progress = await new EmbeddingJob({ store, embedder: ollama(), notes, notesPerBatch: 1 }).run(await notes.list());
    expect(progress).toMatchObject({ state: "done", notesDone: 2, refused: { notes: 1, first: "Notes/Note 1.md" } });
    expect([...store.entries()].map((n) => n.path).sort()).toEqual(["Notes/Note 0.md", "Notes/Note 2.md"]);
    // The fingerprint, then each note once: the refused one is not sent a second time alone.
    expect(server.embedCalls).toHaveLength(1 + 3);
  });

  it("a server that cannot embed any note of a batch alone stops the run: it is the server, not the notes", async () => {
    // Every note says "Body"; the fingerprint does not.
    server.script.nullFor = "Body";
    const notes = vault(6);
    const progress = await new EmbeddingJob({ store: new VectorStore(), embedder: ollama(), notes, notesPerBatch: 4 }).run(await notes.list());
    expect(progress).toMatchObject({ state: "failed", notesDone: 0, error: { kind: "parse" } });
    expect(progress.refused).toBeUndefined();
    expect(server.embedCalls).toHaveLength(1 + 1 + 4);
  });

  it("a server that answers with no vectors at all stops the run at the fingerprint, before any note is sent", async () => {
    server.script.embedFailure = { status: 200, body: "<html><body>Welcome to nginx</body></html>" };
    const notes = vault(6);
    const progress = await new EmbeddingJob({ store: new VectorStore(), embedder: ollama(), notes, notesPerBatch: 4 }).run(await notes.list());
    expect(progress).toMatchObject({ state: "failed", notesDone: 0, error: { kind: "parse" } });
    expect(server.embeddedTexts()).toEqual([FINGERPRINT_TEXT]);
  });

  it("a note that cannot be read is counted and left for the next run", async () => {
    const notes = vault(3);
    const files = await notes.list();
    notes.files.delete("Notes/Note 1.md");
    const store = new VectorStore();
    const progress = await new EmbeddingJob({ store, embedder: ollama(), notes }).run(files);
    expect(progress).toMatchObject({ state: "done", notesDone: 2, notesUnreadable: 1 });
    expect(store.note("Notes/Note 1.md")).toBeUndefined();
  });

  it("a save that fails is reported and does not stop the run", async () => {
    const notes = vault(2);
    const cache = new MemoryVectorCache();
    cache.failSaves = true;
    const progress = await new EmbeddingJob({ store: new VectorStore(), embedder: ollama(), notes, cache }).run(await notes.list());
    expect(progress).toMatchObject({ state: "done", saveProblem: "The vectors could not be saved: disk full" });
  });
});
