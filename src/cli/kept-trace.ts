// The run's trace when no trace note goes into the vault: the same markdown a trace note holds,
// kept in the cache folder (<cache>/traces/<vault id>/<run id>.md), outside the folder the CLI was
// pointed at. `promote --trace` takes such a file (by path or by run id) as well as a trace note.
// Written to a temporary file and renamed into place, so a reader never sees half of one. Every
// research run without --trace and every MCP research_pack keeps one (tens of KB): each time one is
// kept, the vault's older ones past KEPT_TRACES (kept-trace-retention.ts) are removed, or an agent's
// loop of calls would grow the cache for ever.
import { existsSync, realpathSync, statSync } from "node:fs";
import { lstat, readdir, readFile, realpath, unlink } from "node:fs/promises";
import path from "node:path";
import type { ResearchTrace } from "../evidence/trace-types";
import { renderTraceNote } from "../notes/trace-note";
import { recordPromotion } from "../notes/trace-note-read";
import type { Promotion } from "../notes/trace-note";
import { vaultCacheFolder } from "./file-index-cache";
import { KEPT_TRACES } from "./kept-trace-retention";
import { makeFolder } from "./make-folder";
import { isSkippedName, withLock } from "./fs-note-store";
import { errorMessage } from "../text/error-message";
import { inTurn, removeLeftoverTemporaryFiles, replaceFileWhole, uniqueTemporaryName } from "./temporary-files";

/**
 * The folder of one vault's kept traces. Never inside the vault (the CLI refuses such a cache
 * folder before a run; this is the last guard): a trace kept there would be read back as a note.
 */
export function keptTraceFolder(cacheDir: string, vaultRoot: string): string {
  const folder = path.join(cacheDir, "traces", vaultIdOf(cacheDir, vaultRoot));
  if (!outOfNotesReach(placeOnDisk(vaultRoot, folder))) throw new Error(`the cache folder ${cacheDir} is inside the vault, and a trace kept there would be read as a note`);
  return folder;
}

/**
 * The vault's id as its cache folder (`index-<id>`) is named: one rule for both, so the kept traces
 * of a vault renamed or moved are found where moved-vault-cache.ts moves them with its cache folder.
 */
