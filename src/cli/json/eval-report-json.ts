// `eval_report.v1`: what `eval --json` prints — each case, whether it passed and why not, what its
// run stopped on, and every request it made (all answered from replay, or refused offline).
import * as z from "zod";
import type { EvalReport } from "../eval-command";

const pagesSchema = z.strictObject({
  read: z.number().int(),
  cached: z.number().int(),
  skipped: z.number().int(),
  passages: z.number().int(),
  chars: z.number().int(),
  budget_chars: z.number().int(),
});

export const evalReportSchema = z.strictObject({
  schema: z.literal("eval_report.v1"),
  file: z.string(),
  vault: z.string(),
  read_pages: z.number().int().nullable().describe("--read-pages, when given; null: each case's settings."),
  cases: z.array(
    z.strictObject({
      id: z.string(),
      question: z.string(),
      passed: z.boolean(),
      failures: z.array(z.string()),
      stop_reason: z.string().nullable().describe("null when the run itself failed."),
      verdict: z.string().nullable(),
      pages: pagesSchema.nullable().describe("What page reading did; null when the run read no page."),
      requests: z.array(
        z.strictObject({
          method: z.string(),
          url: z.string(),
          channel: z.enum(["web", "model"]),
          outcome: z.string().describe("answered, replay_miss, refused_offline or failed."),
          status: z.number().int().nullable(),
        }),
      ),
    }),
  ),
  passed: z.number().int(),
  failed: z.number().int(),
});
export type EvalReportJson = z.infer<typeof evalReportSchema>;

export function evalReportJson(report: EvalReport): EvalReportJson {
  const extra = report as EvalReport & { read_pages?: number; cases: (EvalReport["cases"][number] & { pages?: z.infer<typeof pagesSchema> })[] };
  return {
    schema: "eval_report.v1",
    file: report.file,
    vault: report.vault,
    read_pages: extra.read_pages ?? null,
    cases: extra.cases.map((c) => ({
      id: c.id,
      question: c.question,
      passed: c.passed,
      failures: c.failures,
      stop_reason: c.stop_reason ?? null,
      verdict: c.verdict ?? null,
      pages: c.pages ?? null,
      requests: c.requests.map((r) => ({ method: r.method, url: r.url, channel: r.channel, outcome: r.outcome, status: r.status ?? null })),
    })),
    passed: report.passed,
    failed: report.failed,
  };
}
