import { describe, expect, it } from "vitest";
import { citationsOfPack, researchPackSchema, warningsToShow, type PackWarning } from "../../src/evidence/research-pack";
import { outsideRow, pack, vaultRow } from "../support/pack-fixtures";

const note = vaultRow("Tools/tar.md", "tar", [{ heading: "Extract", text: "Use tar -xf archive.tar to extract." }]);
const web = outsideRow("brave", "https://man7.org/tar", "tar(1)", "tar saves many files together.");

describe("research pack schema", () => {
  it("accepts a pack with vault and outside rows kept apart", () => {
    expect(researchPackSchema.safeParse(pack("how to extract tar", [note], [web])).success).toBe(true);
  });

  it("rejects an outside row placed among vault evidence", () => {
    const mixed = { ...pack("q", [note], []), evidence: [note, web] };
    expect(researchPackSchema.safeParse(mixed).success).toBe(false);
  });

  it("rejects an outside row without its external_search lane", () => {
    const bare = { ...web, retrieval: { ...web.retrieval, lanes: [] } };
    expect(researchPackSchema.safeParse(pack("q", [], [bare])).success).toBe(false);
  });

  it("rejects an outside row whose lane does not say where it is stored", () => {
    const lane = { name: "external_search", status: "used", provider: "brave" };
    const row = { ...web, retrieval: { ...web.retrieval, lanes: [lane] } };
    expect(researchPackSchema.safeParse(pack("q", [], [row as never])).success).toBe(false);
  });

  it("rejects a vault row with a malformed key", () => {
    const bad = { ...note, source_key: "src:xyz" };
    expect(researchPackSchema.safeParse(pack("q", [bad])).success).toBe(false);
  });

  it("survives a JSON round trip unchanged", () => {
    const original = pack("latest tar release", [note], [{ ...web, published_at: "2026-01-02" }]);
    expect(researchPackSchema.parse(JSON.parse(JSON.stringify(original)))).toEqual(original);
  });
});

describe("citationsOfPack", () => {
  it("maps vault keys to note paths and outside keys to provider and URL", () => {
    const map = citationsOfPack(pack("q", [note], [web]));
    expect(map.get(note.source_key)).toEqual({ source_key: note.source_key, origin: "vault", note_path: "Tools/tar.md" });
    expect(map.get(web.source_key)).toEqual({
      source_key: web.source_key,
      origin: "outside_vault",
      provider: "brave",
      url: "https://man7.org/tar",
    });
  });
});

describe("warningsToShow", () => {
  const failed: PackWarning = { kind: "provider_http", message: "GitHub failed (HTTP 502)." };
  const stop: PackWarning = { kind: "external_required_failed", message: "External search was needed, but every source failed: GitHub (HTTP 502)." };
  const clamped: PackWarning = { kind: "search_clamped", message: "Results were cut to 5 per source." };

  it("says each failure once when the run stopped for them: the stop's warning names them", () => {
    expect(warningsToShow("external_required_failed", [failed, stop, clamped])).toEqual([stop, clamped]);
  });

  it("keeps a source's failure on any other run, where nothing else names it", () => {
    expect(warningsToShow("enough_evidence", [failed, clamped])).toEqual([failed, clamped]);
  });
});
