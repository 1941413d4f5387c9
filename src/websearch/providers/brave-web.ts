// Brave Web Search (`GET /res/v1/web/search`): ranked web results with a description and up to
// five extra snippets each, plus news when Brave mixes it in. Videos, FAQ, discussions and other
// blocks are tolerated and skipped.
import * as z from "zod";
import { PROVIDER_NAMES } from "../../provider-names";
import { distinctByCanonicalUrl, displayDomain } from "../canonical-url";
import { braveError, braveErrorInAnswer, braveGet } from "./brave-error";
import { cutText, htmlToLine, plainTitleLine, toPublishedDate } from "../plain-text";
import { quoted, readJson, requireKey, sendProviderRequest } from "../provider-http";
import { resolveSearchRequest, type ResolvedSearchRequest } from "../request-limits";
import { firstItems, looseStrings } from "./source-call";
import type { Provider, ProviderContext, ProviderResponse, ProviderResult, SearchRequest } from "../types";

const webResultSchema = z.object({
  url: z.string(),
  title: z.string().nullish(),
  description: z.string().nullish(),
  age: z.string().nullish(),
  page_age: z.string().nullish(),
  extra_snippets: looseStrings,
});
type BraveWebResult = z.infer<typeof webResultSchema>;

const slotSchema = z.object({ type: z.string(), index: z.number().optional(), all: z.boolean().optional() });
type MixedSlot = z.infer<typeof slotSchema>;

const blockSchema = z.object({ results: z.array(z.unknown()).default([]) }).nullish();

const braveWebResponseSchema = z.object({
  query: z.object({ original: z.string().optional(), altered: z.string().nullish() }).nullish(),
  mixed: z.object({ main: z.array(z.unknown()).default([]) }).nullish(),
  web: blockSchema,
  news: blockSchema,
});

/** News items taken where Brave places the news block: enough to answer "latest", not to crowd out the web. */
const newsPerBlock = 3;

export const braveWebLabel = PROVIDER_NAMES["brave-web"].choice;

export function createBraveWebProvider(): Provider {
  return {
    name: "brave-web",
    label: braveWebLabel,
    capabilities: { search: true, contents: false, freshness: true, domainFilters: false, highlights: true, fullText: false },
    async search(request, context) {
      return searchBraveWeb(request, context, { provider: "brave-web", label: braveWebLabel });
    },
  };
}

/** Also used by `brave` when the key's plan lacks LLM Context (answers then carry `brave`). */
export async function searchBraveWeb(
  input: SearchRequest,
  context: ProviderContext,
  as: { provider: "brave" | "brave-web"; label: string },
): Promise<ProviderResponse> {
  const { request, warnings } = resolveSearchRequest(input, context.settings);
  const settings = context.settings.external.brave;
  if (request.includeDomains.length > 0 || request.excludeDomains.length > 0) {
    warnings.push(`${as.label} has no domain filters; include/exclude domains were ignored`);
  }
  const key = await requireKey(context, "brave", as.provider, as.label);

  const params = new URLSearchParams({
    q: request.query,
    count: String(request.count),
    country: request.country ?? settings.country,
    search_lang: request.language ?? settings.searchLang,
    safesearch: settings.safesearch,
    extra_snippets: "true",
    text_decorations: "false",
    result_filter: "web,news",
  });
  const call = braveGet(as, settings.baseUrl, "web/search", params, request, key);

  const response = await sendProviderRequest(call, context);
  if (response.status < 200 || response.status >= 300) throw braveError(call, response, context.clock.now());
  const refused = braveErrorInAnswer(call, response, context.clock.now());
  if (refused) throw refused;
  const body = readJson(call, response, braveWebResponseSchema, "web search answer");

  const altered = body.query?.altered;
  if (altered && altered !== request.query) warnings.push(`${as.label} searched for “${quoted(altered)}” instead`);

  const web = parseItems(body.web?.results ?? [], "web", warnings);
  const news = parseItems(body.news?.results ?? [], "news", warnings);
  const ordered = orderByMixed(layout(body.mixed?.main ?? [], warnings), web, news);
  const results = toResults(ordered, request, context.clock.now(), warnings);
  return { provider: as.provider, endpoint: "web/search", query: request.query, results, warnings };
}

/** The page layout's slots that can be read; odd ones are left out (the results then follow in answer order). */
function layout(main: unknown[], warnings: string[]): MixedSlot[] {
  return firstItems(main, warnings, "layout slot").flatMap((slot) => {
    const parsed = slotSchema.safeParse(slot);
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * Each result read, or undefined in its place, so `mixed.main`'s indices still point at it. Those
 * skipped are counted by why: a result without a URL is not one whose other fields were odd.
 */
function parseItems(items: unknown[], block: string, warnings: string[]): (BraveWebResult | undefined)[] {
  let withoutUrl = 0;
  let unreadable = 0;
  const parsed = firstItems(items, warnings, `${block} result`).map((item) => {
    const result = webResultSchema.safeParse(item);
    if (result.success) return result.data;
    if (hasUrl(item)) unreadable++;
    else withoutUrl++;
    return undefined;
  });
  const results = (n: number) => `${n} ${block} result${n === 1 ? "" : "s"}`;
  if (withoutUrl > 0) warnings.push(`${results(withoutUrl)} without a URL skipped`);
  if (unreadable > 0) warnings.push(`${results(unreadable)} that could not be read skipped`);
  return parsed;
}

function hasUrl(item: unknown): boolean {
  return typeof item === "object" && item !== null && typeof (item as { url?: unknown }).url === "string";
}

/** Follows Brave's own page layout (`mixed.main`), then adds web results it did not mention. */
function orderByMixed(
  main: MixedSlot[],
  web: (BraveWebResult | undefined)[],
  news: (BraveWebResult | undefined)[],
): BraveWebResult[] {
  const ordered: BraveWebResult[] = [];
  const usedWeb = new Set<number>();
  let newsTaken = false;
  for (const slot of main) {
    if (slot.type === "web" && slot.index !== undefined) {
      const item = web[slot.index];
      if (item && !usedWeb.has(slot.index)) {
        ordered.push(item);
        usedWeb.add(slot.index);
      }
    } else if (slot.type === "news" && !newsTaken) {
      newsTaken = true;
      ordered.push(...news.filter((n): n is BraveWebResult => n !== undefined).slice(0, newsPerBlock));
    }
  }
  web.forEach((item, index) => {
    if (item && !usedWeb.has(index)) ordered.push(item);
  });
  if (!newsTaken) ordered.push(...news.filter((n): n is BraveWebResult => n !== undefined).slice(0, newsPerBlock));
  return ordered;
}

function toResults(items: BraveWebResult[], request: ResolvedSearchRequest, now: number, warnings: string[]): ProviderResult[] {
  const results: ProviderResult[] = [];
  for (const { item, url, canonicalUrl, rank } of distinctByCanonicalUrl(items, (i) => i.url, request.count, warnings)) {
    const snippet = item.description ? htmlToLine(item.description) : "";
    const highlights = (item.extra_snippets ?? [])
      .map((s) => cutText(htmlToLine(s), request.maxContentChars).text)
      .filter((s) => s !== "");
    const publishedAt = toPublishedDate(item.page_age, now) ?? toPublishedDate(item.age, now);
    results.push({
      url,
      canonicalUrl,
      title: plainTitleLine(item.title ?? "") || displayDomain(url),
      domain: displayDomain(url),
      ...(snippet ? { snippet: cutText(snippet, request.maxContentChars).text } : {}),
      highlights,
      ...(publishedAt ? { publishedAt } : {}),
      rank,
    });
  }
  return results;
}
