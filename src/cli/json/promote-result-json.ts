// `promote_result.v1`: what `promote --json` prints and the MCP tool `promote_result` returns —
// whether a source note was written (or the page was already in the vault), where, and what it
// holds of the page; or why nothing was written.
import * as z from "zod";
import { extractStatusText } from "../../notes/extract-status";
import type { PromotionResult } from "../../promote/promote";
import { replayJson, replayJsonSchema } from "./replay-json";

export const promoteResultSchema = z.strictObject({
  schema: z.literal("promote_result.v1"),
  status: z.enum(["created", "already_in_vault", "failed"]),
  note_path: z.string().nullable().describe("The new source note, or the note that already has the page as its source."),
  extract_status: z.string().nullable().describe("What the note holds of the page, as the note spells it (extracted, fallback_snippet:http_403…)."),
  message: z.string(),
  trace_updated: z.boolean().nullable().describe("Whether the trace records the promotion (of the note written, or of the note already in the vault); null when the promotion failed or there is no trace to say."),
  warnings: z.array(z.string()),
  error: z.strictObject({ kind: z.string(), message: z.string() }).nullable(),
  trace: z.string().describe("The trace the row came from: a trace note's vault path, or a kept trace file (absolute)."),
  trace_source: z.enum(["vault_note", "kept_trace"]).describe("vault_note: a trace note in the vault; kept_trace: a trace the CLI kept outside the vault (in its cache folder)."),
  source_key: z.string(),
  replay: replayJsonSchema,
});
export type PromoteResultJson = z.infer<typeof promoteResultSchema>;

export interface PromoteAsked {
  trace: string;
  traceSource: "vault_note" | "kept_trace";
  sourceKey: string;
  replayDir: string | undefined;
}

export function promoteResultJson(result: PromotionResult, asked: PromoteAsked): PromoteResultJson {
  const base = { trace: asked.trace, trace_source: asked.traceSource, source_key: asked.sourceKey, replay: replayJson(asked.replayDir) };
  if (result.status === "failed") {
    return { schema: "promote_result.v1", status: "failed", note_path: null, extract_status: null, message: result.message, trace_updated: null, warnings: [], error: { ...result.error }, ...base };
  }
  if (result.status === "already_in_vault") {
    return { schema: "promote_result.v1", status: result.status, note_path: result.notePath, extract_status: null, message: result.message, trace_updated: result.traceUpdated, warnings: [], error: null, ...base };
  }
  return {
    schema: "promote_result.v1",
    status: "created",
    note_path: result.notePath,
    extract_status: extractStatusText(result.extractStatus),
    message: result.message,
    trace_updated: result.traceUpdated,
    warnings: result.warnings,
    error: null,
    ...base,
  };
}
