// The evidence contract (DESIGN.md, "The evidence contract"): what a research run hands to the
// model, the CLI's --json, the panel and the trace note. Vault rows and outside-vault rows are
// different types in different arrays so they can never be blurred. The zod schemas are the
// boundary check (packs read back from JSON, eval fixtures); inside, use the inferred types.
import * as z from "zod";

export const RESEARCH_PACK_VERSION = "research_pack.v1";

const noteKey = z.string().regex(/^src:[0-9a-f]{10}$/, "expected src: and 10 hex digits");
const outsideKey = z.string().regex(/^ext:[a-z0-9][a-z0-9-]*:[0-9a-f]{10}$/, "expected ext:<provider>: and 10 hex digits");
const providerName = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "expected a lower-case provider name");

/** One way a row earned its place, e.g. `{ name: "title", detail: "matched \"tar\"", weight: 12.4 }`. */
export const signalSchema = z.object({
  name: z.string(),
  detail: z.string(),
  weight: z.number(),
});
export type Signal = z.infer<typeof signalSchema>;

/** A retrieval lane over the vault (full text, exact tag, …) that contributed to a row. */
export const vaultLaneSchema = z.object({
  name: z.string(),
  status: z.enum(["used", "skipped", "failed"]),
});
export type VaultLane = z.infer<typeof vaultLaneSchema>;

/** The lane every outside row carries: which provider found it and whether it is only in this run. */
export const externalSearchLaneSchema = z.object({
  name: z.literal("external_search"),
  status: z.literal("used"),
  provider: providerName,
  /** `ephemeral`: exists only in this run; `promoted`: the user saved it as a note. */
  store: z.enum(["ephemeral", "promoted"]),
});
export type ExternalSearchLane = z.infer<typeof externalSearchLaneSchema>;

const retrievalFields = {
  score: z.number(),
  signals: z.array(signalSchema),
  /** Query terms found in the row. */
  matched_terms: z.array(z.string()),
  /** Query terms not found in the row. */
  missing_terms: z.array(z.string()),
};

/** A matched part of a note. Offsets are UTF-16 indices into the note's full text. */
export const vaultSectionSchema = z.object({
  heading: z.string(),
  text: z.string(),
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  /** 1-based line of the heading. */
  line: z.number().int().positive(),
  /** [start, end) offsets into `text` of the words that matched (the index's own, stem-aware). */
  highlights: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])).optional(),
});
export type VaultSection = z.infer<typeof vaultSectionSchema>;

/**
 * The fused ranking a vault row's place follows, beside the row's own `score` (which keeps its
 * meaning): the rows carrying it are in its order among themselves.
 */
export const rowFusionSchema = z.object({
  score: z.number().describe("The fused score (reciprocal rank fusion) the row's place follows: the rows carrying it are in its order, best first (at level 4 the model's rerank moves the first ten: their rerank signal says from where)."),
  fused_with: z
    .enum(["vault_language", "vectors"])
    .describe("What the words' ranking was fused with: the vault's own language (level 1, on in a vault of 2,000 passages or more) or the dial's vector lanes (levels 2–4)."),
  words_rank: z.number().int().positive().nullable().describe("The note's rank in the words' ranking; null when the words did not rank it (only the other lane found it)."),
  words_score: z.number().nullable().describe("The note's words' score (what the judge weighs); null when the words did not rank it."),
  kept_first: z.boolean().describe("The words put it far ahead of the rest, or the question is its name: it was kept first, with the fused score of the note it passed."),
});
export type RowFusion = z.infer<typeof rowFusionSchema>;

/** Local evidence: one note with its best sections. */
export const vaultRowSchema = z.object({
  source_key: noteKey,
  kind: z.literal("note"),
  source_type: z.literal("vault_note"),
  note_path: z.string(),
  title: z.string(),
  sections: z.array(vaultSectionSchema),
  retrieval: z.object({
    ...retrievalFields,
    score: z
      .number()
      .describe(
        "At level 1 the note's words' score (BM25 over its fields × the question's coverage, title and name lifts; 0 for a note only the vault-language lane found); at a dial level above 1 the dial's fused score. Rows from another search (the exact-tag lane, the focused retry, the second local pass, a note the dial did not show) carry their own search's. When `fusion` is set, the row's place follows fusion.score, not this.",
      ),
    lanes: z.array(vaultLaneSchema),
    fusion: rowFusionSchema
      .optional()
      .describe("Set on the rows of the question's own search when its words' ranking was fused with another lane: the score their order follows. Absent on a row another search added, which was placed by rule: at level 1 the focused retry after the first three rows, any other after the fused rows."),
  }),
  /** Providers whose web results turned out to be this note's own source (the `src:` row won). */
  also_found_by: z.array(providerName).optional(),
  /**
   * The address this note was saved from, when it is a saved web page (`#research/source` or the
   * Web Clipper's `#clippings`, with a `source`): its text is the page's, not the owner's.
   */
  saved_from: z.string().optional(),
});
export type VaultRow = z.infer<typeof vaultRowSchema>;

