// data.json as stored against the settings in use: an API key typed into the file by hand under a
// name that is no setting is taken out of the settings (so no save writes it back), by where it is;
// a newer version's settings, which loading keeps to write back, stay.
import { describe, expect, it } from "vitest";
import { loadSettings } from "../../src/settings";
import { storedSpellsOtherwise, takeOutKeysOutOfPlace } from "../../src/plugin/stored-settings";

const MODEL_KEY = "sk-proj-Hq72Lx95WzNs41Tc68Pe";
const EXA_KEY = "3f2a9c1e-7b4d-4e8a-9f10-2c5b6d7e8f90";

describe("takeOutKeysOutOfPlace", () => {
  it("takes out keys typed under names that are no setting, by a key's look or its name, and says where, never what", () => {
    const { settings } = loadSettings({
      model: { kind: "openai", apiKey: MODEL_KEY },
      external: { exaApiKey: EXA_KEY, exa: { token: EXA_KEY }, proxy: { login: { password: "correct horse battery" } } },
    });
    const taken = takeOutKeysOutOfPlace(settings);
    expect(taken.sort()).toEqual(["external.exa.token", "external.exaApiKey", "external.proxy", "model.apiKey"]);
    const saved = JSON.stringify(settings);
    for (const secret of [MODEL_KEY, EXA_KEY, "correct horse battery"]) {
      expect(saved).not.toContain(secret);
      expect(taken.join(" ")).not.toContain(secret);
    }
    // What the schema knows is as it was.
    expect(settings.model.kind).toBe("openai");
    expect(settings.external.exa.secretId).toBe("vault-research-exa");
  });

  it("keeps a newer version's settings, which loading carries along to write back", () => {
    const newer = { model: { maxTokens: 4000, sortKey: "modified" }, external: { tokenBudgetPerSource: 2048, mastodon: { instance: "https://mastodon.social", secretId: "vault-research-mastodon" } } };
    const { settings } = loadSettings(newer);
    expect(takeOutKeysOutOfPlace(settings)).toEqual([]);
    expect(storedSpellsOtherwise(newer, settings)).toBe(false);
  });

  it("leaves a key the schema refuses where it is a setting (loading already replaced it)", () => {
    const { settings, problems } = loadSettings({ model: { model: MODEL_KEY } });
    expect(problems.join(" ")).toContain("model.model");
    expect(takeOutKeysOutOfPlace(settings)).toEqual([]);
    expect(JSON.stringify(settings)).not.toContain(MODEL_KEY);
  });
});
