// SearXNG, the user's own metasearch instance (`GET {instance}/search?format=json`): results from
// the engines it runs, with the engines that found each as a signal. Categories follow what the
// question is about (code → it, papers → science, news → news) and freshness becomes SearXNG's
// time range. An instance answers 403 to `format=json` unless its settings.yml lists json among
// `search.formats` — the message says exactly that. No key; the address comes from settings, as
// users type it: with `/search`, a query or a fragment pasted in. An instance behind basic auth is
// reached with the user name in the address (`https://alice@…`) and the password from secret storage
// (the plugin) or `SEARXNG_PASSWORD` (the CLI); a CLI config may write `user:password@` instead.
// The login is sent as a header, never in the address, never in a message.
import * as z from "zod";
import { PROVIDER_NAMES } from "../../provider-names";
import type { HttpResponse } from "../../ports";
import { distinctByCanonicalUrl, displayDomain } from "../canonical-url";
import { cutText, htmlToLine, plainTitleLine, toPublishedDate } from "../plain-text";
import { aside, bodyExcerpt, failWith, looksLikeHtml, quoted, readJson, sendProviderRequest, type ProviderCall } from "../provider-http";
import { resolveSearchRequest, type ResolvedSearchRequest } from "../request-limits";
import { ProviderError, type Provider, type ProviderContext, type ProviderResponse, type ProviderResult, type QuestionTopic, type SearchRequest } from "../types";
import { isSuccess, looseNumber, looseStrings, parseEach, sourceCall, statusError, warnUnsupported } from "./source-call";
import { decodedUrlPart, httpUrl } from "../../text/urls";

const resultSchema = z.object({
  url: z.string(),
  title: z.string().nullish(),
  content: z.string().nullish(),
  engine: z.string().nullish(),
  engines: looseStrings,
  score: looseNumber,
  publishedDate: z.string().nullish(),
});
type SearxngResult = z.infer<typeof resultSchema>;

const searchSchema = z.object({
  results: z.array(z.unknown()),
  unresponsive_engines: z.array(z.unknown()).nullish(),
});

/** `[engine, reason]`, as SearXNG lists the engines that did not answer. */
const silentEngineSchema = z.tuple([z.string(), z.string().nullish()]).rest(z.unknown());

/** Engines named in the warning about those that did not answer; the rest are counted. */
const enginesNamed = 5;

const label = PROVIDER_NAMES.searxng.choice;

/** SearXNG's categories for what a question is about; `general` is always searched too. */
const categoryFor: Record<QuestionTopic, string> = {
  code: "it",
  papers: "science",
  science: "science",
  medicine: "science",
  news: "news",
  background: "general",
};

const timeRangeFor: Partial<Record<string, string>> = { pd: "day", pw: "week", pm: "month", py: "year" };

export function createSearxngProvider(): Provider {
  return {
    name: "searxng",
    label,
    capabilities: { search: true, contents: false, freshness: true, domainFilters: false, highlights: false, fullText: false },
    search: searchSearxng,
  };
}

/** The `categories` parameter: general plus one per topic, in a stable order. */
export function searxngCategories(topics: readonly QuestionTopic[]): string {
  return [...new Set(["general", ...topics.map((t) => categoryFor[t])])].join(",");
}

function searchParams(request: ResolvedSearchRequest, warnings: string[]): URLSearchParams {
  const params = new URLSearchParams({ q: request.query, format: "json", categories: searxngCategories(request.topics), pageno: "1" });
  if (request.language) params.set("language", request.language);
  const range = timeRangeFor[request.freshness];
  if (range) params.set("time_range", range);
  else if (request.freshness !== "any") warnings.push(`${label} has only day, week, month and year ranges; “${request.freshness}” was ignored`);
  return params;
}

/** The instance as settings name it, read once: where its search is, and how to log in to it. */
export interface SearxngInstance {
  /** Origin and path, without `/search`, query, fragment or credentials: what messages name. */
  base: string;
  /** `Basic …` from the address's user name and its password, when it has a user name. */
  authorization?: string;
  /** Where the password came from, for the message of a refused login. */
  passwordFrom?: "address" | "secret";
  /** The password, so every message and every body read is scrubbed of it ("" when none). */
  password: string;
}

/**
 * The instance behind an address as a user types it, or null when it is none. Node's fetch refuses
 * an address with credentials and names the whole address, password and all, in its error; a pasted
 * results page (`…/search?q=crdt`) asked `/search/search`, or sent its own `q` along. A password
 * written in the address wins over `storedPassword` (secret storage, `SEARXNG_PASSWORD`), which is
 * used only with a user name: a login needs one.
 */
export function searxngInstance(address: string, storedPassword = ""): SearxngInstance | null {
  const url = httpUrl(address.trim());
  if (!url) return null;
  const path = url.pathname.replace(/\/+$/, "").replace(/\/search$/i, "");
  const base = `${url.origin}${path}`;
  if (url.username === "" && url.password === "") return { base, password: "" };
  const user = decodedUrlPart(url.username);
  const fromAddress = url.password !== "";
  const password = fromAddress ? decodedUrlPart(url.password) : storedPassword;
  return { base, authorization: `Basic ${base64(`${user}:${password}`)}`, password, passwordFrom: fromAddress ? "address" : "secret" };
}

function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

