// The MCP server keeps its index warm for a long life: once the client has finished its handshake
// and nothing is asked, it has the index make its radix tree (prefix lookups, terms leaving) ahead,
// a slice at a time, so no call pays for it in one go. Counted, never timed: the clock below ends a
// slice at every look, so the tree takes one slice a term, and a call arriving meanwhile is answered
// before the next slice, from the term map.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseArgs } from "../../../src/cli/args";
import { serveVault } from "../../../src/cli/mcp/mcp-command";
import { COMMANDS } from "../../../src/cli/run";
import { terminalOutput } from "../../../src/cli/terminal-text";
import type { SearchEngine } from "../../../src/index/search-engine";
import { VaultIndex } from "../../../src/index/vault-index";
import { SLICE_MS } from "../../../src/index/work-slice";
import { systemClock, type Clock } from "../../../src/ports";

const ROOT = path.resolve(__dirname, "../../..");

let tmp: string;
let client: Client | undefined;
let served: Promise<number> | undefined;
let endClient: (() => void) | undefined;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-mcp-tree-"));
  cpSync(path.join(ROOT, "examples/vault"), path.join(tmp, "vault"), { recursive: true });
});

afterEach(async () => {
  endClient?.();
  await client?.close();
  await served;
  client = undefined;
  served = undefined;
  vi.restoreAllMocks();
  rmSync(tmp, { recursive: true, force: true });
});

/** The system clock, but every look at its monotonic reading moves it a slice's length. */
function slicingClock(): Clock {
  let moved = 0;
  const monotonicNow = (): number => (moved += SLICE_MS) + performance.now();
  return { ...systemClock, monotonicNow };
}

/** What the server asked of its index: each time it had the tree made ahead, with the pauses it took. */
interface Asked {
  index: VaultIndex;
  pauses: number;
  made: Promise<boolean>;
}

/** Records each `makeRadixTreeAhead` call; `atPause` runs at each of its pauses, before the server's own. */
function watchTreeAhead(atPause: (asked: Asked) => Promise<void> | void = () => undefined): Asked[] {
  const asked: Asked[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below on the index it was asked of
  const original = VaultIndex.prototype.makeRadixTreeAhead;
  vi.spyOn(VaultIndex.prototype, "makeRadixTreeAhead").mockImplementation(function (this: VaultIndex, pause, wanted) {
    const entry = { index: this, pauses: 0 } as Asked;
    entry.made = original.call(
      this,
      async () => {
        entry.pauses++;
        await atPause(entry);
        await pause();
      },
      wanted,
    );
    asked.push(entry);
    return entry.made;
  });
  return asked;
}

async function start(clock: Clock): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const io = { ...terminalOutput({ out: () => undefined, err: () => undefined, env: { HOME: tmp }, cwd: tmp }, []), clock };
  const args = parseArgs(["--vault", path.join(tmp, "vault"), "--cache-dir", path.join(tmp, "cache")], COMMANDS.mcp.flags);
  const ended = new Promise<void>((resolve) => (endClient = resolve));
  served = serveVault(args, io, serverSide, { ended });
  client = new Client({ name: "tree-ahead", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

const engineOf = (index: VaultIndex) => (index as unknown as { engine: SearchEngine }).engine;
/** Lets the server run, a turn of the event loop at a time, until `done` (10,000 turns at most). */
const until = async (done: () => boolean) => {
  for (let turn = 0; turn < 10_000 && !done(); turn++) await new Promise((resolve) => setImmediate(resolve));
  expect(done()).toBe(true);
};

describe("vault-research mcp, its index's radix tree", () => {
  it("is made ahead once the client is connected, a slice at a time, and only once", async () => {
    const asked = watchTreeAhead();
    await start(slicingClock());
    await until(() => asked.length > 0);
    expect(await asked[0].made).toBe(true);
    expect(asked[0].pauses).toBeGreaterThan(100);
    expect(engineOf(asked[0].index).radixTreeMade).toBe(true);
    // Typing a word's beginning is served by the tree made ahead.
    const typed = await client!.callTool({ name: "vault_search", arguments: { query: "automer" } });
    expect(typed.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
  });

  it("answers a call arriving meanwhile from the term map, before the next slice, never from a tree half made", async () => {
    const events: string[] = [];
    let call: Promise<unknown> | undefined;
    const asked = watchTreeAhead((entry) => {
      if (entry.pauses !== 3) return;
      events.push("asked");
      call = client!.callTool({ name: "vault_search", arguments: { query: "automerge" } }).then((answer) => {
        events.push(engineOf(entry.index).radixTreeMade ? "answered from the tree" : "answered from the map");
        // No slice ran while the call was open.
        events.push(`after ${entry.pauses} pauses`);
        return answer;
      });
    });
    await start(slicingClock());
    await until(() => asked.length > 0);
    expect(await asked[0].made).toBe(true);
    events.push("made");
    expect(events).toEqual(["asked", "answered from the map", "after 3 pauses", "made"]);
    expect(JSON.stringify(await call)).toContain("Automerge");
    // The slices went on once the call was answered: it arrived early in the making.
    expect(asked[0].pauses).toBeGreaterThan(10);
  });
});
