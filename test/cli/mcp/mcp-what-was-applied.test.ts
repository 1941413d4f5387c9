// What an agent is told was applied is what was applied: the tags vault_search filtered by, and
// whether a server may reach the web at all when its config's master switch (external.enabled)
// is off. In-process over the SDK's in-memory transport; the web is faked at its ports and records
// every request, so "nothing was sent" is seen, not assumed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseArgs, UsageError } from "../../../src/cli/args";
import { serveVault } from "../../../src/cli/mcp/mcp-command";
import { COMMANDS } from "../../../src/cli/run";
import { terminalOutput } from "../../../src/cli/terminal-text";
import type { WebAccess } from "../../../src/cli/web-access";
import { HttpFailure, systemClock, type Clock, type HttpRequest } from "../../../src/ports";

const ROOT = path.resolve(__dirname, "../../..");
const WEB_QUESTION = "What changed in the latest Automerge release?";

let tmp: string;
let vault: string;
let client: Client | undefined;
let served: Promise<number> | undefined;
let endClient: (() => void) | undefined;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-mcp-applied-"));
  vault = path.join(tmp, "vault");
  cpSync(path.join(ROOT, "examples/vault"), vault, { recursive: true });
});

afterEach(async () => {
  endClient?.();
  await client?.close();
  await served?.catch(() => undefined);
  client = undefined;
  served = undefined;
  rmSync(tmp, { recursive: true, force: true });
});

/** A web that records each request and answers none of them (every one fails at once); Brave's key set unless `braveKey` is false. */
function recordingWeb(braveKey = true): { web: WebAccess; requests: HttpRequest[] } {
  const requests: HttpRequest[] = [];
  const web: WebAccess = {
    http: {
      request: async (req) => {
        requests.push(req);
        throw new HttpFailure("network", "The test's web answers nothing.");
      },
    },
    secrets: { get: async (name) => (name === "brave" && braveKey ? "BSA-applied-0123456789" : null) },
    fetchGuard: { resolve: async () => ["93.184.216.34"] },
  };
  return { web, requests };
}

function serve(flags: string[], web: WebAccess, clock?: Clock): { served: Promise<number>; connected: Promise<Client> } {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const io = terminalOutput({ out: () => undefined, err: () => undefined, env: { HOME: tmp }, cwd: tmp, ...(clock ? { clock } : {}) }, []);
  const args = parseArgs(["--vault", vault, "--cache-dir", path.join(tmp, "cache"), ...flags], COMMANDS.mcp.flags);
  const ended = new Promise<void>((resolve) => (endClient = resolve));
  served = serveVault(args, io, serverSide, { ended, web });
  const mcp = new Client({ name: "applied-agent", version: "1.0.0" });
  client = mcp;
  return { served, connected: mcp.connect(clientSide).then(() => mcp) };
}

function configFile(settings: unknown): string {
  const file = path.join(tmp, "config.json");
  writeFileSync(file, JSON.stringify(settings));
  return file;
}

type CallResult = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

describe("vault_search's tags, as echoed", () => {
  it("are the filter the search applied: no leading #s, lower case, no empty levels, each once", async () => {
    const mcp = await serve([], recordingWeb().web).connected;
    const typed = (await mcp.callTool({ name: "vault_search", arguments: { query: "sync", tags: ["##CRDT", " crdt/ ", "crdt"] } })) as CallResult;
    const asTyped = (await mcp.callTool({ name: "vault_search", arguments: { query: "sync", tags: ["crdt"] } })) as CallResult;
    const body = typed.structuredContent as { tags: string[]; results: { path: string }[] };
    expect(body.tags).toEqual(["crdt"]);
    // The same filter, so the same notes: the echo is not a guess at it.
    expect(body.results.map((r) => r.path)).toEqual((asTyped.structuredContent as { results: { path: string }[] }).results.map((r) => r.path));
    expect(body.results.length).toBeGreaterThan(0);
  });
});

describe("--allow-external while the config switches web search off (external.enabled: false)", () => {
  it("is refused when the server starts, as research --external-search is, in words, before anything is sent", async () => {
    const { web, requests } = recordingWeb();
    const config = configFile({ external: { enabled: false, providers: ["brave"] } });
    const { served: started, connected } = serve(["--allow-external", "--config", config], web);
    // Refused, the server is gone before it answers the client's handshake; served, the handshake is answered.
    const refused = await Promise.race([started.then(() => "served", (error: unknown) => error), connected.then(() => "connected")]);
    connected.catch(() => undefined);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toBe("--allow-external asks for web search, but the config switches it off (external.enabled: false). Switch it on there, or leave --allow-external out.");
    expect(requests).toEqual([]);
  });

  it("a config that switches it on, or does not say, leaves the flag to decide", async () => {
    for (const settings of [{ external: { enabled: true, providers: ["brave"] } }, { external: { providers: ["brave"] } }]) {
      const { web, requests } = recordingWeb();
      const mcp = await serve(["--allow-external", "--config", configFile(settings)], web).connected;
      const result = (await mcp.callTool({ name: "research_pack", arguments: { question: WEB_QUESTION, allow_external_search: true } })) as CallResult;
      expect(result.structuredContent?.external_search, JSON.stringify(settings)).toEqual({ asked: true, refused: null });
      expect(requests.map((r) => new URL(r.url).host)).toContain("api.search.brave.com");
      endClient?.();
      await client?.close();
      await served;
    }
  });
});

