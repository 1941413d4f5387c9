// Shared by the evaluation scripts: each labelled set is scored on its own vault (the sample vault,
// and ../shared/corpora when it sits beside the repo), skipped with a reason when absent, and the
// figures are printed as one JSON object. The held-out sets (heldout-paraphrase.json, heldout-fresh.json)
// were written before the ranking and judge code was read; heldout-fresh was never tuned on at all.
// --set NAME scores one set only; --misses lists every miss; --associations turns on the vault's
// word associations (query expansion and the judge's stand-ins), which are off by default;
// --no-language turns off the vault-language lane (on by default), and --language-weight W /
// --language-k K change its fusion (for choosing them on the tuning halves); --language-lead G|off
// sets or drops the words' first place kept when it scores G times their second; --named-place P|off
// moves (0 = first) or turns off the lift of a note the question names; --exclude F1,F2 leaves those
// folders of the vault out (folders no question points to: how much the figures move when a few
// unrelated notes go is the noise any change must beat, evals/README.md, eleventh part); --noise
// scores the sets over ../shared/corpora four more times, each with some of NOISE_FOLDERS left
// out, and gives each figure's band (lowest, highest) over the five runs and how many questions
// gave another top 5 or verdict in one of them; --language-seed N starts the lane's eigensolver
// from seed N, and --seeds scores the corpora's sets with the lane learned from three more seeds
// (the same band: how much of a figure is the draw of the start).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { envSecretValues } from "../src/cli/env-secrets";
import { FsNoteStore } from "../src/cli/fs-note-store";
import { bundledNodeWorkers } from "../src/cli/node-workers";
import { readEvalSet, relevantNotInVault, type CaseCheck } from "../src/eval/eval-set";
import { DEFAULT_ASSOCIATION_LIMITS } from "../src/index/associations/term-associations";
import { DEFAULT_RANKING, VaultIndex, type RankingOptions } from "../src/index/vault-index";
import { DEFAULT_VAULT_LANGUAGE } from "../src/index/vault-language/language-lane";
import { DEFAULT_WORD_MEANING } from "../src/index/vault-language/word-meanings";
import { secretScrubber } from "../src/text/secret-scrub";

const root = path.resolve(__dirname, "..");

/**
 * Every key of the environment, as the CLI scrubs them: out of what the scripts print, and (eval:search)
 * out of the queries its dial sends — a question or a logged query may hold one the log never knew.
 */
export const keysScrubbed = secretScrubber(envSecretValues(process.env));

/** The value after `--name`, or undefined when the flag is absent; a flag given without a value stops the script (exit 2), never falls back to its default. */
export function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return undefined;
  const value = process.argv[i + 1];
  if (value !== undefined && !value.startsWith("--")) return value;
  process.stderr.write(`eval: --${name} needs a value.\n`);
  process.exit(2);
}

/** The sets the scripts score, in order. */
export const EVAL_SET_NAMES = ["sample-vault", "corpora", "heldout-paraphrase", "heldout-fresh"] as const;

/** The sets `--set NAME` picks (all without it); a name that is no set stops the script, never scores nothing. */
export function pickedSets(asked: string | undefined): readonly string[] {
  if (asked === undefined) return EVAL_SET_NAMES;
  if ((EVAL_SET_NAMES as readonly string[]).includes(asked)) return [asked];
  process.stderr.write(`eval: --set ${asked} is no set; the sets are ${EVAL_SET_NAMES.join(", ")}.\n`);
  process.exit(2);
}

/**
 * `kind` is the folder under evals/ ("search" or "judge"); `score` is also told the set's vault
 * folder and the set's name; `check` refuses a case its scorer would misread. A set naming a note its vault does not
 * have is refused too: that question would be a miss no ranking could mend.
 */
