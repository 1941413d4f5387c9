// Settings as read from data.json or --config: what could not be used is said, never dropped.
import { describe, expect, it } from "vitest";
import { freshnessProblem, freshnessSchema, loadSettings } from "../src/settings";

describe("freshness", () => {
  it("takes a range of real days, the first not after the second", () => {
    expect(freshnessSchema.safeParse("2024-02-29to2024-03-01").success).toBe(true);
    expect(freshnessSchema.safeParse("2025-01-01to2025-01-01").success).toBe(true);
    for (const bad of ["2025-13-45to2025-14-01", "2025-02-29to2025-03-01", "2025-04-31to2025-05-01", "2025-03-02to2025-03-01", "2025-00-10to2025-01-01"]) {
      expect(freshnessSchema.safeParse(bad).success, bad).toBe(false);
    }
  });

  it("says what is wrong with a range of the right shape, and the shape to one without it", () => {
    expect(freshnessProblem("last week")).toContain("YYYY-MM-DDtoYYYY-MM-DD");
    expect(freshnessProblem("2025-02-30to2025-03-01")).toContain("real days");
    expect(freshnessProblem("2025-06-01to2025-01-01")).toContain("the first is after the second");
  });

  it("an impossible range in the settings is reported and replaced by the default", () => {
    const { settings, problems } = loadSettings({ external: { freshness: "2025-13-45to2025-14-01", count: 3 } });
    expect(settings.external.freshness).toBe("any");
    expect(settings.external.count).toBe(3);
    expect(problems).toEqual(["external.freshness: expected real days (2025-13-45 is none); the default is used."]);
  });
});

describe("a value of the wrong kind or shape says what was expected, once", () => {
  it("a freshness that is no range of days is told the choices, not three rules for ranges that contradict each other", () => {
    for (const bad of ["yesterday", 5, "pd "]) {
      const { settings, problems } = loadSettings({ external: { freshness: bad } });
      expect(settings.external.freshness).toBe("any");
      expect(problems, String(bad)).toEqual(["external.freshness: expected any, pd, pw, pm, py or YYYY-MM-DDtoYYYY-MM-DD; the default is used."]);
    }
    // A range of the right shape hears only what is wrong with it.
    expect(loadSettings({ external: { freshness: "2025-13-01to2025-12-01" } }).problems).toEqual(["external.freshness: expected real days (2025-13-45 is none); the default is used."]);
    expect(loadSettings({ external: { freshness: "2025-06-01to2025-01-01" } }).problems).toEqual(["external.freshness: expected the first day not after the second; the default is used."]);
  });

  it("a search level that is not 1 to 4 names the levels, not zod's bare \"Invalid input\"", () => {
    const { problems } = loadSettings({ search: { searchLevel: 7, researchLevel: "2" } });
    expect(problems).toEqual(["search.searchLevel: expected 1, 2, 3 or 4; the default is used.", "search.researchLevel: expected 1, 2, 3 or 4; the default is used."]);
  });

  it("an address that may be left empty, given as no text at all, says it wants an address or nothing", () => {
    const { problems } = loadSettings({ external: { searxng: { baseUrl: 8888 } }, search: { embedding: { baseUrl: true } } });
    expect(problems).toEqual([
      'external.searxng.baseUrl: expected an http(s) address, or "" for none; the default is used.',
      'search.embedding.baseUrl: expected an http(s) address, or "" for none; the default is used.',
    ]);
  });
});

