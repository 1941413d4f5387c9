// DESIGN invariant 3, the MCP server: a key the server knows (from its environment) never reaches an
// agent — not in a tool's result, not in an error text, not in the note promote_result writes. The
// attacks: a provider whose results and error body carry the key (raw and JSON-\u-escaped), a page
// that echoes it when promoted, and an error text that quotes what it was given. The server runs
// in-process over the SDK's in-memory transport; the web is a replay folder.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args";
import { envSecretValues } from "../../src/cli/env-secrets";
import { serveVault } from "../../src/cli/mcp/mcp-command";
import { COMMANDS } from "../../src/cli/run";
import { terminalOutput } from "../../src/cli/terminal-text";
import { braveBody, everyOutput, KEYS, sandbox, WEB_QUESTION, whereFound, type Sandbox } from "./hostile-kit";

const KEY = KEYS.BRAVE_SEARCH_API_KEY;
const PAGE_KEY = KEYS.EXA_API_KEY;
/** A key of the environment that no part of this run sends anywhere: only the server's own scrubbing knows it. */
const IDLE_KEY = KEYS.GITHUB_TOKEN;
const ENV = { BRAVE_SEARCH_API_KEY: KEY, EXA_API_KEY: PAGE_KEY, GITHUB_TOKEN: IDLE_KEY };
const jsonEscaped = (text: string) => Array.from(text, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
const forms = (key: string) => [key, key.slice(0, 12), jsonEscaped(key), encodeURIComponent(key)];

type CallResult = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

let box: Sandbox;
let client: Client | undefined;
let served: Promise<number> | undefined;
let stderr = "";

beforeEach(() => {
  box = sandbox();
  stderr = "";
});

afterEach(async () => {
  await client?.close();
  await served;
  client = undefined;
  box.cleanup();
});

/** `vault-research mcp --allow-external --allow-writes` over the replay folder of the sandbox, and a client on it. */
async function startServer(): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const argv = ["--vault", box.vault, "--cache-dir", box.cache, "--replay", path.join(box.dir, "replay"), "--allow-external", "--allow-writes"];
  const env = { HOME: box.dir, ...ENV };
  const io = terminalOutput({ out: () => undefined, err: (t: string) => void (stderr += t), env, cwd: box.dir }, envSecretValues(env));
  served = serveVault(parseArgs(argv, COMMANDS.mcp.flags), io, serverSide);
  client = new Client({ name: "hostile-agent", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

/** Everything an agent was handed, as text: what the leak search reads. */
function seen(result: CallResult): string {
  return JSON.stringify(result);
}

/** A recorded exchange: `body` as JSON text with the key written as \u escapes where `escape` says. */
function exchange(method: string, url: string, status: number, body: object | string, escape?: string): string {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return JSON.stringify({ method, url, status, headers: { "content-type": typeof body === "string" ? "text/html" : "application/json" }, body: escape ? text.split(escape).join(jsonEscaped(escape)) : text });
}

const braveUrl = "https://api.search.brave.com/res/v1/llm/context";

describe("the MCP server never hands an agent a key", () => {
  it("in research_pack results whose titles, snippets and URLs carry it, raw and \\u-escaped", async () => {
    box.write("replay/brave.json", exchange("GET", braveUrl, 200, braveBody([
      { url: `https://evil.example/leak?k=${encodeURIComponent(KEY)}`, title: `Automerge latest release ${KEY} ${IDLE_KEY}`, snippets: [`The latest Automerge release notes say ${KEY} and ${IDLE_KEY} changed.`] },
    ]), KEY));
    const mcp = await startServer();
    const result = (await mcp.callTool({ name: "research_pack", arguments: { question: WEB_QUESTION, allow_external_search: true } })) as CallResult;
    expect(result.isError).toBeFalsy();
    expect(seen(result)).toContain("Outside vault · Brave");
    expect(seen(result)).toContain("[redacted]");
    for (const form of [...forms(KEY), ...forms(IDLE_KEY)]) expect(whereFound(form, { result: seen(result), stderr }), `found ${form}`).toEqual([]);
  });

  it("in a provider's error page that quotes it", async () => {
    box.write("replay/brave.json", exchange("GET", braveUrl, 502, `<html><head><title>Bad gateway for token ${KEY} (also ${IDLE_KEY})</title></head><body>upstream</body></html>`));
    const mcp = await startServer();
    const result = (await mcp.callTool({ name: "research_pack", arguments: { question: WEB_QUESTION, allow_external_search: true } })) as CallResult;
    expect(seen(result)).toContain("Brave answered HTTP 502");
    for (const form of [...forms(KEY), ...forms(IDLE_KEY)]) expect(whereFound(form, { result: seen(result), stderr }), `found ${form}`).toEqual([]);
  });

  it("in promote_result's result and the note it writes, when the page echoes a key of the environment", async () => {
    box.write("replay/brave.json", exchange("GET", braveUrl, 200, braveBody([{ url: "https://news.example.org/release", title: "Automerge latest release", snippets: ["The latest Automerge release adds compaction."] }])));
    box.write("replay/page.json", exchange("GET", "https://news.example.org/release", 200,
      `<html><head><title>Release ${PAGE_KEY}</title></head><body><article><h1>Release ${PAGE_KEY}</h1><p>${"Automerge release text. ".repeat(20)} Your key: ${PAGE_KEY}. Again: ${encodeURIComponent(PAGE_KEY)}.</p></article></body></html>`));
    const mcp = await startServer();
    const pack = (await mcp.callTool({ name: "research_pack", arguments: { question: WEB_QUESTION, allow_external_search: true } })) as CallResult;
    const json = pack.structuredContent as { trace_file: string; pack: { external_evidence: { source_key: string }[] } };
    const promoted = (await mcp.callTool({ name: "promote_result", arguments: { trace: json.trace_file, source_key: json.pack.external_evidence[0].source_key } })) as CallResult;
    expect(promoted.isError).toBeFalsy();
    expect(promoted.structuredContent).toMatchObject({ status: "created" });
    const outputs = { ...everyOutput(box, { code: 0, out: seen(promoted), err: stderr }), pack: seen(pack) };
    for (const form of forms(PAGE_KEY)) expect(whereFound(form, outputs), `found ${form}`).toEqual([]);
  });

  it("nor writes one an agent typed into a question or a search into the kept trace or the query log", async () => {
    box.write("replay/brave.json", exchange("GET", braveUrl, 200, braveBody([])));
    const mcp = await startServer();
    const pack = (await mcp.callTool({ name: "research_pack", arguments: { question: `why did we choose Automerge ${IDLE_KEY} over Yjs` } })) as CallResult;
    expect(pack.isError).toBeFalsy();
    expect((pack.structuredContent as { trace_file?: string }).trace_file).toBeDefined();
    const search = (await mcp.callTool({ name: "vault_search", arguments: { query: `Automerge ${PAGE_KEY}` } })) as CallResult;
    expect(search.isError).toBeFalsy();
    const outputs = everyOutput(box, { code: 0, out: seen(pack) + seen(search), err: stderr });
    expect(Object.keys(outputs).some((name) => name.endsWith("query-log.jsonl"))).toBe(true);
    const names = Object.keys(outputs).join("\n");
    for (const key of [IDLE_KEY, PAGE_KEY]) for (const form of [...forms(key), key.toLowerCase()]) expect(whereFound(form, { ...outputs, names }), `found ${form}`).toEqual([]);
  });

  it("in an error text that quotes what it was given", async () => {
    box.write("replay/brave.json", exchange("GET", braveUrl, 200, braveBody([])));
    const mcp = await startServer();
    const result = (await mcp.callTool({ name: "read_note", arguments: { path: `Keys/${PAGE_KEY}.md` } })) as CallResult;
    expect(result.isError).toBe(true);
    expect(seen(result)).toContain("not_found");
    expect(seen(result)).not.toContain(PAGE_KEY);
    const promote = (await mcp.callTool({ name: "promote_result", arguments: { trace: `${KEY}.json`, source_key: `ext:brave:${KEY}` } })) as CallResult;
    expect(promote.isError).toBe(true);
    for (const form of forms(KEY)) expect(seen(promote), `found ${form}`).not.toContain(form);
  });
});