export async function runEvalSets<Case extends { question: string; id?: string; relevant?: readonly string[] }>(
  kind: string,
  score: (index: VaultIndex, store: FsNoteStore, cases: Case[], vault: string, set: string) => Promise<Record<string, unknown>>,
  check?: CaseCheck,
): Promise<void> {
  const corpora = path.resolve(root, "../shared/corpora");
  const picked = pickedSets(argValue("set"));
  const sets = [
    { name: "sample-vault", vault: path.join(root, "examples/vault"), file: path.join(root, `evals/${kind}/sample-vault.json`) },
    { name: "corpora", vault: corpora, file: path.join(root, `evals/${kind}/corpora.json`) },
    { name: "heldout-paraphrase", vault: corpora, file: path.join(root, `evals/${kind}/heldout-paraphrase.json`) },
    { name: "heldout-fresh", vault: corpora, file: path.join(root, `evals/${kind}/heldout-fresh.json`) },
  ].filter((set) => picked.includes(set.name));
  const out: Record<string, unknown> = {};
  const indexes = new Map<string, { index: VaultIndex; store: FsNoteStore }>();
  try {
    for (const set of sets) {
      if (!existsSync(set.vault) || !existsSync(set.file)) {
        out[set.name] = { skipped: `${existsSync(set.vault) ? set.file : set.vault} is absent` };
        continue;
      }
      const read = readEvalSet<Case>(JSON.parse(readFileSync(set.file, "utf8")), path.relative(root, set.file), check);
      if (!read.ok) throw new Error(read.error.message);
      let built = indexes.get(set.vault);
      if (!built) indexes.set(set.vault, (built = await buildIndex(set.vault, [])));
      const index = built.index;
      const absent = relevantNotInVault(read.set.cases, (p) => index.note(p) !== undefined);
      if (absent.length > 0) {
        const shown = absent.slice(0, 5).map((a) => `${a.case}: ${a.path}`).join("; ");
        throw new Error(`${path.relative(root, set.file)}: ${absent.length} note${absent.length === 1 ? "" : "s"} of \`relevant\` not in the index of ${set.vault} (absent, or left out by --exclude): ${shown}${absent.length > 5 ? "; …" : ""}`);
      }
      const main = await score(built.index, built.store, read.set.cases, set.vault, set.name);
      out[set.name] = { ...(read.set.about ? { about: read.set.about } : {}), ...withoutGave(main) };
      if (process.argv.includes("--noise") && set.vault === corpora) {
        out[set.name] = { ...(out[set.name] as Record<string, unknown>), noise: await noiseBand(read.set.cases, main, (left) => scoreVariant({ left }, set.vault, set.name, read.set.cases, score)) };
      }
      if (process.argv.includes("--seeds") && set.vault === corpora) {
        out[set.name] = { ...(out[set.name] as Record<string, unknown>), seeds: await seedBand(main, (seed) => scoreVariant({ left: [], seed }, set.vault, set.name, read.set.cases, score)) };
      }
    }
    process.stdout.write(`${JSON.stringify(keysScrubbed.value(out), null, 2)}\n`);
  } catch (error) {
    process.stderr.write(keysScrubbed.text(`eval failed: ${error instanceof Error ? error.message : String(error)}\n`));
    process.exitCode = 1;
  }
}

/**
 * Folders of ../shared/corpora that no question of any set points to (7, 10 and 11 notes). Leaving
 * them out changes nothing a question asks about, only the vault's words, so how far a figure then
 * moves is the noise a change must beat.
 */
export const NOISE_FOLDERS = ["foam-docs/dev", "silverbullet-docs/ADR", "obsidian-tasks-docs/_meta"];

/** Each noise folder left out alone, then all of them. */
const NOISE_RUNS: string[][] = [...NOISE_FOLDERS.map((f) => [f]), NOISE_FOLDERS];

/** The indexes of the noise and seed runs, by what they leave out and their seed: the sets over the corpora share them. */
const variantIndexes = new Map<string, { index: VaultIndex; store: FsNoteStore }>();

/** A variant of the vault's index: folders left out, or another seed for the lane's eigensolver. */
interface Variant {
  left: string[];
  seed?: number;
}

async function scoreVariant<Case>(
  variant: Variant,
  vault: string,
  name: string,
  cases: Case[],
  score: (index: VaultIndex, store: FsNoteStore, cases: Case[], vault: string, set: string) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const key = `${variant.left.join("\n")}\u0000${variant.seed ?? ""}`;
  let built = variantIndexes.get(key);
  if (!built) variantIndexes.set(key, (built = await buildIndex(vault, variant.left, variant.seed)));
  return score(built.index, built.store, cases, vault, name);
}

/** The vault indexed as the flags ask, `left` left out besides what `--exclude` names, its language learned (with `seed`, when given). */
async function buildIndex(vault: string, left: string[], seed?: number): Promise<{ index: VaultIndex; store: FsNoteStore }> {
  const built = { index: new VaultIndex({ ranking: rankingFromFlags(seed), excludedFolders: [...excludedFromFlags(), ...left], workers: bundledNodeWorkers() }), store: new FsNoteStore(vault) };
  await built.index.sync(built.store, null);
  await built.index.languageSettled();
  return built;
}

/** A report as printed: without `gave`, what each question gave (for the noise runs' comparison only). */
function withoutGave(report: Record<string, unknown>): Record<string, unknown> {
  const { gave: _gave, ...rest } = report;
  return rest;
}

/**
 * The set's numeric figures in every noise run, and each figure's lowest and highest over them and
 * the main run; when the reports say what each question gave (`gave`: one string a question, in
 * the set's order), also how many questions gave something else in at least one run.
 */
export async function noiseBand<Case>(cases: Case[], main: Record<string, unknown>, run: (left: string[]) => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
  for (const c of cases) {
    const relevant = (c as { relevant?: unknown }).relevant;
    const paths: unknown[] = Array.isArray(relevant) ? relevant : [];
    const inside = paths.find((p): p is string => typeof p === "string" && NOISE_FOLDERS.some((f) => p.startsWith(`${f}/`)));
    if (inside !== undefined) throw new Error(`--noise leaves out ${inside}, which a question points to: choose other NOISE_FOLDERS.`);
  }
  return bandOver(
    main,
    NOISE_RUNS.map((left) => ({ label: { left_out: left }, run: () => run(left) })),
  );
}

