// The CLI's Secrets: API keys from environment variables, read when a provider asks, never stored.
import type { SecretName, Secrets } from "../ports";
import { secretAsRead } from "../settings";
import { isCredential } from "../text/secret-scrub";

export const secretEnvNames: Record<SecretName, string> = {
  brave: "BRAVE_SEARCH_API_KEY",
  exa: "EXA_API_KEY",
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  github: "GITHUB_TOKEN",
  tavily: "TAVILY_API_KEY",
  searxng: "SEARXNG_PASSWORD",
};

export function envSecrets(env: Record<string, string | undefined>): Secrets {
  return {
    async get(name: SecretName): Promise<string | null> {
      return secretAsRead(name, env[secretEnvNames[name]]);
    },
  };
}

/** Every secret set in the environment (placeholders skipped): what the CLI scrubs from all it prints and logs. */
export function envSecretValues(env: Record<string, string | undefined>): string[] {
  return (Object.entries(secretEnvNames) as [SecretName, string][]).flatMap(([name, variable]) => {
    const value = secretAsRead(name, env[variable]);
    return isCredential(value) ? [value] : [];
  });
}
