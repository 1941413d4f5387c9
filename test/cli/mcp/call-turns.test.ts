// Tool calls take turns: an agent that sends many at once has the first answered first, a few at a
// time, and a call it cancels while waiting never runs. The tools are registered on a stand-in for
// the SDK's server (their handlers called as the SDK calls them), over a search that is held open
// until the test lets it go and a web that is held open: counted, never timed.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseArgs } from "../../../src/cli/args";
import { CallCancelled, CallTurns } from "../../../src/cli/mcp/call-turns";
import { LOOKUPS_AT_ONCE, registerVaultTools, RUNS_AT_ONCE, type VaultToolsContext } from "../../../src/cli/mcp/vault-tools";
import { openVault, readSettings } from "../../../src/cli/open-vault";
import { COMMANDS } from "../../../src/cli/run";
import type { DialResponse } from "../../../src/index/dial/dial-types";
import { HttpFailure, systemClock, type HttpRequest } from "../../../src/ports";
import { createSearchSession } from "../../../src/websearch/search-providers";

const ROOT = path.resolve(__dirname, "../../..");

type Handler = (args: Record<string, unknown>, extra: { signal: AbortSignal }) => Promise<{ isError?: boolean }>;

let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-mcp-turns-"));
  cpSync(path.join(ROOT, "examples/vault"), path.join(tmp, "vault"), { recursive: true });
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Waits until `done`, a few milliseconds at a time, failing only after 4,000 looks: never a fixed
 * number of turns of the loop, which a run's start (modules loaded, the disk read) outlasted while
 * other test files shared the cores — 2,000 turns are a few tens of milliseconds.
 */
