// `npm run bench`: indexing, start-up, saving and search at three vault sizes, each figure beside
// the same measurement of plain MiniSearch (fields title and text, default options, default search)
// over the same files, so the ratios hold still while the machine's speed varies. Prints one JSON
// object; progress goes to stderr.
//
// Vaults: --vault DIR (else ../shared/corpora when present, else a generated 10,000-note vault), and
// renamed copies of it at 50,000 and 100,000 notes (--sizes picks, e.g. --sizes base,50000). Each
// size is measured in fresh processes: cold index and first save of each side in its own process,
// alternated (heap and peak RSS of that side alone); search with both in one process; warm starts
// alternated; saves after 1 and 500 changed notes. At the largest size ours also runs under
// --max-old-space-size=512 on one core; at the two smaller ones a CLI search is timed against a
// fresh process that loads plain's JSON and searches once.
//
// Two figures for blocking: `longest_slice_ms`, the longest stretch of our own work between two
// yields (as the index reports it to `yieldToUi`), and `longest_block_ms`, the longest the event loop
// was blocked at all (a V8 garbage collection, a cache part decoded, another process taking the CPU
// on a shared machine); for each the least of the runs is reported, since noise only ever adds to it
// (at the two larger sizes each side runs once, so one unlucky run shows). Beside each longest
// slice, `longest_slice_in`: the functions it ended in ("multiply ← topEigenpairs ← ..."), which
// says where to look (a slice that ended in a loop that pauses often was most likely stretched by the garbage
// collector).
//
// The vault-language lane is learned (cold) or taken back (warm) behind the ready index, after the
// figures above stop: `vault_language_learning` and `warm_start.vault_language_fill_*` say what it
// costs, with its own longest slice and block (it runs while the user works, so the same 50 ms line).
//
// Last, the search dial's vector lane (bench-embeddings.ts, in its own process): bytes per section
// on disk and in memory, and p95 of brute-force cosine at 10k, 50k and 100k sections.
//
// The figures and targets are assembled in bench-figures.ts. A size whose measurement fails is
// reported in its place (`failed`, with the child's reason), its targets null; the rest still prints.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot, round, runChild, type ChildOutcome } from "./bench-tools";
import { renamedCopies } from "./copy-vault";
import { generateVault } from "./generate-vault";
import { cliSearch } from "./measure-cli";
import { runChildTask } from "./bench-child";
import { coldFigures, failedSize, targetsOf, warmFigures, type Figures } from "./bench-figures";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

function pickVault(): { dir: string; kind: string } {
  const given = arg("vault");
  if (given) return { dir: path.resolve(given), kind: "given" };
  const shared = path.resolve(repoRoot(), "../shared/corpora");
  if (existsSync(shared)) return { dir: shared, kind: "../shared/corpora" };
  const dir = path.join(os.tmpdir(), "vault-research-bench-generated-10000");
  if (!existsSync(path.join(dir, ".complete"))) {
    mkdirSync(dir, { recursive: true });
    generateVault(dir, 10_000, 42);
    writeFileSync(path.join(dir, ".complete"), "");
  }
  return { dir, kind: "generated (10,000 notes, seed 42)" };
}

/** The 160 questions of evals/search when the vault is the corpora they were written for. */
function queryList(vault: string): string[] {
  const file = path.resolve(repoRoot(), "evals/search/corpora.json");
  const cases = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { question: string; relevant: string[] }[]) : [];
  if (cases.length > 0 && existsSync(path.join(vault, cases[0].relevant[0]))) return cases.map((c) => c.question);
  return ["how do I extract a tar archive", "recurring tasks", "daily notes template", "search query syntax", "sync notes between devices", "keyboard shortcuts", "convert markdown to html", "git commit message", "publish site", "backlinks graph view", "dendron lookup hierarchy", "due date filter"];
}

