// A cache folder on a read-only disk: Node's recursive mkdir says "ENOENT: no such file or
// directory" there (it looks for the folder it could not make, and finds none), and every warning
// repeated that. The disk is faked at node:fs as Linux and Node meet it: under `ro`, mkdir fails as
// Node reports it and the nearest folder that is there refuses writes (EROFS).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseArgs } from "../../src/cli/args";
import { embedCommand } from "../../src/cli/embed-command";
import { FileIndexCache } from "../../src/cli/file-index-cache";
import { FileQueryLogFile } from "../../src/cli/file-query-log";
import { FileVectorCache } from "../../src/cli/file-vector-cache";
import { indexCommand } from "../../src/cli/index-command";
import { keepTrace } from "../../src/cli/kept-trace";
import { makeFolder, makeFolderSync } from "../../src/cli/make-folder";
import { bundledNodeWorkers } from "../../src/cli/node-workers";
import { COMMANDS } from "../../src/cli/run";
import { terminalOutput } from "../../src/cli/terminal-text";
import type { Http } from "../../src/ports";
import { fetchHttp, startStandInServer } from "../llm/embeddings/stand-in-embedding-server";
import { traceWith } from "../support/promote-fixtures";
import { anyString } from "../support/typed-matchers";

/** The read-only disk's top folder (there, as a mount point is), and a folder on a writable disk
 * whose parent goes as it is made; empty until a test sets them. */
const disk = vi.hoisted(() => ({ readOnly: "", parentGoes: "", refusesFolders: "" }));

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return {
    ...actual,
    mkdirSync: (folder: string, options?: { recursive?: boolean }) =>
      onReadOnlyDisk(folder) || inFolderRefusingFolders(folder, options) ? throwAsNodeDoes(folder) : actual.mkdirSync(folder, options),
    accessSync: (at: string, mode?: number) => {
      if (onReadOnlyDisk(at, true) && mode !== undefined && (mode & actual.constants.W_OK) !== 0) throw errnoError("EROFS", "read-only file system", "access", at);
      return actual.accessSync(at, mode);
    },
  };
});
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  const parentGoes = (folder: string) => disk.parentGoes !== "" && path.resolve(folder) === disk.parentGoes;
  // The folder above `parentGoes` is removed by someone else just before its mkdir runs.
  const goneAbove = (folder: string) => actual.rm(path.dirname(folder), { recursive: true, force: true }).then(() => Promise.reject(nodeMkdirError(folder)));
  return {
    ...actual,
    mkdir: (folder: string, options?: { recursive?: boolean }) =>
      onReadOnlyDisk(folder) || inFolderRefusingFolders(folder, options)
        ? Promise.reject(nodeMkdirError(folder))
        : parentGoes(folder)
          ? goneAbove(folder)
          : actual.mkdir(folder, options),
  };
});

function onReadOnlyDisk(at: string, orTop = false): boolean {
  if (disk.readOnly === "") return false;
  const resolved = path.resolve(at);
  return resolved.startsWith(`${disk.readOnly}${path.sep}`) || (orTop && resolved === disk.readOnly);
}

/**
 * Whether `folder` lies under a folder that, as /proc does, is there and takes writes but answers a
 * folder made in it with ENOENT. Node's recursive mkdir spins there for ever at full CPU; the fake
 * throws instead, so a test of code that still uses it fails rather than hangs.
 */
function inFolderRefusingFolders(folder: string, options?: { recursive?: boolean }): boolean {
  if (disk.refusesFolders === "" || !path.resolve(folder).startsWith(`${disk.refusesFolders}${path.sep}`)) return false;
  if (options?.recursive) throw new Error(`a recursive mkdir of ${folder} would spin here for ever`);
  return true;
}

function errnoError(code: string, words: string, syscall: string, at: string): NodeJS.ErrnoException {
  const errno = -(os.constants.errno as Record<string, number>)[code];
  return Object.assign(new Error(`${code}: ${words}, ${syscall} '${at}'`), { code, errno, syscall, path: at });
}

