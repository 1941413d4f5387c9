// research_pack's handler on its own, over a copy of the sample vault, with the web held open at
// its port: what a call the agent cancels leaves on disk. The SDK answers a cancelled call with
// silence, so its trace_file is never told to anyone: a trace kept for it is one no call can name.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseArgs } from "../../../src/cli/args";
import { keptTraceFolder } from "../../../src/cli/kept-trace";
import { registerVaultTools, type VaultToolsContext } from "../../../src/cli/mcp/vault-tools";
import { openVault, readSettings } from "../../../src/cli/open-vault";
import { COMMANDS } from "../../../src/cli/run";
import type { WebAccess } from "../../../src/cli/web-access";
import { HttpFailure, systemClock, type HttpRequest, type SecretName } from "../../../src/ports";
import { createSearchSession } from "../../../src/websearch/search-providers";

const ROOT = path.resolve(__dirname, "../../..");
const WEB_QUESTION = "What changed in the latest Automerge release?";

type Handler = (args: Record<string, unknown>, extra: { signal: AbortSignal }) => Promise<{ structuredContent?: Record<string, unknown> }>;

let tmp: string;
let vault: string;
let cacheDir: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-mcp-stopped-"));
  vault = path.join(tmp, "vault");
  cacheDir = path.join(tmp, "cache");
  cpSync(path.join(ROOT, "examples/vault"), vault, { recursive: true });
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

/** A web whose every request waits until its signal aborts; `first` settles with the first request. */
function heldWeb(): { web: WebAccess; first: Promise<HttpRequest> } {
  let sawFirst!: (req: HttpRequest) => void;
  const first = new Promise<HttpRequest>((resolve) => (sawFirst = resolve));
  const web: WebAccess = {
    http: {
      request: (req) => {
        sawFirst(req);
        return new Promise((_, reject) => req.signal?.addEventListener("abort", () => reject(new HttpFailure("aborted", "The request was cancelled.")), { once: true }));
      },
    },
    secrets: { get: async (name: SecretName) => (name === "brave" ? "BSA-stopped-call-0123456789" : null) },
    fetchGuard: { resolve: async () => ["93.184.216.34"] },
  };
  return { web, first };
}

async function researchPack(web: WebAccess): Promise<Handler> {
  const io = { out: () => undefined, err: () => undefined, env: { HOME: tmp }, cwd: tmp };
  const args = parseArgs(["--vault", vault, "--cache-dir", cacheDir], COMMANDS.mcp.flags);
  const opened = await openVault(args, io, readSettings(args, io));
  const handlers = new Map<string, Handler>();
  const server = { registerTool: (name: string, _config: unknown, handler: Handler) => void handlers.set(name, handler) } as unknown as McpServer;
  const ctx: VaultToolsContext = {
    opened,
    knownSecrets: [],
    watcher: { settle: async () => undefined } as unknown as VaultToolsContext["watcher"],
    web,
    cacheDir,
    clock: systemClock,
    searchSession: createSearchSession({ clock: systemClock }),
    dial: {} as VaultToolsContext["dial"],
    embedding: null,
    allowExternal: true,
    allowWrites: false,
  };
  registerVaultTools(server, ctx);
  return handlers.get("research_pack")!;
}

function keptTraces(): string[] {
  const folder = keptTraceFolder(cacheDir, vault);
  return existsSync(folder) ? readdirSync(folder) : [];
}

describe("research_pack called and then cancelled", () => {
  it("keeps no trace in the cache folder: its answer, and the trace_file in it, reach no one", async () => {
    const held = heldWeb();
    const handler = await researchPack(held.web);
    const cancel = new AbortController();
    const answered = handler({ question: WEB_QUESTION, allow_external_search: true }, { signal: cancel.signal });
    await held.first;
    cancel.abort();
    const result = await answered;
    expect(result.structuredContent).toMatchObject({ stop_reason: "cancelled" });
    expect(result.structuredContent?.trace_file ?? null).toBeNull();
    expect(keptTraces()).toEqual([]);
  });

  it("a call that is not cancelled still keeps its trace, for promote_result", async () => {
    const handler = await researchPack(heldWeb().web);
    const result = await handler({ question: "How do CRDTs merge edits?", allow_external_search: false }, { signal: new AbortController().signal });
    expect(keptTraces()).toHaveLength(1);
    expect(result.structuredContent?.trace_file).toBe(path.join(keptTraceFolder(cacheDir, vault), keptTraces()[0]));
  });
});
