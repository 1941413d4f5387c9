// The run's trace when no trace note goes into the vault: the same markdown a trace note holds,
// kept in the cache folder (<cache>/traces/<vault id>/<run id>.md), outside the folder the CLI was
// pointed at. `promote --trace` takes such a file (by path or by run id) as well as a trace note.
// Written to a temporary file and renamed into place, so a reader never sees half of one.
import { createHash } from "node:crypto";
import { existsSync, realpathSync, statSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ResearchTrace } from "../evidence/trace-types";
import { renderTraceNote } from "../notes/trace-note";
import { recordPromotion } from "../notes/trace-note-read";
import type { Promotion } from "../notes/trace-note";

/** The folder of one vault's kept traces. */
export function keptTraceFolder(cacheDir: string, vaultRoot: string): string {
  const id = createHash("sha256").update(path.resolve(vaultRoot)).digest("hex").slice(0, 16);
  return path.join(cacheDir, "traces", id);
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

async function writeAtomically(file: string, content: string): Promise<void> {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, content, "utf8");
  await rename(temp, file);
}
