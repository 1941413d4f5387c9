// The MCP server as a careless or hostile agent meets it, in-process over the SDK's in-memory
// transport against a copy of the sample vault. The web is faked at its ports (Http, Secrets, the
// fetch guard's name lookup): nothing here reaches the network, and a request the fake holds open
// shows whether a cancelled call's run was told to stop.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseArgs } from "../../../src/cli/args";
import { serveVault } from "../../../src/cli/mcp/mcp-command";
import { COMMANDS } from "../../../src/cli/run";
import { terminalOutput } from "../../../src/cli/terminal-text";
import type { WebAccess } from "../../../src/cli/web-access";
import { HttpFailure, type HttpRequest, type HttpResponse, type SecretName } from "../../../src/ports";

const ROOT = path.resolve(__dirname, "../../..");
const WEB_QUESTION = "What changed in the latest Automerge release?";
const BRAVE_KEY = "BSA-careless-agent-0123456789";

type CallResult = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

let tmp: string;
let vault: string;
let client: Client | undefined;
let served: Promise<number> | undefined;
let endClient: (() => void) | undefined;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-mcp-agent-"));
  vault = path.join(tmp, "vault");
  cpSync(path.join(ROOT, "examples/vault"), vault, { recursive: true });
});

afterEach(async () => {
  endClient?.();
  await client?.close();
  await served;
  client = undefined;
  served = undefined;
  rmSync(tmp, { recursive: true, force: true });
});

/** A web whose every request waits, until its signal aborts (then it fails as aborted) or the test answers it. */
function heldWeb(): { web: WebAccess; requests: HttpRequest[]; firstRequest: Promise<HttpRequest>; answerAll: (response: HttpResponse) => void } {
  const requests: HttpRequest[] = [];
  const waiting: ((response: HttpResponse) => void)[] = [];
  let sawFirst!: (req: HttpRequest) => void;
  const firstRequest = new Promise<HttpRequest>((resolve) => (sawFirst = resolve));
  const web: WebAccess = {
    http: {
      request: (req) => {
        requests.push(req);
        sawFirst(req);
        return new Promise<HttpResponse>((resolve, reject) => {
          req.signal?.addEventListener("abort", () => reject(new HttpFailure("aborted", "The request was cancelled.")), { once: true });
          waiting.push(resolve);
        });
      },
    },
    secrets: { get: async (name: SecretName) => (name === "brave" ? BRAVE_KEY : null) },
    fetchGuard: { resolve: async () => ["93.184.216.34"] },
  };
  return { web, requests, firstRequest, answerAll: (response) => waiting.splice(0).forEach((answer) => answer(response)) };
}

