// Every CLI JSON object is documented (docs/cli-json/<schema>.json, JSON Schema written from the
// zod schema) and every golden JSON output of the CLI matches the schema its tag names.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { CLI_JSON_SCHEMAS, cliJsonSchemaDocument, type CliJsonSchemaName } from "../../../src/cli/json/cli-json-schemas";
import { expectGolden } from "../../support/golden";

const ROOT = path.resolve(__dirname, "../../..");
const DOCS = path.join(ROOT, "docs/cli-json");
const GOLDEN_CLI = path.join(ROOT, "test/golden/cli");
const names = Object.keys(CLI_JSON_SCHEMAS) as CliJsonSchemaName[];
/** Tags whose output needs a server a golden case cannot start; the named test checks their output against the schema. */
const CHECKED_WITHOUT_GOLDEN: Partial<Record<CliJsonSchemaName, string>> = { "embed_report.v1": "test/cli/embed-command.test.ts" };
/** What every CLI JSON object carries: the tag naming its schema. */
const taggedOutput = z.looseObject({ schema: z.string() });

describe("CLI JSON schemas", () => {
  for (const name of names) {
    it(`${name} is documented in docs/cli-json/${name}.json`, () => {
      expectGolden(path.join(DOCS, `${name}.json`), `${JSON.stringify(cliJsonSchemaDocument(name), null, 2)}\n`);
    });
  }

  it("docs/cli-json holds no schema the CLI no longer prints", () => {
    expect(readdirSync(DOCS).filter((f) => f.endsWith(".json")).sort()).toEqual(names.map((n) => `${n}.json`).sort());
  });

  it("every tag has a golden CLI case, and every golden JSON output matches its tag's schema", () => {
    const seen = new Set<string>();
    for (const file of readdirSync(GOLDEN_CLI).filter((f) => f.endsWith(".json") && !f.endsWith(".args.json"))) {
      const output: unknown = JSON.parse(readFileSync(path.join(GOLDEN_CLI, file), "utf8"));
      const tag = taggedOutput.safeParse(output).data?.schema as CliJsonSchemaName;
      expect(names, `${file}: schema tag ${tag}`).toContain(tag);
      const parsed = CLI_JSON_SCHEMAS[tag].safeParse(output);
      expect(parsed.success ? [] : parsed.error.issues.slice(0, 5), file).toEqual([]);
      seen.add(tag);
    }
    expect([...seen].sort()).toEqual(names.filter((n) => !CHECKED_WITHOUT_GOLDEN[n]).sort());
  });

  it("uses snake_case keys everywhere but inside free-form maps", () => {
    const camel = (doc: unknown, at: string): string[] => {
      if (Array.isArray(doc)) return doc.flatMap((d, i) => camel(d, `${at}[${i}]`));
      if (!doc || typeof doc !== "object") return [];
      return Object.entries(doc as Record<string, unknown>).flatMap(([k, v]) => {
        const own = at.endsWith(".properties") && /[A-Z]/.test(k) ? [`${at}.${k}`] : [];
        return [...own, ...camel(v, `${at}.${k}`)];
      });
    };
    for (const name of names) expect(camel(cliJsonSchemaDocument(name), name)).toEqual([]);
  });
});
