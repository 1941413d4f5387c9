// What a path given on the command line is, in the words a refusal uses (cli/path-kind.ts).
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { whyNot } from "../../src/cli/path-kind";
import { ensureBuiltCli } from "../support/built-cli";

describe("whyNot", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "vault-research-path-kind-"));
  const folder = path.join(tmp, "notes");
  const file = path.join(tmp, "notes.md");
  mkdirSync(folder);
  writeFileSync(file, "# A note\n");

  it("accepts a folder as a folder and a file as a file, through a link too", () => {
    expect(whyNot("folder", folder)).toBeNull();
    expect(whyNot("file", file)).toBeNull();
    const linked = path.join(tmp, "linked");
    symlinkSync(folder, linked);
    expect(whyNot("folder", linked)).toBeNull();
  });

  it("says what is wrong: missing, the other kind, or a path through a file", () => {
    expect(whyNot("folder", path.join(tmp, "none"))).toBe("does not exist");
    expect(whyNot("file", path.join(tmp, "none.json"))).toBe("does not exist");
    expect(whyNot("folder", file)).toBe("is a file, not a folder");
    expect(whyNot("file", folder)).toBe("is a folder, not a file");
    expect(whyNot("folder", path.join(file, "inside"))).toBe("does not exist");
    const dangling = path.join(tmp, "dangling");
    symlinkSync(path.join(tmp, "gone"), dangling);
    expect(whyNot("file", dangling)).toBe("does not exist");
  });
});

// `--vault FIFO` was told the named pipe "is a file, not a folder". Made with mkfifo, which Windows lacks.
describe("what is neither a file nor a folder", () => {
  const hasMkfifo = process.platform !== "win32" && spawnSync("mkfifo", ["--version"]).status === 0;
  it.skipIf(!hasMkfifo)("is named as what it is: a named pipe (skipped where there is no mkfifo)", () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), "vault-research-path-kind-"));
    const fifo = path.join(tmp, "pipe");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    expect(whyNot("folder", fifo)).toBe("is a named pipe (FIFO), not a folder");
    expect(whyNot("file", fifo)).toBe("is a named pipe (FIFO), not a file");
    rmSync(tmp, { recursive: true, force: true });
  });

  it.skipIf(!existsSync("/dev/null"))("is named as what it is: a device", () => {
    expect(whyNot("folder", "/dev/null")).toBe("is a device, not a folder");
    expect(whyNot("file", "/dev/null")).toBe("is a device, not a file");
  });
});

describe("a vault folder that cannot be listed", () => {
  it("is refused as unreadable, not as a folder without notes", () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), "vault-research-path-kind-"));
    chmodSync(tmp, 0o755);
    const vault = path.join(tmp, "vault");
    cpSync(path.resolve(__dirname, "../../examples/vault"), vault, { recursive: true });
    chmodSync(vault, 0o000);
    // Root reads any folder: the command runs as nobody then (setpriv), as a person's own account would.
    // Nobody may not reach the repository (a clone in a private temporary folder), so it runs a copy
    // of the built CLI (one file and its parts, every package bundled in) from this open folder.
    const built = ensureBuiltCli();
    const cli = path.join(tmp, "bin", path.basename(built));
    cpSync(built, cli);
    cpSync(path.join(path.dirname(built), "cli"), path.join(tmp, "bin", "cli"), { recursive: true });
    chmodSync(path.join(tmp, "bin"), 0o755);
    const asSomeone = process.getuid?.() === 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath] : [process.execPath];
    const run = spawnSync(asSomeone[0], [...asSomeone.slice(1), cli, "search", "x", "--vault", vault, "--cache-dir", path.join(tmp, "cache")], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } });
    chmodSync(vault, 0o755);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain(`Vault folder ${vault} cannot be read (EACCES).`);
  }, 120_000);
});
