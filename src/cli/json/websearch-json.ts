// `websearch.v1`: what `websearch --json` prints — the merged outside rows (outside-row-json.ts),
// each source's answer and report (asked or skipped, why, how long, within which bounds), the
// clamps applied and the failures, each with its kind.
import * as z from "zod";
import { describeRoute } from "../../websearch/routing";
import { sentTheQuery, type DispatchOutcome, type SourceReport } from "../../websearch/dispatcher";
import type { ProviderError } from "../../websearch/types";
import { outsideRowJson, outsideRowJsonSchema } from "./outside-row-json";
import { replayJson, replayJsonSchema } from "./replay-json";

export const providerErrorJsonSchema = z.strictObject({
  provider: z.string(),
  kind: z.string().describe("auth, rate_limited, plan, unsupported, timeout, http, parse, network…"),
  message: z.string(),
  status: z.number().int().nullable(),
  retry_after_ms: z.number().nullable(),
});

const boundsSchema = z.strictObject({ timeout_ms: z.number(), max_bytes: z.number(), max_results: z.number(), min_interval_ms: z.number() });

export const websearchSchema = z.strictObject({
  schema: z.literal("websearch.v1"),
  query: z.string(),
  replay: replayJsonSchema,
  note: z.string().nullable().describe("Set when the free sources stood in for providers without a key."),
  providers_asked: z
    .array(z.string())
    .describe(
      "Every source that was sent the query, in the order asked; [] means nothing left the device. A source answered from the session's cache was sent the same query earlier in the session. A source that refused it before sending anything (no key set for it, an empty query) is not named: its failure is in sources and errors.",
    ),
  topics: z.array(z.string()),
  results: z.array(outsideRowJsonSchema),
  responses: z.array(
    z.strictObject({
      provider: z.string(),
      endpoint: z.string(),
      request_id: z.string().nullable(),
      query: z.string(),
      count: z.number().int().nonnegative(),
      cached: z.boolean(),
      warnings: z.array(z.string()),
    }),
  ),
  sources: z.array(
    z.strictObject({
      source: z.string(),
      status: z.enum(["answered", "failed", "skipped"]),
      route: z.strictObject({ ask: z.boolean(), reason: z.looseObject({ kind: z.string() }), in_words: z.string() }),
      ms: z.number().nullable(),
      bounds: boundsSchema.nullable(),
      returned: z.number().int().nullable(),
      kept: z.number().int().nullable(),
      cached: z.boolean().nullable(),
      error: providerErrorJsonSchema.nullable(),
    }),
  ),
  clamps: z.array(z.string()),
  errors: z.array(providerErrorJsonSchema),
});
export type WebsearchJson = z.infer<typeof websearchSchema>;

export function providerErrorJson(error: ProviderError): z.infer<typeof providerErrorJsonSchema> {
  const e = error.toJSON();
  return { provider: e.provider, kind: e.kind, message: e.message, status: e.status ?? null, retry_after_ms: e.retryAfterMs ?? null };
}

export function websearchJson(query: string, replayDir: string | undefined, outcome: DispatchOutcome, note: string | undefined): WebsearchJson {
  return {
    schema: "websearch.v1",
    query,
    replay: replayJson(replayDir),
    note: note ?? null,
    providers_asked: outcome.sources.filter(sentTheQuery).map((s) => s.source),
    topics: outcome.topics,
    results: outcome.results.map(outsideRowJson),
    responses: outcome.responses.map((r) => ({
      provider: r.provider,
      endpoint: r.endpoint,
      request_id: r.requestId ?? null,
      query: r.query,
      count: r.results.length,
      cached: r.cached === true,
      warnings: r.warnings,
    })),
    sources: outcome.sources.map(sourceJson),
    clamps: outcome.clamps,
    errors: outcome.errors.map((e) => providerErrorJson(e.error)),
  };
}

function sourceJson(report: SourceReport): WebsearchJson["sources"][number] {
  const route = { ask: report.route.ask, reason: report.route.reason, in_words: describeRoute(report.route) };
  const none = { ms: null, bounds: null, returned: null, kept: null, cached: null, error: null };
  if (report.status === "skipped") return { source: report.source, status: report.status, route, ...none };
  const bounds = { timeout_ms: report.bounds.timeoutMs, max_bytes: report.bounds.maxBytes, max_results: report.bounds.maxResults, min_interval_ms: report.bounds.minIntervalMs };
  if (report.status === "failed") return { source: report.source, status: report.status, route, ...none, ms: report.ms, bounds, error: providerErrorJson(report.error) };
  return { source: report.source, status: report.status, route, ...none, ms: report.ms, bounds, returned: report.returned, kept: report.kept, cached: report.cached };
}
