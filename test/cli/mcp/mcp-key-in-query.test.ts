// The MCP server's free-text arguments that go to a model, the web or the query log — vault_search's
// query and tags, research_pack's question — when an agent pastes an API key the environment does
// not hold into one: the call fails in words, never repeating the key, and nothing is embedded,
// searched or logged. In-process over the SDK's in-memory transport, with the stand-in embedding
// server on 127.0.0.1 recording every text it is sent, and a faked web recording every request.
// Also: research_pack's structured content says when the web was asked for and refused, and why.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseArgs } from "../../../src/cli/args";
import { serveVault } from "../../../src/cli/mcp/mcp-command";
import { COMMANDS, runCli } from "../../../src/cli/run";
import { terminalOutput } from "../../../src/cli/terminal-text";
import type { WebAccess } from "../../../src/cli/web-access";
import type { HttpRequest, SecretName } from "../../../src/ports";
import { startStandInServer, type StandInServer } from "../../llm/embeddings/stand-in-embedding-server";

/** Another service's key, pasted by mistake: the environment holds no such key, so nothing could scrub it. */
const PASTED_KEY = "sk-ant-api03-Zq7xV2mKp9LrT4wYb8NcE1hJ6uSd3FgA0oQiWl5Xy";
const BRAVE_KEY = "BSA-key-in-query-0123456789";

type CallResult = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

let tmp: string;
let vault: string;
let cache: string;
let embedServer: StandInServer;
let spec: string;
let client: Client | undefined;
let served: Promise<number> | undefined;
let endClient: (() => void) | undefined;

beforeAll(async () => {
  embedServer = await startStandInServer({ dimensions: 64 });
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-mcp-key-"));
  vault = path.join(tmp, "vault");
  cache = path.join(tmp, "cache");
  mkdirSync(vault);
  writeFileSync(path.join(vault, "Kites.md"), "# Kites\n\nFlying kites on the beach; the line and the wind.\n");
  writeFileSync(path.join(vault, "Soup.md"), "# Soup\n\nLeek soup.\n");
  spec = `ollama:nomic-embed-text@${embedServer.base}`;
  const embedded = await runCli(["embed", "--vault", vault, "--cache-dir", cache, "--embed", spec], { out: () => undefined, err: () => undefined, env: {}, cwd: tmp });
  if (embedded !== 0) throw new Error("embed failed");
}, 60_000);

afterEach(async () => {
  endClient?.();
  await client?.close();
  await served;
  client = undefined;
  served = undefined;
});

