// PubMed through NCBI's E-utilities: `esearch.fcgi` finds the ids of the articles that match the
// question (by relevance), `esummary.fcgi` fetches their titles, authors, journal and date. Two
// calls, each through the governor (3 a second without an API key). Keyless; `tool` names us, as
// NCBI asks. Summaries carry no abstract, so a result is its title and signals.
import * as z from "zod";
import { PROVIDER_NAMES } from "../../provider-names";
import { asSentence } from "../../text/sentence-ends";
import type { HttpResponse } from "../../ports";
import { distinctByCanonicalUrl, displayDomain } from "../canonical-url";
import { freshnessWindow } from "../freshness-window";
import { keywordQuery } from "../keyword-query";
import { titleLine, toPublishedDate } from "../plain-text";
import { failWith, quoted, readJson, sendProviderRequest, tryJson, type ProviderCall } from "../provider-http";
import { resolveSearchRequest, type ResolvedSearchRequest } from "../request-limits";
import type { Provider, ProviderContext, ProviderError, ProviderResponse, ProviderResult, SearchRequest, SourceSignal } from "../types";
import { isSuccess, looseList, sourceCall, statusError, warnUnsupported } from "./source-call";

const esearchSchema = z.object({
  esearchresult: z.object({
    // Read loosely and only as far as needed: a list the size of the body must not be checked whole.
    idlist: z.array(z.unknown()).default([]),
    ERROR: z.string().optional(),
    warninglist: z.object({ phrasesignored: z.array(z.unknown()).optional() }).loose().optional(),
  }).loose(),
});

const summarySchema = z.object({
  uid: z.string(),
  title: z.string(),
  pubdate: z.string().nullish(),
  sortpubdate: z.string().nullish(),
  fulljournalname: z.string().nullish(),
  source: z.string().nullish(),
  authors: looseList(z.object({ name: z.string() }).loose()),
});
type ArticleSummary = z.infer<typeof summarySchema>;

const esummarySchema = z.object({ result: z.record(z.string(), z.unknown()).default({}) });
const errorSchema = z.object({ error: z.string().optional() });

const label = PROVIDER_NAMES.pubmed.choice;
export const eutilsUrl = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils";
/** Who is calling, as NCBI's usage policy asks of every E-utilities client. */
const tool = "vault-research";

export function createPubMedProvider(): Provider {
  return {
    name: "pubmed",
    label,
    capabilities: { search: true, contents: false, freshness: true, domainFilters: false, highlights: false, fullText: false },
    search: searchPubMed,
  };
}

function esearchParams(request: ResolvedSearchRequest, term: string, now: number): URLSearchParams {
  const params = new URLSearchParams({ db: "pubmed", term, retmax: String(request.count), retmode: "json", sort: "relevance", tool });
  const window = freshnessWindow(request.freshness, now);
  if (window) {
    const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10).replace(/-/g, "/");
    params.set("datetype", "pdat");
    params.set("mindate", day(window.startMs));
    params.set("maxdate", day(window.endMs ?? now));
  }
  return params;
}

async function searchPubMed(input: SearchRequest, context: ProviderContext): Promise<ProviderResponse> {
  const { request, warnings } = resolveSearchRequest(input, context.settings);
  warnUnsupported(request, label, warnings, { freshness: true });
  const term = keywordQuery(request.query);
  const search = sourceCall("pubmed", `${eutilsUrl}/esearch.fcgi?${esearchParams(request, term, context.clock.now()).toString()}`, request);
  const searched = await sendProviderRequest(search, context);
  if (!isSuccess(searched)) throw pubmedError(search, searched, context.clock.now());
  const found = readJson(search, searched, esearchSchema, "search answer").esearchresult;
  if (found.ERROR) throw failWith(search, "http", asSentence(`${label} could not run the search: ${quoted(found.ERROR)}`), { status: searched.status, reason: "search_failed" });
  const ignored = (found.warninglist?.phrasesignored ?? []).slice(0, 5).filter((p): p is string => typeof p === "string");
  if (ignored.length > 0) warnings.push(`${label} ignored ${ignored.map((p) => `“${quoted(p, 60)}”`).join(", ")}`);
  const ids = found.idlist
    .slice(0, request.count)
    .filter((id): id is string | number => typeof id === "string" || typeof id === "number")
    .map(String);
  if (ids.length === 0) return { provider: "pubmed", endpoint: "esearch", query: term, results: [], warnings };

  const params = new URLSearchParams({ db: "pubmed", id: ids.join(","), retmode: "json", tool });
  const summaryCall = sourceCall("pubmed", `${eutilsUrl}/esummary.fcgi?${params.toString()}`, request);
  const summarised = await sendProviderRequest(summaryCall, context);
  if (!isSuccess(summarised)) throw pubmedError(summaryCall, summarised, context.clock.now());
  const result = readJson(summaryCall, summarised, esummarySchema, "summary answer").result;
  const summaries = summariesInOrder(ids, result, warnings);
  return { provider: "pubmed", endpoint: "esearch+esummary", query: term, results: toResults(summaries, request, context.clock.now(), warnings), warnings };
}

/** Summaries in esearch's relevance order; ids NCBI could not summarise are skipped and counted. */
function summariesInOrder(ids: string[], result: Record<string, unknown>, warnings: string[]): ArticleSummary[] {
  const summaries: ArticleSummary[] = [];
  for (const id of ids) {
    const parsed = summarySchema.safeParse(result[id]);
    if (parsed.success) summaries.push(parsed.data);
  }
  const missing = ids.length - summaries.length;
  if (missing > 0) warnings.push(`${missing} article${missing === 1 ? "" : "s"} without a summary skipped`);
  return summaries;
}

export function pubmedArticleUrl(uid: string): string {
  return `https://pubmed.ncbi.nlm.nih.gov/${encodeURIComponent(uid)}/`;
}

function signalsOf(summary: ArticleSummary): SourceSignal[] {
  const signals: SourceSignal[] = [];
  const authors = (summary.authors ?? []).map((a) => a.name).filter((n) => n !== "");
  if (authors.length > 0) signals.push({ kind: "authors", value: authors });
  const journal = summary.fulljournalname ?? summary.source;
  if (journal) signals.push({ kind: "journal", value: journal });
  return signals;
}

function toResults(summaries: ArticleSummary[], request: ResolvedSearchRequest, now: number, warnings: string[]): ProviderResult[] {
  const results: ProviderResult[] = [];
  for (const { item: summary, url, canonicalUrl, rank } of distinctByCanonicalUrl(summaries, (s) => pubmedArticleUrl(s.uid), request.count, warnings)) {
    // `sortpubdate` is "2024/03/05 00:00": always a full date, unlike `pubdate` ("2024 Mar").
    const publishedAt = toPublishedDate(summary.sortpubdate?.slice(0, 10).replace(/\//g, "-"), now);
    const authors = (summary.authors ?? []).map((a) => a.name);
    results.push({
      url,
      canonicalUrl,
      title: titleLine(summary.title) || `PubMed ${summary.uid}`,
      domain: displayDomain(url),
      highlights: [],
      ...(authors.length > 0 ? { author: authors.slice(0, 3).join(", ") + (authors.length > 3 ? " et al." : "") } : {}),
      ...(publishedAt ? { publishedAt } : {}),
      rank,
      signals: signalsOf(summary),
    });
  }
  return results;
}

function pubmedError(call: ProviderCall, response: HttpResponse, now: number): ProviderError {
  const parsed = errorSchema.safeParse(tryJson(response.text));
  return statusError(call, response, now, parsed.success ? parsed.data.error : undefined);
}
