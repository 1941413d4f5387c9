// Help, generated from the command table so it can never list a flag the parser does not take or
// miss one it does: `vault-research help`, `help <command>` and `<command> --help` (one line per
// flag). Flag words live in one table here, keyed by flag name, because a flag means the same in
// every command; a command may override one (promote's `--trace NOTE`).
import type { FlagSpec, FlagSpecs } from "./args";
import { keptTracesWords } from "./kept-trace-retention";

export interface CommandHelp {
  /** After `vault-research `: `search "<query>" --vault DIR [options]`. */
  usage: string;
  /** One sentence: what the command does. */
  about: string;
  /** The `schema` tag of its --json output, when it has one. */
  jsonSchema?: string;
  flags: FlagSpecs;
}

/** What each flag takes and does, for help. A flag missing here is a test failure, not a blank line. */
export const FLAG_HELP: Record<string, Required<Pick<FlagSpec, "about">> & Pick<FlagSpec, "arg">> = {
  vault: { arg: "DIR", about: "the folder of markdown notes to work on (required)" },
  config: { arg: "FILE", about: "settings JSON, the same schema as the plugin's data.json" },
  "cache-dir": { arg: "DIR", about: "where the index cache, vectors, query log and kept traces live (default: an OS cache folder)" },
  json: { about: "print one JSON object with a versioned schema tag instead of text" },
  quiet: { about: "no progress on stderr (errors are still printed)" },
  "no-color": { about: "no colour, even on a terminal (NO_COLOR does the same)" },
  help: { about: "show this command's flags" },
  limit: { arg: "N", about: "how many notes to show, 1–200 (default 10)" },
  "external-search": { arg: "never|on-weak|always", about: "when the run may look outside the vault (default never)" },
  "external-provider": { arg: "NAME", about: "a web source to ask; repeat for several (default: the settings', else the free set)" },
  "external-freshness": { arg: "any|pd|pw|pm|py|FROMtoTO", about: "how recent web results must be (default: the settings')" },
  "external-count": { arg: "N", about: "outside results wanted, 1–10 (default: the config's external.count, else 5)" },
  "read-pages": { arg: "N", about: "outside pages to fetch and read, 0–5 (default: the settings')" },
  level: { arg: "1|2|3|4", about: "the search dial: 1 lexical (no network), 2 hybrid, 3 multi-field (both need --embed), 4 rerank (also --model); default: the config's, else 1" },
  embed: { arg: "SPEC", about: "none | ollama:MODEL[@BASE_URL] | openai:MODEL[@BASE_URL]: the embedding model behind levels 2–4 (default: the config's)" },
  "retrieval-only": { about: "stop after retrieval: the evidence without an answer" },
  replay: { arg: "DIR", about: "answer web requests from recorded exchanges in DIR (nothing goes to the network)" },
  model: { arg: "SPEC", about: "none (extractive brief) | openai:MODEL[@BASE_URL] | anthropic:MODEL (default: the config's, else none)" },
  trace: { about: "write the trace note into the vault (default: kept in the cache folder, unless the config sets notes.writeTraceNotes)" },
  "no-trace": { about: "keep no trace at all: no note in the vault (whatever the config says), no file in the cache folder" },
  file: { arg: "CASES.json", about: "the research cases to run" },
  "source-key": { arg: "KEY", about: "the outside row to save (ext:<provider>:<hash>, as the trace shows it)" },
  "allow-external": { about: "let a research_pack call that asks for it search the web; refused at start (exit 2) unless the config leaves external.enabled out or writes it true (false, \"false\" or any other value keeps the web off)" },
  "allow-writes": { about: "offer the promote_result tool, which writes source notes into the vault" },
};

/** What a command's help says after its flags: what it keeps, or finds, in the cache folder. */
const COMMAND_NOTES: Record<string, string[]> = {
  research: [`Without --trace the run's trace is kept in the cache folder, for promote: ${keptTracesWords()}.`],
  promote: [`A trace kept in the cache folder is found by its file or its run id: ${keptTracesWords()}.`],
  mcp: [
    "research_pack sends each stage as MCP progress when the call gives a progressToken. vault_search's",
    "reply echoes its tags as the filter applied (#CRDT as crdt).",
  ],
  index: [
    "It also lists the cache folders of vaults no longer at their path (cache_folders_left_behind in --json): a vault",
    "moved takes its own back at its next run; remove a folder once its vault is gone for good.",
    "Saving the index is its one job: when the cache cannot be written (a full or read-only disk) it exits 1 and",
    "says why (cache_not_saved in --json).",
  ],
};

/** Where the flags' words start. */
const FLAG_COLUMN = 30;

/** The help line of one flag: `  --limit N            how many notes to show …`. */
function flagLine(name: string, spec: FlagSpec): string {
  const known = FLAG_HELP[name];
  const arg = spec.arg ?? known?.arg;
  const about = spec.about ?? known?.about ?? "";
  const left = `--${name}${spec.value && arg ? ` ${arg}` : ""}${spec.repeat ? " …" : ""}`;
  // A long value list keeps its words on the same line, two spaces after it.
  return `  ${left.length < FLAG_COLUMN ? left.padEnd(FLAG_COLUMN) : `${left} `} ${about}`.trimEnd();
}

/** `vault-research help <command>` and `<command> --help`. */
export function commandHelpText(name: string, help: CommandHelp): string {
  const lines = [`Usage: vault-research ${help.usage}`, "", help.about, "", "Options:"];
  for (const [flag, spec] of Object.entries(help.flags)) {
    lines.push(flagLine(flag, flag === "json" && help.jsonSchema ? { ...spec, about: `print one ${help.jsonSchema} object instead of text` } : spec));
  }
  const notes = COMMAND_NOTES[name];
  if (notes) lines.push("", ...notes);
  if (name !== "mcp") lines.push("", "Exit 0 for a completed run, 1 for a failed one, 2 for a usage error, 130 when stopped with Ctrl-C.");
  return `${lines.join("\n")}\n`;
}

/** `vault-research help`: every command's usage line and what it does. */
export function overviewHelpText(commands: Record<string, CommandHelp>): string {
  const lines = ["Usage:"];
  for (const help of Object.values(commands)) lines.push(`  vault-research ${help.usage}`);
  lines.push("", "Commands:");
  for (const [name, help] of Object.entries(commands)) lines.push(`  ${name.padEnd(10)} ${help.about}`);
  lines.push(
    "",
    "A question or query of - (or none, with a pipe) is read from standard input.",
    "Common: --config FILE, --cache-dir DIR, --quiet, --no-color, --json; --version prints the version.",
    'Run "vault-research help <command>" (or "<command> --help") for a command\'s flags.',
  );
  return `${lines.join("\n")}\n`;
}
