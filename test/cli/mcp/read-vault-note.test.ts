// read_note's reader over a real folder: what an agent may read, what it is refused, and what it
// is told when its path is spelt differently from the note's (Unicode form, case).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_PATH_CHARS, readVaultNote, whyLeftOut } from "../../../src/cli/mcp/read-vault-note";

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
  it("a note whose name begins with two dots is inside the vault, and hidden: refused as hidden, not as outside", async () => {
    writeFileSync(path.join(vault, "..draft.md"), "# Draft\n");
    const read = await readVaultNote(vault, "..draft.md");
    expect(read).toMatchObject({ ok: false, error: { kind: "left_out" } });
    if (!read.ok) expect(read.error.message).toContain("hidden");
  });

  it("does not read what search never shows: Obsidian's trash, node_modules, a folder the settings leave out", async () => {
    for (const folder of [".trash", "node_modules/pkg", "Private/Journal"]) {
      mkdirSync(path.join(vault, folder), { recursive: true });
      writeFileSync(path.join(vault, folder, "Deleted.md"), "# Kept away\n");
    }
    for (const given of [".trash/Deleted.md", "node_modules/pkg/Deleted.md", "Private/Journal/Deleted.md", "./Private\\Journal/Deleted.md"]) {
      const read = await readVaultNote(vault, given, [], ["Private/"]);
      expect(read, given).toMatchObject({ ok: false, error: { kind: "left_out" } });
      expect(JSON.stringify(read), given).not.toContain("Kept away");
    }
    // On a disk that ignores case `private/` opens `Private/`: the folder is compared without case.
    expect(whyLeftOut("private/JOURNAL/Deleted.md", ["Private/Journal"])).toContain("leave out of search");
    // A folder that only begins like the left-out one is read.
    mkdirSync(path.join(vault, "Privateer"));
    writeFileSync(path.join(vault, "Privateer", "Ship.md"), "# Ship\n");
    expect(await readVaultNote(vault, "Privateer/Ship.md", [], ["Private"])).toMatchObject({ ok: true, text: "# Ship\n" });
  });

  it("a link in a shown folder that leads into a left-out one is refused by where it leads", async () => {
    mkdirSync(path.join(vault, ".trash"));
    writeFileSync(path.join(vault, ".trash", "Gone.md"), "# Deleted\n");
    mkdirSync(path.join(vault, "Private"));
    writeFileSync(path.join(vault, "Private", "Diary.md"), "# Diary\n");
    symlinkSync(path.join(vault, ".trash", "Gone.md"), path.join(vault, "Libraries", "Trash link.md"));
    symlinkSync(path.join(vault, "Private", "Diary.md"), path.join(vault, "Libraries", "Diary link.md"));
    expect(await readVaultNote(vault, "Libraries/Trash link.md")).toMatchObject({ ok: false, error: { kind: "left_out" } });
    expect(await readVaultNote(vault, "Libraries/Diary link.md", [], ["Private"])).toMatchObject({ ok: false, error: { kind: "left_out" } });
    expect(await readVaultNote(vault, "Libraries/Diary link.md")).toMatchObject({ ok: true, text: "# Diary\n" });
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

  // A "." part is no hidden name: told "hidden", an agent took a note it may read for one kept from it.
  it("reads a note whose path has '.' or empty parts, and names it as the vault does", async () => {
    for (const given of ["Libraries/./Automerge.md", "Libraries//Automerge.md", "././Libraries\\.\\Automerge.md"]) {
      expect(await readVaultNote(vault, given), given).toMatchObject({ ok: true, path: "Libraries/Automerge.md", text: "# Automerge\n" });
    }
    mkdirSync(path.join(vault, ".trash"));
    writeFileSync(path.join(vault, ".trash", "Gone.md"), "# Gone\n");
    expect(await readVaultNote(vault, "./.trash/./Gone.md")).toMatchObject({ ok: false, error: { kind: "left_out" } });
  });

  it("a path that is not a file of the vault is not found, in words that name no place on the disk", async () => {
    const read = await readVaultNote(vault, "Libraries/Gone.md", ["Libraries/Automerge.md"]);
    expect(read).toMatchObject({ ok: false, error: { kind: "not_found" } });
    expect(JSON.stringify(read)).not.toContain(tmp);
  });

  it("a path of megabytes is refused before it is compared with any note's, and is not handed back", async () => {
    const given = `${"a/".repeat(1_000_000)}x.md`;
    // The vault's note paths, which must not be looked at: comparing each with megabytes froze the server.
    const notes: Iterable<string> = {
      [Symbol.iterator]: () => {
        throw new Error("the note paths were read");
      },
    };
    const read = await readVaultNote(vault, given, notes);
    expect(read).toMatchObject({ ok: false, error: { kind: "not_found" } });
    expect(JSON.stringify(read).length).toBeLessThan(500);
    // A path as long as a disk takes is still looked for.
    expect(await readVaultNote(vault, `${"a".repeat(MAX_PATH_CHARS - 3)}.md`, ["Libraries/Automerge.md"])).toMatchObject({ ok: false, error: { kind: "not_found" } });
  });
});

describe("readVaultNote, a note that is not what search shows", () => {
  // A picture or PDF saved under a .md name (or a note saved as UTF-16): the index leaves it out as
  // no text, and read_note handed an agent up to 2 MB of it, NUL bytes and replacement characters.
  it("a file named .md that holds NUL bytes is refused as no note, and none of it is given", async () => {
    writeFileSync(path.join(vault, "Scan.md"), `%PDF-1.7\n${"\0".repeat(64)}stream`);
    const read = await readVaultNote(vault, "Scan.md", ["Libraries/Automerge.md"]);
    expect(read).toMatchObject({ ok: false, error: { kind: "not_a_note" } });
    if (!read.ok) expect(read.error.message).toBe('"Scan.md" holds NUL bytes: it is not text (a binary file, or a note saved as UTF-16), so search does not show it, and read_note does not read it.');
    expect(JSON.stringify(read)).not.toContain("PDF");
    // A NUL far past the start is not looked for: the index looks at the first 8,000 characters too.
    writeFileSync(path.join(vault, "Long.md"), `# Long\n${"word ".repeat(4_000)}\0`);
    expect(await readVaultNote(vault, "Long.md")).toMatchObject({ ok: true, path: "Long.md" });
  });

  // Deleted after the search that named it, before the watcher told the index: the index still lists
  // it, and the agent was asked whether it meant the very path it gave.
  it("a note gone since the search found it is not found any more, and the agent is not asked if it meant its own path", async () => {
    const read = await readVaultNote(vault, "Libraries/Gone.md", ["Libraries/Automerge.md", "Libraries/Gone.md"]);
    expect(read).toEqual({ ok: false, error: { kind: "not_found", message: 'There is no note "Libraries/Gone.md" in the vault (any more).' } });
    // A note only the case of which differs is still named.
    const near = await readVaultNote(vault, "Libraries/gone.md", ["Libraries/Gone.md", "Libraries/gone.md"]);
    expect(near).toEqual({ ok: false, error: { kind: "not_found", message: 'There is no note "Libraries/gone.md" in the vault (any more). Did you mean "Libraries/Gone.md"? Paths are matched exactly, case included.' } });
  });
});
