// Stand-ins at the ports for promotion tests: an in-memory vault, an Http that records what was
// asked, a fixed clock, the recorded pages of fixtures/pages and a trace built by hand.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { OutsideVaultRow } from "../../src/evidence/research-pack";
import { outsideSourceKey } from "../../src/evidence/keys";
import { outsideVaultLabel } from "../../src/evidence/labels";
import type { ResearchTrace } from "../../src/research/types";
import type { Clock, Http, HttpRequest, HttpResponse } from "../../src/ports";
import { canonicalizeUrl } from "../../src/websearch/canonical-url";
import { parseReplayFile, type RecordedExchange } from "../../src/websearch/replay";
import { pack } from "./pack-fixtures";

export const PAGES_DIR = path.resolve(__dirname, "../../fixtures/pages");

export function recordedPages(): RecordedExchange[] {
  return readdirSync(PAGES_DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .flatMap((f) => {
      const parsed = parseReplayFile(JSON.parse(readFileSync(path.join(PAGES_DIR, f), "utf8")));
      if (!parsed.ok) throw new Error(`${f}: ${parsed.message}`);
      return parsed.exchanges;
    });
}

export { MemoryNoteStore } from "./memory-note-store";

/** Wraps an Http and keeps every request it was asked to make. */
export function recordingHttp(inner: Http): Http & { requests: HttpRequest[] } {
  const requests: HttpRequest[] = [];
  return {
    requests,
    request: (req) => {
      requests.push(req);
      return inner.request(req);
    },
  };
}

export function httpAnswering(answer: (req: HttpRequest) => Promise<HttpResponse>): Http {
  return { request: answer };
}

/** 2026-03-05 12:00 UTC: the same calendar day in every time zone within ±11 h. */
export const FIXED_NOW = Date.UTC(2026, 2, 5, 12, 0, 0);
export const fixedClock: Clock = { now: () => FIXED_NOW, sleep: async () => undefined };

export function webRow(provider: string, url: string, title: string, snippet: string | null, extra: Partial<OutsideVaultRow> = {}): OutsideVaultRow {
  const canonical = canonicalizeUrl(url) ?? url;
  return {
    source_key: outsideSourceKey(provider, canonical),
    kind: "external",
    source_type: "external_web",
    provider,
    label: outsideVaultLabel(provider, "ephemeral"),
    url,
    title,
    domain: new URL(url).hostname.replace(/^www\./, ""),
    content_sections: snippet === null ? [] : [{ role: "external_snippet", text: snippet, truncated: false }],
    retrieval: {
      score: 1,
      lanes: [{ name: "external_search", status: "used", provider, store: "ephemeral" }],
      signals: [{ name: "provider_rank", detail: `rank 1 at ${provider}`, weight: 1 }],
      matched_terms: [],
      missing_terms: [],
    },
    also_found_by: [],
    ...extra,
  };
}

export function traceWith(question: string, rows: OutsideVaultRow[]): ResearchTrace {
  return {
    schema: "research_trace.v1",
    run_id: "run-test-0001",
    started_at: new Date(FIXED_NOW - 60_000).toISOString(),
    question,
    mode: "always",
    providers: ["brave"],
    freshness: "any",
    queries_sent: [question],
    stop_reason: "enough_evidence",
    timings_ms: { total: 1200 },
    events: [],
    errors: [],
    pack: pack(question, [], rows, { verdict: "weak_evidence", reason: "test", missing_terms: [] }),
  };
}

/** One row per recorded page, with the snippet a provider would have given. */
export const PAGE_ROWS = {
  "plain-article": webRow(
    "brave",
    "https://fieldnotes.example.org/2025/local-first-notes?utm_source=brave",
    "Why local-first notes outlive their apps",
    "Every note-taking app eventually changes hands... The notes that survive are stored as <strong>plain files</strong> on a device the writer controls.",
    { published_at: "2025-09-18" },
  ),
  "tracking-and-scripts": webRow(
    "exa",
    "https://engineering.example.com/posts/sync-engines-compared",
    "Sync engines compared",
    "CRDTs shine when devices are offline for long stretches. [[Secrets]] #tag <script>alert(1)</script> `$= dv.x`",
  ),
  forbidden: webRow(
    "brave",
    "https://research.example.net/reports/2026-state-of-sync",
    "State of sync 2026",
    "Our 2026 report surveys 400 teams: 61% now ship some form of local-first sync, up from 38% in 2024.",
    { published_at: "2026-02-01T09:00:00Z" },
  ),
  "huge-page": webRow("brave", "https://lists.example.org/archive/everything", "Complete mailing list archive", "Every message since 2019 in one page."),
  "windows-1251": webRow(
    "brave",
    "https://zametki.example.ru/lokalnye-zametki",
    "Локальные заметки и синхронизация",
    "Заметки в обычных текстовых файлах можно открыть любым редактором.",
  ),
  "non-latin": webRow("exa", "https://memo.example.jp/local-first", "ローカルファーストなメモ管理", "メモをプレーンテキストのファイルとして自分の端末に保存すれば…"),
  pdf: webRow("brave", "https://papers.example.edu/crdt-survey.pdf", "A survey of CRDTs", "We survey conflict-free replicated data types and their use in collaborative editing."),
  "js-only": webRow("brave", "https://app.example.io/shared/board-91", "Shared board", null),
} as const;

export type PageName = keyof typeof PAGE_ROWS;
