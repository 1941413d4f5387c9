// A vault's cache folder is named after the vault's path, so a vault renamed or moved found none
// of its own: the whole vault was indexed again and the embeddings already paid for (hours, or
// money) were lost, while the old folder stayed on disk for ever. Each cache folder now records
// whose it is (`vault.json`: the vault's path and a sample of its notes' paths); a vault without a
// cache folder takes over one whose vault is gone from its recorded path and whose notes match its
// own, by renaming it (the index's freshness check then reads again what differs). A cache whose
// vault is still at its path is never taken, and a cache folder is only ever renamed, never merged
// (kept traces are: the new path may have some of its own, and each old one is moved in beside them).
import { lstat, readdir, rename, rmdir, stat, statfs } from "node:fs/promises";
import path from "node:path";
import { fnv1a32 } from "../text/string-hash";
import { keptTraceFolder } from "./kept-trace";
import { vaultCacheFolder } from "./file-index-cache";
import { readRegularFile } from "./regular-file";
import { replaceFileWhole } from "./temporary-files";

/** The record's file in a vault's cache folder: not a part of any cache (`.v8`, `.bin`, `.jsonl`). */
export const VAULT_RECORD_NAME = "vault.json";
const RECORD_SCHEMA = "vault-research-cache-owner.v1";
/** Paths a record keeps: the ones of lowest hash, so two listings of one vault keep the same ones. */
const SAMPLE_SIZE = 64;
/** How alike two vaults' notes must be (estimated share of paths in common, of all paths) for one to take the other's cache. */
const SAME_VAULT_LIKENESS = 0.5;
/** More than a record of SAMPLE_SIZE paths ever takes: a bigger `vault.json` is damaged, and is not read whole at every run. */
const MAX_RECORD_BYTES = 256 * 1024;

interface VaultRecord {
  schema: typeof RECORD_SCHEMA;
  /** The vault's path, absolute, as the CLI resolved it. */
  vault: string;
  /** Up to SAMPLE_SIZE of its notes' paths (the lowest by hash). */
  sample: string[];
  /**
   * The device the vault was on (`stat().dev`): a vault on a drive since unmounted is not gone, and
   * the folder that held it, now on another device (an empty mount point), says so. Absent in the
   * records of the first version.
   */
  device?: number;
}

/** A cache folder whose recorded vault is no longer at its path. */
export interface CacheLeftBehind {
  folder: string;
  vault: string;
  /** The gone vault's kept traces, when it has any: a folder of their own, to remove with this one. */
  keptTraces: string | null;
}

/**
 * Records in `folder` (a vault's cache folder, which exists) that it is `vaultRoot`'s and which
 * notes it holds; written only when that changed. `paths`: the notes the index holds.
 */
export async function recordVaultOfCache(folder: string, vaultRoot: string, paths: readonly string[]): Promise<void> {
  const device = (await stat(vaultRoot)).dev;
  await writeRecord(folder, { schema: RECORD_SCHEMA, vault: vaultRoot, sample: sampleOf(paths), device });
}

async function writeRecord(folder: string, record: VaultRecord): Promise<void> {
  const text = `${JSON.stringify(record, null, 2)}\n`;
  const file = path.join(folder, VAULT_RECORD_NAME);
  const before = await readSmallFile(file, MAX_RECORD_BYTES).catch(() => null);
  if (before !== text) await replaceFileWhole(file, text);
}

/**
 * When `vaultRoot` has no cache folder yet, takes over the cache folder of the moved vault it is, if
 * one is found: the folder whose vault is gone from its recorded path and whose notes match best.
 * `notePaths` lists the vault's notes (called only when there is a candidate). Returns the path the
 * vault had, or null when nothing was taken. Never throws: a cache not taken over is only a rebuild.
 */
export async function adoptCacheOfMovedVault(cacheDir: string, vaultRoot: string, notePaths: () => Promise<readonly string[]>): Promise<string | null> {
  try {
    const folder = vaultCacheFolder(cacheDir, vaultRoot);
    if (await entryExists(folder)) return null;
    const candidates = (await recordsLeftBehind(cacheDir)).filter((c) => c.record.vault !== vaultRoot);
    if (candidates.length === 0) return null;
    const best = bestMatch(candidates, sampleOf(await notePaths()));
    if (!best) return null;
    // Renamed as a whole or not at all; a folder another process made meanwhile, or took first, stays as it is.
    await rename(best.folder, folder);
    // Its record says whose it is now at once: left naming the gone vault, it could be taken again.
    await recordVaultOfCache(folder, vaultRoot, best.record.sample).catch(() => undefined);
    await moveKeptTraces(cacheDir, best.record.vault, vaultRoot);
    return best.record.vault;
  } catch {
    return null;
  }
}

