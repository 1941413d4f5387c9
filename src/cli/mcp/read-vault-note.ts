// The MCP tool `read_note`: one markdown note of the vault, by its vault path — and nothing else.
// The path is checked as written (relative, no `..`, markdown) and then by where it really leads:
// a link inside the vault that points outside it is refused like a path that does.
import { realpath, stat, readFile } from "node:fs/promises";
import path from "node:path";

/** Notes larger than this are refused: an agent wants a note, not a dump. */
export const MAX_NOTE_BYTES = 2_000_000;

export type NoteReadError =
  | { kind: "outside_vault"; message: string }
  | { kind: "not_a_note"; message: string }
  | { kind: "not_found"; message: string }
  | { kind: "too_large"; message: string };

export type NoteRead = { ok: true; path: string; text: string; bytes: number } | { ok: false; error: NoteReadError };

function refused(kind: NoteReadError["kind"], message: string): NoteRead {
  return { ok: false, error: { kind, message } };
}

/** `given`: a vault-relative path such as `Libraries/Automerge.md` (forward or back slashes). */
export async function readVaultNote(root: string, given: string): Promise<NoteRead> {
  const rel = given.replace(/\\/g, "/").replace(/^\.\//, "");
  if (rel === "" || rel.includes("\0") || path.isAbsolute(rel) || /^[a-z]:/i.test(rel) || rel.split("/").includes("..")) {
    return refused("outside_vault", `"${given}" is not a path inside the vault: give it relative to the vault, without "..".`);
  }
  if (!rel.toLowerCase().endsWith(".md")) return refused("not_a_note", `"${given}" is not a markdown note (.md).`);
  let realRoot: string;
  let realFile: string;
  try {
    realRoot = await realpath(root);
    realFile = await realpath(path.join(root, rel));
  } catch {
    return refused("not_found", `There is no note "${rel}" in the vault.`);
  }
  const inside = path.relative(realRoot, realFile);
  if (inside === "" || inside.startsWith("..") || path.isAbsolute(inside)) {
    // Where the link leads is not said: an agent learns nothing of the disk beyond the vault.
    return refused("outside_vault", `"${rel}" is a link that leads outside the vault; it is not read.`);
  }
  const facts = await stat(realFile);
  if (!facts.isFile()) return refused("not_a_note", `"${rel}" is not a file.`);
  if (facts.size > MAX_NOTE_BYTES) return refused("too_large", `"${rel}" is ${facts.size} bytes, over the ${MAX_NOTE_BYTES}-byte limit of read_note.`);
  return { ok: true, path: rel, text: await readFile(realFile, "utf8"), bytes: facts.size };
}