function vaultIdOf(cacheDir: string, vaultRoot: string): string {
  return path.basename(vaultCacheFolder(cacheDir, vaultRoot)).replace(/^index-/, "");
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

/** Keeps the trace; returns the file's absolute path. Then removes the vault's traces past KEPT_TRACES. */
export async function keepTrace(folder: string, trace: ResearchTrace, now = Date.now()): Promise<string> {
  await makeFolder(folder);
  const file = path.join(folder, `${trace.run_id.replace(/[^\w.-]/g, "_")}.md`);
  await writeAtomically(file, renderTraceNote(trace));
  await removeOldKeptTraces(folder, now, path.basename(file));
  return file;
}

const RUN_ID = /^\d{8}-\d{6}-[0-9a-f]{6}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Whether `given` is a run id (`20250101-120000-abcdef`), as `promote --trace` may name a kept trace. */
export function isRunId(given: string): boolean {
  return RUN_ID.test(given);
}

/** Whether `name` is a kept trace's file: a run id and `.md`. */
function isKeptTraceName(name: string): boolean {
  return name.endsWith(".md") && RUN_ID.test(name.slice(0, -3));
}

/**
 * Takes away the traces of `folder` (one vault's) that KEPT_TRACES no longer keeps, never `kept`
 * (the one just written), and the temporary files of traces a process killed mid-write left
 * (`removeLeftoverTemporaryFiles`: its process gone and the file an hour old, so never one another
 * process is writing). Only files named as a run's trace or such a file: never a link, a folder or
 * any other name. Never throws: what is not removed now is removed at the next keep.
 */
async function removeOldKeptTraces(folder: string, now: number, kept = ""): Promise<void> {
  const names = await readdir(folder).catch(() => [] as string[]);
  const traces = names.filter(isKeptTraceName);
  const leftovers = names.some((name) => name.endsWith(".tmp"));
  // Nothing can be past the newest N and nothing was left: no file is looked at (the common case, every run).
  if (traces.length <= KEPT_TRACES.newest && !leftovers) return;
  if (!(await isFolderOfItsOwn(folder))) return;
  if (leftovers) await removeLeftoverTemporaryFiles(folder, isKeptTraceName, now);
  if (traces.length <= KEPT_TRACES.newest) return;
  const dated: { name: string; mtime: number }[] = [];
  for (const name of traces) {
    const stats = await lstat(path.join(folder, name)).catch(() => null);
    if (stats?.isFile()) dated.push({ name, mtime: stats.mtimeMs });
  }
  dated.sort((a, b) => b.mtime - a.mtime || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
  for (const [rank, trace] of dated.entries()) {
    if (trace.name === kept || !pastKeeping(rank, now - trace.mtime)) continue;
    await unlink(path.join(folder, trace.name)).catch(() => undefined);
  }
}

/**
 * Whether `folder` and the folder of all vaults' traces above it are where their path says, not
 * links to somewhere else: a person who linked them to an archive of their own keeps every trace
 * there, and nothing is removed outside the cache folder.
 */
async function isFolderOfItsOwn(folder: string): Promise<boolean> {
  const above = path.dirname(path.dirname(folder));
  try {
    return (await realpath(folder)) === path.join(await realpath(above), path.basename(path.dirname(folder)), path.basename(folder));
  } catch {
    return false;
  }
}

/** Whether the trace of this rank (0 the newest) and age is one KEPT_TRACES no longer keeps. */
function pastKeeping(rank: number, ageMs: number): boolean {
  if (rank < KEPT_TRACES.newest) return false;
  return rank >= KEPT_TRACES.atMost || ageMs > KEPT_TRACES.days * DAY_MS;
}

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
  if (isRunId(given)) {
    const byId = path.join(folder, `${given}.md`);
    if (existsSync(byId)) return byId;
  }
  const file = path.resolve(cwd, given);
  if (!existsSync(file) || !statSync(file).isFile()) return null;
  // First, as the vault's own kept traces may lie in it: a vault that is a home folder holds its cache
  // folder, hidden (`~/.cache`). Read as its note at `.cache/…`, the promoted note linked to it.
  if (existsSync(folder) && isInside(realpathSync(folder), realpathSync(file))) return file;
  if (scope === "kept_folder") return null;
  return notePathInVault(vaultRoot, file) === null ? file : null;
}

/**
 * `file`'s path in the vault (`/`-separated), or null when it lies outside. Inside as written, or
 * on disk: the vault named through a link (`--vault ~/vlink`) and the note by its real path, or the
 * other way round, is the same note of the same vault — compared as written only, it was read as a
 * kept trace outside the vault: its promotion linked to no trace and rewrote the note past the vault's checks.
 */
export function notePathInVault(vaultRoot: string, file: string): string | null {
  const root = path.resolve(vaultRoot);
  const asWritten = path.resolve(file);
  if (isInside(root, asWritten)) return relativeNotePath(root, asWritten);
  if (placeOnDisk(root, asWritten) === "outside") return null;
  const [realRoot, realFile] = [realPathAsFarAsItExists(root), realPathAsFarAsItExists(asWritten)];
  // Inside only in another case (a disk that ignores it): no path in the vault to give.
  return isInside(realRoot, realFile) ? relativeNotePath(realRoot, realFile) : null;
}

function relativeNotePath(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join("/");
}

/** Whether `file` is `folder` or below it (both resolved as the caller needs). */
function isInside(folder: string, file: string): boolean {
  const rel = path.relative(folder, file);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

export async function readKeptTrace(file: string): Promise<string> {
  return readFile(file, "utf8");
}

/** Whether a kept trace now records a promotion, and why not when it does not. */
export type KeptTraceRecord = { recorded: true } | { recorded: false; why: string };

/**
 * Records a promotion in a kept trace, as promotion does in a trace note; why not when it could not
 * (its properties edited, its block no trace, the disk refused): else the promotion was said to be
 * "not updated" with no reason, where a trace note's says why.
 * Updates of one trace take turns (by its real path, however it was named): the MCP server runs two
 * promote_result calls for rows of one run at once, and each wrote back the trace it had read before
 * the other's promotion was in it, losing that record. Within a process by `inTurn`; across
 * processes (a CLI `promote` while the MCP server records one) by the lock file notes are rewritten
 * under, which a process killed holding it does not keep for ever.
 */
export async function recordPromotionInKeptTrace(file: string, promotion: Promotion): Promise<KeptTraceRecord> {
  const key = await realpath(file).catch(() => path.resolve(file));
  return inTurn(key, async (): Promise<KeptTraceRecord> => {
    let outcome: KeptTraceRecord = { recorded: false, why: "it was not read" };
    try {
      await withLock(key, async (stillHeld) => {
        const updated = recordPromotion(await readFile(key, "utf8"), promotion);
        if ("error" in updated) {
          outcome = { recorded: false, why: updated.error.message };
          return;
        }
        // Taken over by another process while this one was held up: its record must stay.
        if (!(await stillHeld())) {
          outcome = { recorded: false, why: "another process took it over meanwhile; promote the row again to record it" };
          return;
        }
        await writeAtomically(key, updated.markdown);
        outcome = { recorded: true };
      });
    } catch (error) {
      return { recorded: false, why: errorMessage(error) };
    }
    return outcome;
  });
}

/** Whole or not at all (replaceFileWhole), under a temporary name no other write shares. */
function writeAtomically(file: string, content: string): Promise<void> {
  return replaceFileWhole(file, content, uniqueTemporaryName(file));
}