/** The cache folders under `cacheDir` whose recorded vault is gone from its path (those of older versions, which recorded none, are not known). */
export async function cachesLeftBehind(cacheDir: string): Promise<CacheLeftBehind[]> {
  const left: CacheLeftBehind[] = [];
  for (const { folder, record } of await recordsLeftBehind(cacheDir)) left.push({ folder, vault: record.vault, keptTraces: await keptTracesOf(cacheDir, record.vault) });
  return left;
}

/** The kept traces' folder of a vault, when it is there. */
async function keptTracesOf(cacheDir: string, vault: string): Promise<string | null> {
  try {
    const folder = keptTraceFolder(cacheDir, vault);
    return (await entryExists(folder)) ? folder : null;
  } catch {
    return null;
  }
}

async function recordsLeftBehind(cacheDir: string): Promise<{ folder: string; record: VaultRecord }[]> {
  let names: string[];
  try {
    names = await readdir(cacheDir);
  } catch {
    return [];
  }
  const left: { folder: string; record: VaultRecord }[] = [];
  for (const name of names.filter((n) => n.startsWith("index-")).sort()) {
    const found = await recordLeftBehind(path.join(cacheDir, name));
    if (found) left.push(found);
  }
  return left;
}

/** The folder's record, when the vault it names is gone. */
async function recordLeftBehind(folder: string): Promise<{ folder: string; record: VaultRecord } | null> {
  const record = await readRecord(folder);
  // A folder not named after the vault its record names is no gone vault's own: one taken over by a
  // process stopped before it wrote its record (in use by the vault it is named after), or a copy.
  if (!record || folder !== vaultCacheFolder(path.dirname(folder), record.vault)) return null;
  return (await isGone(record)) ? { folder, record } : null;
}

/** The candidate whose recorded sample is most like this vault's, when alike enough and alone in being so. */
function bestMatch(candidates: { folder: string; record: VaultRecord }[], sample: string[]): { folder: string; record: VaultRecord } | null {
  const scored = candidates.map((c) => ({ c, likeness: estimatedLikeness(c.record.sample, sample) })).filter((s) => s.likeness >= SAME_VAULT_LIKENESS);
  if (scored.length === 0) return null;
  const top = Math.max(...scored.map((s) => s.likeness));
  const best = scored.filter((s) => s.likeness === top);
  // Two gone vaults this one is as like: which one it is cannot be told, so neither is taken.
  return best.length === 1 ? best[0].c : null;
}

/**
 * The share of two vaults' paths they have in common (Jaccard's), estimated from their samples:
 * among the lowest-hashed paths of both together, the share that is in each.
 */
export function estimatedLikeness(a: readonly string[], b: readonly string[]): number {
  const inA = new Set(a);
  const inB = new Set(b);
  const union = sampleOf([...new Set([...a, ...b])]);
  if (union.length === 0) return 0;
  return union.filter((p) => inA.has(p) && inB.has(p)).length / union.length;
}

/** The SAMPLE_SIZE paths of lowest hash (ties by name): the same ones for every listing of the same notes. */
export function sampleOf(paths: readonly string[]): string[] {
  return paths
    .map((p) => ({ p, h: fnv1a32(p) }))
    .sort((x, y) => x.h - y.h || (x.p < y.p ? -1 : x.p > y.p ? 1 : 0))
    .slice(0, SAMPLE_SIZE)
    .map((x) => x.p);
}

async function readRecord(folder: string): Promise<VaultRecord | null> {
  try {
    const text = await readSmallFile(path.join(folder, VAULT_RECORD_NAME), MAX_RECORD_BYTES);
    if (text === null) return null;
    const value = JSON.parse(text) as Partial<VaultRecord>;
    if (value.schema !== RECORD_SCHEMA || typeof value.vault !== "string" || !path.isAbsolute(value.vault)) return null;
    if (!Array.isArray(value.sample) || !value.sample.every((p) => typeof p === "string")) return null;
    if (value.device !== undefined && !Number.isSafeInteger(value.device)) return null;
    return { schema: RECORD_SCHEMA, vault: value.vault, sample: sampleOf(value.sample), ...(value.device !== undefined ? { device: value.device } : {}) };
  } catch {
    return null;
  }
}

