// The CLI's keys from the environment: read as the key itself, whatever a shell or a `.env` file
// left around it, and an empty variable is no key.
import { describe, expect, it } from "vitest";
import { envSecrets, envSecretValues } from "../../src/cli/env-secrets";
import { secretScrubber } from "../../src/text/secret-scrub";

describe("keys from the environment", () => {
  it("are read without the spaces, line break or quotes around them; a variable set but empty is no key", async () => {
    const env = { BRAVE_SEARCH_API_KEY: '"BSA-from-an-env-file-0123"', EXA_API_KEY: "  exa-with-a-newline-0123\n", TAVILY_API_KEY: "", OPENAI_API_KEY: " '' ", GITHUB_TOKEN: "“ghp_smart-quoted-0123”" };
    const secrets = envSecrets(env);
    expect(await secrets.get("brave")).toBe("BSA-from-an-env-file-0123");
    expect(await secrets.get("exa")).toBe("exa-with-a-newline-0123");
    expect(await secrets.get("github")).toBe("ghp_smart-quoted-0123");
    expect(await secrets.get("tavily")).toBeNull();
    expect(await secrets.get("openai")).toBeNull();
    // What the CLI scrubs: a server's echo of the key itself is caught.
    const scrub = secretScrubber(envSecretValues(env));
    expect(scrub.text("token BSA-from-an-env-file-0123 is not valid")).toBe("token [redacted] is not valid");
  });

  it("keeps a key's own characters, and quotes that do not pair", async () => {
    const secrets = envSecrets({ BRAVE_SEARCH_API_KEY: `"BSA-unpaired-0123'`, EXA_API_KEY: "exa-'inner'-0123" });
    expect(await secrets.get("brave")).toBe(`"BSA-unpaired-0123'`);
    expect(await secrets.get("exa")).toBe("exa-'inner'-0123");
  });
});
