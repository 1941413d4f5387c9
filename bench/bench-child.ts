// The bench's child processes: each runs one measurement in a fresh heap and prints its figures as
// one JSON line (the parent in bench.ts reads the last line).
import { readFileSync } from "node:fs";
import { coldOurs, coldPlain } from "./measure-cold";
import { searchBoth } from "./measure-search";
import { underLimit } from "./measure-limit";
import { changedNoteSaves, warmOurs, warmPlain } from "./measure-warm";

export async function runChildTask(task: string, arg: (name: string) => string | undefined): Promise<void> {
  const need = (name: string): string => {
    const value = arg(name);
    if (value === undefined) throw new Error(`--${name} is needed for ${task}`);
    return value;
  };
  let figures: Record<string, unknown>;
  switch (task) {
    case "cold-ours":
      figures = await coldOurs(need("vault"), need("work"));
      break;
    case "cold-plain":
      figures = await coldPlain(need("vault"), need("plain"));
      break;
    case "search":
      figures = await searchBoth({
        vault: need("vault"),
        work: need("work"),
        plainFile: need("plain"),
        queries: JSON.parse(readFileSync(need("queries"), "utf8")) as string[],
        warmUp: Number(need("warm-up")),
        reps: Number(need("reps")),
        extras: process.argv.includes("--extras"),
      });
      break;
    case "warm-ours":
      figures = await warmOurs(need("vault"), need("work"));
      break;
    case "warm-plain":
      figures = await warmPlain(need("plain"));
      break;
    case "changes":
      figures = await changedNoteSaves(need("vault"), need("work"));
      break;
    case "limit":
      figures = await underLimit(need("vault"), need("work"), need("query"));
      break;
    default:
      throw new Error(`no bench task "${task}"`);
  }
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}