function log(text: string): void {
  process.stderr.write(`bench: ${text}\n`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function resultOf(outcome: ChildOutcome, what: string): Record<string, unknown> {
  if (outcome.ok) return outcome.result;
  throw new Error(`${what} failed (exit ${outcome.code ?? outcome.signal}): ${outcome.stderr}`);
}

/** Cold builds of each side in their own processes, alternated, `rounds` of each. */
async function coldRuns(vault: string, cache: string, plainFile: string, rounds: number): Promise<Figures> {
  const ours: Figures[] = [];
  const plain: Figures[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? ["plain", "ours"] : ["ours", "plain"]) {
      if (side === "plain") plain.push(resultOf(await runChild("cold-plain", ["--vault", vault, "--plain", plainFile]), "plain's cold index"));
      else ours.push(resultOf(await runChild("cold-ours", ["--vault", vault, "--work", cache]), "our cold index"));
    }
  }
  return coldFigures(ours, plain);
}

/** Warm starts, ours and plain alternated, each in a fresh process. */
async function warmRuns(vault: string, cache: string, plainFile: string, runs: number): Promise<Figures> {
  const ours: Figures[] = [];
  const plain: Figures[] = [];
  for (let run = 0; run < runs; run++) {
    plain.push(resultOf(await runChild("warm-plain", ["--plain", plainFile]), "plain's warm start"));
    ours.push(resultOf(await runChild("warm-ours", ["--vault", vault, "--work", cache]), "our warm start"));
  }
  return warmFigures(ours, plain);
}

/** Every measurement of one size; `base` is the source vault, copied and renamed up to `notes`. */
async function measureSize(base: string, notes: number | null, queries: string[], work: string, smallest: boolean): Promise<Figures> {
  const vault = notes === null ? base : renamedCopies(base, notes);
  const cache = path.join(work, "ours");
  const plainFile = path.join(work, "plain.json");
  const name = path.basename(vault);
  mkdirSync(work, { recursive: true });
  log(`${name}: cold index and first save, each side in its own process, alternated`);
  // Four rounds at the smallest size: with two, its ratio swung from 0.87 to 1.39 between runs of the
  // same code on this shared machine (stops 32 and 33), across its 1.2 target.
  const cold = await coldRuns(vault, cache, plainFile, smallest ? 4 : 1);
  log(`${name}: search, both indexes in one process`);
  // Plain's default search takes a second a query at 100,000 notes: larger vaults get every other question.
  const asked = smallest ? queries : queries.filter((_, i) => i % 2 === 0);
  const queriesFile = path.join(work, "queries.json");
  writeFileSync(queriesFile, JSON.stringify(asked));
  const searchArgs = ["--vault", vault, "--work", cache, "--plain", plainFile, "--queries", queriesFile, "--warm-up", String(smallest ? asked.length : 20), "--reps", smallest ? "3" : "1"];
  const search = resultOf(await runChild("search", [...searchArgs, ...(smallest ? ["--extras"] : [])]), "the search run");
  log(`${name}: warm starts, ours and plain alternated`);
  const warm = await warmRuns(vault, cache, plainFile, smallest ? 3 : 2);
  log(`${name}: saves after 1 and 500 changed notes`);
  const changes = resultOf(await runChild("changes", ["--vault", vault, "--work", cache]), "the changed-notes saves");
  cold.peak_rss_mb.warm_start = { ours: warm.peak_rss_mb, plain: warm.plain_peak_rss_mb };
  return { vault: notes === null ? "the vault itself" : "renamed copies of it (the vocabulary does not grow)", ...cold, ...search, warm_start: warm, save_after_changes: changes, _paths: { vault, plainFile } };
}

async function main(): Promise<void> {
  const vault = pickVault();
  const queries = queryList(vault.dir);
  const work = path.join(os.tmpdir(), `vault-research-bench-${process.pid}`);
  mkdirSync(work, { recursive: true });
  // Blocks and slices are wall-clock time: other jobs on a shared machine's cores stretch them.
  const loadBefore = os.loadavg().map((n) => round(n, 2));
  const sizes = (arg("sizes") ?? "base,50000,100000").split(",").map((s) => (s === "base" ? null : Number(s)));
  const bySize: Record<string, Figures> = {};
  for (const [i, notes] of sizes.entries()) {
    // A measurement that fails is reported in its size's place: the other sizes' figures still print.
    try {
      const figures = await measureSize(vault.dir, notes, queries, path.join(work, String(i)), i === 0);
      // Keys that are not integers keep their order in a JSON object.
      bySize[`${figures.notes} notes`] = figures;
    } catch (error) {
      log(`${notes ?? "the vault itself"}: failed`);
      bySize[`${notes === null ? "the vault itself" : `${notes} notes`} (failed)`] = failedSize(messageOf(error));
    }
  }
  const largest = Object.values(bySize).filter((f) => f.failed === undefined).at(-1);
  let limit: Figures = { skipped: "no size was measured" };
  if (largest) {
    log("under --max-old-space-size=512 on one core");
    const limitOutcome = await runChild("limit", ["--vault", largest._paths.vault as string, "--work", path.join(work, "limit"), "--query", queries[0]], { maxOldSpaceMb: 512, oneCore: true });
    limit = limitOutcome.ok ? limitOutcome.result : { ok: false, exit: limitOutcome.code ?? limitOutcome.signal, stderr: limitOutcome.stderr };
  }
  const cli: Record<string, Figures> = {};
  for (const [size, figures] of Object.entries(bySize).slice(0, 2)) {
    if (figures.failed !== undefined) continue;
    log(`CLI search against plain's fresh process (${size})`);
    const { vault: dir, plainFile } = figures._paths as { vault: string; plainFile: string };
    cli[size] = await cliSearch(dir, path.join(work, `cli-${size}`), plainFile, queries.slice(0, 3), 2).catch((error: unknown) => failedSize(messageOf(error)));
  }
  for (const figures of Object.values(bySize)) delete figures._paths;
  log("the dial's vector lane (int8 vectors, brute-force cosine) at 10k, 50k and 100k sections");
  const vectors = vectorLane();
  const loadAverage = { at_start: loadBefore, at_end: os.loadavg().map((n) => round(n, 2)), what: "1, 5 and 15 minute load averages; above the core count, other jobs were waiting for a core" };
  const figures = { vault: { path: vault.dir, kind: vault.kind }, node: process.version, cores: os.cpus().length, load_average: loadAverage, sizes: bySize, under_512_mb_one_core: limit, cli_search_warm_cache: cli, vector_lane: vectors };
  process.stdout.write(`${JSON.stringify({ figures, targets: targetsOf(bySize, limit, cli) }, null, 2)}\n`);
  if ([...Object.values(bySize), ...Object.values(cli)].some((f) => f.failed !== undefined)) {
    process.stderr.write("bench: a measurement failed (see `failed` in the figures)\n");
    process.exitCode = 1;
  }
  // The caches and plain's JSON (hundreds of MB); the renamed copies stay for the next run.
  rmSync(work, { recursive: true, force: true });
}

/**
 * The vector lane's own bench (bench-embeddings.ts: bytes per section, p95 of the level-2 and
 * level-3 lanes) in a process of its own, so its vectors do not sit in this one's heap.
 */
function vectorLane(): Record<string, unknown> {
  try {
    const out = execFileSync(process.execPath, ["--expose-gc", path.join(__dirname, "bench-embeddings.cjs")], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024, stdio: ["ignore", "pipe", "inherit"] });
    return JSON.parse(out) as Record<string, unknown>;
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

if (process.argv.includes("--child")) {
  runChildTask(process.argv[process.argv.indexOf("--child") + 1], arg).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
} else {
  main().catch((error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
