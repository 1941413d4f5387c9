import { describe, expect, it } from "vitest";
import { EVIDENCE_BRIEF_HEADING, writeEvidenceBrief } from "../../../src/research/stages/extractive-brief";
import { buildSynthesisPrompt } from "../../../src/research/stages/synthesis-prompt";
import { extractCitations, verifyCitations } from "../../../src/research/stages/verify-citations";
import { citationFor } from "../../../src/evidence/research-pack";
import { webOutcomeSentence, type WebOutcome } from "../../../src/notes/web-outcome";
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

  // The brief had its own words for the web's outcome, read from the pack's warnings ("the outside-vault
  // search failed: no web source answered."), where the trace note of the same run named the source and how.
  it("says how the run's web search went in the outcome's own sentence, for each outcome", () => {
    const after = (outcome: WebOutcome | undefined, p = pack("latest tar archive release", [tarNote])) => /may be out of date\.(.*)$/m.exec(writeEvidenceBrief(p, { webOutcome: outcome }).text)?.[1];
    const searched = { kind: "searched", rows: [], answered: [], failed: [], partlyFailed: [], cutOff: [], stopped: false } as const;
    const outcomes: WebOutcome[] = [
      { kind: "not_allowed" },
      { kind: "not_needed" },
      { kind: "no_source" },
      { kind: "not_reached" },
      { ...searched, failed: [{ provider: "hackernews", kind: "http" }] },
      { ...searched, answered: ["brave"] },
      { ...searched, answered: ["wikipedia"], failed: [{ provider: "hackernews", kind: "timeout" }] },
    ];
    for (const outcome of outcomes) expect(after(outcome)).toBe(` ${webOutcomeSentence(outcome)}`);
    expect(after({ ...searched, failed: [{ provider: "hackernews", kind: "http" }] })).toBe(" Web search failed: Hacker News answered with a server error.");
    // A pack from no run: the brief does not guess how the web went.
    expect(after(undefined)).toBe("");
    // Found, but none of it admitted to the brief (left out of the prompt for room): not "found nothing".
    const found = pack("latest tar archive release", [tarNote], [manPage]);
    const foundOutcome: WebOutcome = { ...searched, rows: [{ provider: "brave", count: 1 }], answered: ["brave"] };
    const brief = writeEvidenceBrief(found, { admitted: new Map([[tarNote.source_key, citationFor(tarNote)]]), webOutcome: foundOutcome });
    expect(/may be out of date\.(.*)$/m.exec(brief.text)?.[1]).toBe(" Web search added 1 outside row from Brave. None of them is quoted here.");
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
    expect(quoted.text).toContain(`- Kiln cone: “cone: 6” [${kiln.source_key}]`);
    const empty = vaultRow("Kiln.md", "Kiln", []);
    const named = writeEvidenceBrief(pack("kiln", [empty]));
    expect(named.text).toContain(`- Kiln: matched, but holds no sentence to quote [${empty.source_key}]`);
    for (const brief of [quoted, named]) {
      expect(brief.text).not.toContain("No vault note matched");
      expect(verifyCitations(brief.text, brief.admitted, { evidenceExisted: true }).passed).toBe(true);
    }
  });

  it("quotes a note's properties apart from its first sentence, without the index's semicolons", () => {
    // The index shows properties as "name: value;" lines before the note's first words, and its snippet runs them together.
    const lua = vaultRow("Space Lua.md", "Space Lua", [
      { heading: "", text: "description: The embedded Space Lua scripting environment.; references: client/runtime.ts, client/parse.ts; Space Lua is a custom dialect of the Lua programming language." },
    ]);
    const lines = writeEvidenceBrief(pack("what is space lua", [lua])).text.split("\n").filter((l) => l.startsWith("- "));
    expect(lines).toEqual([
      `- Space Lua: “description: The embedded Space Lua scripting environment.” [${lua.source_key}]`,
      `- Space Lua: “Space Lua is a custom dialect of the Lua programming language.” [${lua.source_key}]`,
    ]);
    // A snippet that begins inside the properties: the cut end of a value is no sentence; a short property is a whole fact.
    const tart = vaultRow("tart.md", "Nectarine tart", [
      { heading: "", text: "…Steph Ango; servings: 8 slices; rating: 7; It seems like every summer I smell ripe nectarines in the air." },
    ]);
    const tartLines = writeEvidenceBrief(pack("what is the tart's rating", [tart])).text.split("\n").filter((l) => l.startsWith("- "));
    expect(tartLines).toEqual([`- Nectarine tart: “rating: 7” [${tart.source_key}]`]);
    // A property of file names that holds the question's words gives way to a sentence that holds as many.
    const runtime = vaultRow("Architecture/Space Lua.md", "Space Lua", [
      { heading: "", text: "references: client/space_lua.ts, client/space_lua/parse.ts; The Lua runtime is written in TypeScript. It implements most of Lua." },
    ]);
    const runtimeLines = writeEvidenceBrief(pack("what is space lua", [runtime])).text.split("\n").filter((l) => l.startsWith("- "));
    expect(runtimeLines).toEqual([
      `- Space Lua: “The Lua runtime is written in TypeScript.” [${runtime.source_key}]`,
      `- Space Lua: “It implements most of Lua.” [${runtime.source_key}]`,
    ]);
    // Under a heading the same words are prose, not properties.
    const prose = vaultRow("n.md", "Notes", [{ heading: "Setup", text: "Note: the lua runtime starts first; then plugins load." }]);
    expect(writeEvidenceBrief(pack("lua runtime plugins", [prose])).text).toContain("“Note: the lua runtime starts first; then plugins load.”");
  });

  it("quotes one sentence at a time in scripts without capitals: Arabic, Hindi and Thai", () => {
    const cases = [
      { q: "ما هو التخمير", text: "التخمير عملية قديمة جدا. الطقس كان جميلا اليوم في المدينة. يستخدم التخمير في صنع الخبز والجبن." },
      { q: "किण्वन क्या होता", text: "किण्वन एक पुरानी प्रक्रिया। आज मौसम अच्छा था और हम बाहर गए। किण्वन से रोटी बनती।" },
      { q: "การหมักขนมปัง", text: "การหมักเป็นกระบวนการเก่าแก่ วันนี้อากาศดีมากและเราไปเที่ยวทะเล การหมักใช้ทำขนมปังและชีส" },
    ];
    for (const { q, text } of cases) {
      const note = vaultRow("n.md", "n", [{ heading: "h", text }]);
      const quotes = writeEvidenceBrief(pack(q, [note])).text.split("\n").filter((l) => l.startsWith("- "));
      // The weather sentence in the middle shares no word with the question: it is never quoted.
      expect(quotes, q).toHaveLength(2);
      for (const quote of quotes) expect(quote, q).not.toMatch(/الطقس|मौसम|อากาศ/);
    }
  });

  it("does not present notes the judge found do not answer as the vault's evidence", () => {
    const judge = { verdict: "no_evidence" as const, reason: 'Notes share at most 26% of the question\'s words; "bake" and "bread" are missing.', missing_terms: ["bake", "bread"] };
    const kube = vaultRow("k.md", "kubectl", [{ heading: "Usage", text: "Manage Kubernetes clusters from the command line." }]);
    const brief = writeEvidenceBrief(pack("how do I bake bread with kubernetes", [kube], [], judge));
    expect(brief.text).toContain("The vault has no note that answers this question: Notes share at most 26%");
    expect(brief.text).toContain("Closest vault notes (they do not answer the question):");
    expect(brief.text).not.toMatch(/^Vault evidence:$/m);
    expect(brief.text).not.toContain("thin");
    expect(verifyCitations(brief.text, brief.admitted, { evidenceExisted: true }).passed).toBe(true);
  });

  it("ends the judge's reason once: a stop before a closing quote or bracket is its end (it read 'says \"use tar.\".'), a colon is not", () => {
    const said = (reason: string) => {
      const brief = writeEvidenceBrief(pack("extract tar archive", [tarNote], [], { verdict: "weak_evidence", reason, missing_terms: [] }));
      return brief.text.split("\n").find((l) => l.startsWith("The vault's evidence is weak here: "));
    };
    expect(said('The closest note only says "use tar."')).toBe('The vault\'s evidence is weak here: The closest note only says "use tar."');
    expect(said("Only one note matched (see above.)")).toBe("The vault's evidence is weak here: Only one note matched (see above.)");
    expect(said("Only one note matched:")).toBe("The vault's evidence is weak here: Only one note matched.");
  });

  it("cites a note whose only line is an embed's file name by name, not by quoting the name", () => {
    // "![[Daily.base]]" reaches the pack as "Daily.base".
    const template = vaultRow("Templates/Daily Note Template.md", "Daily Note Template", [{ heading: "Notes", text: "Daily.base" }]);
    const brief = writeEvidenceBrief(pack("daily note template", [template], [], { verdict: "weak_evidence", reason: "It only embeds other notes.", missing_terms: [] }));
    expect(brief.text).toContain(`- Daily Note Template: matched, but holds no sentence to quote [${template.source_key}]`);
    expect(brief.text).not.toContain("“Daily.base”");
    expect(verifyCitations(brief.text, brief.admitted, { evidenceExisted: true }).passed).toBe(true);
  });

  it("keeps a code span whole when the quote was cut inside one, at its start or its end", () => {
    // The index's snippet began inside `prowler kubernetes --kubeconfig {{path/to/kubeconfig}}`.
    const started = vaultRow("prowler.md", "prowler kubernetes", [
      { heading: "prowler", text: "…{{path/to/kubeconfig}}` Scan a specific Kubernetes context: `prowler kubernetes --context {{my-context}}` with the default checks." },
    ]);
    const first = writeEvidenceBrief(pack("scan kubernetes context", [started])).text;
    expect(first).toContain("“…`{{path/to/kubeconfig}}` Scan a specific Kubernetes context: `prowler kubernetes --context {{my-context}}` with the default checks.”");
    // Cut to fit inside a span: it is closed before the mark.
    const long = vaultRow("eza.md", "eza", [{ heading: "eza", text: `List files one per line with \`eza --oneline ${"--flag ".repeat(60)}\` in any folder.` }]);
    const cut = writeEvidenceBrief(pack("list files eza", [long])).text.split("\n").find((l) => l.startsWith("- eza:"))!;
    expect(cut).toMatch(/`…” \[src:/);
    expect(cut.match(/`/g)).toHaveLength(2);
    // A note's own stray backtick is left as it is.
    const stray = vaultRow("s.md", "s", [{ heading: "h", text: "Press the ` key to open the kubernetes console." }]);
    expect(writeEvidenceBrief(pack("kubernetes console", [stray])).text).toContain("“Press the ` key to open the kubernetes console.”");
  });

  it("cites an outside result with no sentence to quote by name, with its label", () => {
    const titleOnly = outsideRow("brave", "https://example.org/tar", "tar archives explained", "tar");
    const brief = writeEvidenceBrief(pack("tar archive", [tarNote], [titleOnly]));
    expect(brief.text).toContain(`- tar archives explained (example.org): matched, but holds no sentence to quote [${titleOnly.source_key}] — Outside vault · Brave · ephemeral`);
    expect(brief.citations.map((c) => c.source_key)).toContain(titleOnly.source_key);
  });

  it("caps the number of sentences per kind and per row", () => {
    const chatty = vaultRow("c.md", "c", [{ heading: "", text: Array.from({ length: 20 }, (_, i) => `Tar archive fact number ${i} here.`).join(" ") }]);
    const brief = writeEvidenceBrief(pack("tar archive fact", [chatty]));
    expect(brief.text.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(2);
  });
});
