// Local retrieval: the vault rows of a pack, their lanes, and the one bounded second pass a
// question of two parts gets when its best note lacks one part.
import { describe, expect, it } from "vitest";
import { VaultIndex } from "../../../src/index/vault-index";
import { judgeEvidence } from "../../../src/research/stages/judge";
import { MIN_SHARE_OF_BEST, retrieveLocal } from "../../../src/research/stages/local-retrieval";
import { planQuestion } from "../../../src/research/stages/plan";
import { MemoryNoteStore } from "../../support/memory-note-store";
import type { SearchResult } from "../../../src/index/types";
import type { DialResponse } from "../../../src/index/dial/dial-types";

async function vault(notes: Record<string, string>) {
  const store = new MemoryNoteStore(notes);
  const index = new VaultIndex();
  await index.sync(store, null);
  return { store, index };
}

const plan = (q: string) => planQuestion(q, { currentYear: 2026 });

describe("retrieveLocal", () => {
  it("turns the matched notes into vault rows on the full-text lane, with matched and missing words", async () => {
    const { store, index } = await vault({ "tar.md": "# tar\n\nExtract a tar archive with tar -xf.", "other.md": "# Other\n\nNothing here." });
    const local = await retrieveLocal(plan("extract a tar archive on zfs"), index, store);
    expect(local.rows.map((r) => r.note_path)).toEqual(["tar.md"]);
    expect(local.rows[0].retrieval.lanes).toEqual([{ name: "full_text", status: "used" }]);
    expect(local.rows[0].retrieval.missing_terms).toContain("zfs");
  });

  it("keeps a note that has every word of the question however far below the best it scores, and the judge weighs only the pack's notes", async () => {
    // A hub whose links' words stand in its opening outscores, many times over, a long note that says the answer once.
    const filler = Array.from({ length: 40 }, () => "Obsidian keeps every kind of file you add in the vault, and the settings decide much of how it looks.").join(" ");
    const { store, index } = await vault({
      "Attachments hub.md": `# Attachments hub\n\n${"- [[Attachments]] · [[Default location]] · [[Attachment folder]]\n".repeat(3)}`,
      "Storage.md": `# Storage\n\n${filler}\n\nNew attachments go to the default location, the attachment folder set in Files and links.\n\n${filler}`,
      "Other.md": "# Other\n\nNothing here.",
    });
    const question = plan("what is the default location of the attachment folder");
    const local = await retrieveLocal(question, index, store);
    expect(local.results[0].score).toBeGreaterThan(local.results[1].score / MIN_SHARE_OF_BEST);
    expect(local.rows.map((r) => r.note_path)).toEqual(["Attachments hub.md", "Storage.md"]);
    expect(local.results.map((r) => r.path)).toEqual(local.rows.map((r) => r.note_path));
    expect(judgeEvidence(question, local.results).figures.bestPath).toBe("Storage.md");
  });

  it("leaves out of the pack, and out of the judge's sight, a note far below the best that matched a stray word", async () => {
    const { store, index } = await vault({
      "tar.md": "# tar\n\nExtract a tar archive: tar -xf archive.tar. Extract, extract, extract.",
      "Stray.md": `# Stray\n\n${"Words about other things entirely, a garden and a kite. ".repeat(30)} An archive.`,
    });
    const local = await retrieveLocal(plan("extract a tar archive"), index, store);
    expect(local.rows.map((r) => r.note_path)).toEqual(["tar.md"]);
    expect(local.results.map((r) => r.path)).toEqual(["tar.md"]);
  });

  it("searches once more for the part of a two-part question the best note lacks, on the same subject", async () => {
    const notes: Record<string, string> = {
      "Statuses.md": "# Status types\n\nA task can be on hold: ON_HOLD marks a task that waits on someone else.",
      "Dependencies.md": "# Task dependencies\n\nA task can depend on another task: blocked until the first is done. Depend, depend, depend.",
    };
    // Notes that share more of the question's words than the on-hold note, so it is not among the first few.
    for (let i = 0; i < 6; i++) notes[`Planning ${i}.md`] = `# Planning ${i}\n\nPutting a task after another task, making one depend on it.`;
    const { store, index } = await vault(notes);
    const question = plan("how is putting a task on hold different from making it depend on another task?");
    const firstPass = await retrieveLocal(question, index, store, { focusedRetry: false });
    expect(firstPass.rows.slice(0, 4).map((r) => r.note_path)).not.toContain("Statuses.md");
    const local = await retrieveLocal(question, index, store);
    const paths = local.rows.map((r) => r.note_path);
    expect(paths.indexOf("Statuses.md")).toBe(3);
    expect(local.rows[0].retrieval.lanes.map((l) => l.name)).toEqual(["full_text", "focused_retry"]);
  });

  it("asks the index the question as written, so the notes it names are lifted as in a search", async () => {
    const notes: Record<string, string> = {
      "config.siteUrl.md": "---\ntitle: siteUrl\n---\nThe URL the site is published under.",
      "config.assetsPrefix.md": "---\ntitle: assetsPrefix\n---\nA prefix for every URL of the site.",
      "Out of Control.md": "# Out of Control\n\nA book by Kevin Kelly.",
    };
    // Notes that share more of the question's words than the two settings' notes do.
    for (let i = 0; i < 10; i++) notes[`Publishing ${i}.md`] = `# Publishing ${i}\n\nPublishing to GitHub Pages without a custom domain, and how the pages work together with siteUrl and assetsPrefix.`;
    for (let i = 0; i < 10; i++) notes[`Control ${i}.md`] = `# Control ${i}\n\nWho wrote the control panel? Control, control: the control is out.`;
    const { store, index } = await vault(notes);
    const settings = await retrieveLocal(plan("when publishing to GitHub Pages without a custom domain, how do siteUrl and assetsPrefix work together?"), index, store);
    expect(settings.query).toContain("siteUrl and assetsPrefix");
    expect(settings.rows.map((r) => r.note_path)).toEqual(expect.arrayContaining(["config.siteUrl.md", "config.assetsPrefix.md"]));
    // A name of three words with a stop word inside is read in the whole question: lifted to third.
    const book = await retrieveLocal(plan("who wrote Out of Control?"), index, store);
    expect(book.rows.map((r) => r.note_path).indexOf("Out of Control.md")).toBe(2);
  });

  it("asks the index without the ways of saying 'in my notes', and keeps a phrase in curly quotes a phrase", async () => {
    const notes: Record<string, string> = {
      "Space Lua.md": "# Space Lua\n\nScripting inside the space.",
      "Ship it.md": "# Release\n\nWhen in doubt, ship it.",
      "Ships.md": "# Ships\n\nA ship sails; it is a ship.",
    };
    for (let i = 0; i < 6; i++) notes[`Notes ${i}.md`] = `# My notes say ${i}\n\nMy notes say a lot about space and lua: space, lua, notes.`;
    const { store, index } = await vault(notes);
    const lua = await retrieveLocal(plan("What do my notes say about Space Lua?"), index, store);
    expect(lua.query).not.toMatch(/notes|say/i);
    expect(lua.rows[0].note_path).toBe("Space Lua.md");
    const phrase = await retrieveLocal(plan("where did I write “ship it”?"), index, store);
    expect(phrase.rows.map((r) => r.note_path)).toEqual(["Ship it.md"]);
  });

  it("counts a possessive's word as matched: 'my mac's display' is about a mac", async () => {
    const { store, index } = await vault({ "caffeinate.md": "# caffeinate\n\nKeep a Mac from sleeping: the display stays on while it is plugged in.", "other.md": "# Other\n\nNothing here." });
    const local = await retrieveLocal(plan("stop my mac's display from sleeping while it's plugged in"), index, store);
    expect(local.rows[0].note_path).toBe("caffeinate.md");
    expect(local.rows[0].retrieval.missing_terms).not.toContain("mac");
  });

  it("asks nothing more for a one-part question, nor when told not to", async () => {
    const { store, index } = await vault({ "a.md": "# Alpha\n\nalpha beta", "b.md": "# Gamma\n\ngamma delta" });
    const one = await retrieveLocal(plan("alpha gamma"), index, store);
    expect(one.rows[0].retrieval.lanes.map((l) => l.name)).toEqual(["full_text"]);
    const off = await retrieveLocal(plan("difference between alpha and gamma"), index, store, { focusedRetry: false });
    expect(off.rows[0].retrieval.lanes.map((l) => l.name)).toEqual(["full_text"]);
  });

  describe("the score a row's place follows", () => {
    // A search the vault's language was fused into: its meaning's first note (no words at all)
    // leads, the words' first second, their third third (their second fell below the shown).
    const words = (score: number, wordsRank: number | null, fused: number, path: string, tags: string[] = []): SearchResult => ({
      path,
      title: path.replace(/\.md$/, ""),
      score,
      tags,
      sections: [],
      explanation: { matchedTerms: score > 0 ? ["kite"] : [], missingTerms: score > 0 ? [] : ["kite"], fields: {}, parts: [], termWeights: { kite: 1 }, termNotes: { kite: 3 }, fusion: { score: fused, wordsRank } },
    });
    const asked = [words(0, null, 0.0325, "Meaning.md"), words(9, 1, 0.0164, "Kite.md"), words(5, 3, 0.0159, "String.md")];
    // The exact-tag lane's search skips the vault's language: no fusion.
    const tagged: SearchResult = { ...words(2, 1, 0, "Tagged.md", ["outdoors"]), explanation: { ...words(2, 1, 0, "x").explanation, fusion: undefined } };
    const store = new MemoryNoteStore(Object.fromEntries([...asked, tagged].map((r) => [r.path, `# ${r.title}\n\nA kite on a string.`])));
    const fusedIndex = { search: async (query: string) => (query.startsWith("#") ? [tagged] : asked), paths: () => [...asked, tagged].map((r) => r.path), status: () => ({ notes: 4 }) } as unknown as VaultIndex;

    it("a row of a fused search carries the fused score its order follows beside its words' score; a row the exact-tag lane added carries none", async () => {
      const local = await retrieveLocal(plan("kite #outdoors"), fusedIndex, store);
      expect(local.rows.map((r) => [r.note_path, r.retrieval.score, r.retrieval.fusion])).toEqual([
        ["Meaning.md", 0, { score: 0.0325, fused_with: "vault_language", words_rank: null, words_score: null, kept_first: false }],
        ["Kite.md", 9, { score: 0.0164, fused_with: "vault_language", words_rank: 1, words_score: 9, kept_first: false }],
        ["String.md", 5, { score: 0.0159, fused_with: "vault_language", words_rank: 3, words_score: 5, kept_first: false }],
        ["Tagged.md", 2, undefined],
      ]);
      // What the judge weighs is the words' score, as before.
      expect(local.results.map((r) => r.score)).toEqual([0, 9, 5, 2]);
    });

    it("above level 1 a row the dial placed carries the dial's fused score and the words' own rank; a row it did not show carries no other search's", async () => {
      // The dial's lexical lane ranks by the index's fused order (Kite second), not the words'.
      const answer: DialResponse = {
        query: "kite",
        level: 2,
        ranLevel: 2,
        notices: [],
        latencyMs: 0,
        logId: null,
        results: [
          {
            key: "Kite.md",
            path: "Kite.md",
            title: "Kite",
            tags: [],
            score: 0.0325,
            section: null,
            lexical: asked[1],
            explanation: { lanes: [{ lane: "lexical", rank: 2, contribution: 0.0161, score: 9 }, { lane: "note_vector", rank: 1, contribution: 0.0164, score: 0.9 }] },
          },
        ],
      };
      const dial = { search: { search: async () => answer }, level: 2 as const };
      const local = await retrieveLocal(plan("kite"), fusedIndex, store, { dial });
      expect(local.rows.map((r) => [r.note_path, r.retrieval.score, r.retrieval.fusion])).toEqual([
        ["Kite.md", 0.0325, { score: 0.0325, fused_with: "vectors", words_rank: 1, words_score: 9, kept_first: false }],
        ["Meaning.md", 0, undefined],
        ["String.md", 5, undefined],
      ]);
    });
  });
});