describe("unknown keys", () => {
  it("are named at any depth, apart from the problems (nothing was replaced), and everything else is kept", () => {
    const { settings, problems, unknownKept } = loadSettings({ extrnal: { enabled: true }, notes: { traceFolder: "Runs", writeTraceNote: false }, external: { brave: { country: "DE", bogus: 1 } } });
    expect(problems).toEqual([]);
    expect(unknownKept).toEqual([
      "extrnal: not a setting; kept as it is, unused.",
      "notes.writeTraceNote: not a setting; kept as it is, unused.",
      "external.brave.bogus: not a setting; kept as it is, unused.",
    ]);
    expect(settings.notes.traceFolder).toBe("Runs");
    expect(settings.external.brave.country).toBe("DE");
  });

  it("written by a newer version survive a save by this one, so a downgrade then an upgrade loses nothing", () => {
    const newer = {
      version: 1,
      rerank: { model: "bge-reranker", topK: 20 },
      external: { enabled: true, brave: { country: "DE", goggles: ["https://example.org/g"] }, perplexity: { secretId: "vault-research-perplexity" } },
      notes: { traceFolder: "Runs", dailyDigest: true },
    };
    const { settings } = loadSettings(newer);
    settings.external.count = 7; // the user changes a setting: the plugin saves its settings as they are
    const saved = JSON.parse(JSON.stringify(settings)) as Record<string, unknown>;
    expect(saved).toMatchObject({ ...newer, external: { ...newer.external, count: 7 } });
    // And read again by the newer version, every one of its values is there.
    expect(loadSettings(saved).settings).toMatchObject(newer);
  });

  it("named like an object's own member, or too deep to be written back, are named and not kept", () => {
    let deep: Record<string, unknown> = {};
    const top = deep;
    for (let i = 0; i < 100_000; i++) deep = deep.a = {};
    const raw = JSON.parse('{"toString":2,"index":{"hasOwnProperty":1}}') as Record<string, unknown>;
    const { settings, problems } = loadSettings({ ...raw, deep: top });
    expect(problems).toEqual(["toString: not a setting; it was ignored.", "index.hasOwnProperty: not a setting; it was ignored.", "deep: not a setting; it was ignored."]);
    // Still a plain object: no "toString" of its own, its prototype untouched (String(settings) is "[object Object]").
    expect(Object.hasOwn(settings, "toString")).toBe(false);
    expect(Object.getPrototypeOf(settings)).toBe(Object.prototype);
    expect(Object.hasOwn(settings.index, "hasOwnProperty")).toBe(false);
    expect(() => JSON.stringify(settings)).not.toThrow();
  });

  it("named like an API key are named without the key, and not kept to be saved again", () => {
    // A key pasted where a field's name goes was printed whole in the warning, and kept for data.json.
    const raw = { external: { brave: { "BSAwrongplace0123456789abcdef": true } }, "sk-proj-pasted-0123456789": "x" };
    const { settings, problems, unknownKept } = loadSettings(raw);
    expect(problems).toEqual([
      "external.brave.(a name that looks like an API key): not a setting; it was ignored.",
      "(a name that looks like an API key): not a setting; it was ignored.",
    ]);
    expect(unknownKept).toBeUndefined();
    expect(JSON.stringify(settings)).not.toMatch(/BSAwrongplace|sk-proj-pasted/);
  });

  it("holding a name that looks like an API key deeper down are not kept either", () => {
    // The name was looked at only where the unknown key was: an object under it, kept whole, took
    // the pasted key into data.json at the next save.
    const raw = { external: { openai: { "sk-proj-nested-0123456789": "" }, exa: { headers: [{ "tvly-dev-0123456789abcdef": true }] } } };
    const { settings, problems, unknownKept } = loadSettings(raw);
    expect(problems).toEqual(["external.openai: not a setting; it was ignored.", "external.exa.headers: not a setting; it was ignored."]);
    expect(unknownKept).toBeUndefined();
    expect(JSON.stringify(settings)).not.toMatch(/sk-proj-nested|tvly-dev/);
  });

  it("are named on one line, whatever control characters their names hold", () => {
    const { unknownKept } = loadSettings({ notes: { "x\nerror: the vault was deleted": 1 } });
    expect(unknownKept).toEqual(["notes.x?error: the vault was deleted: not a setting; kept as it is, unused."]);
  });

  it("are not looked for inside values that are not settings objects", () => {
    expect(loadSettings({ index: { excludedFolders: ["a", "b"] }, external: { providers: ["brave"] } }).problems).toEqual([]);
  });
});

