// The `vault-research` command: the same core as the plugin, over a folder of markdown.
// Exit codes (DESIGN.md): 0 for any completed run, 1 for a failed run, 2 for usage errors.
// Each command's module is loaded when that command runs: `--version`, `help` and a `search` do
// not pay for the research run, page reading or the MCP SDK.
import { CLI_VERSION as version } from "./version";
import { errorMessage } from "../text/error-message";
import { has, nearest, parseArgs, typographicDashMessage, typographicFlagName, UsageError, type FlagSpecs, type ParsedArgs } from "./args";
import { chattiness, type CliIo, type CommandIo } from "./cli-io";
import { DIAL_FLAGS, EVAL_FLAGS, RESEARCH_FLAGS } from "./command-flags";
import { commandHelpText, overviewHelpText, type CommandHelp } from "./command-help";
import { envSecretValues } from "./env-secrets";
import { terminalOutput } from "./terminal-text";
import { styled } from "./terminal-style";

const TALK: FlagSpecs = { quiet: { value: false }, "no-color": { value: false }, help: { value: false } };
const COMMON: FlagSpecs = { vault: { value: true }, config: { value: true }, "cache-dir": { value: true }, json: { value: false }, ...TALK };
/** --model where it feeds only level 4 of the search dial. */
const RERANK_MODEL_FLAG = { ...RESEARCH_FLAGS.model, about: "the chat model that reranks at level 4: none | openai:MODEL[@BASE_URL] | anthropic:MODEL (default: the config's)" };
const WEB_FLAGS: FlagSpecs = {
  "external-provider": RESEARCH_FLAGS["external-provider"],
  "external-freshness": RESEARCH_FLAGS["external-freshness"],
  "external-count": RESEARCH_FLAGS["external-count"],
  replay: RESEARCH_FLAGS.replay,
};

type Command = (args: ParsedArgs, io: CommandIo) => Promise<number>;

export interface CommandSpec extends CommandHelp {
  run: Command;
}

export const COMMANDS: Record<string, CommandSpec> = {
  research: {
    usage: 'research "<question>" --vault DIR [options]',
    about: "Answers a question from the vault first, and from the web only when allowed; vault and outside evidence kept apart.",
    jsonSchema: "research_result.v1",
    flags: { ...COMMON, ...RESEARCH_FLAGS, trace: { value: false } },
    run: async (args, io) => (await import("./research-command")).researchCommand(args, io),
  },
  search: {
    usage: 'search "<query>" --vault DIR [--limit N] [--level 1|2|3|4] [--embed SPEC] [--model SPEC] [--json]',
    about: "Searches the vault's notes: the best matches, their matched sections, and why they matched.",
    jsonSchema: "vault_search.v1",
    flags: { ...COMMON, limit: { value: true }, ...DIAL_FLAGS, model: RERANK_MODEL_FLAG },
    run: async (args, io) => (await import("./search-command")).searchCommand(args, io),
  },
  index: {
    usage: "index --vault DIR [--json]",
    about: "Builds or updates the vault's index in the cache folder and says what changed.",
    jsonSchema: "index_report.v1",
    flags: COMMON,
    run: async (args, io) => (await import("./index-command")).indexCommand(args, io),
  },
  embed: {
    usage: "embed --vault DIR --embed SPEC [--json]",
    about: "Builds or updates the vault's vectors (search levels 2–4) in the cache folder: only new or changed notes; Ctrl-C keeps what is done.",
    jsonSchema: "embed_report.v1",
    flags: { ...COMMON, embed: DIAL_FLAGS.embed },
    run: async (args, io) => (await import("./embed-command")).embedCommand(args, io),
  },
  compare: {
    usage: 'compare "<query>" --vault DIR [--embed SPEC] [--model SPEC] [--limit N] [--json]',
    about: "Runs one query at all four search levels side by side and shows how each note's rank moves between levels.",
    jsonSchema: "level_comparison.v1",
    flags: { ...COMMON, limit: { value: true, about: "how many notes each level shows, 1–50 (default 10)" }, embed: DIAL_FLAGS.embed, model: RERANK_MODEL_FLAG },
    run: async (args, io) => (await import("./compare-command")).compareCommand(args, io),
  },
  websearch: {
    usage: 'websearch "<query>" [--external-provider NAME]... [--external-freshness F] [--external-count N] [--replay DIR] [--json]',
    about: "Asks the web sources directly, without a vault: for checking a source, a key or a replay folder.",
    jsonSchema: "websearch.v1",
    flags: { config: COMMON.config, json: COMMON.json, ...WEB_FLAGS, ...TALK },
    run: async (args, io) => (await import("./websearch-command")).websearchFromArgs(args, io),
  },
  promote: {
    usage: "promote --vault DIR --trace NOTE|FILE|RUN_ID --source-key KEY [--replay DIR] [--json]",
    about: "Saves one outside-vault result of a trace (a trace note, or a trace kept in the cache folder) as a source note.",
    jsonSchema: "promote_result.v1",
    flags: { ...COMMON, trace: { value: true, arg: "NOTE|FILE|RUN_ID", about: "the trace: a trace note in the vault, a kept trace file, or its run id" }, "source-key": { value: true }, replay: { value: true } },
    run: async (args, io) => (await import("./promote-command")).promoteFromArgs(args, io),
  },
  eval: {
    usage: "eval --vault DIR --file CASES.json [--replay DIR] [--read-pages N] [--json]",
    about: "Runs research cases over a vault, offline, and checks each run against its expectations.",
    jsonSchema: "eval_report.v1",
    flags: { ...COMMON, ...EVAL_FLAGS },
    run: async (args, io) => (await import("./eval-command")).evalCommand(args, io),
  },
  mcp: {
    usage: "mcp --vault DIR [--embed SPEC] [--model SPEC] [--allow-external] [--allow-writes] [--replay DIR]",
    about: "Runs a Model Context Protocol server over stdio: vault search, research packs and notes for agents, local-only by default.",
    flags: {
      vault: COMMON.vault,
      config: COMMON.config,
      "cache-dir": COMMON["cache-dir"],
      replay: RESEARCH_FLAGS.replay,
      embed: DIAL_FLAGS.embed,
      model: { ...RESEARCH_FLAGS.model, about: "the chat model vault_search reranks with at level 4 (default: none; the config's is for research)" },
      "allow-external": { value: false },
      "allow-writes": { value: false },
      ...TALK,
    },
    run: async (args, io) => (await import("./mcp/mcp-command")).mcpCommand(args, io),
  },
};

