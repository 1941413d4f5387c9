// Wikipedia (`GET https://{language}.wikipedia.org/w/rest.php/v1/search/page`): pages matching the
// question's words, each with a plain-text excerpt (the search-match spans stripped) and the
// page's short description, kept as its summary. Keyless; Wikimedia asks for a descriptive
// User-Agent, sent on every call. No date or domain filters: asked for, they are ignored with a warning.
import * as z from "zod";
import { PROVIDER_NAMES } from "../../provider-names";
import type { HttpResponse } from "../../ports";
import { distinctByCanonicalUrl, displayDomain } from "../canonical-url";
import { keywordQuery } from "../keyword-query";
import { cutText, htmlToLine, plainTitleLine, textToLine } from "../plain-text";
import { readJson, saidWithCode, sendProviderRequest, tryJson, userAgent, type ProviderCall } from "../provider-http";
import { resolveSearchRequest, type ResolvedSearchRequest } from "../request-limits";
import type { Provider, ProviderContext, ProviderError, ProviderResponse, ProviderResult, SearchRequest } from "../types";
import { isSuccess, parseEach, sourceCall, statusError, warnUnsupported } from "./source-call";

const pageSchema = z.object({
  key: z.string().min(1),
  title: z.string(),
  excerpt: z.string().nullish(),
  description: z.string().nullish(),
});
type WikipediaPage = z.infer<typeof pageSchema>;

const searchSchema = z.object({ pages: z.array(z.unknown()) });

/** MediaWiki REST errors: `{ errorKey, messageTranslations: { en }, httpCode, httpReason }`. */
const errorSchema = z.object({
  errorKey: z.string().optional(),
  messageTranslations: z.record(z.string(), z.string()).optional(),
  message: z.string().optional(),
  httpReason: z.string().optional(),
});

const label = PROVIDER_NAMES.wikipedia.choice;

export function createWikipediaProvider(): Provider {
  return {
    name: "wikipedia",
    label,
    capabilities: { search: true, contents: false, freshness: false, domainFilters: false, highlights: false, fullText: false },
    search: searchWikipedia,
  };
}

/** The wiki's origin: `en` → `https://en.wikipedia.org`. The language is validated by the settings schema. */
export function wikipediaOrigin(language: string): string {
  return `https://${language}.wikipedia.org`;
}

/** A page's address from its key (`Shell_(computing)`), keeping `/` and `:` readable as Wikipedia does. */
export function wikipediaPageUrl(origin: string, key: string): string {
  return `${origin}/wiki/${encodeURIComponent(key).replace(/%2F/gi, "/").replace(/%3A/gi, ":")}`;
}

async function searchWikipedia(input: SearchRequest, context: ProviderContext): Promise<ProviderResponse> {
  const { request, warnings } = resolveSearchRequest(input, context.settings);
  warnUnsupported(request, label, warnings, {});
  const origin = wikipediaOrigin(context.settings.external.wikipedia.language);
  const query = keywordQuery(request.query);
  const params = new URLSearchParams({ q: query, limit: String(request.count) });
  // Api-User-Agent is what Wikimedia reads where a runtime does not let a client set User-Agent.
  const call = sourceCall("wikipedia", `${origin}/w/rest.php/v1/search/page?${params.toString()}`, request, {
    headers: { "Api-User-Agent": userAgent },
  });

  const response = await sendProviderRequest(call, context);
  if (!isSuccess(response)) throw wikipediaError(call, response, context.clock.now());
  const body = readJson(call, response, searchSchema, "search answer");
  const pages = parseEach(body.pages, pageSchema, warnings, "page");
  return { provider: "wikipedia", endpoint: "search/page", query, results: toResults(pages, origin, request, warnings), warnings };
}

function toResults(pages: WikipediaPage[], origin: string, request: ResolvedSearchRequest, warnings: string[]): ProviderResult[] {
  const results: ProviderResult[] = [];
  for (const { item: page, url, canonicalUrl, rank } of distinctByCanonicalUrl(pages, (p) => wikipediaPageUrl(origin, p.key), request.count, warnings)) {
    const excerpt = htmlToLine(page.excerpt ?? "");
    const description = textToLine(page.description ?? "");
    results.push({
      url,
      canonicalUrl,
      title: plainTitleLine(page.title) || page.key.replace(/_/g, " "),
      domain: displayDomain(url),
      ...(excerpt ? { snippet: cutText(excerpt, request.maxContentChars).text } : {}),
      highlights: [],
      ...(description ? { summary: description } : {}),
      rank,
    });
  }
  return results;
}

function wikipediaError(call: ProviderCall, response: HttpResponse, now: number): ProviderError {
  const parsed = errorSchema.safeParse(tryJson(response.text));
  const error = parsed.success ? parsed.data : undefined;
  const message = error?.messageTranslations?.en ?? error?.message ?? error?.httpReason;
  const detail = message ? saidWithCode(message, error?.errorKey) : undefined;
  return statusError(call, response, now, detail);
}
