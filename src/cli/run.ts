// The `vault-research` command: the same core as the plugin, over a folder of markdown.
// Exit codes (DESIGN.md): 0 for any completed run, 1 for a failed run, 2 for usage errors.
import { errorMessage } from "../text/error-message";
import { describeRebuildReason } from "../index/rebuild-reason";
import type { SearchResult } from "../index/types";
import { flag, flagAll, has, intFlag, parseArgs, UsageError, type FlagSpecs, type ParsedArgs } from "./args";
import { EVAL_FLAGS, evalCommand } from "./eval-command";
import { openVault, readSettings, type CliIo } from "./open-vault";
import { promoteCommand } from "./promote-command";
import { readExternalFlags, RESEARCH_FLAGS, researchCommand } from "./research-command";
import { envSecretValues } from "./env-secrets";
import { terminalJson, terminalOutput, terminalText } from "./terminal-text";
import { websearchCommand } from "./websearch-command";


const COMMON: FlagSpecs = {
  vault: { value: true },
  config: { value: true },
  "cache-dir": { value: true },
  json: { value: false },
  help: { value: false },
};

export const USAGE = `Usage:
  vault-research research "<question>" --vault DIR [--external-search never|on-weak|always]
      [--external-provider NAME]... [--external-freshness any|pd|pw|pm|py|YYYY-MM-DDtoYYYY-MM-DD]
      [--external-count N] [--read-pages N] [--retrieval-only] [--json] [--replay DIR] [--model SPEC] [--no-trace]
  vault-research search "<query>" --vault DIR [--limit N] [--json]
  vault-research index --vault DIR [--json]
  vault-research promote --vault DIR --trace NOTE --source-key KEY [--replay DIR] [--json]
  vault-research eval --vault DIR --file CASES.json [--replay DIR] [--read-pages N] [--json]
  vault-research websearch "<query>" [--external-provider NAME]... [--external-freshness F] [--external-count N] [--replay DIR] [--json]
common: [--config FILE] (settings JSON, the plugin's data.json schema) [--cache-dir DIR]
`;

type Command = (args: ParsedArgs, io: CliIo) => Promise<number>;

const COMMANDS: Record<string, { flags: FlagSpecs; run: Command }> = {
  index: { flags: COMMON, run: indexCommand },
  search: { flags: { ...COMMON, limit: { value: true } }, run: searchCommand },
  research: { flags: { ...COMMON, ...RESEARCH_FLAGS }, run: researchCommand },
  eval: { flags: { ...COMMON, ...EVAL_FLAGS }, run: evalCommand },
  websearch: {
    flags: { config: COMMON.config, json: COMMON.json, help: COMMON.help, "external-provider": RESEARCH_FLAGS["external-provider"], "external-freshness": RESEARCH_FLAGS["external-freshness"], "external-count": RESEARCH_FLAGS["external-count"], replay: RESEARCH_FLAGS.replay },
    run: async (args, io) => {
      const query = args.positionals.join(" ").trim();
      if (!query) throw new UsageError('websearch needs a query, e.g. vault-research websearch "automerge release" --external-provider brave');
      const settings = readSettings(args, io);
      const providersFrom = flagAll(args, "external-provider").length === 0 ? "settings" : "flags";
      const external = readExternalFlags(args, settings);
      return websearchCommand(
        { query, providers: external.providers, providersFrom, freshness: external.freshness, count: external.count ?? settings.external.count, replayDir: flag(args, "replay"), settings, json: has(args, "json") },
        io,
      );
    },
  },
  promote: {
    flags: { ...COMMON, trace: { value: true }, "source-key": { value: true }, replay: { value: true } },
    run: async (args, io) => {
      noPositionals(args, "promote");
      const vault = flag(args, "vault");
      const trace = flag(args, "trace");
      const sourceKey = flag(args, "source-key");
      if (!vault || !trace || !sourceKey) throw new UsageError("promote needs --vault DIR --trace NOTE --source-key KEY.");
      return promoteCommand(
        { vault, trace, sourceKey, replayDir: flag(args, "replay"), settings: readSettings(args, io), cacheDir: flag(args, "cache-dir"), json: has(args, "json") },
        io,
      );
    },
  },
};

export type { CliIo };

/**
 * Runs one command. Everything it prints passes the one terminal sanitiser (terminal-text.ts) and
 * loses every secret set in the environment, in every form: web text cannot drive the terminal,
 * and no output — text, JSON, warnings, error messages — can carry a key.
 */
