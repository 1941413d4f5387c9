// Command-line parsing, strict on purpose: an unknown or misspelt flag is a usage error (exit 2),
// never silently ignored, because a scripted evaluation that quietly ran with defaults is worse
// than one that stopped. Node's own `util.parseArgs` splits the words (`--a=b`, `--a b`, `--`);
// it is run non-strict with tokens so that every refusal below can say what was meant.
import { parseArgs as splitArgs } from "node:util";
import { editDistance } from "../research/stages/verify-citations";
import { looksLikeApiKey } from "../settings";
import { valueShown as valueShownAs } from "../text/value-shown";

export interface FlagSpec {
  /** Takes a value (`--limit 5` / `--limit=5`), else a boolean switch. */
  value: boolean;
  /** May be given more than once (values collected in order). */
  repeat?: boolean;
  /** The value's name in help, e.g. `DIR`, `N`, `never|on-weak|always`. */
  arg?: string;
  /** One line of help: what the flag does and its default. */
  about?: string;
}

export type FlagSpecs = Record<string, FlagSpec>;

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string[]>;
}

export class UsageError extends Error {
  readonly kind = "usage";
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Short spellings people type out of habit; every other single-dash word is refused. */
const SHORT_FLAGS: Record<string, string> = { h: "help" };

type Token = ReturnType<typeof splitArgs>["tokens"] extends (infer T)[] | undefined ? T : never;

export function parseArgs(argv: string[], specs: FlagSpecs): ParsedArgs {
  const options = Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, { type: spec.value ? ("string" as const) : ("boolean" as const) }]));
  const { tokens } = splitArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  const positionals: string[] = [];
  const flags = new Map<string, string[]>();
  const negativeNumbersSeen = new Set<number>();
  let afterTerminator = false;
  for (const token of tokens) {
    if (token.kind === "option-terminator") {
      afterTerminator = true;
      continue;
    }
    if (token.kind === "positional") {
      if (!afterTerminator) refuseTypographicDash(token.value, specs);
      positionals.push(token.value);
      continue;
    }
    // `-5` is a number, not five flags: kept whole, once however many letters it was split into.
    if (/^-\d/.test(argv[token.index])) {
      if (!negativeNumbersSeen.has(token.index)) positionals.push(argv[token.index]);
      negativeNumbersSeen.add(token.index);
      continue;
    }
    const [name, value] = optionValue(token, argv[token.index], specs);
    const list = flags.get(name) ?? [];
    if (list.length > 0 && !specs[name].repeat) throw new UsageError(`--${name} was given more than once.`);
    list.push(value);
    flags.set(name, list);
  }
  return { positionals, flags };
}

/**
 * The flag's name and value, or the usage error that says what is wrong with it. `word`: the whole
 * word it came from (`-vault` is split into -v, -a, …, and the refusal names what was typed).
 */
function optionValue(token: Extract<Token, { kind: "option" }>, word: string, specs: FlagSpecs): [string, string] {
  const short = !token.rawName.startsWith("--");
  const name = short ? SHORT_FLAGS[token.name] : token.name;
  if (short && (!name || !specOf(specs, name))) throw singleDashRefusal(word, specs);
  const spec = specOf(specs, name);
  if (!spec) {
    const suggestion = nearest(name.toLowerCase(), Object.keys(specs));
    throw new UsageError(`Unknown option --${name}.${suggestion ? ` Did you mean --${suggestion}?` : ""}`);
  }
  if (!spec.value) {
    if (token.inlineValue) throw new UsageError(`--${name} is a switch and takes no value.`);
    return [name, "true"];
  }
  const value = token.value;
  // `--vault --json`: the next word is a flag, so the value was forgotten. `--cache-dir $UNSET -- "$Q"`:
  // the next word is the separator, and taken as the value it made a folder named `--` (`--cache-dir=--` still can).
  if (value === undefined || (!token.inlineValue && value.startsWith("--"))) throw new UsageError(`--${name} needs a value.`);
  // `--replay "$DIR"` with DIR unset: read as absent, it would quietly search the live web instead.
  if (value.trim() === "") throw new UsageError(`--${name} is empty: give it a value, or leave the flag out.`);
  return [name, value];
}

/** The flag table's own entry: `--constructor` is no flag, whatever an object inherits. */
function specOf(specs: FlagSpecs, name: string): FlagSpec | undefined {
  return Object.hasOwn(specs, name) ? specs[name] : undefined;
}

/** `-vault`: the flag it meant, or, for a question that starts with a dash, where such words go. */
function singleDashRefusal(word: string, specs: FlagSpecs): UsageError {
  const meant = nearest(word.slice(1).split("=")[0].toLowerCase(), Object.keys(specs));
  if (meant) return new UsageError(`Unknown option ${word}. Options are written with two dashes: did you mean --${meant}?`);
  return new UsageError(`Unknown option ${word}. Options are written with two dashes, e.g. --json; a question that starts with a dash goes last, after the options and --: … -- "${word}".`);
}

/** Dashes a text editor's autocorrect makes of `--` or `-` (en dash, em dash, minus sign…). */
const TYPOGRAPHIC_FLAG = /^[\u2010-\u2015\u2212][\u2010-\u2015\u2212-]?([A-Za-z][\w-]*)(=.*)?$/s;

/**
 * `—json` pasted from a chat or a document: read as a word it joined the question and the flag was
 * silently not given (`—no-trace` kept the trace). A word that names a flag so is refused; after
 * `--`, or naming none, it is a word.
 */
function refuseTypographicDash(word: string, specs: FlagSpecs): void {
  const name = typographicFlagName(word);
  const meant = name === undefined ? undefined : specOf(specs, name) ? name : nearest(name, Object.keys(specs));
  if (meant) throw new UsageError(typographicDashMessage(word, meant));
}

/** The flag name a word written with a typographic dash spells (`—JSON` → `json`), or undefined for any other word. */
export function typographicFlagName(word: string): string | undefined {
  return TYPOGRAPHIC_FLAG.exec(word)?.[1]?.toLowerCase();
}

/** The refusal of a word that names the flag `--name` with a typographic dash. */
export function typographicDashMessage(word: string, name: string): string {
  return `"${word}" is written with a typographic dash: options take two hyphens, --${name}.`;
}

export function flag(args: ParsedArgs, name: string): string | undefined {
  return args.flags.get(name)?.[0];
}

export function flagAll(args: ParsedArgs, name: string): string[] {
  return args.flags.get(name) ?? [];
}

export function has(args: ParsedArgs, name: string): boolean {
  return args.flags.has(name);
}

export function intFlag(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const raw = flag(args, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number, not ${valueShown(raw)}.`);
  const n = Number(raw);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max} (got ${n}).`);
  return n;
}

/**
 * A flag's value as a refusal repeats it, quoted; a key pasted into the wrong flag (`--limit sk-…`) is
 * not repeated: one the environment does not hold would reach the terminal, and any log of it, whole.
 * The rule is text/value-shown.ts's (the model and embedding specs in llm/ use it too).
 */
export function valueShown(raw: string): string {
  return valueShownAs(raw, looksLikeApiKey);
}

/** The option nearest to `name` (at most 2 edits away), for "did you mean". */
export function nearest(name: string, options: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const option of options) {
    const d = editDistance(name, option);
    if (d < bestDistance) {
      bestDistance = d;
      best = option;
    }
  }
  return best;
}