/** What Node's recursive mkdir reports on a read-only disk: not EROFS, but ENOENT for the folder. */
function nodeMkdirError(folder: string): NodeJS.ErrnoException {
  return errnoError("ENOENT", "no such file or directory", "mkdir", folder);
}

function throwAsNodeDoes(folder: string): never {
  throw nodeMkdirError(folder);
}

let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-make-folder-"));
  disk.readOnly = path.join(tmp, "ro");
  mkdirSync(disk.readOnly);
});

afterEach(() => {
  disk.readOnly = "";
  disk.parentGoes = "";
  disk.refusesFolders = "";
  rmSync(tmp, { recursive: true, force: true });
});

const readOnlyError = (folder: string) => ({ code: "EROFS", message: `EROFS: read-only file system, mkdir '${folder}'` });

describe("a folder that cannot be made on a read-only disk", () => {
  it("is refused with the disk's reason, EROFS, not Node's ENOENT, and names the folder asked for", async () => {
    const folder = path.join(disk.readOnly, "cache", "index-0123456789abcdef");
    await expect(makeFolder(folder)).rejects.toMatchObject(readOnlyError(folder));
    expect(() => makeFolderSync(folder)).toThrow(expect.objectContaining(readOnlyError(folder)));
  });

  it("keeps an ENOENT that stands: the disk takes writes, so a folder above went meanwhile", async () => {
    disk.parentGoes = path.join(tmp, "went", "cache");
    await expect(makeFolder(disk.parentGoes)).rejects.toMatchObject({ code: "ENOENT", message: `ENOENT: no such file or directory, mkdir '${disk.parentGoes}'` });
  });

  it("is said so by the index cache's save", async () => {
    const cache = new FileIndexCache(path.join(disk.readOnly, "cache"), path.join(tmp, "vault"));
    await expect(cache.write("manifest", { any: "thing" })).rejects.toMatchObject(readOnlyError(cache.folder));
  });

  it("is said so by a kept trace", async () => {
    const folder = path.join(disk.readOnly, "cache", "traces", "0123456789abcdef");
    await expect(keepTrace(folder, traceWith("what changed?", []))).rejects.toMatchObject(readOnlyError(folder));
  });

  it("is said so by the query log", async () => {
    const folder = path.join(disk.readOnly, "cache", "index-0123456789abcdef");
    await expect(new FileQueryLogFile(folder).append("{}\n")).rejects.toMatchObject(readOnlyError(folder));
  });

  it("is said so by the vectors' save", async () => {
    const folder = path.join(disk.readOnly, "cache", "index-0123456789abcdef");
    await expect(new FileVectorCache(folder).write("vectors", new Uint8Array([1, 2, 3]))).rejects.toMatchObject(readOnlyError(folder));
  });

  it("is said so by embed, which refuses before sending anything", async () => {
    const vault = path.join(tmp, "vault");
    mkdirSync(vault);
    writeFileSync(path.join(vault, "Note.md"), "# Note\n\nAbout walruses.\n");
    let out = "";
    let err = "";
    const io = terminalOutput({ out: (t: string) => (out += t), err: (t: string) => (err += t), env: {}, cwd: tmp }, [], { out: false, err: false });
    const sent: string[] = [];
    const http: Http = { request: (req) => (sent.push(req.url), Promise.reject(new Error("nothing should be sent"))) };
    const args = parseArgs(["--vault", vault, "--cache-dir", path.join(disk.readOnly, "cache"), "--embed", "ollama:nomic-embed-text@http://127.0.0.1:9/v1", "--json"], COMMANDS.embed.flags);
    expect(await embedCommand(args, io, { http })).toBe(1);
    expect(sent).toEqual([]);
    expect((JSON.parse(out) as { error: { message: string } }).error.message).toMatch(/cannot be written \(EROFS\)\. Nothing was sent/);
    // The index cache's warning, made before, says the same.
    expect(err).toMatch(/^warning: the index cache could not be written \(EROFS: read-only file system, mkdir /);
  });

  it("leaves embed's count of the vectors there, another model's, whole when it refuses (their root names them to that model only)", async () => {
    const vault = path.join(tmp, "vault");
    mkdirSync(vault);
    for (let i = 0; i < 12; i++) writeFileSync(path.join(vault, `Note ${i}.md`), `# Note ${i}\n\nAbout walrus number ${i}.\n`);
    const server = await startStandInServer({ dimensions: 16 });
    try {
      const cacheDir = path.join(disk.readOnly, "cache");
      const embed = async (model: string) => {
        let out = "";
        const io = terminalOutput({ out: (t: string) => (out += t), err: () => undefined, env: {}, cwd: tmp }, [], { out: false, err: false });
        const args = parseArgs(["--vault", vault, "--cache-dir", cacheDir, "--embed", `ollama:${model}@${server.base}`, "--json"], COMMANDS.embed.flags);
        const code = await embedCommand(args, io, { http: fetchHttp });
        return { code, report: JSON.parse(out) as { vector_bytes: number; error: { kind: string } | null } };
      };
      // Embedded while the disk still took writes.
      const readOnly = disk.readOnly;
      disk.readOnly = "";
      expect((await embed("nomic-embed-text")).code).toBe(0);
      disk.readOnly = readOnly;
      const folder = path.join(cacheDir, readdirSync(cacheDir).find((f) => f.startsWith("index-"))!);
      const vectors = readdirSync(folder).filter((f) => f.startsWith("vectors"));
      expect(vectors.length).toBeGreaterThan(1);
      const onDisk = vectors.reduce((sum, f) => sum + statSync(path.join(folder, f)).size, 0);
      const refused = await embed("all-minilm");
      expect(refused).toMatchObject({ code: 1, report: { error: { kind: "not_saved" }, vector_bytes: onDisk } });
    } finally {
      await server.close();
    }
  });
});

// A file where the cache folder should be: Node's recursive mkdir says "EEXIST: file already exists",
// which reads as if the folder were there, and `index` printed "cache: not saved (EEXIST: file already
// exists, mkdir '…/index-…')".
describe("a file in the folder's place", () => {
  it("is said to be a file, not a folder, naming it; the code stays EEXIST", async () => {
    const folder = path.join(tmp, "cache", "index-0123456789abcdef");
    mkdirSync(path.dirname(folder));
    writeFileSync(folder, "not a folder");
    const plainly = { code: "EEXIST", message: `${folder} is a file, not a folder` };
    await expect(makeFolder(folder)).rejects.toMatchObject(plainly);
    expect(() => makeFolderSync(folder)).toThrow(expect.objectContaining(plainly));
  });

  it("is said so by index, whose cache is not saved", async () => {
    const vault = path.join(tmp, "vault");
    mkdirSync(vault);
    writeFileSync(path.join(vault, "Note.md"), "# Note\n\nAbout walruses.\n");
    const cacheDir = path.join(tmp, "cache");
    const index = async () => {
      let out = "";
      const io = terminalOutput({ out: (t: string) => (out += t), err: () => undefined, env: {}, cwd: tmp }, [], { out: false, err: false });
      const code = await indexCommand(parseArgs(["--vault", vault, "--cache-dir", cacheDir], COMMANDS.index.flags), io, bundledNodeWorkers());
      return { code, out };
    };
    expect((await index()).code).toBe(0);
    const [folderName] = readdirSync(cacheDir);
    const folder = path.join(cacheDir, folderName);
    rmSync(folder, { recursive: true });
    writeFileSync(folder, "a file where the cache folder should be");
    const { code, out } = await index();
    expect(code).toBe(1);
    expect(out).toContain(`  cache: not saved (${folder} is a file, not a folder)\n`);
  }, 60_000);
});

// A file above the cache folder, or `--cache-dir` naming a file: Node's recursive mkdir says "ENOTDIR:
// not a directory, mkdir '…/a-file/cache/index-…'", which names the folder it could not make, not the
// file in its way, and `index` printed just that.
describe("a file above the folder", () => {
  it("is named as a file, not a folder, walking up from the folder asked for; the code stays ENOTDIR", async () => {
    const file = path.join(tmp, "a-file");
    writeFileSync(file, "a file where a folder should be");
    const folder = path.join(file, "cache", "index-0123456789abcdef");
    const plainly = { code: "ENOTDIR", path: folder, message: `${file} is a file, not a folder` };
    await expect(makeFolder(folder)).rejects.toMatchObject(plainly);
    expect(() => makeFolderSync(folder)).toThrow(expect.objectContaining(plainly));
  });

  it("is said so by index when --cache-dir names a file", async () => {
    const vault = path.join(tmp, "vault");
    mkdirSync(vault);
    writeFileSync(path.join(vault, "Note.md"), "# Note\n\nAbout walruses.\n");
    const cacheDir = path.join(tmp, "cache-file");
    writeFileSync(cacheDir, "not a folder");
    let out = "";
    let err = "";
    const io = terminalOutput({ out: (t: string) => (out += t), err: (t: string) => (err += t), env: {}, cwd: tmp }, [], { out: false, err: false });
    expect(await indexCommand(parseArgs(["--vault", vault, "--cache-dir", cacheDir], COMMANDS.index.flags), io, bundledNodeWorkers())).toBe(1);
    expect(out).toContain(`  cache: not saved (${cacheDir} is a file, not a folder)\n`);
    expect(err).toContain(`warning: the index cache could not be written (${cacheDir} is a file, not a folder); the next run will index the vault again.\n`);
  }, 60_000);
});

// `--cache-dir /proc/self/x` or `/proc/nonexist/x`: mkdir under /proc says ENOENT though /proc is
// there, and Node's recursive mkdir, which makes the parent and tries again, looped at 100% CPU with
// no word. The folders are made one level at a time, and such a refusal is said.
describe("a folder whose parent is there but lets no folder be made in it (/proc)", () => {
  it("is refused, naming that parent, each level made on its own (the fake fails a recursive mkdir rather than spin)", async () => {
    disk.refusesFolders = path.join(tmp, "proc");
    mkdirSync(disk.refusesFolders);
    const folder = path.join(disk.refusesFolders, "nonexist", "x");
    const plainly = { code: "ENOENT", path: folder, message: `${disk.refusesFolders} does not let folders be made in it: mkdir says ENOENT` };
    await expect(makeFolder(folder)).rejects.toMatchObject(plainly);
    expect(() => makeFolderSync(folder)).toThrow(expect.objectContaining(plainly));
    await expect(new FileQueryLogFile(folder).append("{}\n")).rejects.toMatchObject(plainly);
  });

  it("still makes every missing level of a folder that can be made, and takes one that is there", async () => {
    const folder = path.join(tmp, "a", "b", "c");
    await makeFolder(folder);
    expect(statSync(folder).isDirectory()).toBe(true);
    await makeFolder(folder);
    makeFolderSync(path.join(folder, "d", "e"));
    expect(statSync(path.join(folder, "d", "e")).isDirectory()).toBe(true);
  });

  const hasProc = existsSync("/proc/self");
  it.skipIf(!hasProc)("under the real /proc: an error, not a hang (skipped where there is no /proc)", async () => {
    for (const folder of ["/proc/self/x", "/proc/nonexist/x"]) {
      await expect(makeFolder(folder), folder).rejects.toMatchObject({ code: anyString(), path: folder });
      expect(() => makeFolderSync(folder), folder).toThrow(expect.objectContaining({ path: folder }));
    }
  });
});
