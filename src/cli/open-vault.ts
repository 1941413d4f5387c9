// Opening the vault a command works on: settings from --config, the index from the cache folder,
// brought up to date before anything is searched.
import { readJsonFile } from "./json-file";
import { whyNot } from "./path-kind";
import path from "node:path";
import { VaultIndex } from "../index/vault-index";
import { vaultLanguageRanking } from "../index/ranking/ranking-options";
import type { SyncReport } from "../index/types";
import { canonicalizeUrl } from "../websearch/canonical-url";
import { holdsKeyShape, loadSettings, looksLikeApiKey, type Settings } from "../settings";
import { KEY_NOT_REPEATED } from "../text/value-shown";
import { flag, UsageError, type ParsedArgs } from "./args";
import type { CliIo } from "./cli-io";
import { defaultCacheDir, FileIndexCache } from "./file-index-cache";
import { adoptCacheOfMovedVault, recordVaultOfCache } from "./moved-vault-cache";
import { FsNoteStore, type LinkLeadingOut, type UnlistedFolder } from "./fs-note-store";
import { bundledNodeWorkers, type ReportingWorkers } from "./node-workers";
import { indexReadProgress } from "./index-progress";
import { outOfNotesReach, placeOnDisk } from "./kept-trace";
import { visibleName } from "./terminal-text";
import { indexNotSavedWarning } from "./index-not-saved";
import { secretEnvNames } from "./env-secrets";

export type { CliIo } from "./cli-io";

/** The --config file as written, for the few choices that depend on whether a field was set at all. */
const configFiles = new WeakMap<Settings, unknown>();

/** What the --config file said, before defaults were filled in (undefined without one). */
export function configAsWritten(settings: Settings): unknown {
  return configFiles.get(settings);
}

/**
 * The settings' master switch (`external.enabled`) where the --config file sets it: switched off,
 * nothing leaves the device, so a command line asking for web search is a usage error rather than
 * a run that quietly stays home. Only `true`, or no word at all (no config, no `external`, no
 * `enabled`), lets the flags decide: a value that is not a boolean (`"false"`, written by someone
 * who meant off) keeps the web off, as does an `external` that is not an object.
 */
export function requireWebSearchAllowed(settings: Settings, asked: string): void {
  const off = masterSwitchOff(configAsWritten(settings));
  if (off === null) return;
  const howOn = off.writtenFalse ? "Switch it on there" : "Write external.enabled: true there to switch it on";
  throw new UsageError(`${asked} asks for web search, but ${off.why}. ${howOn}, or leave ${asked} out.`);
}

/** Why the config as written keeps web search off, or null when it lets the flags decide. */
function masterSwitchOff(written: unknown): { why: string; writtenFalse: boolean } | null {
  if (!isPlainObject(written) || !Object.hasOwn(written, "external")) return null;
  const external = written.external;
  if (!isPlainObject(external)) return { why: `the config's external is ${kindOfValue(external)}, not an object, so web search stays off`, writtenFalse: false };
  if (!Object.hasOwn(external, "enabled") || external.enabled === true) return null;
  if (external.enabled === false) return { why: "the config switches it off (external.enabled: false)", writtenFalse: true };
  return { why: `the config's external.enabled is ${kindOfValue(external.enabled)}, not true or false, so web search stays off`, writtenFalse: false };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** What a JSON value is, in words, without repeating it (a hand-edited config may hold a pasted key). */
function kindOfValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return "a string";
  if (typeof value === "number") return "a number";
  if (typeof value === "boolean") return String(value);
  return typeof value === "object" ? "an object" : typeof value;
}

export interface OpenedVault {
  root: string;
  store: FsNoteStore;
  index: VaultIndex;
  settings: Settings;
  sync: SyncReport;
  cache: FileIndexCache;
  /** The cache folder, absolute, outside the vault. */
  cacheDir: string;
  /** The worker threads the vault's language was learned in, and what became of the last. */
  workers: ReportingWorkers;
  /**
   * Why the index could not be saved in the cache folder (said on stderr already), or null: a run
   * goes on without it, but `index`, whose whole work the saved cache is, must not report success.
   */
  cacheNotSaved: string | null;
  /**
   * With `holdRelearning`: lets the index learn the vault's language, held since before the sync. The
   * caller lets go once the edits made meanwhile are in; until then nothing is learned.
   */
  letRelearn?: () => void;
}

export interface OpenVaultOptions {
  /**
   * Hold the vault's language, which a build learns from the notes, until `letRelearn` (the MCP server: its
   * watcher's first listing brings in what was edited during a long build). Learned at once, those edits,
   * a tenth of the vault, had it learned a second time at the first call.
   */
  holdRelearning?: boolean;
}

