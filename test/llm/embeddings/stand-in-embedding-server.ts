// A stand-in embedding (and chat) server on 127.0.0.1, for tests over real sockets. No real
// embedding model can run here, so vectors are a hashed bag of words: each word (lower-cased,
// with a few "synonyms" folded together so paraphrases meet) adds ±1 to one of `dimensions`
// buckets. Deterministic, and close texts get close vectors — enough to test the plumbing, not to
// say anything about retrieval quality.
//
// Speaks Ollama's POST /api/embed and the OpenAI-compatible POST /v1/embeddings and
// POST /v1/chat/completions (for reranking), and lets a test script failures and delays.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpFailure, type Http } from "../../../src/ports";

/** Folded together so "automobile" finds a note about cars: the paraphrase a lexical index misses. */
const CONCEPTS: Record<string, string> = {
  automobile: "car",
  vehicle: "car",
  cars: "car",
  repairing: "repair",
  fixing: "repair",
  fix: "repair",
  mend: "repair",
  canine: "dog",
  puppy: "dog",
  dogs: "dog",
  feline: "cat",
  kitten: "cat",
};

const PREFIXES = ["search_document: ", "search_query: "];

/** `variant` hashes words differently: another model of the same dimensions. */
export function hashedVector(text: string, dimensions: number, variant = 0): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const word = CONCEPTS[raw] ?? raw;
    let h = (0x811c9dc5 ^ Math.imul(variant, 0x9e3779b1)) >>> 0;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193) >>> 0;
    vector[h % dimensions] += h & 0x10000 ? 1 : -1;
  }
  // Never a zero vector (an empty text still gets a direction of its own).
  if (!vector.some((x) => x !== 0)) vector[0] = 1;
  return vector;
}

export interface EmbedCall {
  route: "ollama" | "openai";
  model: string;
  input: string[];
  authorization?: string;
}

export interface ChatCall {
  body: { model: string; messages: { role: string; content: string }[]; max_tokens?: number; temperature?: number };
}

/** What the next requests get; tests change it between calls. */
export interface ServerScript {
  dimensions: number;
  /** Answer every embedding request with this status and body instead. */
  embedFailure?: { status: number; body: unknown; headers?: Record<string, string> };
  /** Fail only this many embedding requests with `embedFailure`, then answer normally. */
  embedFailuresLeft?: number;
  /** Wait before answering embedding requests. */
  embedDelayMs?: number;
  /** The chat answer's text, made from the prompt; default: the results in reverse order as JSON. */
  chatAnswer?: (prompt: string) => string;
  chatDelayMs?: number;
  /** Only this model exists (others get Ollama's 404). */
  knownModel?: string;
  /** More texts than this in one request get 413, as a proxy in front of a server answers a body over its limit. */
  maxTexts?: number;
  /** A text holding this word gets a vector of nulls, as a server answers NaN for an input it cannot embed. */
  nullFor?: string;
  /** Another model behind the same name and dimensions (hashedVector's variant); default 0. */
  variant?: number;
}

export interface StandInServer {
  base: string;
  script: ServerScript;
  embedCalls: EmbedCall[];
  chatCalls: ChatCall[];
  /** Texts embedded with their prefixes stripped, over all calls. */
  embeddedTexts(): string[];
  close(): Promise<void>;
}

export async function startStandInServer(script: Partial<ServerScript> = {}): Promise<StandInServer> {
  const state: StandInServer = {
    base: "",
    script: { dimensions: 64, ...script },
    embedCalls: [],
    chatCalls: [],
    embeddedTexts: () => state.embedCalls.flatMap((c) => c.input.map(stripPrefix)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
    req.on("end", () => void answer(state, req, res, raw));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

async function answer(state: StandInServer, req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
  const body = JSON.parse(raw || "{}") as Record<string, unknown>;
  const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(json));
  };
  const script = state.script;
  if (req.url === "/api/embed" || req.url === "/v1/embeddings") {
    const route = req.url === "/api/embed" ? "ollama" : "openai";
    const input = (Array.isArray(body.input) ? body.input : [body.input]) as string[];
    state.embedCalls.push({ route, model: String(body.model), input, authorization: req.headers.authorization });
    if (script.embedDelayMs) await sleep(script.embedDelayMs);
    if (script.embedFailure && (script.embedFailuresLeft === undefined || script.embedFailuresLeft-- > 0)) {
      return send(script.embedFailure.status, script.embedFailure.body, script.embedFailure.headers);
    }
    if (script.maxTexts !== undefined && input.length > script.maxTexts) return send(413, { error: "request entity too large" });
    if (script.knownModel && body.model !== script.knownModel) return send(404, { error: `model "${String(body.model)}" not found, try pulling it first` });
    const vectors = input.map((text) => (script.nullFor && text.includes(script.nullFor) ? new Array<null>(script.dimensions).fill(null) : hashedVector(stripPrefix(text), script.dimensions, script.variant)));
    if (route === "ollama") return send(200, { model: body.model, embeddings: vectors });
    // Out of order on purpose: the API allows it, and the client must put them back by index.
    return send(200, { object: "list", model: body.model, data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })).reverse() });
  }
  if (req.url === "/v1/chat/completions") {
    state.chatCalls.push({ body: body as unknown as ChatCall["body"] });
    if (script.chatDelayMs) await sleep(script.chatDelayMs);
    const messages = body.messages as { content: string }[];
    const prompt = messages.at(-1)?.content ?? "";
    const text = script.chatAnswer ? script.chatAnswer(prompt) : reverseOrder(prompt);
    return send(200, { model: body.model, choices: [{ message: { role: "assistant", content: text } }] });
  }
  send(404, { error: "no such route" });
}

/** The results named in a rerank prompt (`[1] …`), last first, as the JSON a model should answer. */
export function reverseOrder(prompt: string): string {
  const numbers = Array.from(prompt.matchAll(/^\[(\d+)\]/gm), (m) => Number(m[1]));
  return JSON.stringify({ order: numbers.reverse() });
}

function stripPrefix(text: string): string {
  const prefix = PREFIXES.find((p) => text.startsWith(p));
  return prefix ? text.slice(prefix.length) : text;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A minimal fetch-based Http for these tests (the CLI's own adapter is tested with the CLI). */
export const fetchHttp: Http & { requests: number } = {
  requests: 0,
  async request(req) {
    fetchHttp.requests++;
    try {
      const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal: req.signal ?? AbortSignal.timeout(req.timeoutMs ?? 10_000) });
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
      return { status: res.status, headers, text: await res.text() };
    } catch (error) {
      if (req.signal?.aborted) throw new HttpFailure("aborted", "aborted");
      if (error instanceof Error && error.name === "TimeoutError") throw new HttpFailure("timeout", "timed out");
      throw new HttpFailure("network", error instanceof Error ? error.message : String(error));
    }
  },
};
