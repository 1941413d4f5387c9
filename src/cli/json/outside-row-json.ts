// A web result as `websearch --json` and the MCP tools show it, under the field names of the
// research pack's outside row (`research_pack.v1` external_evidence): source_key, kind,
// source_type, provider, label, url, title, domain, published_at, content_sections, also_found_by.
// What only a bare web search knows (its rank and merge score, the source's own signals) is added
// beside them, never under a pack name with another meaning.
import * as z from "zod";
import { contentSectionSchema, type ContentSection } from "../../evidence/research-pack";
import { outsideSourceKey } from "../../evidence/keys";
import { outsideVaultLabel } from "../../evidence/labels";
import type { MergedResult } from "../../websearch/merge-results";
import { signalsInWords } from "../../websearch/source-signals";

export const outsideRowJsonSchema = z.strictObject({
  source_key: z.string().describe("ext:<provider>: and 10 hex digits of the canonical URL: the key a research pack would cite it by."),
  kind: z.literal("external"),
  source_type: z.literal("external_web"),
  origin: z.literal("outside_vault"),
  store: z.literal("ephemeral").describe("It exists only in this answer; promote saves it as a note."),
  provider: z.string(),
  label: z.string().describe("Outside vault · <Source> · ephemeral — show it with the row, always."),
  url: z.string(),
  canonical_url: z.string(),
  title: z.string(),
  domain: z.string(),
  published_at: z.string().nullable(),
  author: z.string().nullable(),
  content_sections: z.array(contentSectionSchema),
  also_found_by: z.array(z.string()),
  rank: z.number().int().positive().describe("Place in the merged list."),
  provider_rank: z.number().int().positive().describe("Place in the provider's own answer."),
  provider_score: z.number().nullable().describe("The provider's own relevance score, when it gives one (not comparable across providers)."),
  merge: z.strictObject({ value: z.number(), normalised: z.number(), weight: z.number(), basis: z.enum(["rank", "score_and_rank"]) }),
  source_signals: z.array(z.looseObject({ kind: z.string() })).describe("What the source says besides text: points, stars, votes…"),
  source_signals_in_words: z.string(),
});
export type OutsideRowJson = z.infer<typeof outsideRowJsonSchema>;

export function outsideRowJson(r: MergedResult): OutsideRowJson {
  return {
    source_key: outsideSourceKey(r.provider, r.canonicalUrl),
    kind: "external",
    source_type: "external_web",
    origin: "outside_vault",
    store: "ephemeral",
    provider: r.provider,
    label: outsideVaultLabel(r.provider, "ephemeral"),
    url: r.url,
    canonical_url: r.canonicalUrl,
    title: r.title || r.domain,
    domain: r.domain,
    published_at: r.publishedAt ?? null,
    author: r.author ?? null,
    content_sections: contentSections(r),
    also_found_by: [...r.alsoFoundBy],
    rank: r.rank,
    provider_rank: r.providerRank,
    provider_score: typeof r.score === "number" && Number.isFinite(r.score) ? r.score : null,
    merge: { ...r.merge },
    source_signals: r.signals ?? [],
    source_signals_in_words: signalsInWords(r.signals),
  };
}

/** The result's texts under the roles a pack gives them (uncut: a bare search has no budget). */
function contentSections(r: MergedResult): ContentSection[] {
  const sections: ContentSection[] = [];
  const add = (role: ContentSection["role"], text: string | undefined, truncated = false) => {
    const clean = (text ?? "").trim();
    if (clean) sections.push({ role, text: clean, truncated });
  };
  add("external_snippet", r.snippet);
  for (const h of r.highlights) if (h.trim() && h.trim() !== r.snippet?.trim()) add("external_snippet", h);
  add("external_summary", r.summary);
  add("external_text", r.text, r.truncated === true);
  return sections;
}
