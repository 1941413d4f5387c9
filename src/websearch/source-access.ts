// What each source needs before it can be asked: nothing (the free sources, PubMed), a key
// (Brave, Exa, Tavily), an optional token (GitHub), or the address of the user's own instance
// (SearXNG). The settings tab uses it to switch the free set on when web search is allowed and
// nothing enabled could run — the free set is the default when no key is configured.
import { FREE_SOURCES } from "../provider-names";
import type { SecretName } from "../ports";
import type { Settings } from "../settings";
import type { ProviderName } from "./types";

export type SourceAccess =
  | { kind: "keyless" }
  | { kind: "optional_key"; secret: SecretName }
  | { kind: "key"; secret: SecretName }
  | { kind: "instance" };

export const SOURCE_ACCESS: Record<ProviderName, SourceAccess> = {
  brave: { kind: "key", secret: "brave" },
  "brave-web": { kind: "key", secret: "brave" },
  exa: { kind: "key", secret: "exa" },
  tavily: { kind: "key", secret: "tavily" },
  github: { kind: "optional_key", secret: "github" },
  wikipedia: { kind: "keyless" },
  hackernews: { kind: "keyless" },
  arxiv: { kind: "keyless" },
  stackexchange: { kind: "keyless" },
  pubmed: { kind: "keyless" },
  searxng: { kind: "instance" },
};

/** Whether `source` has what it needs: a key set, an instance address, or nothing at all. */
export function canAsk(source: ProviderName, settings: Settings, hasKey: (name: SecretName) => boolean): boolean {
  const access = SOURCE_ACCESS[source];
  switch (access.kind) {
    case "keyless":
    case "optional_key":
      return true;
    case "key":
      return hasKey(access.secret);
    case "instance":
      return settings.external.searxng.baseUrl.trim() !== "";
  }
}

/**
 * The providers to enable when web search is switched on: the ones already enabled, plus the free
 * set when none of them could be asked (no key, no instance). `added` says whether it changed.
 */
export function providersWhenAllowed(settings: Settings, hasKey: (name: SecretName) => boolean): { providers: ProviderName[]; added: boolean } {
  const enabled = settings.external.providers;
  if (enabled.some((p) => canAsk(p, settings, hasKey))) return { providers: [...enabled], added: false };
  return { providers: [...new Set([...enabled, ...FREE_SOURCES])], added: true };
}
