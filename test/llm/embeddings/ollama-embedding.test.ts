// The Ollama client against the stand-in server over a real socket: batching, nomic's prefixes,
// unit-length vectors, and every failure as a value with its kind and no key in its words.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ollamaEmbeddingModel } from "../../../src/llm/embeddings/ollama-embedding";
import { fakeClock } from "../../support/fake-clock";
import { fetchHttp, startStandInServer, type StandInServer } from "./stand-in-embedding-server";
import { stringContaining } from "../../support/typed-matchers";

let server: StandInServer;

beforeAll(async () => {
  server = await startStandInServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.script = { dimensions: 64 };
  server.embedCalls.length = 0;
});

const model = (options: Partial<Parameters<typeof ollamaEmbeddingModel>[0]> = {}) =>
  ollamaEmbeddingModel({ http: fetchHttp, model: "nomic-embed-text", baseUrl: server.base, requestsPerSecond: 0, timeoutMs: 5000, ...options });

describe("Ollama /api/embed", () => {
  it("sends texts in batches and returns one unit-length vector per text, in order", async () => {
    const result = await model({ batchSize: 2 }).embed(["alpha", "beta", "gamma", "delta", "epsilon"], "document");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(server.embedCalls.map((c) => c.input.length)).toEqual([2, 2, 1]);
    expect(server.embedCalls.every((c) => c.route === "ollama" && c.model === "nomic-embed-text")).toBe(true);
    expect(result.dimensions).toBe(64);
    expect(result.vectors).toHaveLength(5);
    for (const v of result.vectors) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    // Same text, same vector: "gamma" embedded again alone matches the third.
    const again = await model().embed(["gamma"], "document");
    expect(again.ok && Array.from(again.vectors[0])).toEqual(Array.from(result.vectors[2]));
  });

  it("puts nomic-embed-text's document and query prefixes in front of the text", async () => {
    await model().embed(["a note"], "document");
    await model().embed(["a question"], "query");
    expect(server.embedCalls.map((c) => c.input[0])).toEqual(["search_document: a note", "search_query: a question"]);
  });

  it("sends no prefix for a model that was not trained with one", async () => {
    await model({ model: "all-minilm" }).embed(["a note"], "document");
    expect(server.embedCalls[0].input).toEqual(["a note"]);
  });

  it("a missing model is model_missing, in Ollama's own words", async () => {
    server.script.knownModel = "nomic-embed-text";
    const result = await model({ model: "nomic-embed-txet" }).embed(["x"], "document");
    expect(result).toMatchObject({ ok: false, error: { kind: "model_missing", status: 404 } });
    expect(!result.ok && result.error.message).toMatch(/Ollama at http:\/\/127\.0\.0\.1:\d+ does not have that model.*try pulling it first/);
  });

  // As one pattern, each "model" of the message read its line to the end: 20,000 took 2.5 s, and
  // the 400,000 here would take some 17 minutes.
  it("reads an error of 400,000 \"model\" at once: an http failure, not a missing model", async () => {
    server.script.embedFailure = { status: 400, body: { error: "model ".repeat(400_000) } };
    expect(await model().embed(["x"], "document")).toMatchObject({ ok: false, error: { kind: "http", status: 400 } });
    server.script.embedFailure = { status: 400, body: { error: "The model\nwas not found" } };
    expect(await model().embed(["x"], "document")).toMatchObject({ ok: false, error: { kind: "http" } });
    server.script.embedFailure = { status: 400, body: { error: "model 'x' does not exist" } };
    expect(await model().embed(["x"], "document")).toMatchObject({ ok: false, error: { kind: "model_missing" } });
  });

  // LM Studio answers a route it does not serve (an OpenAI-compatible base given as Ollama's) with a 200 and an error;
  // "sent JSON without embeddings" hid the server's words that say what is wrong.
  it("an error reported with a 200 is the server's error, in its words, scrubbed and cut short", async () => {
    const key = "sk-ollama-proxy-key-7Qz9Xw4Kp2Lm";
    server.script.embedFailure = { status: 200, body: { error: `Unexpected endpoint or method. (POST /api/embed) ${key} ${"x".repeat(5_000)}` } };
    const result = await model({ apiKey: key }).embed(["x"], "document");
    expect(result).toMatchObject({ ok: false, error: { kind: "http", message: stringContaining("reported an error: Unexpected endpoint or method. (POST /api/embed)") } });
    const message = result.ok ? "" : result.error.message;
    expect(message).not.toContain(key);
    expect(message.length).toBeLessThan(300);
  });

  it("401 is auth, 429 is rate_limited with Retry-After, 500 is http — and the key is never in the message", async () => {
    const key = "sk-ollama-proxy-key-7Qz9Xw4Kp2Lm";
    server.script.embedFailure = { status: 401, body: { error: `bad key ${key}` } };
    const auth = await model({ apiKey: key }).embed(["x"], "document");
    expect(auth).toMatchObject({ ok: false, error: { kind: "auth", status: 401 } });
    expect(JSON.stringify(auth)).not.toContain(key);
    expect(server.embedCalls[0].authorization).toBe(`Bearer ${key}`);
    expect(auth.ok ? "" : auth.error.message).toContain("refused the API key");
    // A proxy asking for a key the user never set is told as that, not as a key refused.
    const noKey = await model().embed(["x"], "document");
    expect(noKey).toMatchObject({ ok: false, error: { kind: "auth", message: stringContaining("asks for an API key (HTTP 401), and none is set") } });

    server.script.embedFailure = { status: 429, body: { error: "slow down" }, headers: { "retry-after": "7" } };
    expect(await model().embed(["x"], "document")).toMatchObject({ ok: false, error: { kind: "rate_limited", retryAfterMs: 7000 } });

    server.script.embedFailure = { status: 500, body: { error: `exploded near ${key}` } };
    const http = await model({ apiKey: key }).embed(["x"], "document");
    expect(http).toMatchObject({ ok: false, error: { kind: "http", status: 500 } });
    expect(JSON.stringify(http)).not.toContain(key);
  });

  it("a batch the server finds too large (413) is sent again in halves, and later batches keep to the smaller size", async () => {
    server.script.maxTexts = 5;
    const texts = Array.from({ length: 24 }, (_, i) => `text number ${i}`);
    const client = model({ batchSize: 16 });
    const result = await client.embed(texts, "document");
    expect(server.embedCalls.map((c) => c.input.length)).toEqual([16, 8, 4, 4, 4, 4, 4, 4]);
    expect(result).toMatchObject({ ok: true, dimensions: 64 });
    if (!result.ok) return;
    expect(result.vectors).toHaveLength(24);
    // Each vector is its own text's, in order.
    const alone = await model().embed(["text number 23"], "document");
    expect(alone.ok && Array.from(alone.vectors[0])).toEqual(Array.from(result.vectors[23]));
    server.embedCalls.length = 0;
    await client.embed(texts.slice(0, 6), "document");
    expect(server.embedCalls.map((c) => c.input.length)).toEqual([4, 2]);
  });

  it("a single text the server finds too large fails with the server's words", async () => {
    server.script.maxTexts = 0;
    const result = await model({ batchSize: 4 }).embed(["a", "b", "c"], "document");
    expect(result).toMatchObject({ ok: false, error: { kind: "http", status: 413, message: stringContaining("request entity too large") } });
    expect(server.embedCalls.map((c) => c.input.length)).toEqual([3, 2, 1]);
  });

  it("a body without embeddings, or with something else than numbers, is parse", async () => {
    server.script.embedFailure = { status: 200, body: { model: "x" } };
    expect(await model().embed(["x"], "document")).toMatchObject({ ok: false, error: { kind: "parse" } });
    server.script.embedFailure = { status: 200, body: { embeddings: [["a", "b"]] } };
    expect(await model().embed(["x"], "document")).toMatchObject({ ok: false, error: { kind: "parse" } });
    server.script.embedFailure = { status: 200, body: { embeddings: [[1, 2]] } };
    expect(await model().embed(["x", "y"], "document")).toMatchObject({ ok: false, error: { kind: "parse", message: stringContaining("1 vectors for 2 texts") } });
  });

  // No embedding model gives more than a few thousand: a server sending 60,000 a text had every note
  // of a vault kept at 60 KB a section (gigabytes held in memory and saved to the cache).
  it("a vector longer than any embedding model's is parse, not a store of gigabytes", async () => {
    server.script.embedFailure = { status: 200, body: { embeddings: [new Array(60_000).fill(0.5)] } };
    expect(await model().embed(["x"], "document")).toMatchObject({ ok: false, error: { kind: "parse", message: stringContaining("60000 dimensions") } });
    server.script.embedFailure = { status: 200, body: { embeddings: [new Array(4096).fill(0.5)] } };
    expect(await model().embed(["x"], "document")).toMatchObject({ ok: true, dimensions: 4096 });
  });

  // Cast to float32 first, 1e39 became Infinity and the vector NaN: a similarity of NaN for that note,
  // and for a fingerprint answered so, every stored vector thrown away as another model's.
  it("numbers too large for float32, or whose squares are too large for a double, still make a unit vector in their direction", async () => {
    for (const [sent, expected] of [
      [[1e39, 1, 2, 3], [1, 0, 0, 0]],
      [[-1e200, 0, 1e200, 0], [-Math.SQRT1_2, 0, Math.SQRT1_2, 0]],
      [[3e-310, 4e-310, 0, 0], [0.6, 0.8, 0, 0]],
    ]) {
      server.script.embedFailure = { status: 200, body: { embeddings: [sent] } };
      const result = await model().embed(["x"], "document");
      expect(result.ok, JSON.stringify(sent)).toBe(true);
      if (!result.ok) continue;
      Array.from(result.vectors[0]).forEach((x, i) => expect(x, JSON.stringify(sent)).toBeCloseTo(expected[i], 6));
    }
    // Zeros stay zeros: no direction to scale.
    server.script.embedFailure = { status: 200, body: { embeddings: [[0, 0, 0, 0]] } };
    expect(await model().embed(["x"], "document")).toMatchObject({ ok: true, vectors: [Float32Array.from([0, 0, 0, 0])] });
  });

  it("vectors of another length than the stored ones are dimension_mismatch", async () => {
    const result = await model({ expectedDimensions: 768 }).embed(["x"], "document");
    expect(result).toMatchObject({ ok: false, error: { kind: "dimension_mismatch", message: stringContaining("64 dimensions where 768") } });
  });

  it("a server slower than the per-request timeout is timeout", async () => {
    server.script.embedDelayMs = 600;
    const result = await model({ timeoutMs: 100 }).embed(["x"], "document");
    expect(result).toMatchObject({ ok: false, error: { kind: "timeout" } });
  });

  it("a cancelled call is cancelled, and sends nothing when cancelled before it starts", async () => {
    const stop = new AbortController();
    stop.abort();
    expect(await model().embed(["x"], "document", stop.signal)).toMatchObject({ ok: false, error: { kind: "cancelled" } });
    expect(server.embedCalls).toHaveLength(0);
  });

  it("a server that is not there is network", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await model({ baseUrl: `http://127.0.0.1:${port}` }).embed(["x"], "document");
    expect(result).toMatchObject({ ok: false, error: { kind: "network", message: stringContaining(`Could not reach Ollama at http://127.0.0.1:${port}`) } });
  });

  it("paces requests by the rate cap", async () => {
    const clock = fakeClock();
    await model({ batchSize: 1, requestsPerSecond: 2, clock }).embed(["a", "b", "c"], "document");
    expect(server.embedCalls).toHaveLength(3);
    expect(clock.sleeps).toEqual([500, 500]);
  });

  it("a stop while a batch waits its rate turn ends the call at once, cancelled, and sends nothing more", async () => {
    const clock = fakeClock();
    // Rate turns that end only when stopped: the stop, not the time, must end the wait.
    const held = { ...clock, sleep: (_ms: number, signal?: AbortSignal) => new Promise<void>((_, reject) => signal?.addEventListener("abort", () => reject(new Error("stopped")))) };
    const client = model({ batchSize: 1, requestsPerSecond: 0.1, clock: held });
    expect((await client.embed(["a"], "document")).ok).toBe(true);
    const stop = new AbortController();
    let result: unknown = "waiting";
    void client.embed(["b"], "document", stop.signal).then((r) => (result = r));
    stop.abort();
    for (let turn = 0; turn < 5 && result === "waiting"; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
    expect(result).toMatchObject({ ok: false, error: { kind: "cancelled" } });
    expect(server.embedCalls).toHaveLength(1);
  });

  it("does not pace a search's query behind the embedding job's batches", async () => {
    const clock = fakeClock();
    const client = model({ batchSize: 1, requestsPerSecond: 2, clock });
    await client.embed(["a", "b"], "document");
    await client.embed(["what is it about?"], "query");
    expect(server.embedCalls).toHaveLength(3);
    expect(clock.sleeps).toEqual([500]);
  });
});
