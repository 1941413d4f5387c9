// read_note and a named pipe that takes a note's place after a look saw a file there: the read must
// not wait on it. A look (`stat`) then a read by path waited for ever, and held the call's turn; the
// look is made to say "a file" here, as it would have just before the pipe came.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { hasMkfifo, makeNamedPipe, releaseNamedPipes } from "../named-pipes";

vi.mock("node:fs/promises", async (original) => {
  const real = await original<typeof import("node:fs/promises")>();
  return { ...real, default: real, stat: async () => ({ isFile: () => true, isDirectory: () => false, size: 10 }) };
});

const { readVaultNote } = await import("../../../src/cli/mcp/read-vault-note");

let tmp: string;
let vault: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-read-pipe-"));
  vault = path.join(tmp, "vault");
  mkdirSync(vault, { recursive: true });
});

afterEach(() => {
  releaseNamedPipes();
  rmSync(tmp, { recursive: true, force: true });
});

describe("readVaultNote and a named pipe", () => {
  it.skipIf(!hasMkfifo)("refuses a pipe in a note's place as no note, without waiting on it (skipped where there is no mkfifo)", async () => {
    makeNamedPipe(path.join(vault, "Swapped.md"));
    const read = await readVaultNote(vault, "Swapped.md");
    expect(read).toMatchObject({ ok: false, error: { kind: "not_a_note" } });
  });
});
