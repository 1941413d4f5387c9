// A folder of the vault that cannot be listed (no permission, a network share gone) loses its notes
// from the index, as a sync takes them for deleted: the CLI says so rather than leave a silent gap.
// The tests run as root in CI, where a mode of 000 does not stop a read, so the one failing listing
// is faked at node:fs; every other call goes to the disk.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FsNoteStore } from "../../src/cli/fs-note-store";
import { runCli } from "../../src/cli/run";

const locked = new Set<string>();

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const readdirSync = ((dir: string, options: never) => {
    if (locked.has(path.resolve(String(dir)))) throw Object.assign(new Error(`EACCES: permission denied, scandir '${dir}'`), { code: "EACCES" });
    return fs.readdirSync(dir, options);
  }) as typeof fs.readdirSync;
  return { ...fs, default: { ...fs, readdirSync }, readdirSync };
});

let tmp: string;
let vault: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-unlisted-"));
  vault = path.join(tmp, "vault");
  for (const folder of ["Open", "Shut/Inner", "Gone"]) mkdirSync(path.join(vault, folder), { recursive: true });
  writeFileSync(path.join(vault, "Open", "Seen.md"), "# Seen\n\nMerge notes by hand.\n");
  writeFileSync(path.join(vault, "Shut", "Hidden away.md"), "# Hidden away\n\nMerge notes by hand.\n");
  writeFileSync(path.join(vault, "Shut", "Inner", "Deeper.md"), "# Deeper\n");
});

afterEach(() => {
  locked.clear();
  rmSync(tmp, { recursive: true, force: true });
});

describe("a folder the listing cannot read", () => {
  it("the store names it and why, and forgets it once it can be read again", async () => {
    const store = new FsNoteStore(vault);
    locked.add(path.join(vault, "Shut"));
    expect((await store.list()).map((n) => n.path)).toEqual(["Open/Seen.md"]);
    expect(store.unlistedFolders()).toEqual([{ path: "Shut", code: "EACCES" }]);
    locked.clear();
    expect((await store.list()).map((n) => n.path)).toEqual(["Open/Seen.md", "Shut/Hidden away.md", "Shut/Inner/Deeper.md"]);
    expect(store.unlistedFolders()).toEqual([]);
  });

  it("a folder deleted while the vault is listed is not reported: it is simply gone", async () => {
    const store = new FsNoteStore(vault);
    rmSync(path.join(vault, "Gone"), { recursive: true });
    await store.list();
    expect(store.unlistedFolders()).toEqual([]);
  });

  it("`index` warns on stderr, naming the folder, and still indexes the rest", async () => {
    locked.add(path.join(vault, "Shut"));
    let out = "";
    let err = "";
    const io = { out: (t: string) => (out += t), err: (t: string) => (err += t), env: {}, cwd: tmp };
    const code = await runCli(["index", "--vault", vault, "--cache-dir", path.join(tmp, "cache"), "--json"], io);
    expect(code).toBe(0);
    expect(err).toContain("warning: 1 folder of the vault could not be read, and the notes in it are left out of the index: Shut (EACCES).");
    expect(JSON.parse(out)).toMatchObject({ notes: 1 });
  });
});
