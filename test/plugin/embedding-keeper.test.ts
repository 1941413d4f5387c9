// The plugin's embedding keeper against the stand-in embedding server on 127.0.0.1 (real sockets,
// the real Ollama client) and the IndexedDB stand-in at the port: nothing is sent before the user
// agrees, a changed backend needs agreeing again, vectors survive a restart, changes re-embed only
// what changed, and pause / resume / cancel do what they say.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Embedder } from "../../src/index/embeddings/embedder";
import type { EmbeddingProgress } from "../../src/index/embeddings/embedding-job";
import { FINGERPRINT_TEXT, type VectorStore } from "../../src/index/embeddings/vector-store";
import { createEmbeddingModel } from "../../src/llm/embeddings/embed-spec";
import { EmbeddingKeeper } from "../../src/plugin/embedding-keeper";
import { IndexedDbVectorCache } from "../../src/plugin/indexeddb-vector-cache";
import type { Clock } from "../../src/ports";
import { defaultSettings, type Settings } from "../../src/settings";
import { fetchHttp, startStandInServer, type StandInServer } from "../llm/embeddings/stand-in-embedding-server";
import { MemoryNoteStore } from "../support/memory-note-store";
import { FakeIndexedDb } from "./fake-indexeddb";

let server: StandInServer;
let other: StandInServer;

beforeAll(async () => {
  server = await startStandInServer();
  other = await startStandInServer();
});

afterAll(async () => {
  await server.close();
  await other.close();
});

beforeEach(() => {
  server.embedCalls.length = 0;
  other.embedCalls.length = 0;
  server.script.embedDelayMs = 0;
});

const NOTES: Record<string, string> = {
  "Cars.md": "# Cars\n\nRepairing an old car takes patience.\n",
  "Dogs.md": "# Dogs\n\nA puppy needs walks twice a day.\n",
  "Cats.md": "# Cats\n\nA kitten sleeps most of the day.\n",
};

function settingsFor(base: string, consented: boolean): Settings {
  const settings = defaultSettings();
  settings.search.embedding = { ...settings.search.embedding, kind: "ollama", baseUrl: base, requestsPerSecond: 50, consentedTo: consented ? `ollama@${base}` : "" };
  return settings;
}

