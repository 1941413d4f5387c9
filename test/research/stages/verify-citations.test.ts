import { describe, expect, it } from "vitest";
import { editDistance, extractCitations, MAX_UNKNOWN_KEYS_NAMED, saysNoEvidence, verifyCitations } from "../../../src/research/stages/verify-citations";
import { citationsOfPack } from "../../../src/evidence/research-pack";
import { outsideRow, pack, vaultRow } from "../../support/pack-fixtures";

const note = vaultRow("Tools/tar.md", "tar", [{ heading: "Extract", text: "Use tar -xf to extract." }]);
const other = vaultRow("Tools/zip.md", "zip", [{ heading: "Zip", text: "Use unzip." }]);
const web = outsideRow("brave", "https://man7.org/tar", "tar(1)", "tar archives files.");
const admitted = citationsOfPack(pack("q", [note, other], [web]));
const A = note.source_key;
const B = other.source_key;
const W = web.source_key;

describe("extractCitations", () => {
  it("finds single keys, several keys in one bracket, and each key once in order", () => {
    const answer = `Use tar -xf [${A}]. Zip differs [${B}; ${W}]. Again [${A}, ${B}].`;
    expect(extractCitations(answer)).toEqual([A, B, W]);
  });

  it("reads upper-case keys as the lower-case keys they are", () => {
    expect(extractCitations(`Claim [${A.toUpperCase()}].`)).toEqual([A]);
  });

  it("returns malformed key attempts so they can be reported", () => {
    expect(extractCitations("Claim [src:12ab] and [ext:brave:]")).toEqual(["src:12ab", "ext:brave:"]);
  });

  it("ignores markdown links, wikilinks, task boxes and ordinary brackets", () => {
    expect(extractCitations(`See [docs](https://x.org), [[Note]], - [ ] todo, [1] and [note, src:${A.slice(4)}].`)).toEqual([]);
  });

  // A key written as a link's text was skipped as "a markdown link": a made-up one passed the
  // check, though the panel shows it as a citation (of nothing).
  it("reads a key written as a link's text as the citation it is shown as", () => {
    expect(extractCitations(`Claim [${A}](Tools/tar.md) and [src:deadbeef00](https://evil.example).`)).toEqual([A, "src:deadbeef00"]);
  });
});

