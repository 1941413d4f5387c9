// Settings as read from data.json or --config: what could not be used is said, never dropped.
import { describe, expect, it } from "vitest";
import { freshnessSchema, loadSettings } from "../src/settings";

describe("freshness", () => {
  it("takes a range of real days, the first not after the second", () => {
    expect(freshnessSchema.safeParse("2024-02-29to2024-03-01").success).toBe(true);
    expect(freshnessSchema.safeParse("2025-01-01to2025-01-01").success).toBe(true);
    for (const bad of ["2025-13-45to2025-14-01", "2025-02-29to2025-03-01", "2025-04-31to2025-05-01", "2025-03-02to2025-03-01", "2025-00-10to2025-01-01"]) {
      expect(freshnessSchema.safeParse(bad).success, bad).toBe(false);
    }
  });

  it("an impossible range in the settings is reported and replaced by the default", () => {
    const { settings, problems } = loadSettings({ external: { freshness: "2025-13-45to2025-14-01", count: 3 } });
    expect(settings.external.freshness).toBe("any");
    expect(settings.external.count).toBe(3);
    expect(problems).toEqual(["external.freshness: expected real days (2025-13-45 is none); the default is used."]);
  });
});

describe("unknown keys", () => {
  it("are named at any depth, and everything else is kept", () => {
    const { settings, problems } = loadSettings({ extrnal: { enabled: true }, notes: { traceFolder: "Runs", writeTraceNote: false }, external: { brave: { country: "DE", bogus: 1 } } });
    expect(problems).toEqual([
      "extrnal: not a setting; it was ignored.",
      "notes.writeTraceNote: not a setting; it was ignored.",
      "external.brave.bogus: not a setting; it was ignored.",
    ]);
    expect(settings.notes.traceFolder).toBe("Runs");
    expect(settings.external.brave.country).toBe("DE");
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
