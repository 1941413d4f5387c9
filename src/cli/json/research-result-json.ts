// `research_result.v1`: what `research --json` prints (DESIGN.md's CLI contract) — the pack
// (`research_pack.v1`, the evidence layer's contract, unchanged), the answer, its citations and
// their verification, why the run stopped, where its trace went, and which web sources were asked.
import * as z from "zod";
import { citationSchema, researchPackSchema, stopReasonSchema } from "../../evidence/research-pack";
import type { ResearchTrace } from "../../evidence/trace-types";
import type { ResearchResult } from "../../research/types";
import { replayJson, replayJsonSchema } from "./replay-json";

export const researchResultSchema = z.strictObject({
  schema: z.literal("research_result.v1"),
  pack: researchPackSchema,
  answer: z
    .strictObject({
      text: z.string().describe("Markdown with bracketed source keys as citations."),
      kind: z.enum(["model", "extractive"]),
      verified: z.boolean().describe("false: its citations did not check out; never show it as a normal answer."),
      model: z.string().nullable(),
    })
    .nullable()
    .describe("null when the run wrote no answer (retrieval only, no evidence, a failure)."),
  citations: z.array(citationSchema).nullable(),
  verification: z
    .strictObject({
      passed: z.boolean(),
      errors: z.array(z.strictObject({ kind: z.string(), key: z.string().nullable(), suggestion: z.string().nullable(), message: z.string() })),
      warnings: z.array(z.strictObject({ kind: z.string(), message: z.string() })),
    })
    .nullable(),
  stop_reason: stopReasonSchema,
  trace_path: z.string().nullable().describe("Vault path of the trace note, when one was written into the vault (--trace)."),
  trace_file: z.string().nullable().describe("The trace kept in the cache folder instead; promote --trace takes either."),
  providers_asked: z
    .array(z.string())
    .describe(
      "Every web source that was sent the query, in the order the run asked them; [] means nothing left the device. A source answered from the session's cache was sent the same query earlier in the session. A source that refused it before sending anything (no key set for it, an empty query) is not named: its failure is in pack.warnings.",
    ),
  page_reads: z.array(z.looseObject({ source_key: z.string(), url: z.string(), status: z.enum(["read", "cached", "skipped"]) })).nullable(),
  replay: replayJsonSchema,
  search_level: z
    .strictObject({
      level: z.number().int().min(2).max(4),
      ran_level: z.number().int().min(1).max(4),
      notices: z.array(z.strictObject({ kind: z.string(), message: z.string() })),
    })
    .optional()
    .describe("Only when the search dial was set above level 1 (--level): the level asked for local retrieval, the one that ran, and why it ran lower."),
  external_search: z
    .strictObject({
      asked: z.boolean().describe("The call set allow_external_search: true."),
      refused: z
        .strictObject({
          kind: z.enum(["server_without_allow_external"]),
          message: z.string(),
        })
        .nullable()
        .describe("Why the web was not used although the call asked for it; null when it was not asked for, or was allowed (then providers_asked names the sources that were sent the question, and pack.warnings says why any other was not)."),
    })
    .optional()
    .describe("What became of the call's allow_external_search (the MCP server's research_pack only; the CLI's research --json has no such field)."),
});
export type ResearchResultJson = z.infer<typeof researchResultSchema>;

export interface TraceKept {
  /** In the vault (`--trace`). */
  tracePath?: string;
  /** In the cache folder. */
  traceFile?: string;
}

/** The search dial's level for the run's local retrieval, when it was set above 1. */
export interface SearchLevelRun {
  level: 2 | 3 | 4;
  ranLevel: 1 | 2 | 3 | 4;
  notices: { kind: string; message: string }[];
}

export function researchResultJson(result: ResearchResult, kept: TraceKept, replayDir: string | undefined, searchLevel?: SearchLevelRun | null): ResearchResultJson {
  const v = result.verification;
  const level = searchLevel ? { search_level: { level: searchLevel.level, ran_level: searchLevel.ranLevel, notices: searchLevel.notices.map((n) => ({ kind: n.kind, message: n.message })) } } : {};
  return {
    schema: "research_result.v1",
    pack: result.pack,
    answer: result.answer ? { text: result.answer.text, kind: result.answer.kind, verified: result.answer.verified, model: result.answer.model ?? null } : null,
    citations: result.citations ?? null,
    verification: v
      ? {
          passed: v.passed,
          errors: v.errors.map((e) => ({ kind: e.kind, key: e.key ?? null, suggestion: e.suggestion ?? null, message: e.message })),
          warnings: v.warnings.map((w) => ({ kind: w.kind, message: w.message })),
        }
      : null,
    stop_reason: result.stop_reason,
    trace_path: kept.tracePath ?? null,
    trace_file: kept.traceFile ?? null,
    providers_asked: providersAsked(result.trace),
    page_reads: result.page_reads?.map((r) => ({ ...r })) ?? null,
    replay: replayJson(replayDir),
    ...level,
  };
}

/**
 * The sources that were sent the query, from the trace's request events: the run records one as a
 * source's call leaves (or its answer comes from the session's cache), never for a source that
 * refused the query unsent (no key, an empty query). In the order the run asked them (its routing
 * event), not the order their calls left: a source waiting for its key would move behind a free one.
 */
export function providersAsked(trace: Pick<ResearchTrace, "events">): string[] {
  const sent = new Set<string>();
  for (const e of trace.events) {
    const provider = e.data?.provider;
    if (e.type === "external_provider_request" && typeof provider === "string") sent.add(provider);
  }
  const routed = trace.events.find((e) => e.type === "external_sources_routed")?.data?.asked;
  const order = Array.isArray(routed) ? routed.filter((p): p is string => typeof p === "string") : [];
  return [...order.filter((p) => sent.has(p)), ...[...sent].filter((p) => !order.includes(p))];
}
