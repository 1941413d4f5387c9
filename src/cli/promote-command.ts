// `vault-research promote --vault DIR --trace NOTE --source-key KEY [--replay DIR]`: saves one
// outside-vault result of a trace as a source note, exactly as the plugin's "Add to vault" does.
// The trace is a trace note in the vault, or a trace the CLI kept in the cache folder (its file or
// its run id, kept-trace.ts). Exit codes: 0 when a note was written or the page was already in the
// vault, 1 when the promotion failed, 2 for usage errors (no such vault, trace or key).
import { existsSync } from "node:fs";
import { whyNot } from "./path-kind";
import path from "node:path";
import { extractStatusText } from "../notes/extract-status";
import { promoteFromTraceNote, promoteOutsideRow, type PromoteDeps, type PromotionResult } from "../promote/promote";
import { parseTraceNote } from "../notes/trace-note-read";
import { parseSourceKey } from "../evidence/keys";
import { VaultIndex } from "../index/vault-index";
import { systemClock, type Clock, type Http } from "../ports";
import type { Settings } from "../settings";
import { canonicalizeUrl } from "../websearch/canonical-url";
import { dnsResolveHost } from "./dns-resolver";
import { nodePageReader } from "./dom-parser";
import { envSecretValues } from "./env-secrets";
import { createFetchHttp } from "./fetch-http";
import { FileIndexCache } from "./file-index-cache";
import { indexNotSavedWarning } from "./index-not-saved";
import { FsNoteStore } from "./fs-note-store";
import { flag, has, UsageError, type ParsedArgs } from "./args";
import type { CommandIo } from "./cli-io";
import { promoteResultJson } from "./json/promote-result-json";
import { cacheDirOutside, readSettings, takeOverCacheOfMovedVault } from "./open-vault";
import { findKeptTrace, isRunId, keptTraceFolder, notePathInVault, readKeptTrace, recordPromotionInKeptTrace, type KeptTraceScope } from "./kept-trace";
import { keptTracesWords } from "./kept-trace-retention";
import { webAccess, type WebAccess } from "./web-access";
import { terminalJson } from "./terminal-text";
import { errorMessage } from "../text/error-message";
import { asSentence } from "../text/sentence-ends";
import { RECORDED_SAMPLES } from "./replay-notice";

export interface PromoteArgs {
  vault: string;
  /** The trace note: a vault-relative path, or a file path (absolute or from the working folder). */
  trace: string;
  sourceKey: string;
  /** Answer page fetches from recorded exchanges (also `VAULT_RESEARCH_REPLAY`). */
  replayDir?: string;
  settings: Settings;
  cacheDir?: string;
  /** Print the result as JSON instead of sentences. */
  json?: boolean;
}

export interface PromoteIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Stand-in for the network (tests); a replay folder still wins. */
  http?: Http;
  /** The Clock port (a golden test's); the system clock otherwise. */
  clock?: Clock;
}

const USAGE_ERRORS = new Set(["trace_not_found", "trace_unreadable", "unknown_source_key"]);