describe("verifyCitations", () => {
  // A server sent megabytes of made-up keys: each was named with its nearest real key (an edit
  // distance to every admitted key), 28,000 errors for 2 MB, all of them in the repair prompt.
  it("names the first ten made-up keys and counts the rest in one error, real citations kept", () => {
    const madeUp = Array.from({ length: 5_000 }, (_, i) => `[src:${"f".repeat(40)}${i}]`).join(" ");
    const result = verifyCitations(`Extract with tar -xf [${A}]. ${madeUp}`, admitted, { evidenceExisted: true });
    expect(result.passed).toBe(false);
    expect(result.citations.map((c) => c.source_key)).toEqual([A]);
    const named = result.errors.filter((e) => e.key !== undefined);
    expect(named).toHaveLength(MAX_UNKNOWN_KEYS_NAMED);
    expect(named[0]).toMatchObject({ kind: "unknown_key", key: `src:${"f".repeat(40)}0` });
    expect(result.errors).toHaveLength(MAX_UNKNOWN_KEYS_NAMED + 1);
    expect(result.errors.at(-1)).toEqual({ kind: "unknown_key", message: "The answer cites 4990 more keys that were not among the evidence it was given." });
  });

  it("passes an answer whose every key was admitted and returns their citations", () => {
    const result = verifyCitations(`Extract with tar -xf [${A}]; the manual agrees [${W}].`, admitted, { evidenceExisted: true });
    expect(result.passed).toBe(true);
    expect(result.errors).toEqual([]);
    expect(result.citations.map((c) => c.source_key)).toEqual([A, W]);
    expect(result.citations[1]).toMatchObject({ origin: "outside_vault", provider: "brave", url: "https://man7.org/tar" });
  });

  it("fails a hallucinated key and suggests the nearest admitted one", () => {
    const mangled = `${A.slice(0, -1)}${A.endsWith("0") ? "1" : "0"}`;
    const result = verifyCitations(`Claim [${mangled}].`, admitted, { evidenceExisted: true });
    expect(result.passed).toBe(false);
    expect(result.errors).toEqual([expect.objectContaining({ kind: "unknown_key", key: mangled, suggestion: A })]);
    expect(result.errors[0].message).toContain(A);
  });

  // A made-up key was given the "nearest" real one, however far: the repair request passed that on,
  // and a model that took it cited a note that says nothing of its claim, which then verified.
  it("suggests no key for one made up far from every admitted key, so a repair is not steered to an unrelated note", () => {
    const madeUp = `src:${[...A.slice(4)].map((c) => ((parseInt(c, 16) + 8) % 16).toString(16)).join("")}`;
    const result = verifyCitations(`Claim [${madeUp}].`, admitted, { evidenceExisted: true });
    expect(result.errors).toEqual([expect.objectContaining({ kind: "unknown_key", key: madeUp })]);
    expect(result.errors[0].suggestion).toBeUndefined();
    expect(result.errors[0].message).toBe(`The answer cites [${madeUp}], which was not among the evidence it was given.`);
    // Three characters mangled is still a near miss.
    const nearMiss = `${A.slice(0, -3)}${[...A.slice(-3)].map((c) => (c === "0" ? "1" : "0")).join("")}`;
    expect(verifyCitations(`Claim [${nearMiss}].`, admitted, { evidenceExisted: true }).errors[0].suggestion).toBe(A);
  });

  it("fails an outside key that was found but not admitted to the prompt", () => {
    const notAdmitted = outsideRow("exa", "https://example.org/other", "Other", "text").source_key;
    const result = verifyCitations(`Claim [${A}] and [${notAdmitted}].`, admitted, { evidenceExisted: true });
    expect(result.passed).toBe(false);
    expect(result.errors.map((e) => e.key)).toEqual([notAdmitted]);
  });

  it("fails an answer with no citations when evidence existed", () => {
    const result = verifyCitations("You extract tar archives with tar -xf.", admitted, { evidenceExisted: true });
    expect(result.passed).toBe(false);
    expect(result.errors.map((e) => e.kind)).toEqual(["no_citations"]);
  });

  it("fails a normal answer when no evidence existed", () => {
    const result = verifyCitations("Tar archives are extracted with tar -xf.", new Map(), { evidenceExisted: false });
    expect(result.errors.map((e) => e.kind)).toEqual(["answer_without_evidence"]);
  });

  it("passes an answer that says plainly the vault has no evidence", () => {
    for (const answer of [
      "The vault has no evidence on this question.",
      "**Your notes do not mention** tar at all.",
      "I couldn't find anything about this in your vault.",
    ]) {
      expect(verifyCitations(answer, new Map(), { evidenceExisted: false }).passed).toBe(true);
    }
    expect(verifyCitations("Something.", new Map(), { evidenceExisted: false, claimedNoEvidence: true }).passed).toBe(true);
  });

  it("fails a made-up key even in an answer that claims there is no evidence", () => {
    const result = verifyCitations(`There is no evidence, but see [${A}].`, new Map(), { evidenceExisted: false });
    expect(result.passed).toBe(false);
    expect(result.errors[0]).toMatchObject({ kind: "unknown_key", key: A });
    expect(result.errors[0].suggestion).toBeUndefined();
  });

  it("warns about paragraphs without a citation but still passes", () => {
    const answer = `Tar extracts archives with -xf [${A}].\n\nIt also has many other options that people find handy every day.`;
    const result = verifyCitations(answer, admitted, { evidenceExisted: true });
    expect(result.passed).toBe(true);
    expect(result.warnings).toEqual([expect.objectContaining({ kind: "uncited_paragraph" })]);
  });
});

describe("saysNoEvidence", () => {
  it("only counts a no-evidence statement at the start of the answer", () => {
    const essay = `${"Tar is an archiver with a long history of use on Unix systems. ".repeat(6)}The vault has no evidence.`;
    expect(saysNoEvidence(essay)).toBe(false);
  });
});

describe("editDistance", () => {
  it("counts insertions, deletions and substitutions", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("same", "same")).toBe(0);
  });
});

describe("citations that name no key", () => {
  it("fails a made-up key written as a link, though a real key beside it passes", () => {
    const check = verifyCitations(`Extract with tar -xf [${A}]. Zip is older [src:deadbeef00](https://evil.example).`, admitted, { evidenceExisted: true });
    expect(check.passed).toBe(false);
    expect(check.errors).toEqual([expect.objectContaining({ kind: "unknown_key", key: "src:deadbeef00" })]);
    expect(check.citations.map((c) => c.source_key)).toEqual([A]);
  });

  // Three sources, and the answer cites [S9]: it passed on the one real key beside it, and the
  // reader took [S9] for a citation.
  it("fails sources cited by number, the way papers do, and says to cite keys", () => {
    const check = verifyCitations(`Extract with tar -xf [${A}]. Zip came later [S9]; see also [Source 2] and [ref #3].`, admitted, { evidenceExisted: true });
    expect(check.passed).toBe(false);
    expect(check.errors.map((e) => e.key)).toEqual(["S9", "Source 2", "ref #3"]);
    expect(check.errors[0].message).toBe("The answer cites [S9], which is not a key of the evidence it was given; cite each source by its bracketed key.");
  });

  it("leaves code, footnotes and mangled keys to what they are", () => {
    const check = verifyCitations(`Index with rows[S1] or arr[2] [${A}]. A footnote [1]. A mangled key [src:12].`, admitted, { evidenceExisted: true });
    expect(check.errors).toEqual([expect.objectContaining({ kind: "unknown_key", key: "src:12" })]);
  });
});
