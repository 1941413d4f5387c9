// The exact words the product uses to tell vault evidence from outside-vault evidence. Every
// surface (panel, CLI text, JSON, trace notes, copied answers) takes its labels from here, so the
// wording cannot drift between them.

import { isProviderName, PROVIDER_NAMES, type ProviderName } from "../provider-names";

export type OutsideStore = "ephemeral" | "promoted";

/** "brave" → "Brave", "brave-web" → "Brave", "exa" → "Exa"; unknown names are capitalised. Idempotent. */
export function providerDisplayName(provider: string): string {
  const name = provider.toLowerCase();
  if (isProviderName(name)) return PROVIDER_NAMES[name].label;
  if (provider === "") return provider;
  return provider.charAt(0).toUpperCase() + provider.slice(1);
}

/** How a source is offered as a choice, where one source has two endpoints: "Brave", "Brave Web". */
export function providerChoiceName(provider: ProviderName): string {
  return PROVIDER_NAMES[provider].choice;
}

/** `Outside vault · Brave · ephemeral`. Accepts a provider name or its display name. */
export function outsideVaultLabel(provider: string, store: OutsideStore): string {
  return `Outside vault · ${providerDisplayName(provider)} · ${store}`;
}

/** "1 row", "4 rows", "0 rows". */
export function rowCount(count: number): string {
  return `${count} ${count === 1 ? "row" : "rows"}`;
}

/** `Vault evidence: 4 rows`. */
export function vaultEvidenceCounter(count: number): string {
  return `Vault evidence: ${rowCount(count)}`;
}

/**
 * `Outside vault: 3 rows from Brave`, `… from Brave and Exa`. Providers that share a display name
 * (brave, brave-web) are named once; with no providers the "from" part is left out.
 */
export function outsideVaultCounter(count: number, providers: readonly string[]): string {
  const names = providerList(providers);
  return names ? `Outside vault: ${rowCount(count)} from ${names}` : `Outside vault: ${rowCount(count)}`;
}

/**
 * `Saved web page · kites.example`: a vault row whose note is a page someone saved (`saved_from`);
 * its text is the page's. The address's host, or the address itself when it has none.
 */
export function savedPageLabel(savedFrom: string): string {
  let site = savedFrom;
  try {
    site = new URL(savedFrom).hostname.replace(/^www\./, "") || savedFrom;
  } catch {
    // Not an address a parser reads: shown as written.
  }
  return `Saved web page · ${site}`;
}

/** The signal a vault row gains when a web result turned out to be the note's own source. */
export function alsoFoundByLabel(providers: readonly string[]): string {
  return `also found by ${providerList(providers)}`;
}

/** "Brave", "Brave and Exa", "Brave, Exa and Kagi" — display names, each once, in given order. */
export function providerList(providers: readonly string[]): string {
  const names = [...new Set(providers.map(providerDisplayName))];
  if (names.length <= 1) return names[0] ?? "";
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/**
 * A fused score as figures: all lie near 1/60 (or 1/10 for the vault's language), so two decimals
 * would show every row the same; a words' score keeps two.
 */
export function scoreFigure(score: number, fused: boolean): string {
  return score.toFixed(fused && score !== 0 && Math.abs(score) < 1 ? 4 : 2);
}