async function until(done: () => boolean): Promise<void> {
  for (let look = 0; look < 4_000 && !done(); look++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(done()).toBe(true);
}

/** A search that answers only when the test lets it, counting the searches under way. */
function heldSearch(): { dial: VaultToolsContext["dial"]; running: string[]; finish: (query: string) => void } {
  const running: string[] = [];
  const release = new Map<string, () => void>();
  const dial = {
    search: (request: { query: string }) => {
      running.push(request.query);
      return new Promise<DialResponse>((resolve) =>
        release.set(request.query, () => {
          running.splice(running.indexOf(request.query), 1);
          resolve({ query: request.query, level: 1, ranLevel: 1, results: [], notices: [], latencyMs: 0, logId: null });
        }),
      );
    },
    recordClick: async () => undefined,
  } as unknown as VaultToolsContext["dial"];
  return { dial, running, finish: (query) => release.get(query)?.() };
}

/** The tools' handlers over the sample vault, with `dial` for vault_search and a web held open until aborted. */
async function tools(dial: VaultToolsContext["dial"]): Promise<{ handlers: Map<string, Handler>; webAsked: () => number }> {
  const io = { out: () => undefined, err: () => undefined, env: { HOME: tmp }, cwd: tmp };
  const args = parseArgs(["--vault", path.join(tmp, "vault"), "--cache-dir", path.join(tmp, "cache")], COMMANDS.mcp.flags);
  const opened = await openVault(args, io, readSettings(args, io));
  let asked = 0;
  const handlers = new Map<string, Handler>();
  const server = { registerTool: (name: string, _config: unknown, handler: Handler) => void handlers.set(name, handler) } as unknown as McpServer;
  registerVaultTools(server, {
    opened,
    knownSecrets: [],
    watcher: { settle: async () => undefined } as unknown as VaultToolsContext["watcher"],
    web: {
      http: {
        request: (req: HttpRequest) => {
          asked++;
          return new Promise((_, reject) => req.signal?.addEventListener("abort", () => reject(new HttpFailure("aborted", "The request was cancelled.")), { once: true }));
        },
      },
      secrets: { get: async () => null },
      fetchGuard: { resolve: async () => ["93.184.216.34"] },
    },
    cacheDir: path.join(tmp, "cache"),
    clock: systemClock,
    searchSession: createSearchSession({ clock: systemClock }),
    dial,
    embedding: null,
    allowExternal: true,
    allowWrites: false,
  });
  return { handlers, webAsked: () => asked };
}

describe("tool calls taking turns", () => {
  // 2,000 searches sent together: each waited for all the others, and none was answered in 30 s.
  it("forty searches sent at once: a few run at a time, the first first", async () => {
    const held = heldSearch();
    const { handlers } = await tools(held.dial);
    const search = handlers.get("vault_search")!;
    const calls = Array.from({ length: 40 }, (_, i) => search({ query: `q${i}`, level: 1, limit: 10, tags: [] }, { signal: new AbortController().signal }));
    await until(() => held.running.length === LOOKUPS_AT_ONCE);
    expect(held.running).toEqual(["q0", "q1", "q2", "q3"].slice(0, LOOKUPS_AT_ONCE));
    held.finish("q0");
    await calls[0];
    await until(() => held.running.includes(`q${LOOKUPS_AT_ONCE}`));
    expect(held.running).toHaveLength(LOOKUPS_AT_ONCE);
    for (let i = 1; i < 40; i++) {
      // Each started before it is let go: a search let go before it ran was never answered.
      await until(() => held.running.includes(`q${i}`) && held.running.length === Math.min(LOOKUPS_AT_ONCE, 40 - i));
      // In the order they came: none past the next few.
      expect(held.running.every((query) => Number(query.slice(1)) < i + LOOKUPS_AT_ONCE)).toBe(true);
      held.finish(`q${i}`);
      await calls[i];
    }
    expect(held.running).toEqual([]);
  });

  it("a search cancelled while it waits its turn never runs", async () => {
    const held = heldSearch();
    const { handlers } = await tools(held.dial);
    const search = handlers.get("vault_search")!;
    const first = Array.from({ length: LOOKUPS_AT_ONCE }, (_, i) => search({ query: `q${i}`, level: 1, limit: 10, tags: [] }, { signal: new AbortController().signal }));
    const cancel = new AbortController();
    const waiting = search({ query: "cancelled", level: 1, limit: 10, tags: [] }, { signal: cancel.signal });
    const after = search({ query: "after", level: 1, limit: 10, tags: [] }, { signal: new AbortController().signal });
    await until(() => held.running.length === LOOKUPS_AT_ONCE);
    cancel.abort();
    await expect(waiting).rejects.toBeInstanceOf(CallCancelled);
    for (let i = 0; i < LOOKUPS_AT_ONCE; i++) held.finish(`q${i}`);
    await Promise.all(first);
    await until(() => held.running.includes("after"));
    expect(held.running).toEqual(["after"]);
    held.finish("after");
    await after;
  });

  it("research runs waiting on the web do not hold a search", async () => {
    const held = heldSearch();
    const { handlers, webAsked } = await tools(held.dial);
    const stop = new AbortController();
    const runs = Array.from({ length: RUNS_AT_ONCE + 1 }, () => handlers.get("research_pack")!({ question: "What changed in the latest Automerge release?", allow_external_search: true }, { signal: stop.signal }));
    await until(() => webAsked() > 0);
    const search = handlers.get("vault_search")!({ query: "crdt", level: 1, limit: 10, tags: [] }, { signal: new AbortController().signal });
    // Until it starts, or long past when it would (a search held behind the runs never does).
    await until(() => held.running.length > 0);
    expect(held.running).toEqual(["crdt"]);
    held.finish("crdt");
    await search;
    stop.abort();
    await Promise.allSettled(runs);
  });
});

describe("CallTurns", () => {
  it("runs nothing for a call cancelled before it asked", async () => {
    let ran = false;
    const cancelled = AbortSignal.abort();
    await expect(new CallTurns(1).run(cancelled, async () => void (ran = true))).rejects.toBeInstanceOf(CallCancelled);
    expect(ran).toBe(false);
  });

  it("lets the next call run when one fails", async () => {
    const turns = new CallTurns(1);
    const failing = turns.run(new AbortController().signal, async () => {
      throw new Error("boom");
    });
    const next = turns.run(new AbortController().signal, async () => "ran");
    await expect(failing).rejects.toThrow("boom");
    expect(await next).toBe("ran");
  });
});
