// The OpenAI-compatible client: /v1/embeddings, items put back in input order by `index`, a key
// only when given, and the same failures as values.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openAiEmbeddingModel, readEmbeddingList } from "../../../src/llm/embeddings/openai-embedding";
import { fetchHttp, hashedVector, startStandInServer, type StandInServer } from "./stand-in-embedding-server";
import { fakeClock } from "../../support/fake-clock";

let server: StandInServer;

beforeAll(async () => {
  server = await startStandInServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.script = { dimensions: 32 };
  server.embedCalls.length = 0;
});

const model = (options: Partial<Parameters<typeof openAiEmbeddingModel>[0]> = {}) =>
  openAiEmbeddingModel({ http: fetchHttp, model: "text-embedding-nomic-embed-text-v1.5", baseUrl: `${server.base}/v1`, requestsPerSecond: 0, ...options });

describe("OpenAI-compatible /v1/embeddings", () => {
  it("puts vectors back in input order (the stand-in answers them reversed)", async () => {
    const result = await model().embed(["first text", "second text", "third text"], "document");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const expected = ["first text", "second text", "third text"].map((t) => hashedVector(t, 32));
    result.vectors.forEach((v, i) => {
      const norm = Math.hypot(...expected[i]);
      expect(Array.from(v).map((x) => Number(x.toFixed(5)))).toEqual(expected[i].map((x) => Number((x / norm).toFixed(5))));
    });
    expect(server.embedCalls[0]).toMatchObject({ route: "openai", model: "text-embedding-nomic-embed-text-v1.5" });
  });

  it("uses nomic's prefixes for a nomic model served by LM Studio", async () => {
    await model().embed(["q"], "query");
    expect(server.embedCalls[0].input).toEqual(["search_query: q"]);
  });

  it("sends Authorization only with a key, and keeps the key out of every message", async () => {
    await model().embed(["x"], "document");
    expect(server.embedCalls[0].authorization).toBeUndefined();
    const key = "sk-proj-leakcheck-3Vn6Hj1Df9Gs4Bc7";
    server.script.embedFailure = { status: 401, body: { error: { message: `Incorrect API key provided: ${key}`, code: "invalid_api_key" } } };
    const result = await model({ apiKey: key }).embed(["x"], "document");
    expect(server.embedCalls[1].authorization).toBe(`Bearer ${key}`);
    expect(result).toMatchObject({ ok: false, error: { kind: "auth" } });
    expect(JSON.stringify(result)).not.toContain(key);
    expect(JSON.stringify(result)).not.toContain("3Vn6Hj1Df9Gs4Bc7");
  });

  // Reported with a 200, the server's words skipped the scrubbing every error status gets, and went
  // whole into the status line: a proxy that echoes the request's header, or 400,000 characters.
  it("keeps the key out of an error reported with a 200 too, and cuts the server's words short", async () => {
    const key = "proxy-token-9Lk2Hd7Qw4Zx";
    server.script.embedFailure = { status: 200, body: { error: { message: `Rejected Authorization: Bearer ${key}` } } };
    const result = await model({ apiKey: key }).embed(["x"], "document");
    expect(result).toMatchObject({ ok: false, error: { kind: "http" } });
    expect(!result.ok && result.error.message).toContain("reported an error: Rejected Authorization");
    expect(JSON.stringify(result)).not.toContain(key);
    server.script.embedFailure = { status: 200, body: { error: "busy ".repeat(80_000) } };
    const long = await model().embed(["x"], "document");
    expect(!long.ok && long.error.message.length).toBeLessThan(1_000);
  });

  it("paces the job's batches by the rate cap, never a search's query", async () => {
    const clock = fakeClock();
    const client = model({ batchSize: 1, requestsPerSecond: 4, clock });
    await client.embed(["a", "b", "c"], "document");
    await client.embed(["which note?"], "query");
    expect(clock.sleeps).toEqual([250, 250]);
  });

  it("a batch refused as too large (413) is sent again in halves", async () => {
    server.script.maxTexts = 2;
    const result = await model({ batchSize: 8 }).embed(["a", "b", "c", "d", "e"], "document");
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && result.vectors).toHaveLength(5);
    expect(server.embedCalls.map((c) => c.input.length)).toEqual([5, 3, 2, 2, 1]);
  });

  it("OpenAI's model_not_found is model_missing", async () => {
    server.script.embedFailure = { status: 404, body: { error: { message: "The model `text-embedding-4` does not exist", code: "model_not_found" } } };
    expect(await model().embed(["x"], "document")).toMatchObject({ ok: false, error: { kind: "model_missing" } });
  });

  it("an error reported with a 200, a missing data list and bad indices are told apart", () => {
    expect(readEmbeddingList({ error: { message: "busy" } }, 1, "s")).toMatchObject({ ok: false, error: { kind: "http", message: "s reported an error: busy" } });
    expect(readEmbeddingList({ object: "list" }, 1, "s")).toMatchObject({ ok: false, error: { kind: "parse" } });
    expect(readEmbeddingList({ data: [{ index: 3, embedding: [1] }] }, 1, "s")).toMatchObject({ ok: false, error: { kind: "parse" } });
    expect(readEmbeddingList({ data: [{ index: 0, embedding: [1] }, { index: 0, embedding: [2] }] }, 2, "s")).toMatchObject({ ok: false, error: { kind: "parse" } });
    expect(readEmbeddingList({ data: [{ embedding: [1] }, { embedding: [2] }] }, 2, "s")).toEqual({ ok: true, vectors: [[1], [2]] });
    // A server that names no error as `error: null` beside its data sent vectors, not an error.
    expect(readEmbeddingList({ data: [{ index: 0, embedding: [1] }], error: null }, 1, "s")).toEqual({ ok: true, vectors: [[1]] });
  });
});
