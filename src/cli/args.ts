// Command-line parsing, strict on purpose: an unknown or misspelt flag is a usage error (exit 2),
// never silently ignored, because a scripted evaluation that quietly ran with defaults is worse
// than one that stopped.
import { editDistance } from "../research/stages/verify-citations";

export interface FlagSpec {
  /** Takes a value (`--limit 5` / `--limit=5`), else a boolean switch. */
  value: boolean;
  /** May be given more than once (values collected in order). */
  repeat?: boolean;
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

export function parseArgs(argv: string[], specs: FlagSpecs): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string[]>();
  let onlyPositionals = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (onlyPositionals || !arg.startsWith("--") || arg === "--") {
      if (arg === "--" && !onlyPositionals) {
        onlyPositionals = true;
        continue;
      }
      if (!onlyPositionals && arg.startsWith("-") && arg.length > 1 && !/^-\d/.test(arg)) {
        throw new UsageError(`Unknown option ${arg}. Options are written with two dashes, e.g. --json.`);
      }
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const spec = specs[name];
    if (!spec) {
      const suggestion = nearest(name, Object.keys(specs));
      throw new UsageError(`Unknown option --${name}.${suggestion ? ` Did you mean --${suggestion}?` : ""}`);
    }
    let value: string;
    if (spec.value) {
      if (eq !== -1) value = arg.slice(eq + 1);
      else {
        const next = argv[i + 1];
        if (next === undefined || (next.startsWith("--") && next.length > 2)) throw new UsageError(`--${name} needs a value.`);
        value = next;
        i++;
      }
    } else {
      if (eq !== -1) throw new UsageError(`--${name} is a switch and takes no value.`);
      value = "true";
    }
    const list = flags.get(name) ?? [];
    if (list.length > 0 && !spec.repeat) throw new UsageError(`--${name} was given more than once.`);
    list.push(value);
    flags.set(name, list);
  }
  return { positionals, flags };
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
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number, not "${raw}".`);
  const n = Number(raw);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max} (got ${n}).`);
  return n;
}

function nearest(name: string, options: string[]): string | undefined {
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
