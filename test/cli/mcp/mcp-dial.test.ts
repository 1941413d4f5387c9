// The MCP server's vault_search through the search dial with an embedding model: the built CLI
// started over stdio with --embed pointing at the stand-in server on 127.0.0.1. Level 2 fuses the
// vectors in (a note the words miss), says which level ran, and the tool's description says what
// levels 2–4 send where; level 1 sends nothing.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/run";
import { ensureBuiltCli } from "../../support/built-cli";
import { startStandInServer, type StandInServer } from "../../llm/embeddings/stand-in-embedding-server";

let server: StandInServer;
let tmp: string;
let client: Client;
let cache: string;

beforeAll(async () => {
  const cli = ensureBuiltCli();
  server = await startStandInServer({ dimensions: 64 });
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-mcp-dial-"));
  const vault = path.join(tmp, "vault");
  cache = path.join(tmp, "cache");
  mkdirSync(vault);
  writeFileSync(path.join(vault, "Fixing cars.md"), "# Fixing cars\n\nBrakes, oil and tyres.\n");
  writeFileSync(path.join(vault, "Soup.md"), "# Soup\n\nLeek soup; the repair of the pot waits.\n");
  const spec = `ollama:nomic-embed-text@${server.base}`;
  const embedded = await runCli(["embed", "--vault", vault, "--cache-dir", cache, "--embed", spec], { out: () => undefined, err: () => undefined, env: {}, cwd: tmp });
  if (embedded !== 0) throw new Error("embed failed");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, "mcp", "--vault", vault, "--cache-dir", cache, "--embed", spec],
    env: { PATH: process.env.PATH ?? "", HOME: tmp },
    stderr: "pipe",
  });
  client = new Client({ name: "vault-research-test", version: "1.0.0" });
  await client.connect(transport);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

type Found = { structuredContent?: { level: number; ran_level: number; notices: unknown[]; results: { path: string; dial?: { lanes: { lane: string }[] } }[] } };

describe("vault-research mcp --embed", () => {
  it("says in vault_search's description what levels 2–4 send, and where", async () => {
    const { tools } = await client.listTools();
    const description = tools.find((t) => t.name === "vault_search")?.description ?? "";
    expect(description).toContain("Level 1 never uses the network");
    expect(description).toContain(`to ${server.base} (nomic-embed-text)`);
    // Not a closed world: levels 2–4 send the query to the embedding model.
    expect(tools.find((t) => t.name === "vault_search")?.annotations?.openWorldHint).toBe(true);
  });

  it("level 2 finds the note the words miss, and says level 2 ran; level 1 asks the server nothing", async () => {
    const before = server.embedCalls.length;
    const one = (await client.callTool({ name: "vault_search", arguments: { query: "repairing an automobile", level: 1 } })) as Found;
    expect(one.structuredContent?.results.map((r) => r.path)).not.toContain("Fixing cars.md");
    expect(server.embedCalls.length).toBe(before);

    const two = (await client.callTool({ name: "vault_search", arguments: { query: "repairing an automobile", level: 2 } })) as Found;
    expect(two.structuredContent).toMatchObject({ level: 2, ran_level: 2, notices: [] });
    const car = two.structuredContent!.results.find((r) => r.path === "Fixing cars.md");
    expect(car?.dial?.lanes.map((l) => l.lane)).toContain("note_vector");
    expect(server.embedCalls.length).toBe(before + 1);
  });

  it("reading a note a search returned is logged as opening it (the click-through replay scores by)", async () => {
    await client.callTool({ name: "vault_search", arguments: { query: "leek soup", level: 1 } });
    await client.callTool({ name: "read_note", arguments: { path: "Soup.md" } });
    const folder = readdirSync(cache).find((f) => f.startsWith("index-"))!;
    const lines = readFileSync(path.join(cache, folder, "query-log.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    const search = lines.filter((l) => l.type === "search" && l.query === "leek soup").at(-1)!;
    expect(search.surface).toBe("mcp");
    expect(lines.at(-1)).toMatchObject({ type: "click", id: search.id, key: "Soup.md", rank: 1 });
  });

  it("says in vault_search's description what level 4 sends to the chat model, and where, when it has one", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [ensureBuiltCli(), "mcp", "--vault", path.join(tmp, "vault"), "--cache-dir", cache, "--embed", `ollama:nomic-embed-text@${server.base}`, "--model", `openai:stand-in@${server.base}/v1`],
      env: { PATH: process.env.PATH ?? "", HOME: tmp },
      stderr: "pipe",
    });
    const withModel = new Client({ name: "vault-research-test", version: "1.0.0" });
    await withModel.connect(transport);
    try {
      const { tools } = await withModel.listTools();
      const description = tools.find((t) => t.name === "vault_search")?.description ?? "";
      expect(description).toContain(`Level 4 also sends the query and the excerpts of its top 10 notes to the chat model stand-in at ${server.base}/v1.`);
    } finally {
      await withModel.close();
    }
  });

  it("level 4 without --model runs level 3 and says why (the config's chat model is not the server's)", async () => {
    const four = (await client.callTool({ name: "vault_search", arguments: { query: "repairing an automobile", level: 4 } })) as Found;
    expect(four.structuredContent).toMatchObject({ level: 4, ran_level: 3, notices: [{ kind: "level_unavailable" }] });
    expect(server.chatCalls.length).toBe(0);
  });
});
