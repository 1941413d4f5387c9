// One choice of web sources for research, websearch and the MCP server: named ones exactly, else
// the settings' — and the free set when none of those could be asked; replay lends every keyed
// source a placeholder; the CLI's hint names the variable only when the key is really missing.
import { describe, expect, it } from "vitest";
import { chooseProviders, missingKeyHint, REPLAY_PLACEHOLDER_KEY, replaySecrets } from "../../src/cli/provider-choice";
import type { Secrets } from "../../src/ports";
import { defaultSettings, type ProviderName } from "../../src/settings";

const none: Secrets = { get: async () => null };
const withBrave: Secrets = { get: async (name) => (name === "brave" ? "key" : null) };
const settingsWith = (providers: ProviderName[]) => {
  const s = defaultSettings();
  return { ...s, external: { ...s.external, providers } };
};

describe("chooseProviders", () => {
  it("asks exactly the providers named", async () => {
    expect(await chooseProviders(["tavily"], settingsWith(["brave"]), none)).toEqual({ providers: ["tavily"] });
  });

  it("asks the settings' providers when one of them can be asked", async () => {
    expect(await chooseProviders([], settingsWith(["brave"]), withBrave)).toEqual({ providers: ["brave"] });
  });

  it("asks the free set, and says so, when no configured provider has its key", async () => {
    const choice = await chooseProviders([], settingsWith(["brave", "exa"]), none);
    expect(choice.providers).toEqual(["wikipedia", "hackernews", "arxiv", "github", "stackexchange"]);
    expect(choice.note).toBe("No API key is set for Brave, Exa, so the free sources were asked.");
  });

  it("says SearXNG lacks its instance address, not a key, and says when no source is enabled at all", async () => {
    expect((await chooseProviders([], settingsWith(["searxng"]), none)).note).toBe("No SearXNG instance address is set, so the free sources were asked.");
    expect((await chooseProviders([], settingsWith(["tavily", "searxng"]), none)).note).toBe("No API key is set for Tavily and no SearXNG instance address is set, so the free sources were asked.");
    expect((await chooseProviders([], settingsWith([]), none)).note).toBe("No web source is enabled in settings, so the free sources were asked.");
  });
});

describe("replay", () => {
  it("lends every keyed source a placeholder, Tavily too, and no one else", async () => {
    const secrets = replaySecrets(none);
    for (const name of ["brave", "exa", "tavily"] as const) expect(await secrets.get(name)).toBe(REPLAY_PLACEHOLDER_KEY);
    for (const name of ["github", "openai", "anthropic"] as const) expect(await secrets.get(name)).toBeNull();
    expect(await replaySecrets(withBrave).get("brave")).toBe("key");
  });

  it("chooses under replay as it would with keys set", async () => {
    expect(await chooseProviders([], settingsWith(["tavily"]), replaySecrets(none))).toEqual({ providers: ["tavily"] });
  });
});

describe("missingKeyHint", () => {
  it("names the variable of a keyed source whose key is not set", () => {
    expect(missingKeyHint("brave-web", {})).toBe("Set BRAVE_SEARCH_API_KEY for the CLI.");
    expect(missingKeyHint("tavily", { TAVILY_API_KEY: " " })).toBe("Set TAVILY_API_KEY for the CLI.");
  });

  // A `.env` line `BRAVE_SEARCH_API_KEY=""` kept its quotes: the key is read as none (env-secrets.ts),
  // and the source failed "no key is set" — but the hint, reading the quotes as a key, said nothing.
  it("names the variable of a key that holds only quotes and spaces, read as none", () => {
    for (const quoted of ['""', "' '", '"\n"']) expect(missingKeyHint("brave", { BRAVE_SEARCH_API_KEY: quoted }), quoted).toBe("Set BRAVE_SEARCH_API_KEY for the CLI.");
  });

  it("says nothing for a key that is set (it was refused) or a source that needs none", () => {
    expect(missingKeyHint("exa", { EXA_API_KEY: "k" })).toBeNull();
    expect(missingKeyHint("wikipedia", {})).toBeNull();
    expect(missingKeyHint("github", {})).toBeNull();
  });
});