export function readSettings(args: ParsedArgs, io: CliIo): Settings {
  const file = flag(args, "config");
  if (!file) return loadSettings(undefined).settings;
  const abs = path.resolve(io.cwd, file);
  const named = configFileNamed(file);
  const read = readJsonFile(abs);
  if (!read.ok) throw new UsageError(`Config file ${named} ${read.why}.`);
  const raw = read.value;
  // Settings are an object's fields: `null`, `[]` or `42` hold none, and a run on defaults would
  // quietly ignore what the person meant the file to say (web search off, folders left out).
  if (!isPlainObject(raw)) throw new UsageError(`Config file ${named} holds ${kindOfValue(raw)}, not an object of settings ({ "index": …, "external": … }).`);
  const { settings, problems, unknownKept = [], keysOutOfPlace = [] } = loadSettings(raw, { keysFrom: "environment" });
  // A key no version knows is more often a typo in a config written by hand: named too.
  for (const problem of [...problems, ...unknownKept]) io.err(`warning: ${named}: ${problem}\n`);
  if (keysOutOfPlace.length > 0) io.err(`warning: ${named} holds what looks like an API key (${keysOutOfPlace.join(", ")}): ${KEYS_FROM_ENVIRONMENT}\n`);
  configFiles.set(settings, raw);
  return settings;
}

/** Where the CLI reads keys, named for a config file that holds one. */
const KEYS_FROM_ENVIRONMENT = `the CLI never reads a key from a config file, only from its environment variable (${Object.values(secretEnvNames).join(", ")}); take it out of the file.`;

/** The config file as a message names it: a key pasted as its name, or as a folder's on its path, is not repeated. */
function configFileNamed(file: string): string {
  return holdsKeyShape(file) || file.split(/[\\/]/).some(looksLikeApiKey) ? `(${KEY_NOT_REPEATED})` : file;
}

/** Folders the vault's listing could not read: their notes are not in the index (a sync took them for deleted). */
function warnUnlisted(unlisted: readonly UnlistedFolder[], io: CliIo): void {
  if (unlisted.length === 0) return;
  const shown = unlisted.slice(0, 5).map((f) => `${f.path} (${f.code})`);
  const more = unlisted.length > shown.length ? ` and ${unlisted.length - shown.length} more` : "";
  const count = unlisted.length === 1 ? "1 folder" : `${unlisted.length} folders`;
  const them = unlisted.length === 1 ? "it" : "them";
  io.err(`warning: ${count} of the vault could not be read, and the notes in ${them} are left out of the index: ${shown.join(", ")}${more}.\n`);
}

/** "Shared/ (a folder), Daily.md": the first few links out of the vault, and how many more. */
function linksNamed(links: readonly LinkLeadingOut[]): string {
  const shown = links.slice(0, 5).map((l) => (l.kind === "folder" ? `${l.path}/ (a folder)` : l.path));
  const more = links.length > shown.length ? ` and ${links.length - shown.length} more` : "";
  return `${shown.join(", ")}${more}`;
}

/** Links leading out of the vault: their notes are not read, which the user hears rather than finds out. */
function warnLinksLeadingOut(links: readonly LinkLeadingOut[], io: CliIo): void {
  if (links.length === 0) return;
  const count = links.length === 1 ? "1 link in the vault leads" : `${links.length} links in the vault lead`;
  io.err(
    `warning: ${count} outside it and ${links.length === 1 ? "is" : "are"} not followed, so the notes there are left out of the index: ${linksNamed(links)}. ` +
      "Only notes that lie inside the vault folder are read; move them in, or give their folder as --vault.\n",
  );
}

/** "Vault folder Notes" as a refusal names it; a key pasted as --vault (`sk-…`) is not repeated. */
function vaultFolderNamed(vault: string): string {
  return looksLikeApiKey(vault) ? `Vault folder (${KEY_NOT_REPEATED})` : `Vault folder ${vault}`;
}

/**
 * Resolves --vault, loads settings and the cache, and brings the index up to date. `settings`:
 * already read by the caller (so --config is read, and warned about, once); `workers`: where the
 * vault's language is learned (tests bring their own).
 */
