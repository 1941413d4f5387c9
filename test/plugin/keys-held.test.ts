// The keys the plugin holds, read from secret storage at each call: every secret name, and the
// embedding server's key by its id; placeholders (`ollama`) and secrets that cannot be read skipped.
import { describe, expect, it } from "vitest";
import { keysHeld } from "../../src/plugin/keys-held";
import type { SecretName, Secrets } from "../../src/ports";
import { defaultSettings } from "../../src/settings";

function secretsOf(values: Partial<Record<SecretName, string>>): Secrets {
  return { get: async (name) => values[name] ?? null };
}

describe("keysHeld", () => {
  it("reads every secret name now, skipping placeholders and secrets that cannot be read", async () => {
    const failing: Secrets = { get: async (name) => (name === "exa" ? Promise.reject(new Error("locked")) : name === "openai" ? "ollama" : name === "tavily" ? "tvly-held-0123456789" : null) };
    expect(await keysHeld(failing, defaultSettings())).toEqual(["tvly-held-0123456789"]);
    const changing: Record<SecretName, string> = { brave: "", exa: "", openai: "", anthropic: "", github: "", tavily: "", searxng: "" };
    const live = secretsOf(changing);
    expect(await keysHeld(live, defaultSettings())).toEqual([]);
    changing.anthropic = "sk-ant-changed-0123456789";
    expect(await keysHeld(live, defaultSettings())).toEqual(["sk-ant-changed-0123456789"]);
    // A SearXNG instance's login password is scrubbed as every key is.
    changing.searxng = "correct horse battery";
    expect(await keysHeld(live, defaultSettings())).toEqual(["sk-ant-changed-0123456789", "correct horse battery"]);
  });

  it("reads the embedding server's key by its id too (it has no secret name)", async () => {
    const settings = defaultSettings();
    settings.search.embedding.secretId = "my-embedding-key";
    const stored: Record<string, string> = { "my-embedding-key": "sk-embed-held-0123456789" };
    const secrets = { get: async () => null, byId: async (id: string) => stored[id] ?? null };
    expect(await keysHeld(secrets, settings)).toEqual(["sk-embed-held-0123456789"]);
  });
});