export type { CliIo };

/**
 * Runs one command. Everything it prints passes the one terminal sanitiser (terminal-text.ts) and
 * loses every secret set in the environment, in every form: web text cannot drive the terminal,
 * and no output — text, JSON, warnings, error messages — can carry a key.
 */
export async function runCli(argv: string[], rawIo: CliIo): Promise<number> {
  // Colour is decided before the words are parsed, so even a usage error knows it: --no-color is
  // a switch, so the word itself is enough.
  const talk = chattiness(rawIo, { quiet: false, noColor: argv.includes("--no-color") });
  const io = terminalOutput(rawIo, envSecretValues(rawIo.env), { out: talk.colourOut, err: talk.colourErr });
  const [name, ...rest] = argv;
  if (name === "--version" || name === "version") {
    io.out(`vault-research ${version}\n`);
    return 0;
  }
  if (!name || name === "--help" || name === "-h" || name === "help") return help(name ? rest[0] : undefined, io, !name);
  const command = commandNamed(name);
  if (!command) return unknownCommand(name, io, rest);
  try {
    const args = parseArgs(rest, command.flags);
    if (has(args, "help")) {
      io.out(commandHelpText(name, command));
      return 0;
    }
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.errStyled([styled("fail", `vault-research ${name}:`), ` ${error.message}\n\nRun "vault-research help ${name}" for its flags, "vault-research --help" for every command.\n`]);
      return 2;
    }
    io.errStyled([styled("fail", `vault-research ${name} failed:`), ` ${errorMessage(error)}\n`]);
    return 1;
  }
}

/** `help`, `help COMMAND`, `--help`; with no command at all the overview goes to stderr and exits 2. */
function help(topic: string | undefined, io: CommandIo, noCommand: boolean): number {
  if (topic !== undefined) {
    const command = commandNamed(topic);
    if (!command) return unknownCommand(topic, io);
    io.out(commandHelpText(topic, command));
    return 0;
  }
  if (noCommand) io.err(overviewHelpText(COMMANDS));
  else io.out(overviewHelpText(COMMANDS));
  return noCommand ? 2 : 0;
}

/** The command table's own entry: `constructor` is no command, whatever an object inherits. */
function commandNamed(name: string): CommandSpec | undefined {
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

/** `rest`: the words after it, where a command given after its options (`--vault v search`) is found. */
function unknownCommand(name: string, io: CommandIo, rest: string[] = []): number {
  const list = `Commands: ${Object.keys(COMMANDS).join(", ")}. Run "vault-research help" for what each does.\n`;
  // `—version` pasted from a page: the dash is what went wrong, not the word.
  const typed = typographicFlagName(name);
  if (typed === "version" || typed === "help") {
    io.errStyled([styled("fail", typographicDashMessage(name, typed)), `\n${list}`]);
    return 2;
  }
  if (name.startsWith("-")) {
    const given = rest.find((word) => commandNamed(word) !== undefined) ?? "<command>";
    io.errStyled([styled("fail", `"${name}" is an option:`), ` the command comes first, then its options, e.g. vault-research ${given} … ${name}.\n${list}`]);
    return 2;
  }
  // `SEARCH` (caps lock) is six edits from search, and was suggested nothing.
  const suggestion = nearest(name.toLowerCase(), Object.keys(COMMANDS));
  const meant = suggestion ? ` Did you mean "${suggestion}"?` : "";
  io.errStyled([styled("fail", `Unknown command "${name}".`), `${meant}\n${list}`]);
  return 2;
}
