// Every top-level JSON object the CLI and the MCP server print, by its `schema` tag. Each is
// documented as JSON Schema in docs/cli-json/<tag>.json (written from these by
// test/cli/json/cli-json-schemas.test.ts with UPDATE_GOLDEN=1) and pinned by a golden CLI case —
// except embed_report.v1, which needs an embedding server: test/cli/embed-command.test.ts checks
// its output against the schema instead.
import * as z from "zod";
import { embedReportSchema } from "./embed-report-json";
import { evalReportSchema } from "./eval-report-json";
import { indexReportSchema } from "./index-report-json";
import { levelComparisonSchema } from "./level-comparison-json";
import { promoteResultSchema } from "./promote-result-json";
import { researchResultSchema } from "./research-result-json";
import { vaultSearchSchema } from "./vault-search-json";
import { websearchSchema } from "./websearch-json";

export const CLI_JSON_SCHEMAS = {
  "vault_search.v1": vaultSearchSchema,
  "research_result.v1": researchResultSchema,
  "websearch.v1": websearchSchema,
  "index_report.v1": indexReportSchema,
  "promote_result.v1": promoteResultSchema,
  "eval_report.v1": evalReportSchema,
  "embed_report.v1": embedReportSchema,
  "level_comparison.v1": levelComparisonSchema,
} as const;

export type CliJsonSchemaName = keyof typeof CLI_JSON_SCHEMAS;

/** The JSON Schema document of one tag, as docs/cli-json keeps it. */
export function cliJsonSchemaDocument(name: CliJsonSchemaName): Record<string, unknown> {
  return { title: name, ...z.toJSONSchema(CLI_JSON_SCHEMAS[name], { io: "output" }) };
}
