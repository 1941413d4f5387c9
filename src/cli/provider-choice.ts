// Which web sources a CLI command asks, decided in one place for `research`, `websearch` and the
// MCP server: the ones named with --external-provider, exactly; else the settings' providers —
// and the free set when none of those could be asked (no key set, no instance), as the settings
// tab does. Under replay every keyed source gets a placeholder key (recordings need none), so the
// choice is the same as with keys set. The CLI's own hint for a missing key lives here too: the
// websearch layer's messages are shown by the panel and must not name environment variables.
import { providerChoiceName } from "../evidence/labels";
import type { SecretName, Secrets } from "../ports";
import { secretAsRead, type ProviderName, type Settings } from "../settings";
import { providersWhenAllowed, SOURCE_ACCESS } from "../websearch/source-access";
import { secretEnvNames } from "./env-secrets";

export interface ProviderChoice {
  providers: ProviderName[];
  /** Said to the user when the free set stood in for providers without a key. */
  note?: string;
}

/** `named`: the --external-provider values ([] for none). */
export async function chooseProviders(named: readonly ProviderName[], settings: Settings, secrets: Secrets): Promise<ProviderChoice> {
  if (named.length > 0) return { providers: [...named] };
  const configured = settings.external.providers;
  // Only the keys of the configured providers are looked up, and only to see whether one is set.
  const present = new Set<SecretName>();
  for (const provider of configured) {
    const access = SOURCE_ACCESS[provider];
    if (access.kind === "key" && !present.has(access.secret) && (await secrets.get(access.secret))) present.add(access.secret);
  }
  const chosen = providersWhenAllowed(settings, (name) => present.has(name));
  if (!chosen.added) return { providers: chosen.providers };
  // The keyed providers would only fail; the free set is the default when no key is configured.
  const keyless = chosen.providers.filter((p) => !configured.includes(p));
  return { providers: keyless, note: `${whatWasMissing(configured)}, so the free sources were asked.` };
}

/** Why none of `configured` could be asked, in the words of what each lacks: a key, or SearXNG's address. */
function whatWasMissing(configured: readonly ProviderName[]): string {
  const keyed = configured.filter((p) => SOURCE_ACCESS[p].kind === "key");
  const reasons: string[] = [];
  if (keyed.length > 0) reasons.push(`no API key is set for ${keyed.map(providerChoiceName).join(", ")}`);
  if (configured.some((p) => SOURCE_ACCESS[p].kind === "instance")) reasons.push(`no ${providerChoiceName("searxng")} instance address is set`);
  const said = reasons.join(" and ") || "no web source is enabled in settings";
  return `${said[0].toUpperCase()}${said.slice(1)}`;
}

/** The placeholder every keyed source gets under replay. */
export const REPLAY_PLACEHOLDER_KEY = "replay-no-key";

const KEYED_SECRETS: ReadonlySet<SecretName> = new Set(Object.values(SOURCE_ACCESS).flatMap((a) => (a.kind === "key" ? [a.secret] : [])));

/** Whether a web source cannot be asked without this secret (Brave's, Exa's, Tavily's key). */
export function isKeyedSourceSecret(name: SecretName): boolean {
  return KEYED_SECRETS.has(name);
}

/** Secrets for answering from recordings: the real key when set, else a placeholder for every keyed source. */
export function replaySecrets(env: Secrets): Secrets {
  return { get: async (name) => (await env.get(name)) ?? (isKeyedSourceSecret(name) ? REPLAY_PLACEHOLDER_KEY : null) };
}

/**
 * The CLI's hint for a source that failed for want of a key: "Set BRAVE_SEARCH_API_KEY." — null
 * when the source needs no key, or its key is set (then the key itself was refused).
 */
export function missingKeyHint(provider: ProviderName, env: Record<string, string | undefined>): string | null {
  const access = SOURCE_ACCESS[provider];
  if (!access || access.kind !== "key") return null;
  const name = secretEnvNames[access.secret];
  // Read as the key is read (env-secrets.ts): `""` from a `.env` file that kept its quotes is no key.
  return secretAsRead(access.secret, env[name]) !== null ? null : `Set ${name} for the CLI.`;
}