/** `vault-research promote`: its flags read into PromoteArgs. */
export async function promoteFromArgs(args: ParsedArgs, io: CommandIo): Promise<number> {
  if (args.positionals.length > 0) throw new UsageError(`promote takes no arguments besides options (got "${args.positionals.join(" ")}").`);
  const vault = flag(args, "vault");
  const trace = flag(args, "trace");
  const sourceKey = flag(args, "source-key");
  if (!vault || !trace || !sourceKey) throw new UsageError("promote needs --vault DIR --trace NOTE --source-key KEY.");
  return promoteCommand(
    { vault, trace, sourceKey, replayDir: flag(args, "replay"), settings: readSettings(args, io), cacheDir: flag(args, "cache-dir"), json: has(args, "json") },
    io,
  );
}
export async function promoteCommand(args: PromoteArgs, io: PromoteIo): Promise<number> {
  const usage = (message: string): number => {
    io.err(`vault-research promote: ${message}\n`);
    return 2;
  };
  const root = path.resolve(io.cwd, args.vault);
  const unusable = whyNot("folder", root);
  if (unusable) return usage(`vault folder ${args.vault} ${unusable}.`);
  let cacheDir: string;
  try {
    cacheDir = cacheDirOutside(args.cacheDir, root, io);
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message);
    throw error;
  }
  const { settings } = args;
  const store = new FsNoteStore(root);
  const index = new VaultIndex({
    excludedFolders: [...settings.index.excludedFolders, settings.notes.traceFolder],
    stemming: settings.index.stemming,
    // Promotion only looks notes up by their source address: it has no use for the vault's language.
    ranking: { vaultLanguage: null },
    canonicalizeUrl,
  });
  // Before the kept traces are looked for (they move with the cache folder) and before a save could
  // make the vault a new cache folder, leaving its vectors in the old one for good.
  await takeOverCacheOfMovedVault(cacheDir, root, store, index, io);
  const located = locateTrace(args, io.cwd, root, cacheDir);
  if ("usage" in located) return usage(located.usage);

  // The one reading of --replay, VAULT_RESEARCH_REPLAY and VAULT_RESEARCH_REPLAY_LOG every command
  // shares: a log set without a replay folder is refused here too, not left empty while the page is fetched live.
  let web: WebAccess;
  try {
    web = webAccess(args.replayDir, io, io.http ?? createFetchHttp());
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message);
    throw error;
  }
  const { http, replayDir, replayShown } = web;

  const cache = new FileIndexCache(cacheDir, root);
  const sync = await index.sync(store, cache);

  // Names are looked up only when the page goes to the real network (not replay, not a stand-in).
  const result = await promoteLocated(promoteDeps(store, index, http, settings, !(replayDir || io.http), envSecretValues(io.env), io.clock, replayShown), located, args.sourceKey);
  if (result.status === "created") {
    try {
      await index.save(cache);
    } catch (error) {
      io.err(indexNotSavedWarning(errorMessage(error), sync));
    }
  }

  // JSON keeps the status as the note spells it (`fallback_snippet:http_403`): the CLI contract.
  if (args.json) io.out(`${terminalJson(promoteResultJson(result, { ...askedOf(located, args.sourceKey), replayDir }))}\n`);
  else if (result.status !== "failed") io.out(toText(result, replayDir));
  // An error reaches stderr whatever else was printed (the JSON says it too, for a program).
  if (result.status === "failed") io.err(`vault-research promote: ${result.message}\n`);

  if (result.status === "failed") return USAGE_ERRORS.has(result.error.kind) ? 2 : 1;
  return 0;
}

/** The trace a promotion reads: a kept trace file, or a trace note's vault path. */
export type LocatedTrace = { keptFile: string } | { tracePath: string };

/** Finds the trace `args.trace` names; a usage message when the key or the trace cannot be right. */
export function locateTrace(args: Pick<PromoteArgs, "trace" | "sourceKey" | "vault">, cwd: string, root: string, cacheDir: string, scope: KeptTraceScope = "any_file"): LocatedTrace | { usage: string } {
  const key = parseSourceKey(args.sourceKey);
  if (!key || key.origin !== "outside_vault") {
    return { usage: `"${args.sourceKey}" is not an outside-vault key (expected ext:<provider>:<10 hex digits>, as printed in the trace note).` };
  }
  const folder = keptTraceFolder(cacheDir, root);
  const keptFile = findKeptTrace(args.trace, cwd, root, folder, scope);
  if (keptFile) return { keptFile };
  const tracePath = vaultPathOf(root, cwd, args.trace);
  if (tracePath === null) return { usage: `trace note ${args.trace} is not a note inside ${args.vault}, nor a trace kept in ${cacheDir}.` };
  // A run id that is no note of the vault either: said plainly, not as a trace note that is missing.
  if (isRunId(args.trace) && !existsSync(path.join(root, tracePath))) return { usage: runNoLongerKept(args.trace, folder) };
  return { tracePath };
}

function runNoLongerKept(runId: string, folder: string): string {
  return `the trace of run ${runId} is not kept in ${folder} (any more): ${keptTracesWords()}. Run the research again to promote from it (with --trace, its trace note stays in the vault).`;
}

export function askedOf(located: LocatedTrace, sourceKey: string) {
  return "keptFile" in located
    ? { trace: located.keptFile, traceSource: "kept_trace" as const, sourceKey }
    : { trace: located.tracePath, traceSource: "vault_note" as const, sourceKey };
}

/**
 * What promotion needs from the CLI: its store, index, web access and page reader, and the keys
 * in its environment (`knownSecrets`), which a page that echoes one never gets into the note.
 * `replayShown`: the folder `http` answers from as notes name it (`WebAccess.replayShown`, never the
 * path as given: the note goes into the vault), so the note calls its page text a recorded sample.
 */
export function promoteDeps(store: FsNoteStore, index: VaultIndex, http: Http, settings: Settings, resolveNames: boolean, knownSecrets: readonly string[] = [], clock: Clock = systemClock, replayShown?: string): PromoteDeps {
  return {
    ...(replayShown !== undefined ? { pagesReplayedFrom: replayShown } : {}),
    store,
    knownSecrets,
    http,
    ...(resolveNames ? { fetchGuard: { resolve: dnsResolveHost } } : {}),
    clock,
    settings,
    index,
    readPage: nodePageReader,
    // Through a temporary file renamed into place, under a lock, never outside the vault.
    updateTraceNote: (notePath, update) => store.rewrite(notePath, update),
  };
}

