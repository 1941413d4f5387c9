// One end-to-end check over real sockets: both adapters against a stand-in server on 127.0.0.1,
// through a minimal fetch-based Http written here (the CLI's own adapter lives elsewhere).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpFailure, type Http } from "../../src/ports";
import { openAiCompatibleModel } from "../../src/llm/openai-compatible";
import { anthropicModel } from "../../src/llm/anthropic";
import { ModelError } from "../../src/llm/chat-model";
import { createFetchHttp } from "../../src/cli/fetch-http";

const fetchHttp: Http = {
  async request(req) {
    try {
      const res = await fetch(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal: AbortSignal.timeout(req.timeoutMs ?? 10_000),
      });
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
      return { status: res.status, headers, text: await res.text() };
    } catch (error) {
      throw new HttpFailure("network", error instanceof Error ? error.message : String(error));
    }
  },
};

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

let server: Server;
let base = "";
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const body = JSON.parse(raw || "{}") as Record<string, unknown>;
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      res.setHeader("content-type", "application/json");
      if (req.url === "/v1/chat/completions") {
        const messages = body.messages as { content: string }[];
        res.end(JSON.stringify({ model: body.model, choices: [{ message: { role: "assistant", content: `echo: ${messages.at(-1)?.content}` } }] }));
      } else if (req.url === "/v1/messages") {
        if (req.headers["x-api-key"] !== "stand-in-key") {
          res.statusCode = 401;
          res.end(JSON.stringify({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }));
          return;
        }
        res.end(JSON.stringify({ type: "message", model: body.model, content: [{ type: "text", text: `system was: ${String(body.system)}` }] }));
      } else {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: "no such route" }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("model adapters over a real socket", () => {
  it("the OpenAI-compatible adapter gets an answer from a local server without a key", async () => {
    const model = openAiCompatibleModel({ http: fetchHttp, model: "stand-in", baseUrl: `${base}/v1`, timeoutMs: 5000 });
    const response = await model.complete({ system: "s", messages: [{ role: "user", content: "ping" }] });
    expect(response).toEqual({ text: "echo: ping", model: "stand-in" });
    const request = seen.at(-1)!;
    expect(request.method).toBe("POST");
    expect(request.headers.authorization).toBeUndefined();
    expect(request.headers["content-type"]).toBe("application/json");
  });

  it("the Anthropic adapter sends its headers and a top-level system prompt", async () => {
    const model = anthropicModel({ http: fetchHttp, model: "claude-x", apiKey: "stand-in-key", baseUrl: base, timeoutMs: 5000 });
    const response = await model.complete({ system: "cite keys", messages: [{ role: "user", content: "q" }] });
    expect(response.text).toBe("system was: cite keys");
    expect(seen.at(-1)!.headers["anthropic-version"]).toBe("2023-06-01");
  });

  it("a rejected key comes back as an auth error that does not repeat the key", async () => {
    const model = anthropicModel({ http: fetchHttp, model: "claude-x", apiKey: "wrong-key-123", baseUrl: base, timeoutMs: 5000 });
    const error = await model.complete({ system: "s", messages: [{ role: "user", content: "q" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).kind).toBe("auth");
    expect((error as ModelError).message).not.toContain("wrong-key-123");
  });

  it("a server that is not running is a network error", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const model = openAiCompatibleModel({ http: fetchHttp, model: "m", baseUrl: `http://127.0.0.1:${port}/v1`, timeoutMs: 5000 });
    const error = await model.complete({ system: "s", messages: [{ role: "user", content: "q" }] }).catch((e: unknown) => e);
    expect((error as ModelError).kind).toBe("network");
  });
});

// Through the CLI's own Http, which follows a model server's redirects on the same site only, at
// most five: a server at a base URL with no path that answered every request with a redirect was
// told "The base URL … has no path; … expect one ending in /v1", and its failure taken for a wrong address.
describe("a model server that only redirects, at a base URL with no path", () => {
  let looping: Server;
  let sendingAway: Server;
  const ask = { system: "s", messages: [{ role: "user" as const, content: "q" }] };
  const originOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

  /** A server that answers every request with a 302 to `where(path, port)`. */
  async function redirectingServer(where: (path: string, port: number) => string): Promise<Server> {
    const redirecting = createServer((req, res) => {
      req.resume();
      res.writeHead(302, { location: where(req.url ?? "/", (redirecting.address() as AddressInfo).port) }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
    return redirecting;
  }

  beforeAll(async () => {
    looping = await redirectingServer((path) => path);
    // "localhost" on the same port: another site than 127.0.0.1.
    sendingAway = await redirectingServer((path, port) => `http://localhost:${port}${path}`);
  });

  afterAll(async () => {
    for (const s of [looping, sendingAway]) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  });

  it("to itself, for ever: says it kept redirecting, as an http failure, and never to add /v1", async () => {
    const origin = originOf(looping);
    const model = openAiCompatibleModel({ http: createFetchHttp(), model: "m", baseUrl: origin, timeoutMs: 5000 });
    const error = await model.complete(ask).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ kind: "http", details: {} });
    expect((error as ModelError).details.reason).toBeUndefined();
    expect((error as ModelError).message).toBe(`The model server at ${origin} answered, but ${new URL(origin).host} kept redirecting (more than 5 times); the request was given up on.`);
  });

  it("to another site: no wrong address either", async () => {
    const model = openAiCompatibleModel({ http: createFetchHttp(), model: "m", baseUrl: originOf(sendingAway), timeoutMs: 5000 });
    const error = (await model.complete(ask).catch((e: unknown) => e)) as ModelError;
    expect(error).toMatchObject({ kind: "http" });
    expect(error.details.reason).toBeUndefined();
    expect(error.message).toContain("redirected to another site (localhost:");
    expect(error.message).not.toContain("/v1");
  });
});
