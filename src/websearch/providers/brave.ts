// Brave LLM Context (`GET /res/v1/llm/context`): passages already extracted from the best pages,
// sized to a token budget — the provider made for grounding answers. When the key's plan does not
// include it, the same question goes to Brave Web Search and the answer says so.
import * as z from "zod";
import { PROVIDER_NAMES } from "../../provider-names";
import { distinctByCanonicalUrl, displayDomain } from "../canonical-url";
import { braveError, braveErrorInAnswer, braveGet } from "./brave-error";
import { searchBraveWeb } from "./brave-web";
import { cutText, plainTitleLine, toPublishedDate } from "../plain-text";
import { readJson, requireKey, sendProviderRequest } from "../provider-http";
import { charsPerResult, resolveSearchRequest, type ResolvedSearchRequest } from "../request-limits";
import { looseList, parseEach } from "./source-call";
import { ProviderError, type Provider, type ProviderContext, type ProviderResponse, type ProviderResult, type SearchRequest } from "../types";
import { fnv1a32 } from "../../text/string-hash";

// Snippets are documented as strings; one client saw `{text, relevance_score}`. Both are read.
const snippetSchema = z.union([z.string(), z.object({ text: z.string() }).transform((s) => s.text)]);

const genericSchema = z.object({
  url: z.string(),
  title: z.string().nullish(),
  snippets: looseList(snippetSchema),
});
type GenericEntry = z.infer<typeof genericSchema>;

const sourceSchema = z.object({
  title: z.string().nullish(),
  hostname: z.string().nullish(),
  // Three strings (long date, ISO date, relative) in the docs; a bare string is tolerated too.
  age: z.union([z.array(z.string().nullable()), z.string()]).nullish(),
});
type SourceEntry = z.infer<typeof sourceSchema>;

const llmContextSchema = z.object({
  grounding: z.object({ generic: z.array(z.unknown()).nullish() }).loose(),
  sources: z.record(z.string(), z.unknown()).nullish(),
});

/** Brave's documented ranges for the token budgets. */
const braveTokens = { total: { min: 1024, max: 32_768 }, perUrl: { min: 512, max: 8192 } };

export const braveLabel = PROVIDER_NAMES.brave.choice;

export function createBraveProvider(): Provider {
  // Remembered for the session, so a plan without LLM Context costs one failed call, not one per run:
  // an endpoint that is not there per base URL; "not in this key's plan" per base URL and key (by a
  // hash, never the key), so a key the user changes to a plan that has it is tried at once, not
  // after a restart. The key is looked up for it only once some plan has been found without it.
  const unsupportedAt = new Set<string>();
  const plansWithout = new Set<string>();
  const planOf = async (baseUrl: string, context: ProviderContext) => `${baseUrl}\n${fnv1a32((await context.secrets.get("brave"))?.trim() ?? "")}`;
  return {
    name: "brave",
    label: braveLabel,
    capabilities: { search: true, contents: false, freshness: true, domainFilters: false, highlights: true, fullText: false },
    async search(request, context) {
      const baseUrl = context.settings.external.brave.baseUrl;
      if (unsupportedAt.has(baseUrl)) return fallBackToWebSearch(request, context, NOT_AVAILABLE);
      if (plansWithout.size > 0 && plansWithout.has(await planOf(baseUrl, context))) return fallBackToWebSearch(request, context, NOT_IN_PLAN);
      try {
        return await searchLlmContext(request, context);
      } catch (error) {
        if (error instanceof ProviderError && (error.kind === "plan" || error.kind === "unsupported")) {
          if (error.kind === "plan") plansWithout.add(await planOf(baseUrl, context));
          else unsupportedAt.add(baseUrl);
          context.log?.({ type: "fallback", provider: "brave", from: "llm/context", to: "web/search", reason: error.message });
          return fallBackToWebSearch(request, context, error.kind === "plan" ? NOT_IN_PLAN : NOT_AVAILABLE);
        }
        throw error;
      }
    },
  };
}

const NOT_IN_PLAN = "it is not in this key's plan";
const NOT_AVAILABLE = "the endpoint is not available";

async function fallBackToWebSearch(request: SearchRequest, context: ProviderContext, why: string): Promise<ProviderResponse> {
  const response = await searchBraveWeb(request, context, { provider: "brave", label: braveLabel });
  response.warnings.unshift(`Brave LLM Context was not used (${why}); results come from Brave Web Search instead`);
  return response;
}