describe("a note only the vectors found", () => {
  const BENCH = [
    "# Bench",
    "",
    "Simulated 2,000 observations with 5 edits each,",
    "typed by 4 devices, one of them tied to a kite.",
    "",
    "| Library | Saved document |",
    "|---|---|",
    "| Yjs | 1.3 MB |",
    "| Automerge | 1.9 MB |",
    "",
  ].join("\n");

  it("cites its opening as search shows a section: a wrapped line joined, each table row a line, the question's words marked", async () => {
    const { store, index } = await vault({ "Kite.md": "# Kite\n\nA kite flies on a kite string.\n", "Bench.md": BENCH });
    const answer: DialResponse = {
      query: "kite",
      level: 2,
      ranLevel: 2,
      notices: [],
      latencyMs: 0,
      logId: null,
      results: [{ key: "Bench.md", path: "Bench.md", title: "Bench", tags: [], score: 0.0164, section: null, lexical: null, explanation: { lanes: [{ lane: "note_vector", rank: 1, contribution: 0.0164, score: 0.9 }] } }],
    };
    const dial = { search: { search: async () => answer }, level: 2 as const };
    // One row: the words' best note (Kite) is not shown, so Bench is the dial's alone.
    const local = await retrieveLocal(plan("kite"), index, store, { dial, limit: 1 });
    expect(local.rows.map((r) => r.note_path)).toEqual(["Bench.md"]);
    const lead = local.rows[0].sections[0];
    expect(lead.text).toContain("with 5 edits each, typed by 4 devices");
    expect(lead.text.split("\n").filter((line) => line.includes("MB"))).toHaveLength(2);
    expect((lead.highlights ?? []).map(([start, end]) => lead.text.slice(start, end))).toEqual(["kite"]);
  });
});

