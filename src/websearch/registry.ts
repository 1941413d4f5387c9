// Every provider the plugin knows, by name. Settings choose which of them a run may use.
import { createArxivProvider } from "./providers/arxiv";
import { createBraveProvider } from "./providers/brave";
import { createBraveWebProvider } from "./providers/brave-web";
import { createExaProvider } from "./providers/exa";
import { createGitHubProvider } from "./providers/github";
import { createHackerNewsProvider } from "./providers/hackernews";
import { createPubMedProvider } from "./providers/pubmed";
import { createSearxngProvider } from "./providers/searxng";
import { createStackExchangeProvider } from "./providers/stackexchange";
import { createTavilyProvider } from "./providers/tavily";
import { createWikipediaProvider } from "./providers/wikipedia";
import type { Provider, ProviderName } from "./types";

export type ProviderRegistry = ReadonlyMap<ProviderName, Provider>;

/** Fresh provider instances; keep one registry per session (Brave remembers a missing plan). */
export function createProviderRegistry(): ProviderRegistry {
  const providers = [
    createBraveProvider(),
    createBraveWebProvider(),
    createExaProvider(),
    createWikipediaProvider(),
    createHackerNewsProvider(),
    createArxivProvider(),
    createGitHubProvider(),
    createStackExchangeProvider(),
    createPubMedProvider(),
    createSearxngProvider(),
    createTavilyProvider(),
  ];
  return new Map(providers.map((p) => [p.name, p]));
}
