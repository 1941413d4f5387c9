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
import type { Clock, Http } from "../../../src/ports";
import { fetchHttp, hashedVector, startStandInServer, type StandInServer } from "../../llm/embeddings/stand-in-embedding-server";
import { fakeClock } from "../../support/fake-clock";
import { MemoryNoteStore } from "../../support/memory-note-store";
import { MemoryVectorCache } from "./memory-vector-cache";
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

  it("a server whose answers flip between two numbers of dimensions stops the run after one reset instead of starting over for ever", async () => {
    const notes = vault(6);
    let calls = 0;
    const flipping: Embedder = {
      name: "scripted:m",
      async embed(texts): Promise<EmbedderAnswer> {
        calls++;
        // A guard for the old behaviour, which asked again and again.
        if (calls > 50) return { ok: false, error: { kind: "http", message: "asked too often" } };
        const d = calls % 2 === 1 ? 8 : 16;
        return { ok: true, vectors: texts.map((t) => unitLength(hashedVector(t, d))), dimensions: d };
      },
    };
    const store = new VectorStore();
    const progress = await new EmbeddingJob({ store, embedder: flipping, notes, notesPerBatch: 2 }).run(await notes.list());
    // The fingerprint (8), the first batch (16: nothing stored to lose yet), the second (8: the first's thrown away), the third (16).
    expect(calls).toBe(4);
    expect(progress.resets).toEqual([{ kind: "dimension_changed", from: 16, to: 8, notes: 2 }]);
    expect(progress).toMatchObject({ state: "failed", error: { kind: "dimension_mismatch" } });
    expect(progress.error?.message).toContain("8 dimensions and then 16 in one run");
    // What the one model gave is kept, never mixed with the other's.
    expect(store.dimensions).toBe(8);
    expect(store.size).toBe(2);
  });

  it("after an update that cuts notes differently, reads each note again and embeds only those whose units now send other text", async () => {
    const notes = vault(6);
    const cache = new MemoryVectorCache();
    const store = new VectorStore();
    await new EmbeddingJob({ store, embedder: ollama(), notes, cache }).run(await notes.list());
    // As an older version would have left them: every note cut another way, and note 4's units
    // made from a text this version would no longer send.
    const older = rewriteVectorHeader(serializeVectors(store), (h) => ({ ...h, notes: h.notes.map((n) => ({ ...n, cut: "10.1", hash: n.path === "Notes/Note 4.md" ? "0123456789abcdef" : n.hash })) }));
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
    expect(server.embeddedTexts().filter((t) => /^(Note \d+|New)$/.test(t))).toEqual(["Note 4", "New"]);
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
    const resumed = await new EmbeddingJob({ store: loaded.store, embedder: ollama(), notes, cache }).run(await notes.list());
    expect(resumed).toMatchObject({ state: "done", notesDone: 5, notesTotal: 5, notesUnchanged: 3 });
    expect(new Set(server.embeddedTexts().filter((t) => /^Note \d+$/.test(t)))).toEqual(
      new Set(["Note 3", "Note 4", "Note 5", "Note 6", "Note 7"]),
    );
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
    notes.files.set("Notes/Note 1.md", { text: "# Note 1\n\nA word the server chokes on: zqxpoison.\n", mtime: 1 });
    server.script.nullFor = "zqxpoison";
    const store = new VectorStore();
    const progress = await new EmbeddingJob({ store, embedder: ollama(), notes, notesPerBatch: 4 }).run(await notes.list());
    expect(progress).toMatchObject({ state: "done", notesDone: 5, notesTotal: 6, refused: { notes: 1, first: "Notes/Note 1.md" } });
    expect(progress.refused?.message).toContain("not a list of numbers");
    expect([...store.entries()].map((n) => n.path).sort()).toEqual(["Notes/Note 0.md", "Notes/Note 2.md", "Notes/Note 3.md", "Notes/Note 4.md", "Notes/Note 5.md"]);
    // The fingerprint, the first batch as one request, then each of its notes alone; the second batch as usual.
    expect(server.embedCalls).toHaveLength(1 + 1 + 4 + 1);
    expect(embeddingProgressWords(progress)).toBe(
      "Embedded 5 notes; 1 the embedding server could not embed (first Notes/Note 1.md: Ollama at " + server.base + " sent a vector that is not a list of numbers.) and will be tried again.",
    );
    // The next run tries it again, and only it.
    server.embedCalls.length = 0;
    server.script.nullFor = undefined;
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
