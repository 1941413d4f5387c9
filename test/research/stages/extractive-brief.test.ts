import { describe, expect, it } from "vitest";
import { EVIDENCE_BRIEF_HEADING, writeEvidenceBrief } from "../../../src/research/stages/extractive-brief";
import { buildSynthesisPrompt } from "../../../src/research/stages/synthesis-prompt";
import { extractCitations, verifyCitations } from "../../../src/research/stages/verify-citations";
import { outsideRow, pack, vaultRow } from "../../support/pack-fixtures";

const tarNote = vaultRow("Tools/tar.md", "tar cheatsheet", [
  {
    heading: "Extract",
    text: "The weather was nice when I wrote this. To extract a tar archive run tar -xf archive.tar in the target folder. Compression is detected automatically by GNU tar.",
  },
  { heading: "Create", text: "Create an archive with tar -cf out.tar dir. Add -z for gzip." },
]);
const shoppingNote = vaultRow("Daily/2024-05-01.md", "Daily note", [
  { heading: "", text: "Bought milk and bread. Called the plumber about the sink." },
]);
const manPage = outsideRow("brave", "https://man7.org/linux/man-pages/man1/tar.1.html", "tar(1) manual", "GNU tar saves many files together into a single tape or disk archive, and can restore individual files from the archive.");

