// The one golden runner: every folder of test/golden/ is a surface registered in surfaces.ts, and
// every input file in it is a case whose output must match the expected file beside it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectGolden, GOLDEN_ROOT } from "../support/golden";
import { GOLDEN_SURFACES } from "./surfaces";

const surfaceDirs = readdirSync(GOLDEN_ROOT).filter((name) => statSync(path.join(GOLDEN_ROOT, name)).isDirectory());

/** Golden folders whose files are still checked by their own tests (each through expectGolden). */
const CHECKED_ELSEWHERE = new Set<string>(["notes", "research"]);

describe("golden files", () => {
  it("every folder of test/golden is a registered surface", () => {
    const unknown = surfaceDirs.filter((d) => !GOLDEN_SURFACES[d] && !CHECKED_ELSEWHERE.has(d));
    expect(unknown).toEqual([]);
  });

  for (const [surface, spec] of Object.entries(GOLDEN_SURFACES)) {
    const dir = path.join(GOLDEN_ROOT, surface);
    const files = readdirSync(dir).filter((f) => !f.startsWith("."));
    const inputs = files.filter((f) => f.endsWith(spec.inputSuffix));

    describe(`${surface}: ${spec.what}`, () => {
      it("has cases, and no expected file without its input", () => {
        expect(inputs.length).toBeGreaterThan(0);
        const claimed = new Set(inputs.flatMap((f) => [f, spec.outputFor(f.slice(0, -spec.inputSuffix.length), readFileSync(path.join(dir, f), "utf8"))]));
        expect(files.filter((f) => !claimed.has(f))).toEqual([]);
      });

      for (const input of inputs) {
        const name = input.slice(0, -spec.inputSuffix.length);
        it(name, async () => {
          const inputPath = path.join(dir, input);
          const output = spec.outputFor(name, readFileSync(inputPath, "utf8"));
          expectGolden(path.join(dir, output), await spec.render(inputPath));
        });
      }
    });
  }
});
