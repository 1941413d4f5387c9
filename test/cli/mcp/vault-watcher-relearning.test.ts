// The vault's language learned again behind the MCP server's warm index (once a tenth of the notes
// changed), as the watcher brings the changes in: a batch that crosses that line is learned from once
// it is all in, once — not from the vault half changed, and then again for the rest of the batch.
// The notes are a real folder on disk; the events are fired by hand (the FolderWatch seam).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FsNoteStore } from "../../../src/cli/fs-note-store";
import { watchVault, type FolderWatch, type VaultWatcher } from "../../../src/cli/mcp/vault-watcher";
import { VaultIndex } from "../../../src/index/vault-index";
import { learnWordMeanings } from "../../../src/index/vault-language/word-meanings";
import { laneVault } from "../../support/lane-vault";
import { fakeClock } from "../../support/fake-clock";

// Learning is counted.
vi.mock(import("../../../src/index/vault-language/word-meanings"), async (importOriginal) => {
  const actual = await importOriginal();
  return { ...actual, learnWordMeanings: vi.fn(actual.learnWordMeanings) };
});
const learned = vi.mocked(learnWordMeanings);

let root: string | undefined;
let watcher: VaultWatcher | undefined;

afterEach(() => {
  watcher?.close();
  watcher = undefined;
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A FolderWatch whose events the test fires. */
function handWatch(): { watch: FolderWatch; fire: (event: string, name: string) => void } {
  let listener: ((event: string, name: string | null) => void) | undefined;
  return {
    watch: (_root, onChange) => {
      listener = onChange;
      return { close: () => undefined };
    },
    fire: (event, name) => listener?.(event, name),
  };
}

describe("the MCP server's vault watcher and the vault's language learned again", () => {
  it("learns once from a batch of edits that crosses the line, after the batch is in: the next edit sets off no second learning", async () => {
    const vault = mkdtempSync(path.join(os.tmpdir(), "vr-watch-relearn-"));
    root = vault;
    // Dated in the past: the edits below are newer than any learning the start set off.
    const past = new Date(Date.now() - 3_600_000);
    for (const [rel, text] of Object.entries(laneVault())) {
      mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
      writeFileSync(path.join(vault, rel), text);
      utimesSync(path.join(vault, rel), past, past);
    }
    const store = new FsNoteStore(vault);
    const index = new VaultIndex({ clock: fakeClock() });
    await index.sync(store, null);
    await index.languageSettled();
    expect(index.status().vaultLanguage).toBe("ready");
    const events = handWatch();
    watcher = watchVault(vault, store, index, { clock: fakeClock(), watch: events.watch, onError: () => undefined });
    await watcher.settle();
    learned.mockClear();

    const edit = (rel: string) => {
      const file = path.join(vault, rel);
      writeFileSync(file, `${readFileSync(file, "utf8")}\nRevised after a trip.\n`);
      events.fire("change", rel);
    };
    // A sync catching up: 150 of the 520 notes edited at once (the line is 52), one batch.
    const paths = [...index.paths()].sort();
    for (const rel of paths.slice(0, 150)) edit(rel);
    await watcher.settle();
    await index.languageSettled();
    expect(learned).toHaveBeenCalledTimes(1);

    // One edit more: the meanings were learned from all of the batch, so nothing is counted against them but this.
    edit(paths[200]);
    await watcher.settle();
    await index.languageSettled();
    expect(learned).toHaveBeenCalledTimes(1);
  });
});