afterAll(async () => {
  await embedServer?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** A web that records every request and answers none: a test that sees one has seen something leave. */
function recordingWeb(): { web: WebAccess; requests: HttpRequest[] } {
  const requests: HttpRequest[] = [];
  const web: WebAccess = {
    http: {
      request: async (req) => {
        requests.push(req);
        return { status: 200, headers: { "content-type": "application/json" }, text: "{}" };
      },
    },
    secrets: { get: async (name: SecretName) => (name === "brave" ? BRAVE_KEY : null) },
    fetchGuard: { resolve: async () => ["93.184.216.34"] },
  };
  return { web, requests };
}

async function start(flags: string[], web: WebAccess, cacheDir = cache): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const env = { HOME: tmp, BRAVE_SEARCH_API_KEY: BRAVE_KEY };
  const io = terminalOutput({ out: () => undefined, err: () => undefined, env, cwd: tmp }, [BRAVE_KEY]);
  const args = parseArgs(["--vault", vault, "--cache-dir", cacheDir, "--embed", spec, ...flags], COMMANDS.mcp.flags);
  const ended = new Promise<void>((resolve) => (endClient = resolve));
  served = serveVault(args, io, serverSide, { ended, web });
  client = new Client({ name: "key-in-query", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

async function call(mcp: Client, name: string, args: Record<string, unknown>): Promise<CallResult> {
  return (await mcp.callTool({ name, arguments: args })) as CallResult;
}

function queryLog(): string {
  const folder = readdirSync(cache).find((f) => f.startsWith("index-"));
  const file = folder ? path.join(cache, folder, "query-log.jsonl") : "";
  return file && existsSync(file) ? readFileSync(file, "utf8") : "";
}

/** A failed call in words that do not hand the key back. */
function expectRefusedWithoutTheKey(result: CallResult): void {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const text = result.content.map((c) => c.text).join("\n");
  expect(text).toMatch(/looks like an API key, or holds one/);
  expect(text).not.toContain(PASTED_KEY);
  expect(text).not.toContain("sk-ant");
}

describe("an agent that pastes an API key into a tool's text", () => {
  it("vault_search refuses a query holding one at every level: nothing is embedded, reranked or logged", async () => {
    const mcp = await start([], recordingWeb().web);
    // The server works: a query in words at level 2 is embedded, and logged.
    const words = await call(mcp, "vault_search", { query: "kites on the beach", level: 2 });
    expect(words.isError).toBeFalsy();
    const embeddedBefore = embedServer.embeddedTexts().length;
    expect(embeddedBefore).toBeGreaterThan(0);
    const loggedBefore = queryLog();
    expect(loggedBefore).toContain("kites on the beach");

    for (const level of [1, 2, 3, 4]) expectRefusedWithoutTheKey(await call(mcp, "vault_search", { query: `kites ${PASTED_KEY}`, level }));
    expect(embedServer.embeddedTexts().slice(embeddedBefore)).toEqual([]);
    expect(embedServer.chatCalls).toEqual([]);
    expect(queryLog()).toBe(loggedBefore);
  });

  it("vault_search refuses a tag holding one: tags go to the query log too", async () => {
    const mcp = await start([], recordingWeb().web);
    const loggedBefore = queryLog();
    expectRefusedWithoutTheKey(await call(mcp, "vault_search", { query: "kites", tags: [`#${PASTED_KEY}`] }));
    expect(queryLog()).toBe(loggedBefore);
  });

  it("research_pack refuses a question holding one: no web source is sent it, and no trace keeps it", async () => {
    const { web, requests } = recordingWeb();
    // A cache folder of its own: whatever the run kept or logged is in it, and nothing else is.
    const own = path.join(tmp, "research-cache");
    const mcp = await start(["--allow-external"], web, own);
    expectRefusedWithoutTheKey(await call(mcp, "research_pack", { question: `What about kites? ${PASTED_KEY}`, allow_external_search: true }));
    expect(requests).toEqual([]);
    const everything = readdirSync(own, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => readFileSync(path.join(e.parentPath, e.name), "latin1"));
    for (const text of everything) expect(text).not.toContain(PASTED_KEY);
  });

  it("a key the environment holds, inside a longer query, is no reason to refuse: it is scrubbed", async () => {
    const mcp = await start([], recordingWeb().web);
    const result = await call(mcp, "vault_search", { query: `kites ${BRAVE_KEY}`, level: 2 });
    expect(result.isError).toBeFalsy();
    expect(embedServer.embeddedTexts().join("\n")).not.toContain(BRAVE_KEY);
    expect(queryLog()).not.toContain(BRAVE_KEY);
  });
});

describe("research_pack's structured content says what became of the web", () => {
  const QUESTION = "What is new with kites today?";

  it("asked for on a server started without --allow-external: refused, and why", async () => {
    const { web, requests } = recordingWeb();
    const mcp = await start([], web);
    const result = await call(mcp, "research_pack", { question: QUESTION, allow_external_search: true });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent?.external_search).toEqual({
      asked: true,
      refused: { kind: "server_without_allow_external", message: "External search was asked for, but this server was started without --allow-external: nothing left the machine." },
    });
    expect(result.content[0].text).toContain("started without --allow-external: nothing left the machine.");
    expect(requests).toEqual([]);
  });

  it("not asked for: not refused either, whatever the server allows", async () => {
    for (const flags of [[], ["--allow-external"]]) {
      const mcp = await start(flags, recordingWeb().web);
      const result = await call(mcp, "research_pack", { question: QUESTION });
      expect(result.structuredContent?.external_search).toEqual({ asked: false, refused: null });
      endClient?.();
      await mcp.close();
      await served;
    }
  });

  it("asked for on a server that allows it: not refused, and providers_asked names whom", async () => {
    const { web, requests } = recordingWeb();
    const mcp = await start(["--allow-external"], web);
    const result = await call(mcp, "research_pack", { question: QUESTION, allow_external_search: true });
    expect(result.structuredContent).toMatchObject({ external_search: { asked: true, refused: null }, providers_asked: ["brave"] });
    expect(requests.length).toBeGreaterThan(0);
  });

  it("declares the field in research_pack's output schema, as optional", async () => {
    const mcp = await start([], recordingWeb().web);
    const { tools } = await mcp.listTools();
    const schema = tools.find((t) => t.name === "research_pack")?.outputSchema as { properties: Record<string, unknown>; required?: string[] };
    expect(schema.properties.external_search).toBeDefined();
    expect(schema.required ?? []).not.toContain("external_search");
  });
});
