// Links in the vault folder are not followed when the CLI lists it (read() refuses what lies
// outside, and a link inside leads to notes listed where they lie). The notes behind a link that
// leads out were left out of the index without a word; now the store names such links and every
// command that opens the vault says which ones, and why a vault made only of them holds nothing.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FsNoteStore } from "../../src/cli/fs-note-store";
import { runCli } from "../../src/cli/run";

let tmp: string;
let vault: string;
let shared: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-links-out-"));
  vault = path.join(tmp, "vault");
  shared = path.join(tmp, "shared");
  mkdirSync(path.join(vault, "Inside"), { recursive: true });
  mkdirSync(path.join(shared, "Deep"), { recursive: true });
  writeFileSync(path.join(vault, "Home.md"), "# Home\n\nMerge notes by hand.\n");
  writeFileSync(path.join(vault, "Inside", "Kept.md"), "# Kept\n");
  writeFileSync(path.join(shared, "Deep", "Quokka.md"), "# Quokka\n\nMerge notes by hand.\n");
  writeFileSync(path.join(shared, "Loose.md"), "# Loose\n");
  writeFileSync(path.join(shared, "picture.png"), "png");
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io = { out: (t: string) => (out += t), err: (t: string) => (err += t), env: {}, cwd: tmp };
  return runCli(args, io).then((code) => ({ code, out, err }));
}

describe("links in the vault folder", () => {
  it("the store lists no note through a link, and names the links that lead out of the vault", async () => {
    symlinkSync(shared, path.join(vault, "Shared"));
    symlinkSync(path.join(shared, "Loose.md"), path.join(vault, "Inside", "Loose.md"));
    symlinkSync(path.join(shared, "picture.png"), path.join(vault, "picture.png"));
    symlinkSync(path.join(vault, "Inside"), path.join(vault, "Also inside"));
    symlinkSync(vault, path.join(vault, "Loop"));
    symlinkSync(path.join(tmp, "gone"), path.join(vault, "Dangling.md"));
    const store = new FsNoteStore(vault);
    expect((await store.list()).map((n) => n.path)).toEqual(["Home.md", "Inside/Kept.md"]);
    expect(store.linksLeadingOut()).toEqual([
      { path: "Shared", kind: "folder" },
      { path: "Inside/Loose.md", kind: "note" },
    ]);
  });

  it("`index` warns on stderr, naming each link out, and indexes the notes that lie inside", async () => {
    symlinkSync(shared, path.join(vault, "Shared"));
    const { code, out, err } = await run(["index", "--vault", vault, "--cache-dir", path.join(tmp, "cache"), "--json"]);
    expect(code).toBe(0);
    expect(err).toContain("warning: 1 link in the vault leads outside it and is not followed, so the notes there are left out of the index: Shared/ (a folder).");
    expect(JSON.parse(out)).toMatchObject({ notes: 2 });
  });

  it("a vault whose only notes lie behind a link out says so, not just that it holds none", async () => {
    const linked = path.join(tmp, "linked-only");
    mkdirSync(linked);
    symlinkSync(shared, path.join(linked, "Shared"));
    const { code, err } = await run(["index", "--vault", linked, "--cache-dir", path.join(tmp, "cache")]);
    expect(code).toBe(2);
    expect(err).toContain("holds no markdown notes (.md) of its own; links leading out of it are not followed: Shared/ (a folder).");
  });

  it("says nothing when no link leads out", async () => {
    symlinkSync(path.join(vault, "Inside"), path.join(vault, "Also inside"));
    const { code, err } = await run(["index", "--vault", vault, "--cache-dir", path.join(tmp, "cache")]);
    expect(code).toBe(0);
    expect(err).not.toContain("warning");
  });
});
