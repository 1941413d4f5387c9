// `vault-research mcp` end to end, as an agent's client sees it: the built CLI started over stdio
// by the official SDK's client. Handshake, the tool list, each tool, the refusals, no network
// unless both the server and the call allow it (the replay log records every request that would
// have left), and a note edited on disk appearing in the next search.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuiltCli } from "../../support/built-cli";

const ROOT = path.resolve(__dirname, "../../..");
const CLI = path.join(ROOT, "dist/cli.cjs");
const DEMO_REPLAY = path.join(ROOT, "fixtures/replay/brave-demo");
const QUESTION = "What changed in the latest Automerge release?";

let tmp: string;
let vault: string;

beforeAll(() => {
  ensureBuiltCli();
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-mcp-"));
  vault = path.join(tmp, "vault");
  cpSync(path.join(ROOT, "examples/vault"), vault, { recursive: true });
  writeFileSync(path.join(tmp, "secret.md"), "# Outside\nnot part of the vault\n");
  symlinkSync(path.join(tmp, "secret.md"), path.join(vault, "Linked secret.md"));
}, 120_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

interface Session {
  client: Client;
  log: string;
  close: () => Promise<void>;
}

async function startServer(name: string, flags: string[] = []): Promise<Session> {
  const log = path.join(tmp, `${name}.jsonl`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", "--vault", vault, "--cache-dir", path.join(tmp, "cache"), "--replay", DEMO_REPLAY, ...flags],
    env: { PATH: process.env.PATH ?? "", HOME: tmp, VAULT_RESEARCH_REPLAY_LOG: log },
    stderr: "pipe",
  });
  const client = new Client({ name: "vault-research-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, log, close: () => client.close() };
}

function requestsLogged(file: string): { method: string; url: string }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as { method: string; url: string });
}

type CallResult = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

async function call(session: Session, name: string, args: Record<string, unknown>): Promise<CallResult> {
  return (await session.client.callTool({ name, arguments: args })) as CallResult;
}

