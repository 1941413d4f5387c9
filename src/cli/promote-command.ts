// `vault-research promote --vault DIR --trace NOTE --source-key KEY [--replay DIR]`: saves one
// outside-vault result of a trace note as a source note, exactly as the plugin's "Add to vault"
// does. Exit codes: 0 when a note was written or the page was already in the vault, 1 when the
// promotion failed, 2 for usage errors (no such vault, trace note or key).
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { extractStatusText } from "../notes/extract-status";
import { promoteFromTraceNote, type PromotionResult } from "../promote/promote";
import { parseSourceKey } from "../evidence/keys";
import { VaultIndex } from "../index/vault-index";
import { systemClock, type Http } from "../ports";
import type { Settings } from "../settings";
import { canonicalizeUrl } from "../websearch/canonical-url";
import { dnsResolveHost } from "./dns-resolver";
import { nodePageReader } from "./dom-parser";
import { createFetchHttp } from "./fetch-http";
import { defaultCacheDir, FileIndexCache } from "./file-index-cache";
import { FsNoteStore } from "./fs-note-store";
import { ReplayDirectoryError, replayHttpFromDirectory } from "./replay-dir";
import { terminalJson } from "./terminal-text";
import { errorMessage } from "../text/error-message";

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
}

const USAGE_ERRORS = new Set(["trace_not_found", "trace_unreadable", "unknown_source_key"]);

export async function promoteCommand(args: PromoteArgs, io: PromoteIo): Promise<number> {
  const usage = (message: string): number => {
    io.err(`vault-research promote: ${message}\n`);
    return 2;
  };
  const root = path.resolve(io.cwd, args.vault);
  if (!existsSync(root) || !statSync(root).isDirectory()) return usage(`vault folder ${args.vault} does not exist.`);
  const key = parseSourceKey(args.sourceKey);
  if (!key || key.origin !== "outside_vault") {
    return usage(`"${args.sourceKey}" is not an outside-vault key (expected ext:<provider>:<10 hex digits>, as printed in the trace note).`);
  }
  const tracePath = vaultPathOf(root, io.cwd, args.trace);
  if (tracePath === null) return usage(`trace note ${args.trace} is not a note inside ${args.vault}.`);

  const replayDir = args.replayDir ?? io.env.VAULT_RESEARCH_REPLAY;
  let http: Http;
  try {
    http = replayDir ? replayHttpFromDirectory(path.resolve(io.cwd, replayDir), io.env) : (io.http ?? createFetchHttp());
  } catch (error) {
    if (error instanceof ReplayDirectoryError) return usage(error.message);
    throw error;
  }

  const { settings } = args;
  const store = new FsNoteStore(root);
  const cache = new FileIndexCache(path.resolve(io.cwd, args.cacheDir ?? defaultCacheDir(io.env)), root);
  const index = new VaultIndex({
    excludedFolders: [...settings.index.excludedFolders, settings.notes.traceFolder],
    stemming: settings.index.stemming,
    canonicalizeUrl,
  });
  await index.sync(store, cache);

  const result = await promoteFromTraceNote({
    store,
    http,
    // Names are looked up only when the page goes to the real network (not replay, not a stand-in).
    ...(replayDir || io.http ? {} : { fetchGuard: { resolve: dnsResolveHost } }),
    clock: systemClock,
    settings,
    index,
    readPage: nodePageReader,
    // Through a temporary file renamed into place, under a lock, never outside the vault.
    updateTraceNote: (notePath, update) => store.rewrite(notePath, update),
    tracePath,
    sourceKey: args.sourceKey,
  });

  if (result.status === "created") {
    try {
      await index.save(cache);
    } catch (error) {
      io.err(`warning: the index cache could not be written (${errorMessage(error)}); the next run will index again.\n`);
    }
  }

  // JSON keeps the status as the note spells it (`fallback_snippet:http_403`): the CLI contract.
  const shown = result.status === "created" ? { ...result, extractStatus: extractStatusText(result.extractStatus) } : result;
  if (args.json) io.out(`${terminalJson({ ...shown, trace: tracePath, source_key: args.sourceKey, replay: replayDir ?? null })}\n`);
  else if (result.status === "failed") io.err(`vault-research promote: ${result.message}\n`);
  else io.out(toText(result, replayDir));

  if (result.status === "failed") return USAGE_ERRORS.has(result.error.kind) ? 2 : 1;
  return 0;
}

function toText(result: Exclude<PromotionResult, { status: "failed" }>, replayDir: string | undefined): string {
  const lines: string[] = [];
  if (replayDir) lines.push(`Replay: the page came from recorded responses in ${replayDir}, not the network.`);
  lines.push(result.message);
  if (result.status === "created") {
    lines.push(`  extract_status: ${extractStatusText(result.extractStatus)}`);
    lines.push(`  trace note: ${result.traceUpdated ? "records the promotion" : "not updated"}`);
    for (const warning of result.warnings) lines.push(`  warning: ${warning}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The trace note as a vault path: given relative to the vault, or as a file inside it. */
function vaultPathOf(root: string, cwd: string, given: string): string | null {
  const withMd = given.toLowerCase().endsWith(".md") ? given : `${given}.md`;
  for (const candidate of [path.resolve(cwd, withMd), path.resolve(root, withMd)]) {
    const rel = path.relative(root, candidate);
    if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) continue;
    if (existsSync(candidate)) return rel.split(path.sep).join("/");
  }
  // Not on disk: hand on the vault-relative spelling, so the message names what was looked for.
  const rel = path.relative(root, path.resolve(root, withMd));
  return rel.startsWith("..") || path.isAbsolute(rel) ? null : rel.split(path.sep).join("/");
}
