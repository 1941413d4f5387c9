// read_note's reader over a real folder: what an agent may read, what it is refused, and what it
// is told when its path is spelt differently from the note's (Unicode form, case).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readVaultNote } from "../../../src/cli/mcp/read-vault-note";

let tmp: string;
let vault: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-read-note-"));
  vault = path.join(tmp, "vault");
  mkdirSync(path.join(vault, "Libraries"), { recursive: true });
  writeFileSync(path.join(vault, "Libraries", "Automerge.md"), "# Automerge\n");
  writeFileSync(path.join(tmp, "secret.md"), "# Outside\n");
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe("readVaultNote", () => {
  it("reads a note whose name begins with two dots: it is inside the vault", async () => {
    writeFileSync(path.join(vault, "..draft.md"), "# Draft\n");
    expect(await readVaultNote(vault, "..draft.md")).toMatchObject({ ok: true, path: "..draft.md", text: "# Draft\n" });
  });

  it("still refuses a link whose target is outside the vault, and '..' written in the path", async () => {
    symlinkSync(path.join(tmp, "secret.md"), path.join(vault, "Linked.md"));
    for (const given of ["Linked.md", "../secret.md", "Libraries/../../secret.md", "..\\secret.md", path.join(tmp, "secret.md"), "C:\\secret.md"]) {
      const read = await readVaultNote(vault, given);
      expect(read, given).toMatchObject({ ok: false, error: { kind: "outside_vault" } });
    }
  });

  it("reads the note an agent names in the other Unicode form (NFC for a name stored NFD)", async () => {
    const stored = "Caf\u0065\u0301 notes.md"; // e + combining acute, as macOS writes names
    writeFileSync(path.join(vault, stored), "# Café\n");
    const read = await readVaultNote(vault, "Caf\u00e9 notes.md", ["Libraries/Automerge.md", stored]);
    expect(read).toMatchObject({ ok: true, path: stored, text: "# Café\n" });
  });

  it("tells an agent that got the case wrong the note's right spelling, and reads nothing", async () => {
    const read = await readVaultNote(vault, "libraries/automerge.md", ["Libraries/Automerge.md"]);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error.kind).toBe("not_found");
    expect(read.error.message).toContain('Did you mean "Libraries/Automerge.md"?');
  });

  it("a path that is not a file of the vault is not found, in words that name no place on the disk", async () => {
    const read = await readVaultNote(vault, "Libraries/Gone.md", ["Libraries/Automerge.md"]);
    expect(read).toMatchObject({ ok: false, error: { kind: "not_found" } });
    expect(JSON.stringify(read)).not.toContain(tmp);
  });
});