async function searchSearxng(input: SearchRequest, context: ProviderContext): Promise<ProviderResponse> {
  const { request, warnings } = resolveSearchRequest(input, context.settings);
  warnUnsupported(request, label, warnings, { freshness: true });
  const address = context.settings.external.searxng.baseUrl;
  if (address.trim() === "") {
    throw new ProviderError("searxng", "unsupported", `No ${label} instance is set. Add its address in Vault Research settings (CLI: external.searxng.baseUrl in --config).`);
  }
  // Read as stored, not trimmed: a password's spaces are its own.
  const instance = searxngInstance(address, (await context.secrets.get("searxng")) ?? "");
  if (!instance) throw new ProviderError("searxng", "unsupported", `The ${label} instance address in settings is not an http(s) address.`);
  const call = sourceCall("searxng", `${instance.base}/search?${searchParams(request, warnings).toString()}`, request, {
    secret: instance.password,
    ...(instance.authorization ? { headers: { Authorization: instance.authorization } } : {}),
  });

  const response = await sendProviderRequest(call, context);
  if (!isSuccess(response)) throw searxngError(call, response, context.clock.now(), instance);
  if (looksLikeHtml(response)) throw htmlInsteadOfJson(call, response, instance.base);
  const body = readJson(call, response, searchSchema, "search answer");
  const silent = silentEngines(body.unresponsive_engines ?? [], warnings);
  if (silent !== "") warnings.push(`engines that did not answer: ${silent}`);
  const results = toResults(parseEach(body.results, resultSchema, warnings, "result"), request, context.clock.now(), warnings);
  // Nothing found because the engines failed is not "nothing exists": a failure, so it is said as
  // one and not kept in the session's cache as an empty answer.
  if (results.length === 0 && silent !== "") {
    throw failWith(call, "http", `${label} at ${instance.base} answered, but found nothing because its engines did not answer: ${silent}. Try again later, or turn on other engines in its settings.`, { reason: "engines_failed" });
  }
  return { provider: "searxng", endpoint: "search", query: request.query, results, warnings };
}

/** The engines that did not answer, in words ("google (timeout), bing (CAPTCHA) and 3 more"), or "". */
function silentEngines(listed: readonly unknown[], warnings: string[]): string {
  const silent = parseEach(listed, silentEngineSchema, warnings, "unresponsive engine");
  // Name and reason cut apart, so a long one never cuts off the bracket; the reason's own full stop
  // left out, as in every aside: "bing (Suspended: access denied.). Try again later" read so.
  const named = silent.slice(0, enginesNamed).map(([engine, reason]) => `${quoted(engine, 40)}${aside(reason ?? undefined)}`);
  const more = silent.length > enginesNamed ? ` and ${silent.length - enginesNamed} more` : "";
  return silent.length > 0 ? `${named.join(", ")}${more}` : "";
}

function toResults(items: SearxngResult[], request: ResolvedSearchRequest, now: number, warnings: string[]): ProviderResult[] {
  const results: ProviderResult[] = [];
  for (const { item, url, canonicalUrl, rank } of distinctByCanonicalUrl(items, (r) => r.url, request.count, warnings)) {
    const content = htmlToLine(item.content ?? "");
    const engines = item.engines && item.engines.length > 0 ? item.engines : item.engine ? [item.engine] : [];
    const publishedAt = toPublishedDate(item.publishedDate, now);
    results.push({
      url,
      canonicalUrl,
      title: plainTitleLine(item.title ?? "") || displayDomain(url),
      domain: displayDomain(url),
      ...(content ? { snippet: cutText(content, request.maxContentChars).text } : {}),
      highlights: [],
      ...(publishedAt ? { publishedAt } : {}),
      ...(typeof item.score === "number" ? { score: item.score } : {}),
      rank,
      signals: engines.length > 0 ? [{ kind: "engines", value: engines }] : [],
    });
  }
  return results;
}

/** Said in the instance owner's terms: what to change in settings.yml. */
function jsonDisabled(call: ProviderCall, response: HttpResponse, base: string): ProviderError {
  return failWith(
    call,
    "unsupported",
    `${label} at ${base} does not answer in JSON (HTTP ${response.status}): JSON output is turned off on this instance. Add \`json\` to \`search: formats:\` in its settings.yml and restart it.`,
    { status: response.status },
  );
}

/**
 * A web page where JSON was asked for. SearXNG refuses a format it does not serve with a 403; an
 * older one answered with its own results page. Any other page is what stands in front of the
 * search — a login page, or the bot check public instances put up — and turning JSON on fixes nothing.
 */
function htmlInsteadOfJson(call: ProviderCall, response: HttpResponse, base: string): ProviderError {
  const title = bodyExcerpt(response, call.secret);
  if (/searx/i.test(title)) return jsonDisabled(call, response, base);
  return failWith(
    call,
    "http",
    `${label} at ${base} sent a web page titled “${title}” instead of JSON (HTTP ${response.status}): a login page or a bot check stands in front of its search. Use an instance you run, or one that allows JSON.`,
    { status: response.status, reason: "blocked" },
  );
}

function searxngError(call: ProviderCall, response: HttpResponse, now: number, instance: SearxngInstance): ProviderError {
  if (response.status === 403) return jsonDisabled(call, response, instance.base);
  if (response.status === 401) {
    const message = !instance.authorization
      ? `${label} at ${instance.base} asks for a user name and password (HTTP 401). Write the user name in the address (https://name@…) and set the ${label} password in Vault Research settings (CLI: SEARXNG_PASSWORD).`
      : instance.passwordFrom === "address"
        ? `${label} at ${instance.base} refused the user name and password in its address (HTTP 401).`
        : instance.password === ""
          ? `${label} at ${instance.base} refused the user name in its address with no password (HTTP 401): set the ${label} password in Vault Research settings (CLI: SEARXNG_PASSWORD).`
          : `${label} at ${instance.base} refused the user name in its address with the ${label} password from settings (HTTP 401).`;
    return failWith(call, "auth", message, { status: 401 });
  }
  return statusError(call, response, now);
}
