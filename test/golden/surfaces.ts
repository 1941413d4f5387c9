// The surfaces whose output is pinned by golden files, and how each turns an input file into the
// output a reviewer reads. test/golden/golden.test.ts finds every input of every surface folder:
// adding a case is adding an input file and its expected output (UPDATE_GOLDEN=1 writes it).
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as z from "zod";
import { runCli } from "../../src/cli/run";
import { parseNote } from "../../src/index/markdown";
import { fakeClock } from "../support/fake-clock";

export const REPO_ROOT = path.resolve(__dirname, "../..");

export interface GoldenSurface {
  /** What the output is, in the test's name. */
  what: string;
  /** The ending that marks an input file of this surface. */
  inputSuffix: string;
  /** The expected output's file name, beside the input. */
  outputFor(caseName: string, input: string): string;
  render(inputPath: string): Promise<string>;
}

/** A CLI case: the command and its arguments; the runner adds `--vault` and a fresh `--cache-dir`. */
const cliCaseSchema = z.strictObject({
  /** Why this case exists, in one sentence. */
  about: z.string(),
  argv: z.array(z.string()).min(1),
  /** A folder of markdown, relative to the repository; null for a command that reads no vault. */
  vault: z.string().nullable().default("examples/vault"),
  /** `txt` for what a person reads, `json` for `--json` output. */
  output: z.enum(["txt", "json"]),
  /**
   * Files copied into the fresh cache folder first (its name → a file of the repository), for a
   * command that may write to the file it is given: `<cache>` in `argv` names that folder.
   */
  copies: z.record(z.string(), z.string()).default({}),
});

/**
 * Runs the CLI in-process, from the repository root, with no keys, a fresh cache and the fake clock;
 * the repository and the cache folder are written `<repo>` and `<cache>` in the output.
 */
async function renderCliCase(inputPath: string): Promise<string> {
  const spec = cliCaseSchema.parse(JSON.parse(readFileSync(inputPath, "utf8")));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), "vr-golden-"));
  let out = "";
  let err = "";
  try {
    for (const [name, from] of Object.entries(spec.copies)) copyFileSync(path.join(REPO_ROOT, from), path.join(cacheDir, name));
    const [command, ...rest] = spec.argv.map((arg) => arg.split("<cache>").join(cacheDir));
    const argv = spec.vault === null ? spec.argv : [command, ...rest, "--vault", path.join(REPO_ROOT, spec.vault), "--cache-dir", cacheDir];
    const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env: {}, cwd: REPO_ROOT, clock: fakeClock() });
    if (code !== 0) throw new Error(`vault-research ${spec.argv.join(" ")} exited ${code}:\n${err}`);
    // Absolute paths differ per machine and run (and the cache's folder is named by a hash of the
    // vault's absolute path): the output names them by their part.
    return out
      .split(cacheDir)
      .join("<cache>")
      .split(REPO_ROOT)
      .join("<repo>")
      .replace(/<cache>\/index-[0-9a-f]+/g, "<cache>/index-<vault id>");
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

export const GOLDEN_SURFACES: Record<string, GoldenSurface> = {
  markdown: {
    what: "a note as the parser reads it (sections, offsets, links, tags, problems)",
    inputSuffix: ".md",
    outputFor: (name) => `${name}.json`,
    // Offsets depend on line endings: .gitattributes keeps these inputs byte-exact.
    render: async (inputPath) => `${JSON.stringify(parseNote(path.basename(inputPath), readFileSync(inputPath, "utf8")), null, 2)}\n`,
  },
  cli: {
    what: "CLI output",
    inputSuffix: ".args.json",
    outputFor: (name, input) => `${name}.${cliCaseSchema.parse(JSON.parse(input)).output}`,
    render: renderCliCase,
  },
};
