// `vault_search.v1`: what `search --json` prints and the MCP tool `vault_search` returns — the
// notes best first, each with its matched sections and the explanation of its score, as data.
import { z } from "zod";
import { noteSourceKey } from "../../evidence/keys";
import type { SearchResult } from "../../index/types";

const span = z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]);

export const vaultSearchSchema = z.strictObject({
  schema: z.literal("vault_search.v1"),
  query: z.string().describe("As asked."),
  level: z.number().int().min(1).max(4).describe("The search dial's level asked for: 1 lexical, 2 hybrid, 3 multi-field, 4 rerank."),
  ran_level: z.number().int().min(1).max(4).describe("The level that ran: lower than asked when embeddings or a model were not available (notices say why)."),
  notices: z.array(z.strictObject({ kind: z.string(), message: z.string() })).describe("Why a search ran lower than asked, or what it could not do."),
  limit: z.number().int().positive(),
  tags: z.array(z.string()).describe("Tags every result must have (lower-case, without #); [] for none."),
  results: z.array(
    z.strictObject({
      source_key: z.string().describe("src: and 10 hex digits: the key a research pack cites this note by."),
      path: z.string().describe("Vault-relative path of the note."),
      title: z.string(),
      score: z.number(),
      tags: z.array(z.string()),
      sections: z.array(
        z.strictObject({
          heading: z.string(),
          heading_path: z.array(z.string()),
          level: z.number().int().min(0).max(6),
          line: z.number().int().positive(),
          start: z.number().int().nonnegative(),
          end: z.number().int().nonnegative(),
          snippet: z.string(),
          highlights: z.array(span).describe("[start, end) offsets into snippet of the words that matched."),
          matched_terms: z.array(z.string()),
          close_terms: z.array(z.string()),
          score: z.number(),
        }),
      ),
      explanation: z.strictObject({
        matched_terms: z.array(z.string()),
        missing_terms: z.array(z.string()),
        fields: z.record(z.string(), z.array(z.string())).describe("Field → the query words it matched."),
        parts: z.array(z.strictObject({ name: z.string(), detail: z.string(), weight: z.number() })),
        term_weights: z.record(z.string(), z.number()),
        term_notes: z.record(z.string(), z.number()),
      }),
    }),
  ),
});
export type VaultSearchJson = z.infer<typeof vaultSearchSchema>;

export interface VaultSearchAsked {
  query: string;
  limit: number;
  level?: number;
  ranLevel?: number;
  notices?: { kind: string; message: string }[];
  tags?: string[];
}

export function vaultSearchJson(asked: VaultSearchAsked, results: SearchResult[]): VaultSearchJson {
  return {
    schema: "vault_search.v1",
    query: asked.query,
    level: asked.level ?? 1,
    ran_level: asked.ranLevel ?? asked.level ?? 1,
    notices: asked.notices ?? [],
    limit: asked.limit,
    tags: asked.tags ?? [],
    results: results.map(searchResultJson),
  };
}

function searchResultJson(r: SearchResult): VaultSearchJson["results"][number] {
  const e = r.explanation;
  return {
    source_key: noteSourceKey(r.path),
    path: r.path,
    title: r.title,
    score: r.score,
    tags: r.tags,
    sections: r.sections.map((s) => ({
      heading: s.heading,
      heading_path: s.headingPath,
      level: s.level,
      line: s.line,
      start: s.start,
      end: s.end,
      snippet: s.snippet,
      highlights: s.highlights,
      matched_terms: s.matchedTerms,
      close_terms: s.closeTerms,
      score: s.score,
    })),
    explanation: {
      matched_terms: e.matchedTerms,
      missing_terms: e.missingTerms,
      fields: e.fields,
      parts: e.parts,
      term_weights: e.termWeights,
      term_notes: e.termNotes,
    },
  };
}