async function searchLlmContext(input: SearchRequest, context: ProviderContext): Promise<ProviderResponse> {
  const { request, warnings } = resolveSearchRequest(input, context.settings);
  const settings = context.settings.external.brave;
  if (request.includeDomains.length > 0 || request.excludeDomains.length > 0) {
    warnings.push(`${braveLabel} has no domain filters; include/exclude domains were ignored`);
  }
  const key = await requireKey(context, "brave", "brave", braveLabel);

  const totalTokens = Math.min(braveTokens.total.max, Math.max(braveTokens.total.min, request.maxTokens));
  const perUrlTokens = Math.min(braveTokens.perUrl.max, Math.max(braveTokens.perUrl.min, Math.floor(totalTokens / request.count)));
  const params = new URLSearchParams({
    q: request.query,
    country: request.country ?? settings.country,
    search_lang: request.language ?? settings.searchLang,
    maximum_number_of_urls: String(request.count),
    maximum_number_of_tokens: String(totalTokens),
    maximum_number_of_tokens_per_url: String(perUrlTokens),
  });
  const call = braveGet({ provider: "brave", label: braveLabel }, settings.baseUrl, "llm/context", params, request, key);

  const response = await sendProviderRequest(call, context);
  if (response.status < 200 || response.status >= 300) throw braveError(call, response, context.clock.now());
  const refused = braveErrorInAnswer(call, response, context.clock.now());
  if (refused) throw refused;
  const body = readJson(call, response, llmContextSchema, "LLM Context answer");

  // Only the sources of the passages kept are read: the map may be as long as the body allows.
  const rawSources = body.sources ?? {};
  const sourceOf = (url: string): SourceEntry | undefined => {
    if (!Object.hasOwn(rawSources, url)) return undefined;
    const parsed = sourceSchema.safeParse(rawSources[url]);
    return parsed.success ? parsed.data : undefined;
  };
  const entries = parseEach(body.grounding.generic ?? [], genericSchema, warnings, "passage group", (n) => `${n} passage group${n === 1 ? "" : "s"} without a URL skipped`);
  const results = toResults(entries, sourceOf, request, context.clock.now(), warnings);
  return { provider: "brave", endpoint: "llm/context", query: request.query, results, warnings };
}

function sourceDate(source: SourceEntry | undefined, now: number): string | undefined {
  const age = source?.age;
  if (!age) return undefined;
  if (typeof age === "string") return toPublishedDate(age, now);
  // [long date, ISO date, relative]: the ISO one first, the others if it is missing.
  for (const candidate of [age[1], age[0], age[2]]) {
    const date = toPublishedDate(candidate, now);
    if (date) return date;
  }
  return undefined;
}

function toResults(
  entries: GenericEntry[],
  sourceOf: (url: string) => SourceEntry | undefined,
  request: ResolvedSearchRequest,
  now: number,
  warnings: string[],
): ProviderResult[] {
  const budget = charsPerResult(request);
  const results: ProviderResult[] = [];
  for (const { item: entry, url, canonicalUrl, rank } of distinctByCanonicalUrl(entries, (e) => e.url, request.count, warnings)) {
    const source = sourceOf(entry.url);

    // Passages are kept whole until the per-result budget runs out; the last one is cut.
    const highlights: string[] = [];
    let used = 0;
    let truncated = false;
    for (const raw of entry.snippets ?? []) {
      const passage = raw.trim();
      if (passage === "") continue;
      if (used >= budget) {
        truncated = true;
        break;
      }
      const cut = cutText(passage, budget - used);
      highlights.push(cut.text);
      used += cut.text.length;
      truncated ||= cut.truncated;
    }
    const title = plainTitleLine(entry.title ?? source?.title ?? "") || displayDomain(url);
    const publishedAt = sourceDate(source, now);
    results.push({
      url,
      canonicalUrl,
      title,
      // The host of the address itself: a label that cannot name another site than the one it opens.
      domain: displayDomain(url),
      ...(highlights[0] ? { snippet: cutText(highlights[0].replace(/\s+/g, " "), 300).text } : {}),
      highlights,
      ...(truncated ? { truncated } : {}),
      ...(publishedAt ? { publishedAt } : {}),
      rank,
    });
  }
  return results;
}
