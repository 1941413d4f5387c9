// The MCP server's start: what was edited while its build read the vault sent the watcher no event (the
// watch began after), and the first listing brings it in. The vault's language, which the build learns
// from the notes, is held until then and learned once from all of it: learned at once, those edits (a
// tenth of the vault) had it learned a second time at the first call. The server runs in-process over the
// SDK's in-memory transport; the learning runs on this thread (no worker bundle in tests), where it is counted.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseArgs } from "../../../src/cli/args";
import { serveVault } from "../../../src/cli/mcp/mcp-command";
import { COMMANDS } from "../../../src/cli/run";
import { terminalOutput } from "../../../src/cli/terminal-text";
import { VaultIndex } from "../../../src/index/vault-index";
import { learnWordMeanings } from "../../../src/index/vault-language/word-meanings";
import { laneVault } from "../../support/lane-vault";

// Learning is counted.
vi.mock(import("../../../src/index/vault-language/word-meanings"), async (importOriginal) => {
  const actual = await importOriginal();
  return { ...actual, learnWordMeanings: vi.fn(actual.learnWordMeanings) };
});
const learned = vi.mocked(learnWordMeanings);

let tmp: string | undefined;

afterEach(() => {
  vi.restoreAllMocks();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
});

/** Every index the server made, caught as it syncs; `afterSync` runs once the sync is done, before it returns. */
function indexesMade(afterSync: () => void): VaultIndex[] {
  const made: VaultIndex[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below on the index it was asked of
  const original = VaultIndex.prototype.sync;
  vi.spyOn(VaultIndex.prototype, "sync").mockImplementation(async function (this: VaultIndex, ...args) {
    made.push(this);
    const report = await original.apply(this, args);
    afterSync();
    return report;
  });
  return made;
}

/** The server over an in-memory pair, its client connected once the server is ready. */
async function startServer(vault: string, root: string): Promise<{ client: Client; served: Promise<number> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const io = terminalOutput({ out: () => undefined, err: () => undefined, env: { HOME: root }, cwd: root }, []);
  const args = parseArgs(["--vault", vault, "--cache-dir", path.join(root, "cache")], COMMANDS.mcp.flags);
  const served = serveVault(args, io, serverSide);
  const client = new Client({ name: "start-up", version: "1.0.0" });
  await client.connect(clientSide);
  return { client, served };
}

describe("vault-research mcp, notes edited while the start-up build ran", () => {
  it("learns the vault's language once, from the notes as edited, and keeps it for the next start", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "vr-mcp-start-up-"));
    tmp = root;
    const vault = path.join(root, "vault");
    // Dated in the past: the edits below are newer than anything the build read.
    const past = new Date(Date.now() - 3_600_000);
    for (const [rel, text] of Object.entries(laneVault())) {
      mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
      writeFileSync(path.join(vault, rel), text);
      utimesSync(path.join(vault, rel), past, past);
    }
    // 150 of the 520 notes edited once the build has read them (the line is 52), before the watch begins.
    let edited = false;
    const made = indexesMade(() => {
      if (edited) return;
      edited = true;
      for (const rel of [...made[0].paths()].sort().slice(0, 150)) appendFileSync(path.join(vault, rel), "\nRevised after a trip.\n");
    });
    const first = await startServer(vault, root);
    const index = made[0];
    await first.client.callTool({ name: "vault_search", arguments: { query: "revised trip" } });
    await index.languageSettled();
    expect(index.status().vaultLanguage).toBe("ready");
    expect(learned).toHaveBeenCalledTimes(1);
    await first.client.close();
    expect(await first.served).toBe(0);

    // Saved on the way out: the next start takes the meanings from the cache, learning nothing.
    learned.mockClear();
    const second = await startServer(vault, root);
    await second.client.callTool({ name: "vault_search", arguments: { query: "revised trip" } });
    await made[1].languageSettled();
    expect(made[1].status().vaultLanguage).toBe("ready");
    expect(learned).not.toHaveBeenCalled();
    await second.client.close();
    expect(await second.served).toBe(0);
  });
});