/**
 * The file's text, or null when it is not there, longer than `limit` bytes, or no regular file (none
 * of it is read then): a named pipe named `vault.json` in any cache folder held every run's look for a
 * moved vault's cache, and every `index`, for ever.
 */
async function readSmallFile(file: string, limit: number): Promise<string | null> {
  const read = await readRegularFile(file, limit);
  return read.kind === "read" ? read.bytes.toString("utf8") : null;
}

/**
 * Whether the record's vault is gone, not merely out of reach. Nothing at its path is not enough: a
 * vault on a drive that is unmounted, or a network share that is offline, is not there either, and
 * its cache taken by a copy of it would be lost to it when it comes back. So the folder that held
 * it must be there, on the device the vault was on: an unmounted drive's folder is gone with it
 * (/Volumes/Drive), or an empty mount point on another device (/mnt/usb). One that cannot be looked
 * at (a permission, a disk, a share that does not answer) may still hold the vault. Nor is a folder
 * on a network or FUSE filesystem a witness: GNOME's gvfs shows every share as a folder of one FUSE
 * mount, on one device, and a share that is offline is simply not listed there.
 */
async function isGone(record: VaultRecord): Promise<boolean> {
  try {
    await lstat(record.vault);
    return false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return false;
  }
  const parentPath = path.dirname(record.vault);
  const parent = await stat(parentPath).catch(() => null);
  if (!parent?.isDirectory()) return false;
  if (record.device !== undefined && parent.dev !== record.device) return false;
  const filesystem = await statfs(parentPath).catch(() => null);
  return filesystem !== null && !MAY_HIDE_WHAT_IS_OFFLINE.has(filesystem.type);
}

/**
 * Filesystems (Linux's magic numbers, `statfs().type`) whose folders show only what answers now:
 * FUSE (gvfs, sshfs, rclone), NFS, SMB/CIFS, AFS, Coda, 9P, Ceph and the automounter's folders.
 */
const MAY_HIDE_WHAT_IS_OFFLINE: ReadonlySet<number> = new Set([0x65735546, 0x6969, 0x517b, 0xff534d42, 0xfe534d42, 0x5346414f, 0x73757245, 0x01021997, 0x00c36400, 0x0187]);

async function entryExists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/**
 * The traces the CLI kept for the vault at its old path go with it (promote finds them by the vault):
 * the folder renamed whole, or — when the new path has kept traces of its own already (its index
 * folder removed, or never saved) — each trace moved into theirs. Left behind there, they belonged to
 * no cache folder any more: promote could not reach them, nor `index` list them for removal.
 */
async function moveKeptTraces(cacheDir: string, from: string, to: string): Promise<void> {
  const [old, next] = [keptTraceFolder(cacheDir, from), keptTraceFolder(cacheDir, to)];
  if (!(await entryExists(old))) return;
  if (!(await entryExists(next))) {
    await rename(old, next).catch(() => undefined);
    return;
  }
  await mergeKeptTraces(old, next).catch(() => undefined);
}

/**
 * Moves each file of `old` into `next`, never over one of the same name (then both stay where they
 * are), never a link (it leads elsewhere, to no trace of this vault's), and only between two real
 * folders: through a link, the files would go to or come from a place the cache folder does not own.
 * `old` is removed once empty.
 */
async function mergeKeptTraces(old: string, next: string): Promise<void> {
  if (!(await isRealFolder(old)) || !(await isRealFolder(next))) return;
  for (const name of await readdir(old)) {
    const from = path.join(old, name);
    const to = path.join(next, name);
    if (!(await lstat(from)).isFile() || (await entryExists(to))) continue;
    await rename(from, to);
  }
  // Not recursive: what stayed (a trace of the same name, a link) stays with its folder.
  await rmdir(old).catch(() => undefined);
}

async function isRealFolder(folder: string): Promise<boolean> {
  return (await lstat(folder)).isDirectory();
}
