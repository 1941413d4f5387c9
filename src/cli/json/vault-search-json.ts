// `vault_search.v1`: what `search --json` prints and the MCP tool `vault_search` returns — the
// notes best first, each with its matched sections and the explanation of its score, as data.
import * as z from "zod";
import { questionRead } from "../../text/cut-text";
import { noteSourceKey } from "../../evidence/keys";
import type { DialResponse, DialResult } from "../../index/dial/dial-types";
import type { SearchExplanation, SearchFusion, SearchResult } from "../../index/types";
import { orderedScore } from "../../index/vault-language/fuse-lanes";

const span = z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]);

export const vaultSearchSchema = z.strictObject({
  schema: z.literal("vault_search.v1"),
  query: z.string().describe("The query as read: its first 2,000 characters (the notice query_cut says when it was longer)."),
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
      score: z
        .number()
        .describe(
          "What the results are ordered by, best first: the words' score (BM25 over the note's fields × the query's coverage, plus title and name lifts), or a fused RRF score when a second lane took part. That is the vault-language lane (on by default in a vault of 2,000 passages or more; explanation.fusion then keeps the words' score and rank), or a level above 1 (dial).",
        ),
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
        term_clumping: z
          .record(z.string(), z.strictObject({ clumping: z.number(), notes: z.number() }))
          .optional()
          .describe("Per query word: how much its uses bunch together in a few notes (log2; about 0 for a word this vault uses as an everyday word, 1–4 for a topic's), and in how many note bodies. The judge weighs everyday words less in a large vault."),
        vault_language: z
          .strictObject({ rank: z.number().int().positive(), similarity: z.number() })
          .optional()
          .describe("Set when the vault-language lane found the note near the question: its rank there and the cosine similarity."),
        fusion: z
          .strictObject({
            score: z.number().describe("The fused RRF score of the words' ranking and the vault-language lane's: at level 1 the result's score."),
            words_rank: z.number().int().positive().nullable().describe("The note's rank in the words' ranking; null when only the vault-language lane found it."),
            words_score: z.number().nullable().describe("The note's score in the words' ranking (what score is when the words alone rank); null when only the vault-language lane found it."),
            kept_first: z.boolean().describe("The words put it far ahead of the rest, or the question is its name: it was kept first, with the fused score of the note it passed."),
          })
          .optional()
          .describe("Set on every result when the vault-language lane was fused with the words' ranking: why a note with a lower words' score can come first."),
      }),
      dial: z
        .strictObject({
          section: z
            .strictObject({
              from: z.enum(["lexical", "section_vector"]),
              unit: z.enum(["section", "title", "headings"]),
              heading_path: z.array(z.string()),
              line: z.number().int().nonnegative(),
              start: z.number().int().nonnegative(),
              end: z.number().int().nonnegative(),
              snippet: z.string(),
            })
            .nullable()
            .describe("The part of the note that matched: the best lexical section, or the closest section vector (level 3)."),
          lanes: z.array(
            z.strictObject({
              lane: z.enum(["lexical", "note_vector", "section_vector"]),
              rank: z.number().int().positive(),
              contribution: z.number().describe("1 / (60 + rank): what this lane added to the fused score."),
              score: z.number().describe("BM25 (lexical) or cosine similarity (vector lanes)."),
            }),
          ),
          rerank: z.strictObject({ before: z.number().int().positive(), after: z.number().int().positive(), model: z.string() }).nullable(),
        })
        .optional()
        .describe("Only when a level above 1 ran: how each lane ranked the note (the score is then the fused RRF score), and the rerank's move."),
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
    // What was searched, as every surface echoes it: a query is read to its first 2,000 characters.
    query: questionRead(asked.query),
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
    score: orderedScore(r),
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
      ...(e.termClumping ? { term_clumping: e.termClumping } : {}),
      ...(e.vaultLanguage ? { vault_language: e.vaultLanguage } : {}),
      ...(e.fusion ? { fusion: fusionJson(r.score, e.fusion) } : {}),
    },
  };
}

/** The fusion's figures, the words' own score beside their rank (neither for a note only the lane found). */
function fusionJson(wordsScore: number, fusion: SearchFusion): NonNullable<VaultSearchJson["results"][number]["explanation"]["fusion"]> {
  const byWords = fusion.wordsRank !== null;
  return { score: fusion.score, words_rank: fusion.wordsRank, words_score: byWords ? wordsScore : null, kept_first: fusion.keptFirst === true };
}

/** A dial's answer as vault_search.v1: level 1 exactly as the index's own results; above it each result carries `dial`. */
export function dialSearchJson(asked: Omit<VaultSearchAsked, "level" | "ranLevel" | "notices">, response: DialResponse): VaultSearchJson {
  const notices = response.notices.map((n) => ({ kind: n.kind, message: n.message }));
  const head = vaultSearchJson({ ...asked, level: response.level, ranLevel: response.ranLevel, notices }, []);
  return { ...head, results: response.results.map((r) => dialResultJson(r, response.ranLevel > 1)) };
}

function dialResultJson(r: DialResult, fused: boolean): VaultSearchJson["results"][number] {
  // A note found by its vectors alone has no lexical sections or term explanation: `dial` says why it is here.
  const base = searchResultJson(r.lexical ?? { path: r.path, title: r.title, tags: r.tags, score: r.score, sections: [], explanation: emptyExplanation() });
  if (!fused) return base;
  const s = r.section;
  return {
    ...base,
    score: r.score,
    dial: {
      section: s ? { from: s.from, unit: s.unit, heading_path: s.headingPath, line: s.line, start: s.start, end: s.end, snippet: s.snippet } : null,
      lanes: r.explanation.lanes.map((l) => ({ lane: l.lane, rank: l.rank, contribution: l.contribution, score: l.score })),
      rerank: r.explanation.rerank ?? null,
    },
  };
}

function emptyExplanation(): SearchExplanation {
  return { matchedTerms: [], missingTerms: [], fields: {}, parts: [], termWeights: {}, termNotes: {} };
}