describe("vault-research mcp (local only: no --allow-external, no --allow-writes)", () => {
  let session: Session;
  beforeAll(async () => {
    session = await startServer("local");
  }, 60_000);
  afterAll(async () => session?.close());

  it("hands over its name and version, and offers three tools whose descriptions say when the network is used", async () => {
    expect(session.client.getServerVersion()).toMatchObject({ name: "vault-research", version: expect.stringMatching(/^\d+\.\d+\.\d+/) as string });
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["read_note", "research_pack", "vault_search"]);
    const described = Object.fromEntries(tools.map((t) => [t.name, t.description ?? ""]));
    expect(described.vault_search).toContain("Never uses the network");
    expect(described.read_note).toContain("Never uses the network");
    expect(described.research_pack).toContain("allow_external_search: true AND the server allows it");
    expect(described.research_pack).toContain("started without --allow-external, so it never uses the network");
    expect(tools.find((t) => t.name === "vault_search")?.inputSchema.properties).toHaveProperty("tags");
    // With no model to send a query to, searching is a closed world.
    expect(tools.find((t) => t.name === "vault_search")?.annotations?.openWorldHint).toBe(false);
  });

  it("vault_search answers from the vault with the vault_search.v1 object, tags filtering", async () => {
    const found = await call(session, "vault_search", { query: "why did we choose Automerge over Yjs", limit: 3 });
    expect(found.isError).toBeFalsy();
    const body = found.structuredContent as { schema: string; results: { path: string; source_key: string }[] };
    expect(body.schema).toBe("vault_search.v1");
    expect(body.results[0].path).toBe("Libraries/Automerge vs Yjs.md");
    expect(body.results[0].source_key).toMatch(/^src:[0-9a-f]{10}$/);
    expect(JSON.parse(found.content.at(-1)!.text)).toEqual(body);

    const tagged = await call(session, "vault_search", { query: "automerge", tags: ["nonexistent-tag-xyz"] });
    expect((tagged.structuredContent as { results: unknown[] }).results).toEqual([]);
    const crdt = (await call(session, "vault_search", { query: "sync", tags: ["crdt"] })).structuredContent as { tags: string[]; results: { tags: string[] }[] };
    expect(crdt.tags).toEqual(["crdt"]);
    expect(crdt.results.length).toBeGreaterThan(0);
    for (const r of crdt.results) expect(r.tags).toContain("crdt");
  });

  it("vault_search at a level this server cannot run answers at level 1 and says why", async () => {
    const found = await call(session, "vault_search", { query: "automerge", level: 3 });
    const body = found.structuredContent as { level: number; ran_level: number; notices: { kind: string; message: string }[]; results: unknown[] };
    expect(body).toMatchObject({ level: 3, ran_level: 1 });
    expect(body.notices[0]?.kind).toBe("level_unavailable");
    expect(body.results.length).toBeGreaterThan(0);
    expect(found.content[0].text).toBe(body.notices.map((n) => n.message).join("\n"));
  });

  it("read_note returns a note's markdown, and refuses paths outside the vault, through links too", async () => {
    const note = await call(session, "read_note", { path: "Libraries/Automerge.md" });
    expect(note.isError).toBeFalsy();
    expect(note.content[0].text).toContain("Automerge");
    for (const outside of ["../secret.md", path.join(tmp, "secret.md"), "Linked secret.md", "Libraries/../../secret.md"]) {
      const refused = await call(session, "read_note", { path: outside });
      expect(refused.isError, outside).toBe(true);
      expect(refused.content[0].text, outside).toMatch(/^outside_vault: /);
      // Where a link leads is not the agent's to learn.
      if (outside === "Linked secret.md") expect(refused.content[0].text).not.toContain(tmp);
    }
    expect((await call(session, "read_note", { path: "Libraries/No such note.md" })).content[0].text).toMatch(/^not_found: /);
    expect((await call(session, "read_note", { path: ".obsidian/app.json" })).content[0].text).toMatch(/^not_a_note: /);
  });

  it("research_pack stays local even when the call asks for the web, and nothing is sent", async () => {
    const result = await call(session, "research_pack", { question: QUESTION, allow_external_search: true });
    expect(result.isError).toBeFalsy();
    const body = result.structuredContent as { schema: string; providers_asked: string[]; pack: { evidence: unknown[]; external_evidence: unknown[] }; trace_file: string | null };
    expect(body.schema).toBe("research_result.v1");
    expect(body.providers_asked).toEqual([]);
    expect(body.pack.external_evidence).toEqual([]);
    expect(body.pack.evidence.length).toBeGreaterThan(0);
    expect(result.content[0].text).toContain("started without --allow-external: nothing left the machine");
    expect(requestsLogged(session.log)).toEqual([]);
  });

  it("offers no promote_result without --allow-writes", async () => {
    const refused = await session.client.callTool({ name: "promote_result", arguments: { trace: "x", source_key: "ext:brave:0123456789" } }).catch((error: Error) => ({ isError: true, content: [{ type: "text", text: error.message }] }));
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/promote_result/);
  });

  it("a call of over 8 MB from the SDK's own client (its id written last) is refused at once, and the next call is answered", async () => {
    // Given no answer with its id, the client would wait out this timeout instead.
    const refused = session.client.callTool({ name: "vault_search", arguments: { query: "automerge ".repeat(900_000) } }, undefined, { timeout: 30_000 });
    await expect(refused).rejects.toThrow(/-32600.*was not read: at most 8388608 bytes are/);
    expect((await call(session, "vault_search", { query: "automerge" })).isError).toBeFalsy();
  }, 60_000);

  it("a note written on disk is found by the next search", async () => {
    writeFileSync(path.join(vault, "Fresh note.md"), "# Fresh note\nThe zanzibarite sample arrived today.\n");
    const deadline = Date.now() + 5_000;
    let paths: string[] = [];
    while (Date.now() < deadline) {
      const found = await call(session, "vault_search", { query: "zanzibarite" });
      paths = (found.structuredContent as { results: { path: string }[] }).results.map((r) => r.path);
      if (paths.length > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(paths).toEqual(["Fresh note.md"]);

    writeFileSync(path.join(vault, "Fresh note.md"), "# Fresh note\nNothing rare here any more.\n");
    await new Promise((r) => setTimeout(r, 300));
    const after = await call(session, "vault_search", { query: "zanzibarite" });
    expect((after.structuredContent as { results: unknown[] }).results).toEqual([]);
  });
});

