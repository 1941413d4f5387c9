// A hub note's list of links names what other notes hold and answers none of it: the judge does not
// count it (link-lists.ts), while search still finds the hub and the pack still shows it.
import { describe, expect, it } from "vitest";
import { createAnalyzer } from "../../../src/index/tokenize";
import { VaultIndex } from "../../../src/index/vault-index";
import { judgeEvidence } from "../../../src/research/stages/judge";
import { isLinkListLine, withoutLinkListWords } from "../../../src/research/stages/link-lists";
import { retrieveLocal } from "../../../src/research/stages/local-retrieval";
import { planQuestion } from "../../../src/research/stages/plan";
import { MemoryNoteStore } from "../../support/memory-note-store";

const plan = (q: string) => planQuestion(q, { currentYear: 2026 });

async function vault(notes: Record<string, string>) {
  const store = new MemoryNoteStore(notes);
  const index = new VaultIndex();
  await index.sync(store, null);
  return { store, index };
}

const HUB = "# Files and links\n\n- [[Attachments]] · [[Default location]] · [[New notes]]\n- [[Internal links]] · [[Embed files]] · [[Aliases]]\n";

describe("isLinkListLine", () => {
  it("reads a line of links, list marks and joining words as a list of links", () => {
    for (const line of ["- [[Attachments]] · [[Default location]] · [[New notes]]", "See also [[A]] and [[B]]", "1. [Principles](#principles)", "| [[A]] | [[B]] |", "- ## 🌟[[New to Logseq?]]", "> - [ ] [label]([[Page name]])"]) {
      expect(isLinkListLine(line), line).toBe(true);
    }
  });

  it("reads a link whose target holds parentheses in pairs, and a Logseq link, as links", () => {
    expect(isLinkListLine("- [Foo](https://en.wikipedia.org/wiki/Foo_(bar)) · [[Bar]]")).toBe(true);
    expect(isLinkListLine("- [label]([[Page name]]) and [[Other]]")).toBe(true);
  });

  it("reads a line of unclosed links once, however many it holds", () => {
    for (const mark of ["![[", "[[", "[a](", "[a]((x)", "![alt]("]) expect(isLinkListLine(mark.repeat(200_000)), mark).toBe(false);
  });

  it("reads a link inside a sentence, or a fact's value, as the note's own words", () => {
    for (const line of ["Set the [[Default location]] for images in settings.", "director:: [[Ridley Scott]]", "Use [[Templates]]", "- [[tar]] extracts archives", "No links here at all"]) {
      expect(isLinkListLine(line), line).toBe(false);
    }
  });
});

describe("a hub note before the judge", () => {
  it("a hub whose links name the question's words is not enough evidence, and the reason says they are only links", async () => {
    const { store, index } = await vault({ "Files and links.md": HUB, "Attachments.md": "# Attachments\n\nDrop images and PDFs into a note; they are kept as files.", "Cooking.md": "# Cooking\n\nTomato soup needs salt." });
    const question = plan("what is the default location for new attachments?");
    const local = await retrieveLocal(question, index, store);
    // Search still finds the hub first, and the pack shows it as search found it.
    expect(local.rows[0].note_path).toBe("Files and links.md");
    expect(local.rows[0].retrieval.matched_terms).toEqual(expect.arrayContaining(["default", "location", "attachments"]));
    const j = judgeEvidence(question, local.results);
    expect(j.verdict).not.toBe("enough_evidence");
    expect(j.reason).toContain('"Files and links" has "default", "location" and "attachments" only in a list of links to other notes');
  });

  it("a note that says the words in its own sentences stays enough, links or not", async () => {
    const { store, index } = await vault({
      "Files and links.md": HUB,
      "Attachment folder.md": "# Attachment folder\n\nThe default location for new attachments is the vault's root; set another [[Default location]] in Files and links.\n\n- [[Attachments]] · [[New notes]]",
    });
    const question = plan("what is the default location for new attachments?");
    const local = await retrieveLocal(question, index, store);
    const j = judgeEvidence(question, local.results);
    expect(j).toMatchObject({ verdict: "enough_evidence", figures: { bestPath: "Attachment folder.md" } });
    expect(j.reason).not.toContain("list of links");
  });

  it("a note holding a line of 200,000 unclosed embeds is judged without holding up the run", async () => {
    const { store, index } = await vault({ "Default location.md": `# Default location\n\nThe default location for new attachments is the vault's root.\n\n${"![[".repeat(200_000)}\n` });
    const question = plan("what is the default location for new attachments?");
    const local = await retrieveLocal(question, index, store);
    expect(judgeEvidence(question, local.results)).toMatchObject({ verdict: "enough_evidence", figures: { bestPath: "Default location.md" } });
  });

  it("leaves a note alone whose words are in its sentences and its links, and a property's linked value", () => {
    const analyzer = createAnalyzer({ stemming: true });
    const text = "---\ndirector: \"[[Ridley Scott]]\"\n---\n# Blade Runner\n\nA film by Ridley Scott.\n\n- [[Ridley Scott]]\n";
    const result = {
      path: "Blade Runner.md",
      title: "Blade Runner",
      score: 1,
      tags: [],
      sections: [{ heading: "Blade Runner", headingPath: ["Blade Runner"], level: 1, line: 4, start: text.indexOf("# Blade"), end: text.length, snippet: "", highlights: [], matchedTerms: ["ridley", "scott"], closeTerms: ["ridley", "scott"], score: 1 }],
      explanation: { matchedTerms: ["ridley", "scott"], missingTerms: [], fields: { lead: ["ridley", "scott"] }, parts: [], termWeights: {}, termNotes: {} },
    };
    expect(withoutLinkListWords(result, text, analyzer)).toBe(result);
  });
});