async function start(flags: string[] = [], web?: WebAccess, answerGraceMs?: number): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const env = { HOME: tmp, BRAVE_SEARCH_API_KEY: BRAVE_KEY };
  const io = terminalOutput({ out: () => undefined, err: () => undefined, env, cwd: tmp }, [BRAVE_KEY]);
  const args = parseArgs(["--vault", vault, "--cache-dir", path.join(tmp, "cache"), ...flags], COMMANDS.mcp.flags);
  const ended = new Promise<void>((resolve) => (endClient = resolve));
  served = serveVault(args, io, serverSide, { ended, ...(web ? { web } : {}), ...(answerGraceMs !== undefined ? { answerGraceMs } : {}) });
  client = new Client({ name: "careless-agent", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

async function call(mcp: Client, name: string, args: Record<string, unknown>): Promise<CallResult> {
  return (await mcp.callTool({ name, arguments: args })) as CallResult;
}

/** Every file under `dir` with its size and modification time: what a write would change. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else out[path.relative(dir, full)] = `${st.size}:${st.mtimeMs}`;
    }
  };
  walk(dir);
  return out;
}

describe("an agent that gives up on a call", () => {
  it("cancelling research_pack (notifications/cancelled) aborts the web request it was waiting on", async () => {
    const held = heldWeb();
    const mcp = await start(["--allow-external"], held.web);
    const cancel = new AbortController();
    const pending = mcp.callTool({ name: "research_pack", arguments: { question: WEB_QUESTION, allow_external_search: true } }, undefined, { signal: cancel.signal });
    const first = await held.firstRequest;
    expect(new URL(first.url).host).toBe("api.search.brave.com");
    cancel.abort();
    await expect(pending).rejects.toThrow();
    // A round trip after the cancellation: the server has read it by the time this answers.
    await mcp.ping();
    expect(first.signal?.aborted).toBe(true);
    held.answerAll({ status: 200, headers: { "content-type": "application/json" }, text: "{}" });
  });

  it("a client whose input ends mid-call is answered when the run finishes, and the server returns after", async () => {
    const held = heldWeb();
    const mcp = await start(["--allow-external"], held.web);
    const pending = call(mcp, "research_pack", { question: WEB_QUESTION, allow_external_search: true });
    await held.firstRequest;
    endClient!();
    let returned = false;
    void served!.then(() => (returned = true));
    await mcp.ping().catch(() => undefined);
    expect(returned).toBe(false);
    // Every request the run makes from now on is answered (an empty result: it may retry or try another).
    const answering = setInterval(() => held.answerAll({ status: 200, headers: { "content-type": "application/json" }, text: "{}" }), 10);
    const answered = await pending.finally(() => clearInterval(answering));
    expect(answered.structuredContent).toMatchObject({ schema: "research_result.v1" });
    expect(await served).toBe(0);
  });

  it("a client whose input ends mid-call, with a run that outlasts the grace, has its web request stopped, and the server returns", async () => {
    const held = heldWeb();
    const mcp = await start(["--allow-external"], held.web, 0);
    void mcp.callTool({ name: "research_pack", arguments: { question: WEB_QUESTION, allow_external_search: true } }).catch(() => undefined);
    const first = await held.firstRequest;
    endClient!();
    expect(await served).toBe(0);
    expect(first.signal?.aborted).toBe(true);
    held.answerAll({ status: 200, headers: { "content-type": "application/json" }, text: "{}" });
  });
});

describe("what a failed call says", () => {
  it("promote_result that writes nothing is a failed call (isError), the reason first, in words", async () => {
    const mcp = await start(["--allow-writes"]);
    const result = await call(mcp, "promote_result", { trace: "Libraries/Automerge.md", source_key: "ext:brave:0123456789" });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/^Not promoted \(trace_unreadable\): Libraries\/Automerge\.md: .*trace/);
    expect(result.structuredContent).toMatchObject({ schema: "promote_result.v1", status: "failed", note_path: null });
    expect(JSON.stringify(result)).not.toMatch(/\n\s+at /);
  });

  it("promote_result with megabytes for its trace or key is refused without handing them back", async () => {
    const mcp = await start(["--allow-writes"]);
    for (const args of [{ trace: "Libraries/Automerge.md", source_key: `ext:brave:${"0".repeat(2_000_000)}` }, { trace: `${"a/".repeat(1_000_000)}x.md`, source_key: "ext:brave:0123456789" }]) {
      const result = await call(mcp, "promote_result", args);
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result).length).toBeLessThan(10_000);
    }
  });

  it("wrong arguments, an unknown tool: isError with a plain message, never a stack", async () => {
    const mcp = await start();
    for (const [name, args] of [
      ["vault_search", { query: 5 }],
      ["vault_search", { query: "a", tags: [[["deep"]]] }],
      ["vault_search", { query: "a", tags: Array.from({ length: 20_000 }, (_, i) => `tag${i}`) }],
      ["vault_search", { query: "a", tags: ["x".repeat(100_000)] }],
      ["read_note", {}],
      ["no_such_tool", {}],
    ] as const) {
      const result = await call(mcp, name, args);
      expect(result.isError, name).toBe(true);
      expect(result.content[0].text).not.toMatch(/\n\s+at /);
    }
  });

  it("vault_search with a tag that names no tag (#, empty, spaces) is refused as a bad argument, not searched unfiltered", async () => {
    const mcp = await start();
    for (const tags of [["#"], [""], [" "], ["crdt", "#/"]]) {
      const result = await call(mcp, "vault_search", { query: "automerge", tags });
      expect(result.isError, JSON.stringify(tags)).toBe(true);
      expect(result.structuredContent, JSON.stringify(tags)).toBeUndefined();
      expect(result.content[0].text).toMatch(/Invalid arguments for tool vault_search: a tag needs a name .*: give one or remove the tag at tags\[\d\]$/);
    }
    // What a tag may be written as still filters: a leading #, any case.
    const tagged = await call(mcp, "vault_search", { query: "automerge", tags: ["#CRDT"] });
    expect(tagged.isError).toBeFalsy();
    const body = tagged.structuredContent as { results: { tags: string[] }[] };
    expect(body.results.length).toBeGreaterThan(0);
    for (const r of body.results) expect(r.tags.some((t) => t === "crdt" || t.startsWith("crdt/"))).toBe(true);
  });
});

describe("huge and strange arguments", () => {
  it("a query of megabytes is read to its first 2,000 characters, and the reply does not hand it back", async () => {
    const mcp = await start();
    const query = "automerge ".repeat(300_000);
    const result = await call(mcp, "vault_search", { query });
    expect(result.isError).toBeFalsy();
    expect(result.content[0].text).toBe("The query is 3,000,000 characters long; only its first 2,000 were read.");
    const body = result.structuredContent as { query: string; results: unknown[] };
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.query.length).toBeLessThanOrEqual(2_000);
    expect(JSON.stringify(result).length).toBeLessThan(200_000);
  });

  it("control characters, NUL and a lone surrogate in a query are searched around, not choked on", async () => {
    const mcp = await start();
    const result = await call(mcp, "vault_search", { query: "\u0000\u0001\ud800 automerge \u001b[31m" });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { results: { path: string }[] }).results[0].path).toBe("Libraries/Automerge.md");
  });
});

describe("many calls at once", () => {
  it("forty calls of every tool in flight together each get their own right answer", async () => {
    const mcp = await start();
    const calls = Array.from({ length: 40 }, (_, i) =>
      i % 3 === 0
        ? call(mcp, "vault_search", { query: "why did we choose Automerge over Yjs", limit: 3 }).then((r) => (r.structuredContent as { results: { path: string }[] }).results[0].path)
        : i % 3 === 1
          ? call(mcp, "read_note", { path: "Libraries/Automerge.md" }).then((r) => r.content[0].text.split("\n")[1])
          : call(mcp, "research_pack", { question: "why did we choose Automerge over Yjs" }).then((r) => (r.structuredContent as { pack: { evidence: { note_path: string }[] } }).pack.evidence.length > 0),
    );
    const answers = await Promise.all(calls);
    answers.forEach((answer, i) => expect(answer, `call ${i}`).toEqual(i % 3 === 0 ? "Libraries/Automerge vs Yjs.md" : i % 3 === 1 ? "title: Automerge" : true));
  });
});

describe("what read_note reads", () => {
  it("a note in a folder the config leaves out of search is refused as left_out, its text not given", async () => {
    const config = path.join(tmp, "config.json");
    writeFileSync(config, JSON.stringify({ index: { excludedFolders: ["Archive"] } }));
    const mcp = await start(["--config", config]);
    const refused = await call(mcp, "read_note", { path: "Archive/Old sync idea - CouchDB replication.md" });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toMatch(/^left_out: .*Archive\/.*leave out of search/);
    expect(refused.content[0].text).not.toContain("CouchDB replication.\n");
    const found = await call(mcp, "vault_search", { query: "CouchDB replication" });
    expect(JSON.stringify(found)).not.toContain("Archive/");
    expect((await call(mcp, "read_note", { path: "Libraries/Automerge.md" })).isError).toBeFalsy();
  });
});

describe("what the server writes", () => {
  it("without --allow-writes, no tool changes a file of the vault, whatever it is asked", async () => {
    const before = snapshot(vault);
    const mcp = await start(["--allow-external"], heldWeb().web);
    await call(mcp, "vault_search", { query: "automerge", level: 4 });
    await call(mcp, "research_pack", { question: "why did we choose Automerge over Yjs" });
    await call(mcp, "read_note", { path: "Libraries/Automerge.md" });
    await call(mcp, "promote_result", { trace: "x", source_key: "ext:brave:0123456789" });
    expect(snapshot(vault)).toEqual(before);
    expect(readFileSync(path.join(vault, "Libraries/Automerge.md"), "utf8")).toContain("Automerge");
  });
});
