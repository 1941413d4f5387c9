// The MCP tool `read_note`: one markdown note of the vault, by its vault path — and nothing else.
// The path is checked as written (relative, no `..`, markdown) and then by where it really leads:
// a link inside the vault that points outside it is refused like a path that does. A path that
// differs from a note's only in its Unicode form (é as one character or as e and an accent: what
// macOS and many tools turn names into) reads that note; one that differs in case is told the
// right spelling. Neither looks further than the vault's notes. What search never shows is not
// read either: a hidden name (`.trash/`, where Obsidian keeps deleted notes) and a folder the
// user's settings leave out of search — where the path leads is checked, not only how it is spelt —,
// nor a file the index leaves out as no text (NUL bytes: a picture or PDF named `.md`).
import { realpath } from "node:fs/promises";
import { readRegularFile } from "../regular-file";
import path from "node:path";
import { binaryProblem } from "../../index/binary-note";
import { folderPartsInside } from "../../settings";
import { isSkippedPath } from "../fs-note-store";

/** Notes larger than this are refused: an agent wants a note, not a dump. */
export const MAX_NOTE_BYTES = 2_000_000;

/**
 * Longer than any path a disk takes (Linux allows 4,096 bytes): no note has such a path, so it is
 * refused before it is compared with every note's — a path of megabytes held the server for a minute.
 */
export const MAX_PATH_CHARS = 4_096;

export type NoteReadError =
  | { kind: "outside_vault"; message: string }
  | { kind: "not_a_note"; message: string }
  | { kind: "not_found"; message: string }
  | { kind: "left_out"; message: string }
  | { kind: "too_large"; message: string }
  | { kind: "unreadable"; message: string };

export type NoteRead = { ok: true; path: string; text: string; bytes: number } | { ok: false; error: NoteReadError };

function refused(kind: NoteReadError["kind"], message: string): NoteRead {
  return { ok: false, error: { kind, message } };
}

/**
 * Why a vault path is out of read_note's reach (hidden, or in one of `leftOut`: folders as the
 * settings spell them), or null. Compared without case or Unicode form: on a disk that ignores
 * case `private/x.md` opens `Private/x.md`, and refusing a look-alike folder on one that does not
 * costs an agent little.
 */
export function whyLeftOut(rel: string, leftOut: readonly string[]): string | null {
  if (isSkippedPath(rel)) return `"${rel}" is hidden (a name starting with "." or node_modules): Obsidian does not show it, and read_note does not read it.`;
  const fold = (p: string) => p.normalize("NFC").toLowerCase();
  const folded = fold(rel);
  for (const folder of leftOut) {
    const inside = folderPartsInside(folder).join("/");
    if (inside !== "" && folded.startsWith(`${fold(inside)}/`)) {
      return `"${rel}" is in ${inside}/, a folder this vault's settings leave out of search; read_note does not read it either.`;
    }
  }
  return null;
}

/**
 * `given`: a vault-relative path such as `Libraries/Automerge.md` (forward or back slashes).
 * `notes`: the vault's note paths (the index's), where a path spelt in another Unicode form or case is looked up.
 * `leftOut`: folders the settings leave out of search (not the trace folder: an agent reads its runs' traces).
 */
export async function readVaultNote(root: string, given: string, notes: Iterable<string> = [], leftOut: readonly string[] = []): Promise<NoteRead> {
  if (given.length > MAX_PATH_CHARS) return refused("not_found", `There is no note with a path of ${given.length} characters: no disk takes a path that long.`);
  const written = given.replace(/\\/g, "/");
  if (written.includes("\0") || path.isAbsolute(written) || /^[a-z]:/i.test(written) || written.split("/").includes("..")) {
    return refused("outside_vault", `"${given}" is not a path inside the vault: give it relative to the vault, without "..".`);
  }
  // `.` and empty parts name no folder: `Libraries/./x.md` is the note `Libraries/x.md`, not a hidden one.
  const asked = written.split("/").filter((part) => part !== "" && part !== ".").join("/");
  if (asked === "") return refused("outside_vault", `"${given}" is not a path inside the vault: give it relative to the vault, without "..".`);
  if (!asked.toLowerCase().endsWith(".md")) return refused("not_a_note", `"${given}" is not a markdown note (.md).`);
  const known = [...notes];
  let rel = asked;
  let realRoot: string;
  let realFile: string;
  try {
    realRoot = await realpath(root);
    realFile = await realpath(path.join(root, rel)).catch(async (error: unknown) => {
      const composed = asked.normalize("NFC");
      const respelt = known.filter((p) => p !== asked && p.normalize("NFC") === composed);
      if (respelt.length !== 1) throw error;
      rel = respelt[0];
      return realpath(path.join(root, rel));
    });
  } catch {
    // Still in the index: gone since the search that named it, before the index heard of it.
    const gone = known.includes(asked) ? " (any more)" : "";
    return refused("not_found", `There is no note "${asked}" in the vault${gone}.${spellingHint(asked, known)}`);
  }
  const inside = path.relative(realRoot, realFile);
  if (inside === "" || inside === ".." || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside)) {
    // Where the link leads is not said: an agent learns nothing of the disk beyond the vault.
    return refused("outside_vault", `"${rel}" is a link that leads outside the vault; it is not read.`);
  }
  // Both the path as asked and where it leads: a link in a shown folder may lead into a hidden one.
  const why = whyLeftOut(rel, leftOut) ?? whyLeftOut(inside.split(path.sep).join("/"), leftOut);
  if (why) return refused("left_out", why);
  // The note may go between the look and the read; what is said names no place on the disk.
  try {
    // One open, checked to be a file before a byte is read: a look, then a read by path, waited for
    // ever on a named pipe put there between the two, and held the call's turn (and after four, every call).
    const read = await readRegularFile(realFile, MAX_NOTE_BYTES);
    if (read.kind === "missing") return refused("not_found", `There is no note "${rel}" in the vault (any more).`);
    if (read.kind === "not_a_file") return refused("not_a_note", `"${rel}" is not a file.`);
    if (read.kind === "too_large") return refused("too_large", `"${rel}" is ${read.size} bytes, over the ${MAX_NOTE_BYTES}-byte limit of read_note.`);
    const facts = { size: read.bytes.length };
    const text = read.bytes.toString("utf8");
    // The index's own rule (binary-note.ts): read, such a file handed an agent megabytes of NULs and replacement characters.
    if (binaryProblem(text)) return refused("not_a_note", `"${rel}" holds NUL bytes: it is not text (a binary file, or a note saved as UTF-16), so search does not show it, and read_note does not read it.`);
    return { ok: true, path: rel, text, bytes: facts.size };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return refused("not_found", `There is no note "${rel}" in the vault (any more).`);
    return refused("unreadable", `"${rel}" could not be read (${code ?? "error"}).`);
  }
}

/** " Did you mean …?" for notes whose path differs from `asked` only in case (or Unicode form), else "". */
function spellingHint(asked: string, known: readonly string[]): string {
  const fold = (p: string) => p.normalize("NFC").toLowerCase();
  const folded = fold(asked);
  // Not the path asked itself: a note the index still lists, gone from the disk, is not what was meant.
  const near = known.filter((p) => p !== asked && fold(p) === folded).slice(0, 3);
  return near.length === 0 ? "" : ` Did you mean ${near.map((p) => `"${p}"`).join(" or ")}? Paths are matched exactly, case included.`;
}