export async function openVault(args: ParsedArgs, io: CliIo, settings: Settings = readSettings(args, io), workers: ReportingWorkers = bundledNodeWorkers(), options: OpenVaultOptions = {}): Promise<OpenedVault> {
  const vault = flag(args, "vault");
  if (!vault) throw new UsageError("--vault DIR is required (the folder of markdown notes).");
  const root = path.resolve(io.cwd, vault);
  const unusable = whyNot("folder", root);
  if (unusable) throw new UsageError(`${vaultFolderNamed(vault)} ${unusable}.`);
  const store = new FsNoteStore(root);
  // Only whether there is a note: the sync lists the vault (once) with each file's facts.
  if (!store.hasNotes()) {
    const links = store.linksLeadingOut();
    const why = links.length > 0 ? ` of its own; links leading out of it are not followed: ${linksNamed(links)}` : "";
    throw new UsageError(`${vaultFolderNamed(vault)} holds no markdown notes (.md)${why}.`);
  }
  const cacheDir = cacheDirOutside(flag(args, "cache-dir"), root, io);
  const index = new VaultIndex({
    excludedFolders: [...settings.index.excludedFolders, settings.notes.traceFolder],
    stemming: settings.index.stemming,
    ranking: vaultLanguageRanking(settings.index.vaultLanguage),
    canonicalizeUrl,
    ...(io.clock ? { clock: io.clock } : {}),
    workers,
  });
  await takeOverCacheOfMovedVault(cacheDir, root, store, index, io);
  const letRelearn = options.holdRelearning ? index.holdRelearning() : undefined;
  const cache = new FileIndexCache(cacheDir, root);
  const reading = indexReadProgress(index, io, args);
  const sync = await index.sync(reading ? reading.watch(store) : store, cache).finally(() => reading?.finish());
  warnUnlisted(store.unlistedFolders(), io);
  warnLinksLeadingOut(store.linksLeadingOut(), io);
  // A run's searches and the saved cache both want the vault's language: learned after a full
  // build (seconds on a large vault, once), or its notes' vectors filled from a loaded cache; while held, not yet.
  await index.languageSettled();
  let cacheNotSaved: string | null = null;
  // A note read again only to prove its text (read-too-soon.ts), or the vault's language learned
  // for a cache that lacked it, changes no count; unsaved, every later run read or learned it again.
  // A run with nothing new saves nothing.
  if (sync.added + sync.updated + sync.removed > 0 || sync.mode === "rebuild" || index.hasUnsavedChanges()) {
    try {
      await index.save(cache);
    } catch (error) {
      cacheNotSaved = error instanceof Error ? error.message : String(error);
      io.err(indexNotSavedWarning(cacheNotSaved, sync));
    }
  }
  // Whose the cache folder is, so it can follow the vault when it moves (moved-vault-cache.ts);
  // without a folder (a save that failed, said above) there is nothing to record it in.
  await recordVaultOfCache(cache.folder, root, index.paths()).catch(() => undefined);
  return { root, store, index, settings, sync, cache, cacheDir, workers, cacheNotSaved, ...(letRelearn ? { letRelearn } : {}) };
}

/**
 * A vault seen for the first time may be one that moved: its old cache folder (vectors, query log
 * and kept traces too) is taken over, and the user told. Every command that opens a vault's cache
 * does this first (`promote` too): one that made a new folder first would leave the old one for good.
 */
export async function takeOverCacheOfMovedVault(cacheDir: string, root: string, store: FsNoteStore, index: VaultIndex, io: Pick<CliIo, "err">): Promise<void> {
  const notePaths = async () => (await store.list()).map((f) => f.path).filter((p) => index.isIndexable(p));
  const movedFrom = await adoptCacheOfMovedVault(cacheDir, root, notePaths);
  if (movedFrom === null) return;
  io.err(`warning: this vault's cache was found under its old path ${visibleName(movedFrom)}, which no longer exists: it is used here (its vectors and query log too), and notes that differ are read again.\n`);
}

/**
 * The cache folder (`--cache-dir`, else VAULT_RESEARCH_CACHE_DIR, else the OS's, under
 * XDG_CACHE_HOME on Linux), absolute. Refused when it is the vault or inside it, links followed:
 * the index cache, the query log and kept traces there would be read back as notes of the vault.
 */
export function cacheDirOutside(given: string | undefined, vaultRoot: string, io: Pick<CliIo, "cwd" | "env">): string {
  const cacheDir = path.resolve(io.cwd, given ?? defaultCacheDir(io.env));
  const place = placeOnDisk(vaultRoot, cacheDir);
  if (outOfNotesReach(place)) return cacheDir;
  throw new UsageError(
    `The cache folder ${cacheFolderNamed(given, cacheDir, io.env)} is ${place === "same" ? "the vault itself" : "inside the vault"} ${vaultRoot}: the index cache, query log and kept traces there would be read as notes. ` +
      "Choose one outside it, with --cache-dir DIR or VAULT_RESEARCH_CACHE_DIR.",
  );
}

/** The cache folder as the person set it, and where they set it. */
function cacheFolderNamed(given: string | undefined, cacheDir: string, env: CliIo["env"]): string {
  if (given !== undefined) return `${given} (--cache-dir)`;
  if (env.VAULT_RESEARCH_CACHE_DIR) return `${cacheDir} (VAULT_RESEARCH_CACHE_DIR)`;
  if (env.XDG_CACHE_HOME && process.platform !== "win32" && process.platform !== "darwin") return `${cacheDir} (from XDG_CACHE_HOME)`;
  return cacheDir;
}