export async function runCli(argv: string[], rawIo: CliIo): Promise<number> {
  const io = terminalOutput(rawIo, envSecretValues(rawIo.env));
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    if (name) io.out(USAGE);
    else io.err(USAGE);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`Unknown command "${name}".\n\n${USAGE}`);
    return 2;
  }
  try {
    const args = parseArgs(rest, command.flags);
    if (has(args, "help")) {
      io.out(USAGE);
      return 0;
    }
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`vault-research ${name}: ${error.message}\n\nRun "vault-research --help" for usage.\n`);
      return 2;
    }
    io.err(`vault-research ${name} failed: ${errorMessage(error)}\n`);
    return 1;
  }
}

// ── index ─────────────────────────────────────────────────────────────────────────────────────

async function indexCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  noPositionals(args, "index");
  const opened = await openVault(args, io);
  const status = opened.index.status();
  if (has(args, "json")) {
    io.out(
      `${terminalJson({
        vault: opened.root,
        notes: status.notes,
        sync: { ...opened.sync, rebuildReason: opened.sync.rebuildReason && describeRebuildReason(opened.sync.rebuildReason) },
        cache_file: opened.cache.file,
        problems: status.problems,
      })}\n`,
    );
    return 0;
  }
  const s = opened.sync;
  const how = s.mode === "cache" ? "updated from cache" : `built from scratch (${describeRebuildReason(s.rebuildReason)})`;
  io.out(`Indexed ${status.notes} notes in ${s.ms} ms — ${how}.\n`);
  io.out(`  added ${s.added}, changed ${s.updated}, removed ${s.removed}, unchanged ${s.unchanged}\n`);
  io.out(`  cache: ${opened.cache.file}\n`);
  if (status.problems.length > 0) {
    io.out(`  ${status.problems.length} note(s) with problems (indexed as text where possible):\n`);
    for (const p of status.problems.slice(0, 20)) io.out(`    ${p.path}: ${p.problem.message}\n`);
    if (status.problems.length > 20) io.out(`    … and ${status.problems.length - 20} more (see --json)\n`);
  }
  return 0;
}

// ── search ────────────────────────────────────────────────────────────────────────────────────

async function searchCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const query = args.positionals.join(" ").trim();
  if (!query) throw new UsageError('search needs a query, e.g. vault-research search "daily notes" --vault DIR');
  const limit = intFlag(args, "limit", 1, 200) ?? 10;
  const opened = await openVault(args, io);
  const results = await opened.index.search(query, opened.store, { limit });
  if (has(args, "json")) {
    io.out(`${terminalJson({ query, results: results.map(toJsonResult) })}\n`);
    return 0;
  }
  io.out(formatSearchResults(query, results));
  return 0;
}

export function toJsonResult(r: SearchResult) {
  return {
    path: r.path,
    title: r.title,
    score: r.score,
    tags: r.tags,
    sections: r.sections,
    explanation: r.explanation,
  };
}

/** Plain-text search results: what a person reads in a terminal. */
export function formatSearchResults(query: string, results: SearchResult[]): string {
  // Note text reaches a terminal here: a clipped page's escape sequences must not drive it.
  return terminalText(searchResultLines(query, results));
}

function searchResultLines(query: string, results: SearchResult[]): string {
  if (results.length === 0) return `No notes match "${query}".\n`;
  const lines: string[] = [`${results.length} note${results.length === 1 ? "" : "s"} for "${query}":`, ""];
  results.forEach((r, i) => {
    lines.push(`${i + 1}. ${r.title} — ${r.path} (score ${r.score.toFixed(2)})`);
    for (const s of r.sections.slice(0, 2)) {
      if (s.heading) lines.push(`   § ${s.headingPath.join(" › ") || s.heading}`);
      lines.push(`   ${markHighlights(s.snippet, s.highlights)}`);
    }
    const e = r.explanation;
    const fields = Object.entries(e.fields)
      .map(([f, ts]) => `${f}: ${ts.join(", ")}`)
      .join("; ");
    lines.push(`   why: ${fields || "tags"}${e.missingTerms.length ? ` · missing: ${e.missingTerms.join(", ")}` : ""}`);
    lines.push("");
  });
  return `${lines.join("\n")}\n`;
}

function markHighlights(snippet: string, highlights: [number, number][]): string {
  let out = "";
  let at = 0;
  for (const [start, end] of highlights) {
    if (start < at) continue;
    out += `${snippet.slice(at, start)}[${snippet.slice(start, end)}]`;
    at = end;
  }
  return out + snippet.slice(at);
}

function noPositionals(args: ParsedArgs, command: string): void {
  if (args.positionals.length > 0) throw new UsageError(`${command} takes no arguments besides options (got "${args.positionals.join(" ")}").`);
}