/** Promotes `sourceKey` of the located trace (the CLI command and the MCP tool both). */
export function promoteLocated(deps: PromoteDeps, located: LocatedTrace, sourceKey: string): Promise<PromotionResult> {
  return "keptFile" in located ? promoteFromKeptTrace(deps, located.keptFile, sourceKey) : promoteFromTraceNote({ ...deps, tracePath: located.tracePath, sourceKey });
}

/**
 * A row of a trace kept in the cache folder: promoted as from a trace note, except that the note
 * links to no trace (there is none in the vault) and the promotion is recorded in the kept file.
 */
async function promoteFromKeptTrace(deps: PromoteDeps, file: string, sourceKey: string): Promise<PromotionResult> {
  const failed = (kind: "trace_unreadable" | "unknown_source_key", message: string): PromotionResult => ({ status: "failed", error: { kind, message }, message });
  let parsed;
  try {
    parsed = parseTraceNote(await readKeptTrace(file));
  } catch (error) {
    return failed("trace_unreadable", `The kept trace ${file} could not be read: ${errorMessage(error)}`);
  }
  if ("error" in parsed) return failed("trace_unreadable", `${file}: ${parsed.error.message}`);
  const row = parsed.trace.pack.external_evidence.find((r) => r.source_key === sourceKey);
  if (!row) return failed("unknown_source_key", `${sourceKey} is not a result of ${file}; its outside-vault rows are ${parsed.trace.pack.external_evidence.map((r) => r.source_key).join(", ") || "none"}.`);
  const result = await promoteOutsideRow({ ...deps, updateTraceNote: undefined, row, trace: parsed.trace, tracePath: null });
  if (result.status === "failed") return result;
  const recorded = parsed.trace.promotions?.some((p) => p.source_key === sourceKey && p.note_path === result.notePath) ?? false;
  // Already in the vault and not yet in the kept trace: an earlier promotion wrote the note and was
  // cut short before it got here. Recorded now, as a trace note records it.
  const record = recorded ? { recorded: true as const } : await recordPromotionInKeptTrace(file, { source_key: sourceKey, note_path: result.notePath, at: new Date(deps.clock.now()).toISOString() });
  const traceUpdated = record.recorded;
  // Why not, as a trace note's promotion says it: "not updated" alone left the user guessing.
  const notRecorded = record.recorded ? null : `The kept trace ${file} does not record the promotion: ${asSentence(record.why)}`;
  if (result.status === "created") return { ...result, traceUpdated, warnings: notRecorded === null ? result.warnings : [...result.warnings, notRecorded] };
  if (notRecorded !== null) return { ...result, traceUpdated, message: `${result.message} ${notRecorded}` };
  return recorded ? { ...result, traceUpdated } : { ...result, traceUpdated, message: `${result.message} The kept trace now records it.` };
}

function toText(result: Exclude<PromotionResult, { status: "failed" }>, replayDir: string | undefined): string {
  const lines: string[] = [];
  // Said only when a page was asked for; whether the recordings held it, the message says. The
  // recordings are sample responses we wrote, as every replay line says (replay-notice.ts).
  if (replayDir && result.status === "created") lines.push(`Replay: the page was asked of the ${RECORDED_SAMPLES} in ${replayDir}, never of the network.`);
  lines.push(result.message);
  if (result.status === "created") {
    lines.push(`  extract_status: ${extractStatusText(result.extractStatus)}`);
    lines.push(`  trace note: ${result.traceUpdated ? "records the promotion" : "not updated"}`);
    for (const warning of result.warnings) lines.push(`  warning: ${warning}`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The trace note as a vault path: given relative to the vault, or as a file inside it (as written
 * or on disk: the vault through a link and the note by its real path, `notePathInVault`).
 */
function vaultPathOf(root: string, cwd: string, given: string): string | null {
  const withMd = given.toLowerCase().endsWith(".md") ? given : `${given}.md`;
  for (const candidate of [path.resolve(cwd, withMd), path.resolve(root, withMd)]) {
    const rel = existsSync(candidate) ? notePathInVault(root, candidate) : null;
    if (rel !== null && rel !== "") return rel;
  }
  // Not on disk: hand on the vault-relative spelling, so the message names what was looked for.
  const rel = path.relative(root, path.resolve(root, withMd));
  return rel.startsWith("..") || path.isAbsolute(rel) ? null : rel.split(path.sep).join("/");
}
