// STYLE.md: each folder under src/ has a short README (what it owns, its contract, what it must
// never import), and every source file over 100 lines has a sibling test or is named in its
// folder's README on a `Tested elsewhere:` line with the test that covers it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");
const src = path.join(root, "src");

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? walk(full) : [full];
  });
}

const topFolders = readdirSync(src, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);

/** The README that speaks for a file: its own folder's, else the nearest one above it under src/. */
function readmeFor(file: string): string {
  let dir = path.dirname(file);
  while (dir.startsWith(src)) {
    const readme = path.join(dir, "README.md");
    if (existsSync(readme)) return readFileSync(readme, "utf8");
    dir = path.dirname(dir);
  }
  return "";
}

/** File names in backticks on the README's `Tested elsewhere:` lines. */
export function testedElsewhere(readme: string): Set<string> {
  const names = readme
    .split("\n")
    .filter((line) => line.startsWith("Tested elsewhere:"))
    .flatMap((line) => Array.from(line.matchAll(/`([^`]+\.ts)`/g), (m) => m[1]));
  return new Set(names);
}

function hasSiblingTest(file: string): boolean {
  const rel = path.relative(src, file);
  const dir = path.join(root, "test", path.dirname(rel));
  const base = path.basename(rel, ".ts");
  if (!existsSync(dir)) return false;
  return readdirSync(dir).some((name) => name === `${base}.test.ts` || (name.startsWith(`${base}-`) && name.endsWith(".test.ts")));
}

describe("folder READMEs", () => {
  it("every folder of src/ has a README of 10 to 30 lines", () => {
    const problems = topFolders.flatMap((folder) => {
      const readme = path.join(src, folder, "README.md");
      if (!existsSync(readme)) return [`src/${folder}: no README.md`];
      const lines = readFileSync(readme, "utf8").trimEnd().split("\n").length;
      return lines < 10 || lines > 30 ? [`src/${folder}/README.md: ${lines} lines`] : [];
    });
    expect(problems).toEqual([]);
  });

  it("every source file over 100 lines has a sibling test or a Tested elsewhere line", () => {
    const missing = walk(src)
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
      .filter((f) => readFileSync(f, "utf8").split("\n").length > 100)
      .filter((f) => !hasSiblingTest(f) && !testedElsewhere(readmeFor(f)).has(path.basename(f)))
      .map((f) => path.relative(root, f));
    expect(missing).toEqual([]);
  });

  it("reads Tested elsewhere lines by their backticked file names only", () => {
    const names = testedElsewhere("Intro mentions `a.ts`.\nTested elsewhere: `b.ts` (test/x.test.ts), `c.ts`.\n");
    expect([...names]).toEqual(["b.ts", "c.ts"]);
  });
});