describe("the search section", () => {
  it("defaults to level 1 everywhere, no embedding server, nothing agreed, the query log on", () => {
    const { settings } = loadSettings({});
    expect(settings.search).toEqual({
      searchLevel: 1,
      researchLevel: 1,
      showScores: false,
      embedding: { kind: "none", model: "", baseUrl: "", secretId: "vault-research-embedding", requestsPerSecond: 4, consentedTo: "" },
      queryLog: true,
    });
  });

  it("a bad level, address or rate is reported and replaced by its default, the rest kept", () => {
    const { settings, problems } = loadSettings({ search: { searchLevel: 7, researchLevel: 3, embedding: { kind: "ollama", baseUrl: "ftp://host", requestsPerSecond: 500, consentedTo: "ollama@http://localhost:11434" } } });
    expect(settings.search.searchLevel).toBe(1);
    expect(settings.search.researchLevel).toBe(3);
    expect(settings.search.embedding).toMatchObject({ kind: "ollama", baseUrl: "", requestsPerSecond: 4, consentedTo: "ollama@http://localhost:11434" });
    expect(problems.map((p) => p.split(":")[0])).toEqual(["search.searchLevel", "search.embedding.baseUrl", "search.embedding.requestsPerSecond"]);
  });
});

describe("folder settings", () => {
  it("are spelled as the note writer spells them: `\\` as `/`, no empty or `.` parts, parts trimmed", () => {
    for (const [given, folder] of [
      ["./AI Traces", "AI Traces"],
      ["Research\\Traces", "Research/Traces"],
      ["Research//Traces", "Research/Traces"],
      ["/Research/Traces/", "Research/Traces"],
      [" Research / ./Traces ", "Research/Traces"],
    ]) {
      const { settings, problems } = loadSettings({ notes: { traceFolder: given, sourcesFolder: given } });
      expect(problems, given).toEqual([]);
      expect(settings.notes.traceFolder, given).toBe(folder);
      expect(settings.notes.sourcesFolder, given).toBe(folder);
    }
  });

  it("excluded folders are spelled alike, and each one that cannot be used is left out with a word, the others kept", () => {
    const { settings, problems } = loadSettings({ index: { excludedFolders: ["./Archive", "Archive\\", "../Elsewhere", "Daily", "C:\\Users\\me", "."] } });
    expect(settings.index.excludedFolders).toEqual(["Archive", "Daily"]);
    expect(problems).toEqual([
      'index.excludedFolders.2: "../Elsewhere" climbs out of the vault (".."); it was left out.',
      'index.excludedFolders.4: "C:\\Users\\me" is a path on this computer, not a folder of the vault; it was left out.',
      'index.excludedFolders.5: "." names no folder of the vault; it was left out.',
    ]);
  });

  it("a folder that climbs out of the vault or is a path on this computer falls back to its default, with a word", () => {
    const { settings, problems } = loadSettings({ notes: { traceFolder: "../esc", sourcesFolder: "\\\\server\\share\\Sources" } });
    expect(settings.notes.traceFolder).toBe("Research/Traces");
    expect(settings.notes.sourcesFolder).toBe("Research/Sources");
    expect(problems).toEqual([
      'notes.traceFolder: "../esc" climbs out of the vault (".."); the default is used.',
      'notes.sourcesFolder: "\\\\server\\share\\Sources" is a path on this computer, not a folder of the vault; the default is used.',
    ]);
  });

  it("the trace folder cannot be the vault's top: trace notes there would be indexed as evidence", () => {
    for (const top of ["", ".", "/", "./"]) {
      const { settings, problems } = loadSettings({ notes: { traceFolder: top } });
      expect(settings.notes.traceFolder, top).toBe("Research/Traces");
      expect(problems, top).toEqual([`notes.traceFolder: "${top}" is the vault's top, and trace notes there would be searched as notes; the default is used.`]);
    }
    expect(loadSettings({ notes: { sourcesFolder: "" } }).settings.notes.sourcesFolder).toBe("");
  });
});