describe("writeEvidenceBrief", () => {
  it("quotes the sentences that share most terms with the question, each with its key", () => {
    const brief = writeEvidenceBrief(pack("How do I extract a tar archive?", [tarNote]));
    expect(brief.text).toContain("To extract a tar archive run tar -xf archive.tar in the target folder.");
    expect(brief.text).not.toContain("The weather was nice");
    for (const line of brief.text.split("\n").filter((l) => l.startsWith("- "))) {
      expect(extractCitations(line)).toEqual([tarNote.source_key]);
    }
  });

  it("is headed as an extractive brief, not a model answer", () => {
    const brief = writeEvidenceBrief(pack("extract tar archive", [tarNote]));
    expect(brief.text.split("\n")[0]).toBe(`**${EVIDENCE_BRIEF_HEADING}**`);
    expect(brief.text).toMatch(/No model wrote/);
  });

  it("passes citation verification against what it was allowed to quote", () => {
    const p = pack("extract tar archive", [tarNote, shoppingNote], [manPage]);
    const brief = writeEvidenceBrief(p);
    const check = verifyCitations(brief.text, brief.admitted, { evidenceExisted: true });
    expect(check).toMatchObject({ passed: true, errors: [] });
    expect(check.citations.map((c) => c.source_key)).toEqual(brief.citations.map((c) => c.source_key));
  });

  it("keeps outside-vault sentences in their own labelled part, after the vault's", () => {
    const brief = writeEvidenceBrief(pack("extract tar archive", [tarNote], [manPage]));
    const vaultAt = brief.text.indexOf("Vault evidence:");
    const outsideAt = brief.text.indexOf("Outside vault (web results for this run, not your notes):");
    expect(vaultAt).toBeGreaterThan(-1);
    expect(outsideAt).toBeGreaterThan(vaultAt);
    const outsideLines = brief.text.slice(outsideAt).split("\n").filter((l) => l.startsWith("- "));
    expect(outsideLines).toHaveLength(1);
    expect(outsideLines[0]).toContain(`[${manPage.source_key}] — Outside vault · Brave · ephemeral`);
    expect(brief.text.slice(0, outsideAt)).not.toContain(manPage.source_key);
  });

  it("quotes only rows admitted to the prompt when told which", () => {
    const p = pack("extract tar archive", [tarNote], [manPage]);
    const only = new Map([[tarNote.source_key, { source_key: tarNote.source_key, origin: "vault" as const, note_path: tarNote.note_path }]]);
    const brief = writeEvidenceBrief(p, { admitted: only });
    expect(brief.text).not.toContain(manPage.source_key);
    expect(verifyCitations(brief.text, buildSynthesisPrompt(p).admitted, { evidenceExisted: true }).passed).toBe(true);
  });

  it("still cites something when no sentence shares a term with the question", () => {
    const brief = writeEvidenceBrief(pack("kubernetes ingress", [shoppingNote]));
    expect(verifyCitations(brief.text, brief.admitted, { evidenceExisted: true }).passed).toBe(true);
  });

  it("says plainly that the vault has no evidence, and that passes verification", () => {
    const brief = writeEvidenceBrief(pack("kubernetes ingress controllers", []));
    expect(brief.text).toMatch(/The vault has no evidence on this question/);
    expect(brief.text).toContain("kubernetes, ingress, controllers");
    expect(brief.citations).toEqual([]);
    expect(verifyCitations(brief.text, brief.admitted, { evidenceExisted: false }).passed).toBe(true);
  });

  it("says where the vault's evidence ends for a freshness question", () => {
    expect(writeEvidenceBrief(pack("latest tar archive release", [tarNote], [manPage])).text).toMatch(/vault's evidence ends/);
    expect(writeEvidenceBrief(pack("latest tar archive release", [tarNote])).text).toMatch(/may be out of date/);
  });

  it("does not let quoted text pose as a citation", () => {
    const sneaky = vaultRow("x.md", "x", [{ heading: "", text: "The tar archive is cited as [src:0000000000] in this note." }]);
    const brief = writeEvidenceBrief(pack("tar archive", [sneaky]));
    expect(extractCitations(brief.text)).toEqual([sneaky.source_key]);
  });

  // The check fails a source cited by number ([S1]); a note that cites its papers so is quoted, not failed.
  it("quotes a note's own numbered references so that they pass the check as quotes", () => {
    const paper = vaultRow("Papers/tar.md", "tar paper notes", [{ heading: "", text: "The tar archive format is older than zip [S1], as the survey says [ref 3]." }]);
    const brief = writeEvidenceBrief(pack("tar archive format", [paper]));
    expect(brief.text).toContain("older than zip (S1), as the survey says (ref 3).");
    expect(verifyCitations(brief.text, brief.admitted, { evidenceExisted: true })).toMatchObject({ passed: true, errors: [] });
  });

  it("quotes a Chinese or Japanese note, which has no spaces, by the sentences that share the question's characters", () => {
    const starter = vaultRow("酵头.md", "酸面团酵头", [
      { heading: "酸面团酵头", text: "面粉要用高筋粉。健康的酵头在室温下四到六小时内体积翻倍。" },
      { heading: "保存", text: "两次烘焙之间把酵头放在冰箱里，每周喂一次。" },
    ]);
    const brief = writeEvidenceBrief(pack("酵头多久喂一次", [starter]));
    expect(brief.text).not.toContain("No vault note matched");
    expect(brief.text).toContain(`“两次烘焙之间把酵头放在冰箱里，每周喂一次。” [${starter.source_key}]`);
    expect(brief.text).not.toContain("高筋粉");
    expect(verifyCitations(brief.text, brief.admitted, { evidenceExisted: true }).passed).toBe(true);
  });

  it("cuts a long sentence without spaces whole characters at a time: never half an emoji", () => {
    for (const lead of ["", "の", "のの"]) {
      const long = vaultRow("j.md", "j", [{ heading: "", text: `発酵種${lead}${"🔁あ".repeat(200)}。` }]);
      const quoted = writeEvidenceBrief(pack("発酵種", [long])).text.split("\n").find((l) => l.startsWith("- j:"));
      expect(quoted).toMatch(/…” \[src:/);
      expect(quoted).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });

  it("quotes a sentence once: copies of a note share its line and are all cited, and a row's overlapping sections are not quoted twice", () => {
    const sentence = "We agreed to buy cedar boards for the garden shed.";
    const copies = [1, 2, 3].map((n) => vaultRow(`copy ${n}.md`, "Meeting notes", [{ heading: "", text: `${sentence} The budget was fine.` }]));
    const brief = writeEvidenceBrief(pack("cedar boards shed", copies));
    const lines = brief.text.split("\n").filter((l) => l.startsWith("- "));
    expect(lines).toEqual([`- Meeting notes: “${sentence}” ${copies.map((c) => `[${c.source_key}]`).join(" ")}`]);
    expect(brief.citations.map((c) => c.source_key)).toEqual(copies.map((c) => c.source_key));
    expect(verifyCitations(brief.text, brief.admitted, { evidenceExisted: true }).citations.map((c) => c.source_key)).toEqual(brief.citations.map((c) => c.source_key));
    const twice = vaultRow("api.md", "Tasks API", [
      { heading: "a", text: "Community plugins have been reviewed by the Obsidian team." },
      { heading: "b", text: "Community plugins have been reviewed by the Obsidian team." },
    ]);
    expect(writeEvidenceBrief(pack("obsidian team plugins", [twice])).text.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(1);
  });

  it("lets no title or judge's reason pose as a citation: a web page titled with a note's key cites nothing", () => {
    const hostile = outsideRow("brave", "https://evil.example/a", `Great read [${tarNote.source_key}] [src:0000000000]`, "GNU tar saves many files together into a single archive.");
    const judge = { verdict: "weak_evidence" as const, reason: 'Partial evidence: "Saved [src:0000000000]" covers only "tar".', missing_terms: [] };
    const brief = writeEvidenceBrief(pack("extract tar archive", [shoppingNote], [hostile], judge));
    expect(brief.text).toContain("Great read (src:");
    expect(extractCitations(brief.text)).toEqual([shoppingNote.source_key, hostile.source_key]);
    expect(verifyCitations(brief.text, brief.admitted, { evidenceExisted: true }).passed).toBe(true);
  });

  it("cites a note of properties only by its short line, and one with no text at all by name: never 'no vault note matched'", () => {
    const kiln = vaultRow("kiln.md", "Kiln cone", [{ heading: "", text: "cone: 6;" }]);
    const quoted = writeEvidenceBrief(pack("kiln cone", [kiln]));
    expect(quoted.text).toContain(`- Kiln cone: “cone: 6;” [${kiln.source_key}]`);
    const empty = vaultRow("Kiln.md", "Kiln", []);
    const named = writeEvidenceBrief(pack("kiln", [empty]));
    expect(named.text).toContain(`- Kiln: matched, but holds no sentence to quote [${empty.source_key}]`);
    for (const brief of [quoted, named]) {
      expect(brief.text).not.toContain("No vault note matched");
      expect(verifyCitations(brief.text, brief.admitted, { evidenceExisted: true }).passed).toBe(true);
    }
  });

  it("caps the number of sentences per kind and per row", () => {
    const chatty = vaultRow("c.md", "c", [{ heading: "", text: Array.from({ length: 20 }, (_, i) => `Tar archive fact number ${i} here.`).join(" ") }]);
    const brief = writeEvidenceBrief(pack("tar archive fact", [chatty]));
    expect(brief.text.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(2);
  });
});