/** How many other seeds `--seeds` learns the lane with: the main run's seed + 1, + 2, + 3. */
const SEED_RUNS = 3;

/**
 * The same as `noiseBand`, over the lane learned from other seeds of its eigensolver's start: how
 * much of a figure is the draw of the start (evals/README.md, twelfth part).
 */
export async function seedBand(main: Record<string, unknown>, run: (seed: number) => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
  const first = seedFromFlags() ?? DEFAULT_WORD_MEANING.seed ?? 1;
  return bandOver(
    main,
    Array.from({ length: SEED_RUNS }, (_, i) => first + i + 1).map((seed) => ({ label: { seed }, run: () => run(seed) })),
  );
}

/** Each numeric figure's lowest and highest over the main run and the variants, each variant's figures, and (with `gave`) the questions that moved. */
async function bandOver(main: Record<string, unknown>, variants: { label: Record<string, unknown>; run: () => Promise<Record<string, unknown>> }[]): Promise<Record<string, unknown>> {
  const numbers = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter((e): e is [string, number] => typeof e[1] === "number" && e[0] !== "cases"));
  const runs: Record<string, unknown>[] = [];
  const band: Record<string, [number, number]> = {};
  const widen = (figures: Record<string, number>) => {
    for (const [key, value] of Object.entries(figures)) band[key] = key in band ? [Math.min(band[key][0], value), Math.max(band[key][1], value)] : [value, value];
  };
  widen(numbers(main));
  const gave = (r: Record<string, unknown>) => (Array.isArray(r.gave) ? (r.gave as unknown[]) : null);
  const moved = new Set<number>();
  for (const variant of variants) {
    const result = await variant.run();
    const figures = numbers(result);
    runs.push({ ...variant.label, ...figures });
    widen(figures);
    gave(result)?.forEach((g, i) => g !== gave(main)?.[i] && moved.add(i));
  }
  return { runs, band, ...(gave(main) ? { questions_moved: moved.size } : {}) };
}

/** The folders `--exclude` names (comma-separated, relative to the vault), none without it. */
function excludedFromFlags(): string[] {
  return (argValue("exclude") ?? "").split(",").map((f) => f.trim()).filter((f) => f !== "");
}

/** `--language-seed N`: the lane's eigensolver starts from seed N (1 by default); undefined without the flag. */
function seedFromFlags(): number | undefined {
  const flag = argValue("language-seed");
  if (flag === undefined) return undefined;
  const seed = Number(flag);
  if (!Number.isInteger(seed) || seed < 0) throw new Error("--language-seed takes a whole number from 0.");
  return seed;
}

/** The ranking the flags ask for (the defaults without any); `seed` overrides `--language-seed`. */
function rankingFromFlags(seed?: number): Partial<RankingOptions> {
  const ranking: Partial<RankingOptions> = process.argv.includes("--associations") ? { associations: DEFAULT_ASSOCIATION_LIMITS } : {};
  const namedFlag = argValue("named-place");
  if (namedFlag !== undefined) {
    const place = namedFlag === "off" ? null : Number(namedFlag);
    if (place !== null && !(Number.isInteger(place) && place >= 0)) throw new Error("--named-place takes a place from 0 (first), or off.");
    ranking.namedPlace = place;
  }
  if (process.argv.includes("--no-language")) {
    if (process.argv.includes("--seeds") || seedFromFlags() !== undefined) throw new Error("--seeds and --language-seed need the vault-language lane; drop --no-language.");
    return { ...ranking, vaultLanguage: null };
  }
  const base = DEFAULT_RANKING.vaultLanguage ?? DEFAULT_VAULT_LANGUAGE;
  const weight = Number(argValue("language-weight") ?? base.fusion.weight);
  const k = Number(argValue("language-k") ?? base.fusion.k);
  const damping = Number(argValue("language-damping") ?? base.fusion.damping ?? 0);
  const leadFlag = argValue("language-lead");
  const lead = leadFlag === "off" ? undefined : leadFlag === undefined ? base.fusion.lead : Number(leadFlag);
  if (lead !== undefined && !(lead > 0)) throw new Error("--language-lead takes a number above 0, or off.");
  if (!Number.isFinite(weight) || weight < 0 || !Number.isFinite(k) || k < 0) throw new Error("--language-weight and --language-k take numbers from 0.");
  const maxShare = argValue("language-max-share");
  const withShare = maxShare === undefined ? base.words : { ...base.words, maxPassageShare: Number(maxShare) };
  const chosenSeed = seed ?? seedFromFlags();
  const words = chosenSeed === undefined ? withShare : { ...withShare, seed: chosenSeed };
  const standIns = argValue("language-stand-ins");
  const standInOptions = standIns === undefined ? base.standIns : standIns === "off" ? null : { minSimilarity: Number(standIns), perWord: 3 };
  return { ...ranking, vaultLanguage: { ...base, words, fusion: { ...base.fusion, weight, k, damping, lead }, standIns: standInOptions } };
}

export const wantsMisses = process.argv.includes("--misses");