describe("model names", () => {
  it("a key pasted as a model's name is refused, never kept, and the message does not repeat it", () => {
    const { settings, problems } = loadSettings({ model: { kind: "openai", model: "sk-proj-pasted-0123456789" }, search: { embedding: { kind: "openai", model: " tvly-pasted-0123456789" } } });
    expect(settings.model).toMatchObject({ kind: "openai", model: "" });
    expect(settings.search.embedding.model).toBe("");
    expect(problems).toEqual([
      "model.model: looks like an API key, not a model name: a key goes in its API key field (secret storage); the default is used.",
      "search.embedding.model: looks like an API key, not a model name: a key goes in its API key field (secret storage); the default is used.",
    ]);
    for (const name of ["gpt-4o-mini", "claude-sonnet-4-5", "llama3.1:8b", "hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q4_K_M", "text-embedding-3-small", "skywork-13b"]) {
      expect(loadSettings({ model: { model: name } }).problems, name).toEqual([]);
    }
  });
});

describe("model names and API addresses holding a key among their words, or a space", () => {
  const KEY = "sk-proj-Abcdefghijklmnop0123456789";

  // Read only at the start of the text, `llama sk-…` passed: the key was sent as the model's name and
  // written into every trace; `…/v1 sk-…` was read as the path `/v1%20sk-…`, sent, and named in traces.
  it("are refused, never kept, and the message does not repeat them", () => {
    const raw = {
      model: { kind: "openai", model: `llama ${KEY}`, baseUrl: `http://localhost:1234/v1 ${KEY}` },
      search: { embedding: { kind: "openai", model: `nomic-embed-text/${KEY}`, baseUrl: `http://localhost:1234/v1/${KEY}` } },
      external: { brave: { baseUrl: "https://proxy.example/brave BSAAbcdefghijklmnop0123456789" } },
    };
    const { settings, problems } = loadSettings(raw);
    expect(settings.model).toMatchObject({ kind: "openai", model: "", baseUrl: "http://localhost:11434/v1" });
    expect(settings.search.embedding).toMatchObject({ model: "", baseUrl: "" });
    expect(settings.external.brave.baseUrl).toBe("https://api.search.brave.com");
    const address = "expected an address without an API key in it (a key goes in secret storage, not in the address); the default is used.";
    const name = "looks like an API key, not a model name: a key goes in its API key field (secret storage); the default is used.";
    expect(problems).toEqual([
      `external.brave.baseUrl: ${address}`,
      `model.baseUrl: ${address}`,
      `model.model: ${name}`,
      `search.embedding.model: ${name}`,
      `search.embedding.baseUrl: ${address}`,
    ]);
    expect(JSON.stringify({ settings, problems })).not.toMatch(/Abcdefghijklmnop/);
  });

  it("a space inside a name or an address is refused; real names and addresses are taken", () => {
    const { problems } = loadSettings({ model: { model: "llama 3", baseUrl: "http://localhost:1234/v1 extra" } });
    expect(problems).toEqual([
      "model.baseUrl: expected an address without spaces; the default is used.",
      "model.model: expected a model name without spaces (e.g. llama3.1:8b); the default is used.",
    ]);
    const names = ["llama3.1:8b", "meta-llama/llama-3.1-8b-instruct", "lmstudio-community/Meta-Llama-3.1-8B-Instruct-GGUF", "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M", "claude-sonnet-4-5-20250929", "skywork-13b"];
    const addresses = ["http://localhost:1234/v1", "http://127.0.0.1:1234/v1", "https://openrouter.ai/api/v1", "https://api.groq.com/openai/v1", "https://generativelanguage.googleapis.com/v1beta/openai"];
    for (const model of names) expect(loadSettings({ model: { model } }).problems, model).toEqual([]);
    for (const baseUrl of addresses) expect(loadSettings({ model: { baseUrl } }).problems, baseUrl).toEqual([]);
  });
});

