// On a disk that ignores case (APFS, NTFS), `Note.md` renamed to `note.md` still answers to its old
// name, and a vault opened by a path typed in another case than the disk's is still found. This
// Linux disk minds case, so the one it is tested on is faked at node:fs and node:fs/promises: each
// path under the test's folder is looked up name by name as such a disk would (the entry of that
// name in any case), and the system's realpath gives the disk's case where Node's own keeps the
// case it was given — as on macOS and Windows.
import fs, { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FsNoteStore } from "../../src/cli/fs-note-store";
import { watchVault, type FolderWatch } from "../../src/cli/mcp/vault-watcher";
import { VaultIndex } from "../../src/index/vault-index";
import { fakeClock } from "../support/fake-clock";

/** The folder whose paths the fake disk answers without regard to case. */
let ignoringCase = "";

/** `p` as the disk spells it: each name under `ignoringCase` replaced by the entry it matches in any case. */
function asOnDisk(p: string, real: typeof fs): string {
  const abs = path.resolve(p);
  if (ignoringCase === "" || !abs.startsWith(ignoringCase + path.sep)) return abs;
  let at = ignoringCase;
  for (const name of path.relative(ignoringCase, abs).split(path.sep)) {
    let names: string[] = [];
    try {
      names = real.readdirSync(at);
    } catch {
      // Not a folder: the name stays as given, and the call fails as the disk would.
    }
    at = path.join(at, names.includes(name) ? name : (names.find((n) => n.toLowerCase() === name.toLowerCase()) ?? name));
  }
  return at;
}

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  const on = (p: unknown) => asOnDisk(String(p), real);
  // Node's realpath walks the path itself and keeps the case given wherever no link is.
  const realpathSync = ((p: string) => {
    const found = real.realpathSync(on(p));
    return found === on(p) ? path.resolve(p) : found;
  }) as typeof real.realpathSync;
  realpathSync.native = ((p: string) => real.realpathSync(on(p))) as typeof real.realpathSync.native;
  const statSync = ((p: string, o: never) => real.statSync(on(p), o)) as typeof real.statSync;
  const lstatSync = ((p: string, o: never) => real.lstatSync(on(p), o)) as typeof real.lstatSync;
  const readdirSync = ((p: string, o: never) => real.readdirSync(on(p), o)) as typeof real.readdirSync;
  const faked = { realpathSync, statSync, lstatSync, readdirSync };
  return { ...real, ...faked, default: { ...real, ...faked } };
});

vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  const realFs = await vi.importActual<typeof import("node:fs")>("node:fs");
  const on = (p: unknown) => asOnDisk(String(p), realFs);
  const faked = {
    lstat: ((p: string) => real.lstat(on(p))) as typeof real.lstat,
    stat: ((p: string) => real.stat(on(p))) as typeof real.stat,
    readFile: ((p: string, o: never) => real.readFile(on(p), o)) as typeof real.readFile,
    // The system's realpath: the disk's own case.
    realpath: ((p: string) => real.realpath(on(p))) as typeof real.realpath,
  };
  return { ...real, ...faked, default: { ...real, ...faked } };
});

let tmp: string;
let vault: string;

beforeEach(() => {
  tmp = fs.realpathSync.native(mkdtempSync(path.join(os.tmpdir(), "vr-case-")));
  ignoringCase = tmp;
  vault = path.join(tmp, "Vault");
  mkdirSync(path.join(vault, "Ideas"), { recursive: true });
  writeFileSync(path.join(vault, "Note.md"), "# Note\n\nKestrels hover over the meadow.\n");
  writeFileSync(path.join(vault, "Ideas", "Plan.md"), "# Plan\n\nHerons wait by the river.\n");
});

afterEach(() => {
  ignoringCase = "";
  rmSync(tmp, { recursive: true, force: true });
});

describe("the fake disk", () => {
  it("answers to a name in any case, as APFS and NTFS do", () => {
    expect(fs.statSync(path.join(vault, "NOTE.md")).isFile()).toBe(true);
    expect(fs.statSync(path.join(vault, "ideas", "plan.md")).isFile()).toBe(true);
  });
});

describe("FsNoteStore.stat on a disk that ignores case", () => {
  it("knows a note renamed in case only by its new name alone", async () => {
    const store = new FsNoteStore(vault);
    renameSync(path.join(vault, "Note.md"), path.join(vault, "note.md"));
    expect(await store.exists("Note.md")).toBe(true); // a name taken, for a note about to be created
    expect(await store.stat("Note.md")).toBeNull();
    expect(await store.stat("note.md")).toMatchObject({ path: "note.md" });
  });

  it("knows a note under a folder renamed in case only by the folder's new name", async () => {
    const store = new FsNoteStore(vault);
    renameSync(path.join(vault, "Ideas"), path.join(vault, "ideas"));
    expect(await store.stat("Ideas/Plan.md")).toBeNull();
    expect(await store.stat("ideas/Plan.md")).toMatchObject({ path: "ideas/Plan.md" });
  });
});

describe("a vault opened by a path typed in another case than the disk's", () => {
  it("reads its notes though it holds a link (the link's check once took the root in the typed case)", async () => {
    symlinkSync(path.join(vault, "Ideas"), path.join(vault, "Shortcut"));
    const store = new FsNoteStore(path.join(tmp, "VAULT"));
    expect((await store.list()).map((f) => f.path)).toEqual(["Ideas/Plan.md", "Note.md"]);
    expect(await store.read("Note.md")).toContain("Kestrels");
    expect(await store.stat("Note.md")).toMatchObject({ path: "Note.md" });
  });
});

describe("the MCP server's watcher on a disk that ignores case", () => {
  it("drops the old name of a note renamed in case only, whichever name's event comes first", async () => {
    const store = new FsNoteStore(vault);
    const index = new VaultIndex({ clock: fakeClock() });
    await index.sync(store, null);
    let send: (event: string, name: string | null) => void = () => {};
    const watch: FolderWatch = (_root, onChange) => {
      send = onChange;
      return { close() {} };
    };
    const watcher = watchVault(vault, store, index, { clock: fakeClock(), watch, delayMs: 0, onError: () => {} });
    renameSync(path.join(vault, "Note.md"), path.join(vault, "note.md"));
    send("rename", "note.md");
    send("rename", "Note.md");
    await watcher.settle();
    watcher.close();
    expect(index.paths().sort()).toEqual(["Ideas/Plan.md", "note.md"]);
  });
});
