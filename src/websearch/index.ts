// The public surface of web search: what the research core, the plugin and the CLI import.
export type {
  Provider,
  ProviderCapabilities,
  ProviderContext,
  ProviderErrorKind,
  ProviderLogEvent,
  ProviderName,
  ProviderResponse,
  ProviderResult,
  SearchRequest,
} from "./types";
export { ProviderError } from "./types";
export { canonicalizeUrl, displayDomain } from "./canonical-url";
export { createProviderRegistry, providerLabel, type ProviderRegistry } from "./registry";
export {
  createSearchSession,
  mergeResults,
  searchProviders,
  type MergedResult,
  type MultiSearchResult,
  type ProviderFailure,
  type SearchSession,
} from "./search-providers";
export { RateGovernor, defaultMinIntervals } from "./rate-governor";
export { SearchCache, type SearchCacheOptions } from "./search-cache";
export { resolveSearchRequest, searchLimits, type ResolvedSearchRequest } from "./request-limits";
export { maxResponseBytes } from "./provider-http";
export {
  createReplayHttp,
  maskSecretHeaders,
  parseReplayFile,
  recordedExchangeSchema,
  type RecordedExchange,
  type ReplayLogEntry,
  type ReplayOptions,
} from "./replay";