describe("settings that are hostile in shape", () => {
  it("a settings file nested 100,000 deep is read without throwing: the rest is kept, the deep part named", () => {
    let deep: Record<string, unknown> = {};
    const top = deep;
    for (let i = 0; i < 100_000; i++) {
      const next = {};
      deep.a = next;
      deep = next;
    }
    const { settings, problems } = loadSettings({ index: { stemming: "no" }, external: { count: 3 }, x: top, notes: { traceFolder: top } });
    expect(settings.index.stemming).toBe(true);
    expect(settings.external.count).toBe(3);
    expect(settings.notes.traceFolder).toBe("Research/Traces");
    expect(problems.map((p) => p.split(":")[0])).toEqual(["x", "index.stemming", "notes.traceFolder"]);
  });

  it("keys named like an object's own members are not settings either, and are named", () => {
    const raw = JSON.parse('{"foo":1,"constructor":1,"__proto__":{"x":1},"toString":2,"index":{"valueOf":1,"hasOwnProperty":2}}') as unknown;
    const { settings, problems, unknownKept } = loadSettings(raw);
    expect(unknownKept).toEqual(["foo: not a setting; kept as it is, unused."]);
    expect(problems).toEqual([
      "constructor: not a setting; it was ignored.",
      "__proto__: not a setting; it was ignored.",
      "toString: not a setting; it was ignored.",
      "index.valueOf: not a setting; it was ignored.",
      "index.hasOwnProperty: not a setting; it was ignored.",
    ]);
    expect(settings.index.stemming).toBe(true);
  });

  it("a base URL that is not http(s) falls back to its default, with a word", () => {
    const { settings, problems } = loadSettings({
      model: { baseUrl: "javascript:alert(1)" },
      external: { brave: { baseUrl: "file:///etc/passwd" }, exa: { baseUrl: "data:text/plain,hi" }, searxng: { baseUrl: "ftp://host" } },
    });
    expect(settings.model.baseUrl).toBe("http://localhost:11434/v1");
    expect(settings.external.brave.baseUrl).toBe("https://api.search.brave.com");
    expect(settings.external.exa.baseUrl).toBe("https://api.exa.ai");
    expect(settings.external.searxng.baseUrl).toBe("");
    expect(problems).toEqual([
      "external.brave.baseUrl: expected an http(s) address; the default is used.",
      "external.exa.baseUrl: expected an http(s) address; the default is used.",
      "external.searxng.baseUrl: expected an http(s) address; the default is used.",
      "model.baseUrl: expected an http(s) address; the default is used.",
    ]);
  });

  it("an API's base URL holding a user name or password, a ?query or a #fragment is refused, and the message never repeats it", () => {
    const raw = {
      model: { baseUrl: "https://user:sk-live-in-the-address-0123@api.openai.com/v1" },
      external: { brave: { baseUrl: "https://proxy.example/brave?token=BSA-in-the-query-0123" }, exa: { baseUrl: "https://api.exa.ai/#x" } },
      // Names "this computer" before the @, but the server is evil.example.
      search: { embedding: { baseUrl: "http://localhost:11434@evil.example" } },
    };
    const { settings, problems } = loadSettings(raw);
    expect(settings.model.baseUrl).toBe("http://localhost:11434/v1");
    expect(settings.external.brave.baseUrl).toBe("https://api.search.brave.com");
    expect(settings.external.exa.baseUrl).toBe("https://api.exa.ai");
    expect(settings.search.embedding.baseUrl).toBe("");
    expect(problems).toEqual([
      "external.brave.baseUrl: expected an address without ?query or #fragment (paths are added after it); the default is used.",
      "external.exa.baseUrl: expected an address without ?query or #fragment (paths are added after it); the default is used.",
      "model.baseUrl: expected an address without a user name or password (a key goes in secret storage, not in the address); the default is used.",
      "search.embedding.baseUrl: expected an address without a user name or password (a key goes in secret storage, not in the address); the default is used.",
    ]);
    expect(problems.join("\n")).not.toMatch(/0123|evil/);
    // A path, a port and an IPv6 host are what base URLs are made of.
    expect(loadSettings({ model: { baseUrl: "http://[::1]:1234/v1/" } }).problems).toEqual([]);
  });
});