describe("a blank query or question", () => {
  it("is refused as a bad argument, as the CLI's search and research refuse it, and nothing is sent", async () => {
    const { web, requests } = recordingWeb();
    const mcp = await serve(["--allow-external"], web).connected;
    for (const [name, args] of [
      ["research_pack", { question: "   ", allow_external_search: true }],
      ["research_pack", { question: "\n\t\u00a0" }],
      ["vault_search", { query: "  " }],
    ] as const) {
      const result = (await mcp.callTool({ name, arguments: args })) as CallResult;
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(result.content[0].text).toMatch(new RegExp(`Invalid arguments for tool ${name}: the (query|question) is blank: give it words at (query|question)$`));
    }
    expect(requests).toEqual([]);
    // The tool list says so: a pattern a client can check before it calls.
    const { tools } = await mcp.listTools();
    const schemaOf = (tool: string) => tools.find((t) => t.name === tool)?.inputSchema.properties as Record<string, { pattern?: string }>;
    expect(schemaOf("research_pack").question.pattern).toBe("\\S");
    expect(schemaOf("vault_search").query.pattern).toBe("\\S");
  });
});

describe("a research_pack call that asks for progress", () => {
  it("hears each stage of the run as it goes, in order, before its answer", async () => {
    const { web } = recordingWeb();
    const mcp = await serve(["--allow-external"], web).connected;
    const heard: { progress: number; message?: string }[] = [];
    const result = (await mcp.callTool({ name: "research_pack", arguments: { question: WEB_QUESTION, allow_external_search: true } }, undefined, { onprogress: (p) => heard.push(p) })) as CallResult;
    expect(result.structuredContent).toMatchObject({ schema: "research_result.v1", providers_asked: ["brave"] });
    expect(heard.length).toBeGreaterThan(2);
    // "progress" only ever grows (MCP asks that), and each says in words what the run is doing.
    heard.forEach((p, i) => expect(p.progress).toBe(i + 1));
    for (const p of heard) expect(p.message).toMatch(/\S/);
    expect(heard.map((p) => p.message)).toContain("Searching the web with Brave");
    // A source's sentence that does not name it is told with its name: which of them could not be reached.
    expect(heard.map((p) => p.message)).toContain("Brave: could not be reached");
  });
});

describe("a research_pack whose configured source has no key", () => {
  it("says, with the sources it asked, that the free ones stood in and why", async () => {
    const { web, requests } = recordingWeb(false);
    const mcp = await serve(["--allow-external", "--config", configFile({ external: { enabled: true, providers: ["brave"] } })], web).connected;
    const result = (await mcp.callTool({ name: "research_pack", arguments: { question: WEB_QUESTION, allow_external_search: true } })) as CallResult;
    const asked = (result.structuredContent as { providers_asked: string[] }).providers_asked;
    expect(asked).not.toContain("brave");
    expect(asked.length).toBeGreaterThan(0);
    expect(requests.map((r) => new URL(r.url).host)).not.toContain("api.search.brave.com");
    expect(result.content[0].text).toMatch(/^Web sources asked: .+\. No API key is set for Brave, so the free sources were asked\.$/m);
  });
});

describe("research_pack's first lines, on how its web search went", () => {
  // The lead had words of its own: "External search was allowed, but the vault's evidence sufficed: no
  // web source was asked." for a run that ran out of time before its search, and only "Web sources
  // asked: Brave." when Brave had failed, where the run's recall note and trace note said otherwise.
  /** A clock whose monotonic reading moves a minute at each look: the run's five minutes are gone before its search. */
  const racingClock = (): Clock => {
    let t = 0;
    return { ...systemClock, monotonicNow: () => (t += 61_000) };
  };
  const cases: { name: string; question: string; clock?: () => Clock; says: string; asked: string | null }[] = [
    { name: "every source failed", question: WEB_QUESTION, says: "Web search failed: Brave could not be reached.", asked: "Web sources asked: Brave." },
    { name: "the run ran out of time before its search", question: WEB_QUESTION, clock: racingClock, says: "Nothing left the device: the web search never started (the run stopped or ran out of time first).", asked: null },
    { name: "the vault had enough", question: "How does Automerge merge concurrent edits?", says: "Nothing left the device: the vault had enough on this, so the web was not searched.", asked: null },
  ];
  for (const c of cases) {
    it(`${c.name}: says it as the recall note and the kept trace note say it`, async () => {
      const mcp = await serve(["--allow-external", "--config", configFile({ external: { enabled: true, providers: ["brave"] } })], recordingWeb().web, c.clock?.()).connected;
      const result = (await mcp.callTool({ name: "research_pack", arguments: { question: c.question, allow_external_search: true } })) as CallResult;
      const body = result.structuredContent as { pack: { coverage: { recall_note: string } }; trace_file: string };
      const [first, second] = result.content[0].text.split("\n");
      expect(first).toBe(c.says);
      expect(body.pack.coverage.recall_note.endsWith(` ${c.says}`)).toBe(true);
      expect(readFileSync(body.trace_file, "utf8")).toContain(c.says);
      if (c.asked) expect(second).toBe(c.asked);
      else expect(result.content[0].text).not.toContain("Web sources asked");
    });
  }
});