describe("vault-research mcp: a folder moved on disk", () => {
  let session: Session;
  beforeAll(async () => {
    mkdirSync(path.join(vault, "Field trip"), { recursive: true });
    writeFileSync(path.join(vault, "Field trip", "Day one.md"), "# Day one\nWe logged the quokkarine moss by the creek.\n");
    session = await startServer("moves");
  }, 60_000);
  afterAll(async () => session?.close());

  async function pathsFor(query: string, want: (paths: string[]) => boolean): Promise<string[]> {
    const deadline = Date.now() + 5_000;
    let paths: string[] = [];
    while (Date.now() < deadline) {
      paths = ((await call(session, "vault_search", { query })).structuredContent as { results: { path: string }[] }).results.map((r) => r.path);
      if (want(paths)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return paths;
  }

  it("finds the note under its new folder, and no longer under the old one", async () => {
    expect(await pathsFor("quokkarine", (p) => p.length > 0)).toEqual(["Field trip/Day one.md"]);
    renameSync(path.join(vault, "Field trip"), path.join(vault, "Trips 2025"));
    expect(await pathsFor("quokkarine", (p) => p.includes("Trips 2025/Day one.md"))).toEqual(["Trips 2025/Day one.md"]);
  });
});

describe("vault-research mcp --allow-external --allow-writes", () => {
  let session: Session;
  beforeAll(async () => {
    session = await startServer("open", ["--allow-external", "--allow-writes"]);
  }, 60_000);
  afterAll(async () => session?.close());

  it("research_pack without allow_external_search still sends nothing", async () => {
    const body = (await call(session, "research_pack", { question: QUESTION })).structuredContent as { providers_asked: string[] };
    expect(body.providers_asked).toEqual([]);
    expect(requestsLogged(session.log)).toEqual([]);
  });

  it("research_pack with allow_external_search asks the configured source, says so, and labels every outside row", async () => {
    const result = await call(session, "research_pack", { question: QUESTION, allow_external_search: true });
    const body = result.structuredContent as { providers_asked: string[]; pack: { external_evidence: { label: string; source_key: string }[] }; trace_file: string };
    expect(body.providers_asked).toEqual(["brave"]);
    expect(body.pack.external_evidence.length).toBeGreaterThan(0);
    for (const row of body.pack.external_evidence) expect(row.label).toBe("Outside vault · Brave · ephemeral");
    expect(result.content[0].text).toContain("Web sources asked: Brave.");
    expect(result.content[0].text).toContain(`[${body.pack.external_evidence[0].source_key}] Outside vault · Brave · ephemeral`);
    const hosts = new Set(requestsLogged(session.log).map((r) => new URL(r.url).host));
    expect(hosts.has("api.search.brave.com")).toBe(true);
    // The trace is kept outside the vault, where promote_result finds it.
    expect(body.trace_file.startsWith(vault)).toBe(false);
    expect(existsSync(body.trace_file)).toBe(true);

    const promoted = await call(session, "promote_result", { trace: body.trace_file, source_key: body.pack.external_evidence[0].source_key });
    const saved = promoted.structuredContent as { schema: string; status: string; note_path: string; trace_source: string };
    expect(saved).toMatchObject({ schema: "promote_result.v1", trace_source: "kept_trace" });
    expect(["created", "already_in_vault"]).toContain(saved.status);
    expect(existsSync(path.join(vault, saved.note_path))).toBe(true);
  });

  it("promote_result reads no trace outside the vault but the ones this vault's runs kept, and rewrites none", async () => {
    const result = await call(session, "research_pack", { question: QUESTION, allow_external_search: true });
    const body = result.structuredContent as { pack: { external_evidence: { source_key: string }[] }; trace_file: string };
    // The same trace, copied where another vault (or any file an agent names) would be.
    const elsewhere = path.join(tmp, "othervault", "Research", "Traces", "other.md");
    mkdirSync(path.dirname(elsewhere), { recursive: true });
    cpSync(body.trace_file, elsewhere);
    const before = readFileSync(elsewhere, "utf8");
    const key = body.pack.external_evidence[0].source_key;
    for (const trace of [elsewhere, path.relative(vault, elsewhere)]) {
      const refused = await call(session, "promote_result", { trace, source_key: key });
      expect(refused.isError).toBe(true);
      expect(refused.content[0].text).toMatch(/is not a note inside .*, nor a trace kept in /);
    }
    // A link from the kept folder to that file does not reach it either.
    const linked = path.join(path.dirname(body.trace_file), "linked-other.md");
    symlinkSync(elsewhere, linked);
    expect((await call(session, "promote_result", { trace: linked, source_key: key })).isError).toBe(true);
    expect(readFileSync(elsewhere, "utf8")).toBe(before);
  });

  it("promote_result refuses a key that is not an outside-vault key", async () => {
    const refused = await call(session, "promote_result", { trace: "whatever", source_key: "src:0123456789" });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toContain("is not an outside-vault key");
  });
});
