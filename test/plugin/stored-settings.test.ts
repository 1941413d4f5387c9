// data.json as stored against the settings in use: an API key typed into the file by hand under a
// name that is no setting is taken out of the settings (so no save writes it back), by where it is;
// a newer version's settings, which loading keeps to write back, stay.
import { describe, expect, it } from "vitest";
import { loadSettings } from "../../src/settings";
import { keepUnusableSettingsFile, storedSpellsOtherwise, storedWithoutKeysOutOfPlace, takeOutKeysOutOfPlace } from "../../src/plugin/stored-settings";

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

  // Refused at loading (its default in use), a key chosen as a secret's id, or typed into an address,
  // stayed in the file and in the copy kept of it: the UUID of an Exa key is no `sk-` look.
  it("takes out a key the schema refused as a secret's id or in an address, whatever service's shape it has", () => {
    const address = `http://localhost:1234/v1/${MODEL_KEY}`;
    const stored = { version: 1, external: { exa: { secretId: EXA_KEY }, brave: { secretId: "my-brave" }, tavily: { secretId: "tvly-dev-Ab0Ab0Ab0Ab0Ab0Ab0Ab0Ab0Ab0Ab0xy" } }, model: { baseUrl: address, secretId: "sk-my-own-openai-key-name" } };
    const { settings, problems } = loadSettings(stored);
    expect(settings.external.exa.secretId).toBe("vault-research-exa");
    expect(settings.model.baseUrl).toBe("http://localhost:11434/v1");
    expect(problems.join("\n")).toMatch(/external\.exa\.secretId: looks like an API key, not the name of a secret/);
    expect(problems.join("\n")).not.toContain(EXA_KEY);
    expect(settings.model.secretId).toBe("sk-my-own-openai-key-name");
    expect(storedWithoutKeysOutOfPlace(stored)).toEqual({ version: 1, external: { exa: {}, brave: { secretId: "my-brave" }, tavily: {} }, model: { secretId: "sk-my-own-openai-key-name" } });
  });

  // A UUID is a key's shape only where no setting holds one: taken for a key wherever the value in use
  // differed, a folder written with backslashes and an address refused for its query were wiped from
  // data.json at the start (the trace folder back at its default), not kept as written to be fixed.
  it("keeps a folder or an address holding a UUID (a tenant's, an export's) that loading spells otherwise or refuses for another reason", () => {
    const uuid = "123e4567-e89b-12d3-a456-426614174000";
    const stored = { version: 1, notes: { traceFolder: `Research\\${uuid}\\Traces` }, model: { baseUrl: `https://llm.example.com/tenants/${uuid}/v1?api-version=2` } };
    const { settings, problems } = loadSettings(stored);
    expect(settings.notes.traceFolder).toBe(`Research/${uuid}/Traces`);
    expect(problems.join("\n")).toMatch(/model\.baseUrl: expected an address without \?query/);
    expect(storedWithoutKeysOutOfPlace(stored)).toBe(stored);
  });
});

/** A plugin folder in memory, each file with the time it was written (as the app's adapter's `stat` gives it). */
function memoryFolder(now: () => number) {
  const files = new Map<string, { text: string; mtime: number }>();
  return {
    files,
    exists: async (path: string) => files.has(path),
    read: async (path: string) => {
      const file = files.get(path);
      if (!file) throw new Error(`ENOENT: ${path}`);
      return file.text;
    },
    write: async (path: string, text: string) => void files.set(path, { text, mtime: now() }),
    stat: async (path: string) => (files.has(path) ? { type: "file" as const, ctime: 0, mtime: files.get(path)!.mtime, size: files.get(path)!.text.length } : null),
  };
}

describe("keepUnusableSettingsFile", () => {
  const DIR = "config-folder/plugins/vault-research";

  // Once 20 copies were kept, the next unusable file threw: its copy was not kept, and the next save
  // wrote the settings in use over it (its values lost), or, for a file that could not be read, no
  // save was ever made again.
  it("after 20 copies, keeps the next over the oldest, never throws, and loses none of the newer ones", async () => {
    let clock = 1000;
    const folder = memoryFolder(() => clock++);
    for (let n = 1; n <= 21; n++) {
      await folder.write(`${DIR}/data.json`, `{"version":1,"external":{"count":"unusable ${n}"}}`);
      const copy = await keepUnusableSettingsFile(folder, DIR);
      expect(copy, `copy ${n}`).not.toBeNull();
      expect(await folder.read(copy!)).toBe(`{"version":1,"external":{"count":"unusable ${n}"}}`);
    }
    // The 21st replaced the first, the oldest; every other is still there.
    expect(await folder.read(`${DIR}/data.unusable.json`)).toContain("unusable 21");
    const texts = [...folder.files.entries()].filter(([path]) => path.includes("unusable")).map(([, file]) => file.text);
    expect(texts).toHaveLength(20);
    for (let n = 2; n <= 21; n++) expect(texts.some((text) => text.includes(`"unusable ${n}"`)), `copy ${n}`).toBe(true);
    // The 22nd goes over the oldest now, the second; the same file again makes no new copy.
    await folder.write(`${DIR}/data.json`, "<<<<<<< conflict");
    expect(await keepUnusableSettingsFile(folder, DIR)).toBe(`${DIR}/data.unusable-2.json`);
    expect(await keepUnusableSettingsFile(folder, DIR)).toBe(`${DIR}/data.unusable-2.json`);
    expect(await folder.read(`${DIR}/data.unusable-3.json`)).toContain("unusable 3");
  });

  it("a copy identical to the file is found wherever it is among the copies, and none is made again", async () => {
    const folder = memoryFolder(() => 0);
    await folder.write(`${DIR}/data.unusable-3.json`, "<<<<<<< conflict");
    await folder.write(`${DIR}/data.json`, "<<<<<<< conflict");
    expect(await keepUnusableSettingsFile(folder, DIR)).toBe(`${DIR}/data.unusable-3.json`);
    expect(folder.files.size).toBe(2);
  });
});
