// The bench's phone test (measure-limit.ts) comes up again from a cache that holds everything a
// warm start takes back, the vault's language included, and reports so.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { generateVault } from "../../bench/generate-vault";
import { underLimit } from "../../bench/measure-limit";
import { FileIndexCache } from "../../src/cli/file-index-cache";
import { FsNoteStore } from "../../src/cli/fs-note-store";
import { VaultIndex } from "../../src/index/vault-index";

describe("the 512 MB phone test", () => {
  it("saves the index after its language is learned, so the warm start takes it from the cache instead of learning it again", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "vr-limit-"));
    const vault = path.join(root, "vault");
    const work = path.join(root, "work");
    generateVault(vault, 150, 7);
    const figures = await underLimit(vault, work, "project meeting");
    expect(figures.notes).toBe(150);
    expect(figures.vault_language).toMatchObject({ learned_in: "this thread", warm_learned_again_in: null });
    expect(figures.ok).toBe(true);
    // What the run left in the cache: another start from it has the language too.
    const store = new FsNoteStore(vault);
    const again = new VaultIndex();
    expect((await again.sync(store, new FileIndexCache(work, vault))).mode).toBe("cache");
    await again.languageSettled();
    expect(again.languageLearnedIn()).toBeNull();
  });
});
