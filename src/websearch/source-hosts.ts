// Which host each source's API calls go to, from settings (a proxy base URL, the Wikipedia
// language and the SearXNG instance count): what evaluations and tests check traffic against.
import type { Settings } from "../settings";
import { arxivApiUrl } from "./providers/arxiv";
import { githubApiUrl } from "./providers/github";
import { hackerNewsBaseUrl } from "./providers/hackernews";
import { eutilsUrl } from "./providers/pubmed";
import { stackExchangeApiUrl } from "./providers/stackexchange";
import { tavilyApiUrl } from "./providers/tavily";
import { wikipediaOrigin } from "./providers/wikipedia";
import type { ProviderName } from "./types";

function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return "";
  }
}

/** Provider name → the host its calls go to ("" for SearXNG until an instance is set). */
export function sourceHosts(settings: Settings): Record<ProviderName, string> {
  const external = settings.external;
  const brave = hostOf(external.brave.baseUrl);
  return {
    brave,
    "brave-web": brave,
    exa: hostOf(external.exa.baseUrl),
    wikipedia: hostOf(wikipediaOrigin(external.wikipedia.language)),
    hackernews: hostOf(hackerNewsBaseUrl),
    arxiv: hostOf(arxivApiUrl),
    github: hostOf(githubApiUrl),
    stackexchange: hostOf(stackExchangeApiUrl),
    pubmed: hostOf(eutilsUrl),
    searxng: hostOf(external.searxng.baseUrl),
    tavily: hostOf(tavilyApiUrl),
  };
}
