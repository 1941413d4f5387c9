// The sample responses we wrote (the demo's, the evals') say so in their own text: "(Sample snippet
// written for the Vault Research demo.)". A quote the brief takes from one carries that mark, so a
// reader who copies the quote alone does not copy a sample as if it were a live finding.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nodePageReader } from "../../../src/cli/dom-parser";
import { writeEvidenceBrief } from "../../../src/research/stages/extractive-brief";
import { verifyCitations } from "../../../src/research/stages/verify-citations";
import { outsideRow, pack } from "../../support/pack-fixtures";
import { replayFolder, REPO_ROOT } from "../../support/recording-http";
import { FRESHNESS_QUESTION, sampleVaultHarness } from "../../support/research-harness";

const SNIPPET_MARK = "(Sample snippet written for the Vault Research demo.)";
const ANY_MARK = /\(Sample [a-z]+ written for the Vault Research demo\.\)/;

/** The quotes of the brief's outside-vault lines. */
function outsideQuotes(text: string): string[] {
  const outside = text.slice(text.indexOf("Outside vault (web results"));
  return [...outside.matchAll(/“([^”]*)”/g)].map((m) => m[1]);
}

function briefOf(question: string, snippet: string, extra: string[] = []) {
  const row = outsideRow("brave", "https://automerge.org/blog/automerge-3/", "Automerge 3.0", snippet);
  row.content_sections.push(...extra.map((text) => ({ role: "external_text" as const, text, truncated: false, fetched: true })));
  const p = pack(question, [], [row]);
  return { brief: writeEvidenceBrief(p), row };
}

describe("a quote from a sample carries its sample mark", () => {
  it("gives the sentence after a leading mark the mark, as the source wrote it", () => {
    const { brief } = briefOf("automerge memory columnar", `${SNIPPET_MARK} Automerge 3 keeps the document in its compressed columnar form. It loads fast.`);
    expect(outsideQuotes(brief.text)).toContain(`${SNIPPET_MARK} Automerge 3 keeps the document in its compressed columnar form.`);
  });

  it("marks a later sentence too, with '…' where the source had more between", () => {
    const { brief } = briefOf("tombstones days", `${SNIPPET_MARK} Deleted text is remembered for a while. Quillsync keeps each tombstone for 14 days.`);
    expect(outsideQuotes(brief.text)).toContain(`${SNIPPET_MARK} … Quillsync keeps each tombstone for 14 days.`);
  });

  it("keeps a trailing mark after the quote (GitHub's and arXiv's samples end with it)", () => {
    const { brief } = briefOf("sequence crdt shared types", "Shared data types (a sequence CRDT among them) for building collaborative software. (Sample description written for the Vault Research demo.)");
    expect(outsideQuotes(brief.text)).toEqual(["Shared data types (a sequence CRDT among them) for building collaborative software. (Sample description written for the Vault Research demo.)"]);
  });

  it("leaves a mark the sentence already holds where it is, once", () => {
    const { brief } = briefOf("automerge 3.1.0 diff splices", `${SNIPPET_MARK} automerge 3.1.0 — Added: diff reports splices. Fixed: a panic.`);
    expect(outsideQuotes(brief.text)).toContain(`${SNIPPET_MARK} automerge 3.1.0 — Added: diff reports splices.`);
    expect(brief.text.split(SNIPPET_MARK)).toHaveLength(2);
  });

  it("marks a page passage without a mark of its own with its row's", () => {
    const { brief } = briefOf("tombstone days", `${SNIPPET_MARK} Quillsync compacts its history.`, ["On a typical vault the compactor keeps a tombstone for 14 days."]);
    expect(outsideQuotes(brief.text)).toContain(`${SNIPPET_MARK} … On a typical vault the compactor keeps a tombstone for 14 days.`);
  });

  it("never quotes the mark alone as a finding, whatever the question's words", () => {
    const { brief } = briefOf("sample snippet written for the vault research demo", `${SNIPPET_MARK} Automerge 3 keeps the document compact.`);
    const quotes = outsideQuotes(brief.text);
    expect(quotes.length).toBeGreaterThan(0);
    for (const quote of quotes) expect(quote.replace(ANY_MARK, "").replace("…", "").trim()).not.toBe("");
  });

  it("adds nothing to a quote from a source that carries no mark", () => {
    const { brief } = briefOf("automerge memory columnar", "Automerge 3 keeps the document in its compressed columnar form.");
    expect(brief.text).not.toMatch(ANY_MARK);
  });

  it("still passes citation verification", () => {
    const { brief } = briefOf("tombstones days", `${SNIPPET_MARK} Deleted text is remembered for a while. Quillsync keeps each tombstone for 14 days.`);
    expect(verifyCitations(brief.text, brief.admitted, { evidenceExisted: true })).toMatchObject({ passed: true, errors: [] });
  });
});

describe("runs over our sample replays", () => {
  it("the demo's Brave samples: every outside quote of the brief says it is a sample", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak", writeTrace: false });
    const quotes = outsideQuotes(result.answer!.text);
    expect(quotes.length).toBeGreaterThan(0);
    for (const quote of quotes) expect(quote).toMatch(ANY_MARK);
    expect(result.verification?.passed).toBe(true);
  });

  it("page reading's samples: every snippet and passage read carries the mark, and so does every quote", async () => {
    const h = await sampleVaultHarness({ exchanges: replayFolder(path.join(REPO_ROOT, "evals/research/replay/page-reading")) });
    const question = "How long does Quillsync keep tombstones before compacting them?";
    const result = await h.run({ question, mode: "on-weak", providers: ["brave-web"], writeTrace: false }, { readPage: nodePageReader });
    const sections = result.pack.external_evidence.flatMap((row) => row.content_sections);
    expect(sections.filter((s) => s.fetched).length).toBeGreaterThan(0);
    for (const section of sections) expect(section.text).toMatch(new RegExp(`^${ANY_MARK.source}`));
    const quotes = outsideQuotes(result.answer!.text);
    expect(quotes.some((q) => q.includes("Quillsync keeps each tombstone for 14 days."))).toBe(true);
    for (const quote of quotes) expect(quote).toMatch(ANY_MARK);
  });
});
