// The run's trace when no trace note goes into the vault: the same markdown a trace note holds,
// kept in the cache folder (<cache>/traces/<vault id>/<run id>.md), outside the folder the CLI was
// pointed at. `promote --trace` takes such a file (by path or by run id) as well as a trace note.
// Written to a temporary file and renamed into place, so a reader never sees half of one.
import { createHash } from "node:crypto";
import { existsSync, realpathSync, statSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { ResearchTrace } from "../evidence/trace-types";
import { renderTraceNote } from "../notes/trace-note";
import { recordPromotion } from "../notes/trace-note-read";
import type { Promotion } from "../notes/trace-note";
import { isSkippedName } from "./fs-note-store";
import { replaceFileWhole } from "./temporary-files";

/**
 * The folder of one vault's kept traces. Never inside the vault (the CLI refuses such a cache
 * folder before a run; this is the last guard): a trace kept there would be read back as a note.
 */
export function keptTraceFolder(cacheDir: string, vaultRoot: string): string {
  const id = createHash("sha256").update(path.resolve(vaultRoot)).digest("hex").slice(0, 16);
  const folder = path.join(cacheDir, "traces", id);
  if (!outOfNotesReach(placeOnDisk(vaultRoot, folder))) throw new Error(`the cache folder ${cacheDir} is inside the vault, and a trace kept there would be read as a note`);
  return folder;
}

/**
 * Where `file` is on disk, seen from `folder`: the folder itself, below it, or neither. Links are
 * followed as far as each path exists (the rest is taken as written); names compare as the OS compares them.
 */
export function placeOnDisk(folder: string, file: string): "same" | "inside" | "hidden" | "outside" {
  const caseless = process.platform === "darwin" || process.platform === "win32";
  const real = (p: string) => (caseless ? realPathAsFarAsItExists(p).toLowerCase() : realPathAsFarAsItExists(p));
  const rel = path.relative(real(folder), real(file));
  if (rel === "") return "same";
  if (rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return "outside";
  // Below a hidden folder (a vault that is a home folder holds `.cache`): no note is ever read there.
  return rel.split(path.sep).some(isSkippedName) ? "hidden" : "inside";
}

/** Whether a cache or trace folder at this place can never be read as notes of the vault. */
export function outOfNotesReach(place: ReturnType<typeof placeOnDisk>): boolean {
  return place === "outside" || place === "hidden";
}

/** The real path of `p`'s deepest existing folder, with the parts below it that do not exist (yet) added. */
function realPathAsFarAsItExists(p: string): string {
  const missing: string[] = [];
  let at = path.resolve(p);
  for (;;) {
    try {
      return path.join(realpathSync(at), ...missing.reverse());
    } catch {
      const parent = path.dirname(at);
      if (parent === at) return path.join(at, ...missing.reverse());
      missing.push(path.basename(at));
      at = parent;
    }
  }
}

/** Keeps the trace; returns the file's absolute path. */
export async function keepTrace(folder: string, trace: ResearchTrace): Promise<string> {
  await mkdir(folder, { recursive: true });
  const file = path.join(folder, `${trace.run_id.replace(/[^\w.-]/g, "_")}.md`);
  await writeAtomically(file, renderTraceNote(trace));
  return file;
}

const RUN_ID = /^\d{8}-\d{6}-[0-9a-f]{6}$/;

/**
 * Where a kept trace may be: for a person at the CLI, any file they name; for an agent (the MCP
 * server), only a trace this vault's runs kept — promotion reads the file and rewrites it, and an
 * agent's path must not reach another vault's notes or any other file on the machine.
 */
export type KeptTraceScope = "any_file" | "kept_folder";

/**
 * The kept trace `given` names — a file outside the vault, or a run id kept for this vault — or
 * null when it names neither (then it is read as a trace note in the vault).
 */
export function findKeptTrace(given: string, cwd: string, vaultRoot: string, folder: string, scope: KeptTraceScope = "any_file"): string | null {
  if (RUN_ID.test(given)) {
    const byId = path.join(folder, `${given}.md`);
    if (existsSync(byId)) return byId;
  }
  const file = path.resolve(cwd, given);
  if (!existsSync(file) || !statSync(file).isFile()) return null;
  if (scope === "kept_folder") return existsSync(folder) && isInside(realpathSync(folder), realpathSync(file)) ? file : null;
  return isInside(path.resolve(vaultRoot), file) ? null : file;
}

/** Whether `file` is `folder` or below it (both resolved as the caller needs). */
function isInside(folder: string, file: string): boolean {
  const rel = path.relative(folder, file);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

export async function readKeptTrace(file: string): Promise<string> {
  return readFile(file, "utf8");
}

/** Records a promotion in a kept trace, as promotion does in a trace note; false when it could not. */
export async function recordPromotionInKeptTrace(file: string, promotion: Promotion): Promise<boolean> {
  try {
    const updated = recordPromotion(await readFile(file, "utf8"), promotion);
    if ("error" in updated) return false;
    await writeAtomically(file, updated.markdown);
    return true;
  } catch {
    return false;
  }
}

/** Whole or not at all (replaceFileWhole), under a temporary name of its own for each write. */
function writeAtomically(file: string, content: string): Promise<void> {
  return replaceFileWhole(file, content, `${file}.${process.pid}.${Date.now()}.tmp`);
}