function harness(options: { settings: Settings; idb?: FakeIndexedDb; notes?: MemoryNoteStore; clock?: Clock }) {
  const idb = options.idb ?? new FakeIndexedDb();
  const notes = options.notes ?? new MemoryNoteStore(NOTES);
  const seen = { vectors: null as VectorStore | null, embedder: null as Embedder | null, notices: [] as string[], progress: [] as (EmbeddingProgress | null)[] };
  let settings = options.settings;
  const keeper = new EmbeddingKeeper({
    notes,
    cache: new IndexedDbVectorCache("garden", idb.asFactory()),
    clock: options.clock ?? { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
    settings: () => settings,
    createEmbedder: async (config) => createEmbeddingModel(config, { http: fetchHttp, requestsPerSecond: 0, timeoutMs: 5000 }),
    indexFiles: () => notes.list(),
    onVectors: (vectors, embedder) => Object.assign(seen, { vectors, embedder }),
    onProgress: (progress) => seen.progress.push(progress),
    notify: (message) => seen.notices.push(message),
  });
  const change = async (edit: (s: Settings) => void) => {
    settings = structuredClone(settings);
    edit(settings);
    await keeper.applySettings();
    await keeper.idle();
  };
  return { keeper, notes, idb, seen, change, start: async () => (await keeper.applySettings(), await keeper.idle()) };
}

describe("EmbeddingKeeper", () => {
  it("sends nothing while the user has not agreed, and the dial stays at level 1", async () => {
    const { start, seen, keeper } = harness({ settings: settingsFor(server.base, false) });
    await start();
    keeper.notesChanged();
    await keeper.idle();
    expect(server.embedCalls).toHaveLength(0);
    expect(seen.vectors).toBeNull();
    expect(keeper.progress()).toBeNull();
  });

  it("embeds every note once the user agrees, and hands the dial the vectors and a query client", async () => {
    const { start, seen, keeper } = harness({ settings: settingsFor(server.base, true) });
    await start();
    expect(server.embeddedTexts().join(" ")).toMatch(/puppy/);
    expect(seen.vectors?.size).toBe(3);
    expect(seen.embedder?.name).toBe(seen.vectors?.model);
    expect(keeper.progress()).toMatchObject({ state: "done", notesDone: 3, notesTotal: 3 });
  });

  it("after agreeing, pointing the backend at another address sends nothing there (nor anywhere) until agreed again", async () => {
    const { start, change, seen, keeper, notes } = harness({ settings: settingsFor(server.base, true) });
    await start();
    server.embedCalls.length = 0;
    await change((s) => (s.search.embedding.baseUrl = other.base));
    notes.files.set("Cars.md", { text: "# Cars\n\nMend the automobile.\n", mtime: 1_700_000_100_000 });
    keeper.notesChanged();
    await keeper.idle();
    expect(other.embedCalls).toHaveLength(0);
    expect(server.embedCalls).toHaveLength(0);
    expect(seen.vectors).toBeNull();
    // Agreed: the vectors kept from the same model are used, and only the changed note goes to the new address.
    await change((s) => (s.search.embedding.consentedTo = `ollama@${other.base}`));
    expect(other.embeddedTexts().join(" ")).toMatch(/automobile/);
    expect(other.embeddedTexts().join(" ")).not.toMatch(/puppy/);
    expect(server.embedCalls).toHaveLength(0);
  });

  it("stored vectors that cannot be read now are neither embedded again nor saved over; the next start uses them", async () => {
    const idb = new FakeIndexedDb();
    await harness({ settings: settingsFor(server.base, true), idb }).start();
    const stored = await new IndexedDbVectorCache("garden", idb.asFactory()).read("vectors");
    server.embedCalls.length = 0;
    idb.faults.read = true;
    const blocked = harness({ settings: settingsFor(server.base, true), idb });
    await blocked.start();
    expect(blocked.seen.notices).toEqual([expect.stringMatching(/^Vault Research: embedding could not start: the stored vectors could not be read .*they are kept/)]);
    expect(server.embedCalls).toHaveLength(0);
    idb.faults.read = false;
    expect(await new IndexedDbVectorCache("garden", idb.asFactory()).read("vectors")).toEqual(stored);
    const later = harness({ settings: settingsFor(server.base, true), idb });
    await later.start();
    expect(later.seen.vectors?.size).toBe(3);
    // The fingerprint only: every note's vectors were kept.
    expect(server.embedCalls).toHaveLength(1);
  });

  it("switching the backend off stops sending at once", async () => {
    const { start, change, keeper, seen } = harness({ settings: settingsFor(server.base, true) });
    await start();
    server.embedCalls.length = 0;
    await change((s) => (s.search.embedding.kind = "none"));
    keeper.notesChanged();
    await keeper.idle();
    expect(server.embedCalls).toHaveLength(0);
    expect(seen.vectors).toBeNull();
  });

  it("resumes after a restart from the stored vectors: unchanged notes are not embedded again, a changed one is", async () => {
    const idb = new FakeIndexedDb();
    const notes = new MemoryNoteStore(NOTES);
    await harness({ settings: settingsFor(server.base, true), idb, notes }).start();
    expect(server.embedCalls.length).toBeGreaterThan(0);
    server.embedCalls.length = 0;

    const restarted = harness({ settings: settingsFor(server.base, true), idb, notes });
    await restarted.start();
    // Only the model's fingerprint is asked for, to be sure the vectors are still its own.
    expect(server.embeddedTexts()).toEqual([FINGERPRINT_TEXT]);
    expect(restarted.seen.vectors?.size).toBe(3);

    notes.files.set("Dogs.md", { text: "# Dogs\n\nA canine likes long walks by the river.\n", mtime: 1_700_000_100_000 });
    restarted.keeper.notesChanged();
    await restarted.keeper.idle();
    expect(server.embeddedTexts().join(" ")).toMatch(/canine/);
    expect(server.embeddedTexts().join(" ")).not.toMatch(/kitten/);
  });

  it("a model change throws the old vectors away and says why", async () => {
    const idb = new FakeIndexedDb();
    await harness({ settings: settingsFor(server.base, true), idb }).start();
    const changed = harness({ settings: settingsFor(server.base, true), idb });
    await changed.change((s) => (s.search.embedding.model = "mxbai-embed-large"));
    expect(changed.seen.notices.join("\n")).toMatch(/were made by .*nomic-embed-text.*now .*mxbai-embed-large/);
    expect(changed.seen.vectors?.model).toMatch(/mxbai-embed-large/);
  });

  /** Forty notes embedded slowly (30 ms a call), the job started and one note done. */
  async function slowJobUnderWay() {
    const many: Record<string, string> = {};
    for (let i = 0; i < 40; i++) many[`Note ${i}.md`] = `# Note ${i}\n\nWords about topic ${i}.\n`;
    server.script.embedDelayMs = 30;
    const started = harness({ settings: settingsFor(server.base, true), notes: new MemoryNoteStore(many) });
    await started.keeper.applySettings();
    await until(() => (started.keeper.progress()?.notesDone ?? 0) > 0);
    return started;
  }

  it("pauses after the batch in flight and resumes where it stopped", async () => {
    const { keeper, seen } = await slowJobUnderWay();
    expect(keeper.pause()).toBe(true);
    await until(() => keeper.progress()?.state === "paused");
    const callsWhilePaused = server.embedCalls.length;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(server.embedCalls.length).toBeLessThanOrEqual(callsWhilePaused + 1);
    expect(keeper.resume()).toBe(true);
    await keeper.idle();
    expect(keeper.progress()).toMatchObject({ state: "done", notesDone: 40 });
    expect(seen.progress.some((p) => p?.state === "paused")).toBe(true);
  });

  it("cancel keeps what was embedded, starts nothing on its own after, and resume starts a new run", async () => {
    const { keeper, seen } = await slowJobUnderWay();
    expect(keeper.cancel()).toBe(true);
    await keeper.idle();
    expect(keeper.progress()?.state).toBe("cancelled");
    const kept = seen.vectors?.size ?? 0;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(40);
    const calls = server.embedCalls.length;
    keeper.notesChanged();
    await keeper.idle();
    expect(server.embedCalls.length).toBe(calls);
    server.script.embedDelayMs = 0;
    expect(keeper.resume()).toBe(true);
    await keeper.idle();
    expect(keeper.progress()).toMatchObject({ state: "done", notesDone: 40 - kept });
  });
});

describe("EmbeddingKeeper and a server that asks for a long wait", () => {
  afterEach(() => {
    server.script.embedFailure = undefined;
  });

  // Each note edited started a run, and each run's first request went to a server that had asked for none for a day.
  it("starts no run by itself before the server's Retry-After has passed", async () => {
    let now = 1_000;
    const clock: Clock = { now: () => now, monotonicNow: () => now, sleep: () => Promise.resolve() };
    const { start, keeper, notes } = harness({ settings: settingsFor(server.base, true), clock });
    server.script.embedFailure = { status: 429, body: { error: "slow down" }, headers: { "retry-after": "86400" } };
    await start();
    expect(keeper.progress()).toMatchObject({ state: "failed", error: { kind: "rate_limited" } });
    expect(server.embedCalls).toHaveLength(1);
    server.script.embedFailure = undefined;
    notes.files.set("Cars.md", { text: "# Cars\n\nEdited.\n", mtime: 1_800_000_000_000 });
    now += 3_600_000;
    keeper.notesChanged();
    await keeper.idle();
    expect(server.embedCalls).toHaveLength(1);
    // A day later, an edit starts a run again.
    now += 86_400_000;
    keeper.notesChanged();
    await keeper.idle();
    expect(keeper.progress()).toMatchObject({ state: "done", notesDone: 3 });
  });

  it("the user's resume goes before the server's wait", async () => {
    let now = 1_000;
    const clock: Clock = { now: () => now, monotonicNow: () => now, sleep: () => Promise.resolve() };
    const { start, keeper } = harness({ settings: settingsFor(server.base, true), clock });
    server.script.embedFailure = { status: 429, body: { error: "slow down" }, headers: { "retry-after": "86400" } };
    await start();
    server.script.embedFailure = undefined;
    expect(keeper.resume()).toBe(true);
    await keeper.idle();
    expect(keeper.progress()).toMatchObject({ state: "done", notesDone: 3 });
  });
});

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