export const contentRoles = ["external_snippet", "external_text", "external_summary"] as const;
export type ContentRole = (typeof contentRoles)[number];

/** Untrusted web text; never rendered as HTML, always fenced in prompts. */
export const contentSectionSchema = z.object({
  role: z.enum(contentRoles),
  text: z.string(),
  /** True when the text was cut to fit a budget. */
  truncated: z.boolean(),
  /** True when the run read the page itself and this is from it (a passage, or a summary of them), not the provider's text. */
  fetched: z.boolean().optional(),
  /** A passage's place in the page's extracted text: [start, end) UTF-16 offsets, so a citation can point at it. */
  start: z.number().int().nonnegative().optional(),
  end: z.number().int().nonnegative().optional(),
  /** The headings above a passage on its page, outermost first. */
  heading_path: z.array(z.string()).optional(),
});
export type ContentSection = z.infer<typeof contentSectionSchema>;

/** Outside-vault evidence: one web result, kept apart from vault rows. */
export const outsideVaultRowSchema = z.object({
  source_key: outsideKey,
  kind: z.literal("external"),
  source_type: z.literal("external_web"),
  /** The provider whose key this is (the first one that found the URL). */
  provider: providerName,
  /** `Outside vault · Brave · ephemeral` — carried in the data so every surface shows it. */
  label: z.string(),
  url: z.string(),
  title: z.string(),
  domain: z.string(),
  /** ISO date or date-time when the provider knew it. */
  published_at: z.string().optional(),
  content_sections: z.array(contentSectionSchema),
  retrieval: z.object({ ...retrievalFields, lanes: z.array(externalSearchLaneSchema).min(1) }),
  /** Other providers that returned the same canonical URL. */
  also_found_by: z.array(providerName),
});
export type OutsideVaultRow = z.infer<typeof outsideVaultRowSchema>;

export const queryPlanSchema = z.object({
  /** As the user asked it. */
  question: z.string(),
  /** Lower-cased, Unicode-normalised, whitespace collapsed. */
  normalized: z.string(),
  /** Query terms without stop words, in question order. */
  terms: z.array(z.string()),
  /** Content terms a note should contain to answer the question. */
  required_terms: z.array(z.string()),
  /** Terms borrowed from earlier questions of a follow-up; they help retrieval, they are never evidence. */
  context_terms: z.array(z.string()),
  /** `#tag` parts, lower-cased, without `#`. */
  tags: z.array(z.string()),
  /** `"quoted"` parts, lower-cased. */
  phrases: z.array(z.string()),
  freshness: z.object({
    /** The question asks about the current state of something. */
    flagged: z.boolean(),
    /** The words that raised the flag ("latest", "2026", …). */
    cues: z.array(z.string()),
  }),
  /** 1–2 web queries built from the question alone — never from note text. */
  provider_queries: z.array(z.string()).min(1).max(2),
});
export type QueryPlan = z.infer<typeof queryPlanSchema>;

export const judgeVerdicts = ["no_evidence", "weak_evidence", "enough_evidence"] as const;
export type JudgeVerdict = (typeof judgeVerdicts)[number];

export const judgeSchema = z.object({
  verdict: z.enum(judgeVerdicts),
  reason: z.string(),
  missing_terms: z.array(z.string()),
});
export type Judgement = z.infer<typeof judgeSchema>;

