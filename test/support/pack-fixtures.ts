// Small builders for research packs, so each test states only what it is about.
import { noteSourceKey, outsideSourceKey } from "../../src/evidence/keys";
import { outsideVaultLabel } from "../../src/evidence/labels";
import { planQuestion } from "../../src/research/stages/plan";
import {
  RESEARCH_PACK_VERSION,
  type Judgement,
  type OutsideVaultRow,
  type ResearchPack,
  type VaultRow,
} from "../../src/evidence/research-pack";

export function vaultRow(path: string, title: string, sections: { heading: string; text: string }[], score = 10): VaultRow {
  let offset = 0;
  return {
    source_key: noteSourceKey(path),
    kind: "note",
    source_type: "vault_note",
    note_path: path,
    title,
    sections: sections.map((s, i) => {
      const start = offset;
      offset += s.text.length + s.heading.length + 4;
      return { heading: s.heading, text: s.text, start, end: offset, line: 1 + i * 5 };
    }),
    retrieval: {
      score,
      lanes: [{ name: "full_text", status: "used" }],
      signals: [{ name: "body", detail: "matched query terms", weight: score }],
      matched_terms: [],
      missing_terms: [],
    },
  };
}

export function outsideRow(
  provider: string,
  url: string,
  title: string,
  snippet: string,
  extra: Partial<Pick<OutsideVaultRow, "published_at">> = {},
): OutsideVaultRow {
  return {
    source_key: outsideSourceKey(provider, url),
    kind: "external",
    source_type: "external_web",
    provider,
    label: outsideVaultLabel(provider, "ephemeral"),
    url,
    title,
    domain: new URL(url).hostname,
    ...extra,
    content_sections: [{ role: "external_snippet", text: snippet, truncated: false }],
    retrieval: {
      score: 1,
      lanes: [{ name: "external_search", status: "used", provider, store: "ephemeral" }],
      signals: [{ name: "provider_rank", detail: `rank 1 at ${provider}`, weight: 1 }],
      matched_terms: [],
      missing_terms: [],
    },
    also_found_by: [],
  };
}

export function pack(
  question: string,
  evidence: VaultRow[],
  external: OutsideVaultRow[] = [],
  judge: Judgement = { verdict: evidence.length > 0 ? "enough_evidence" : "no_evidence", reason: "test", missing_terms: [] },
  currentYear = 2026,
): ResearchPack {
  return {
    schema: RESEARCH_PACK_VERSION,
    question,
    query_plan: planQuestion(question, { currentYear }),
    evidence,
    external_evidence: external,
    judge,
    coverage: {
      local_evidence_count: evidence.length,
      external_evidence_count: external.length,
      external_by_provider: [],
      external_freshness: [],
      recall_note: "test pack",
    },
    warnings: [],
  };
}
