// Every web source the plugin knows, in one table: the name settings, flags and eval files use,
// the name a user reads on an outside row (`Outside vault · Brave · ephemeral`), and the name of
// the choice where one source has two endpoints (the settings toggles, the panel's menu). Labels
// in evidence/labels.ts, the menus in ui/ and the CLI all read from here, so they cannot drift.

export const PROVIDER_NAMES = {
  brave: { label: "Brave", choice: "Brave" },
  "brave-web": { label: "Brave", choice: "Brave Web" },
  exa: { label: "Exa", choice: "Exa" },
  wikipedia: { label: "Wikipedia", choice: "Wikipedia" },
  hackernews: { label: "Hacker News", choice: "Hacker News" },
  arxiv: { label: "arXiv", choice: "arXiv" },
  github: { label: "GitHub", choice: "GitHub" },
  stackexchange: { label: "Stack Exchange", choice: "Stack Exchange" },
  pubmed: { label: "PubMed", choice: "PubMed" },
  searxng: { label: "SearXNG", choice: "SearXNG" },
  tavily: { label: "Tavily", choice: "Tavily" },
} as const satisfies Record<string, { label: string; choice: string }>;

export type ProviderName = keyof typeof PROVIDER_NAMES;

/** The settings names, in the order the settings offer them. */
export const providerNames = Object.keys(PROVIDER_NAMES) as [ProviderName, ...ProviderName[]];

/**
 * The free set: keyless sources (GitHub's token is optional) that answer a large share of research
 * questions. One settings toggle turns them all on; with no API key set they are the default.
 */
export const FREE_SOURCES = ["wikipedia", "hackernews", "arxiv", "github", "stackexchange"] as const satisfies readonly ProviderName[];

/** Whether a string is one of the names above. */
export function isProviderName(name: string): name is ProviderName {
  return Object.prototype.hasOwnProperty.call(PROVIDER_NAMES, name);
}