export const coverageSchema = z.object({
  local_evidence_count: z.number().int().nonnegative(),
  external_evidence_count: z.number().int().nonnegative(),
  /** Outside rows per provider (`key` is the provider name). */
  external_by_provider: z.array(z.object({ key: providerName, count: z.number().int().nonnegative() })),
  /** What recency each provider was asked for and the newest date among its results. */
  external_freshness: z.array(
    z.object({
      provider: providerName,
      requested: z.string(),
      newest_published_at: z.string().optional(),
    }),
  ),
  /** One sentence on how much was searched, e.g. "Searched 812 notes; web search not used." */
  recall_note: z.string(),
});
export type Coverage = z.infer<typeof coverageSchema>;

/**
 * The warnings that say a web source failed: `provider_` and the provider error's kind, from a
 * typed table in research/stages/external-retrieval.ts (a source's notice, `provider_warning`, is none).
 */
export const providerFailureKinds = [
  "provider_auth",
  "provider_rate_limited",
  "provider_plan",
  "provider_unsupported",
  "provider_timeout",
  "provider_http",
  "provider_parse",
  "provider_network",
] as const;

/** Every kind of warning a run leaves in its pack. */
export const packWarningKinds = [
  "provider_warning",
  ...providerFailureKinds,
  /** The web search was bounded: results cut per source, an operator left out, the query shortened. */
  "search_clamped",
  "no_provider",
  "question_cut",
  "external_required_failed",
  "synthesis_unavailable",
  /** The model's answer stopped at its length limit: what is shown is not all it meant to say. */
  "answer_cut",
  "trace_not_written",
  "timeout",
  "cancelled",
] as const;
export type PackWarningKind = (typeof packWarningKinds)[number];

/** Something the user should know that did not stop the run (a provider failed, text was cut…). */
export const packWarningSchema = z.object({
  kind: z.enum(packWarningKinds),
  message: z.string(),
});
export type PackWarning = z.infer<typeof packWarningSchema>;

export const researchPackSchema = z.object({
  schema: z.literal(RESEARCH_PACK_VERSION),
  question: z.string(),
  query_plan: queryPlanSchema,
  /** Vault evidence only, best first. */
  evidence: z.array(vaultRowSchema),
  /** Outside-vault evidence only, best first. */
  external_evidence: z.array(outsideVaultRowSchema),
  judge: judgeSchema,
  coverage: coverageSchema,
  warnings: z.array(packWarningSchema),
});
export type ResearchPack = z.infer<typeof researchPackSchema>;

/** What a bracketed key in an answer points at. */
export const citationSchema = z.object({
  source_key: z.string(),
  origin: z.enum(["vault", "outside_vault"]),
  provider: providerName.optional(),
  url: z.string().optional(),
  note_path: z.string().optional(),
});
export type Citation = z.infer<typeof citationSchema>;

export const stopReasons = [
  "enough_evidence",
  "no_evidence",
  "weak_evidence",
  "external_failed_local_used",
  "external_required_failed",
  "synthesis_unavailable",
  "verification_failed",
  "timeout",
  "retrieval_only",
  "cancelled",
] as const;
export const stopReasonSchema = z.enum(stopReasons);
export type StopReason = z.infer<typeof stopReasonSchema>;

/**
 * The warnings a person is shown of a run: when it stopped because the web was needed and every
 * source failed, its stop warning names each failure, so the sources' own are not said again (the
 * CLI printed each failure twice). The pack keeps them all, for programs that read their kinds.
 */
export function warningsToShow(stopReason: StopReason, warnings: readonly PackWarning[]): PackWarning[] {
  if (stopReason !== "external_required_failed") return [...warnings];
  const failures: ReadonlySet<string> = new Set(providerFailureKinds);
  return warnings.filter((w) => !failures.has(w.kind));
}

export type EvidenceRow = VaultRow | OutsideVaultRow;


/** The citation metadata of a row, as verification and the panel use it. */
export function citationFor(row: EvidenceRow): Citation {
  if (row.kind === "note") return { source_key: row.source_key, origin: "vault", note_path: row.note_path };
  return { source_key: row.source_key, origin: "outside_vault", provider: row.provider, url: row.url };
}

/** Every row of the pack by key: what may be cited when the whole pack was shown to the model. */
export function citationsOfPack(pack: Pick<ResearchPack, "evidence" | "external_evidence">): Map<string, Citation> {
  const map = new Map<string, Citation>();
  for (const row of [...pack.evidence, ...pack.external_evidence]) map.set(row.source_key, citationFor(row));
  return map;
}
