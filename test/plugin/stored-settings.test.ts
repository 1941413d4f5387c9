// data.json as stored against the settings in use: an API key typed into the file by hand under a
// name that is no setting is taken out of the settings (so no save writes it back), by where it is;
// a newer version's settings, which loading keeps to write back, stay.
import { describe, expect, it } from "vitest";
import { loadSettings } from "../../src/settings";
import { storedSpellsOtherwise, storedWithoutKeysOutOfPlace, takeOutKeysOutOfPlace } from "../../src/plugin/stored-settings";

const MODEL_KEY = "sk-proj-Hq72Lx95WzNs41Tc68Pe";
const EXA_KEY = "3f2a9c1e-7b4d-4e8a-9f10-2c5b6d7e8f90";

describe("takeOutKeysOutOfPlace", () => {
  it("takes out keys typed under names that are no setting, by a key's look or its name, and says where, never what", () => {
    const { settings } = loadSettings({
      model: { kind: "openai", apiKey: MODEL_KEY },
      external: { exaApiKey: EXA_KEY, exa: { token: EXA_KEY }, proxy: { login: { password: "correct horse battery" } } },
    });
    const taken = takeOutKeysOutOfPlace(settings);
    expect(taken.sort()).toEqual(["external.exa.token", "external.exaApiKey", "external.proxy.login.password", "model.apiKey"]);
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

  it("takes out only the value that is a key: a newer version's settings beside it, a stop token and a short locale stay", () => {
    // The whole object a key sat in went (the proxy's host and port with its password), and so did a
    // model's stop token (named like a token) and a locale that begins as OpenAI's keys do.
    const newer = {
      model: { stopToken: "<|endoftext|>", locale: "sk-SK" },
      external: { proxy: { host: "proxy.example", port: 8080, login: { user: "alice", password: "correct horse battery" } } },
    };
    const { settings } = loadSettings(newer);
    expect(takeOutKeysOutOfPlace(settings)).toEqual(["external.proxy.login.password"]);
    expect(settings).toMatchObject({
      model: { stopToken: "<|endoftext|>", locale: "sk-SK" },
      external: { proxy: { host: "proxy.example", port: 8080, login: { user: "alice" } } },
    });
    expect(JSON.stringify(settings)).not.toContain("correct horse battery");
  });

  it("leaves a key the schema refuses where it is a setting (loading already replaced it)", () => {
    const { settings, problems } = loadSettings({ model: { model: MODEL_KEY } });
    expect(problems.join(" ")).toContain("model.model");
    expect(takeOutKeysOutOfPlace(settings)).toEqual([]);
    expect(JSON.stringify(settings)).not.toContain(MODEL_KEY);
  });
});

describe("storedWithoutKeysOutOfPlace", () => {
  it("gives data.json as stored less each key, everything else as written, and the file itself when it holds none", () => {
    const stored = { model: { model: MODEL_KEY, apiKey: MODEL_KEY }, external: { count: "many", newer: { on: true, [EXA_KEY.replace(/^/, "sk-")]: 1 } } };
    expect(storedWithoutKeysOutOfPlace(stored)).toEqual({ model: {}, external: { count: "many", newer: { on: true } } });
    const clean = { model: { kind: "openai" }, external: { count: "many" } };
    expect(storedWithoutKeysOutOfPlace(clean)).toBe(clean);
  });
});
