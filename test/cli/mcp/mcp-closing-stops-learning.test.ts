// A client that leaves while the server is learning the vault's language again (enough of the vault
// changed) stops that learning: the server saved its cache on the way out, so what the learning found
// would be kept by no one, and its work held the process (a worker thread keeps Node running) long
// after its client was gone. The server runs in-process over the SDK's in-memory transport; the
// learning runs on this thread (no worker bundle in tests), where it is counted.
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

/** Every index the server made (it makes one, in openVault), caught as it syncs. */
function indexesMade(): VaultIndex[] {
  const made: VaultIndex[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below on the index it was asked of
  const original = VaultIndex.prototype.sync;
  vi.spyOn(VaultIndex.prototype, "sync").mockImplementation(function (this: VaultIndex, ...args) {
    made.push(this);
    return original.apply(this, args);
  });
  return made;
}

/** Lets the server run until `done`, a few milliseconds at a time (the watcher waits for quiet), failing after 4,000 looks. */
async function until(done: () => boolean): Promise<void> {
  for (let look = 0; look < 4_000 && !done(); look++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(done()).toBe(true);
}

describe("vault-research mcp, closing while the vault's language is learned again", () => {
  it("stops the learning when the client leaves: nothing is learned for no one", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "vr-mcp-closing-"));
    tmp = root;
    const vault = path.join(root, "vault");
    // Dated in the past: the edits below are newer than the learning the start set off.
    const past = new Date(Date.now() - 3_600_000);
    for (const [rel, text] of Object.entries(laneVault())) {
      mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
      writeFileSync(path.join(vault, rel), text);
      utimesSync(path.join(vault, rel), past, past);
    }
    const made = indexesMade();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const io = terminalOutput({ out: () => undefined, err: () => undefined, env: { HOME: root }, cwd: root }, []);
    const args = parseArgs(["--vault", vault, "--cache-dir", path.join(root, "cache")], COMMANDS.mcp.flags);
    const served = serveVault(args, io, serverSide);
    const client = new Client({ name: "closing", version: "1.0.0" });
    await client.connect(clientSide);
    const index = made[0];
    await index.languageSettled();
    expect(index.status().vaultLanguage).toBe("ready");
    learned.mockClear();

    // 150 of the 520 notes edited (the line is 52): the call that brings them in sets off a learning.
    for (const rel of [...index.paths()].sort().slice(0, 150)) appendFileSync(path.join(vault, rel), "\nRevised after a trip.\n");
    await client.callTool({ name: "vault_search", arguments: { query: "revised trip" } });
    // The system's own events for those edits follow as a batch of their own; the learning starts once none is pending.
    await until(() => index.status().vaultLanguage === "relearning");
    await client.close();
    expect(await served).toBe(0);

    await index.languageSettled();
    expect(learned).not.toHaveBeenCalled();
  });
});
