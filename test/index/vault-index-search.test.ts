// Searching the real VaultIndex over a small in-memory vault: ranking by field, approximate and
// as-you-type matching, #tag and "phrase" filters, synonyms, folder exclusions, the explanation
// and the sections with snippets and highlights a result carries.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { parseQuery } from "../../src/index/query";
import { createAnalyzer } from "../../src/index/tokenize";
import type { SearchResult } from "../../src/index/types";
import { VaultIndex } from "../../src/index/vault-index";
import { MemoryNoteStore } from "../support/memory-note-store";

const NOTES: Record<string, string> = {
  "Tools/Tar.md": "# Tar\n\nPack files into one archive and unpack them again.\n",
  "Tools/Backups.md": "# Backups\n\nEvery night a cron job copies the vault, then tar packs the copy for the offsite disk.\n",
  "Garden/Roses.md": "---\ntags: [garden]\n---\n# Roses\n\nPrune the roses in early spring, before the buds open.\n",
  "Pets/Cat.md": "# Pet care\n\nThe cat sleeps on the windowsill all afternoon.\n",
  "Infra/Cluster.md": "# Cluster\n\nWe run the services on Kubernetes with three worker nodes.\n",
  "Projects/Alpha.md": "---\ntags: [project/alpha]\n---\n# Alpha launch\n\nMeeting notes for the launch plan of the alpha release.\n",
  "Projects/Beta.md": "---\ntags: [project/beta]\n---\n# Beta planning\n\nMeeting notes: the beta waits for the alpha feedback.\n",
  "Projects/Portfolio.md": "---\ntags: [projects]\n---\n# Portfolio\n\nMeeting notes on all the projects.\n",
  "Privately shared/Open.md": "# Open letter\n\nA public kubernetes manifesto.\n",
  "Meetings/Weekly.md": "# Weekly sync\n\nMeeting notes without any project tag, about the launch plan.\n",
  "Writing/Fox.md": "# Typing drill\n\nThe quick brown fox jumps over the lazy dog.\n",
  "Writing/Shuffled.md": "# Shuffled drill\n\nThe brown dog and the quick fox ignore each other.\n",
  "Shell/Moving.md": "# Moving things around\n\nUse mv to rename a directory without copying its contents.\n",
  "Food/Café.md": "# Café culture\n\nA flat white at the corner café.\n",
  "中文/搜索.md": "# 中文笔记\n\n我们使用中文搜索引擎查找资料。\n",
  "日本/文章.md": "# 日本語のノート\n\n日本語の文章を書く練習をしました。\n",
  "Guides/Install.md": [
    "# Setup guide",
    "",
    "An introduction that says nothing in particular about anything.",
    "",
    "## Installing the plugin",
    "",
    "Copy main.js into the plugin folder, then enable the plugin in settings.",
    "",
    "## Other remarks",
    "",
    "Unrelated closing words.",
    "",
  ].join("\n"),
  "Gear/Jacket.md": "# Jacket\n\nThe zipper broke on the way up.\n",
  "Private/Diary.md": "# Diary\n\nA secret kubernetes confession.\n",
  "Archive/Old tar notes.md": "# Old tar notes\n\nHow we used to pack archives with tar in 2019.\n",
  "Films/Blade Runner.md": "---\nyear: 1982\naliases: [Do Androids Dream]\n---\n",
  "Films/Solaris.md": '---\ndirector: "[[Andrei Tarkovsky]]"\nimdbId: tt0069293\nreleased: [1972]\ncreated: 2024-01-01\nrating:\n---\n',
};

let store: MemoryNoteStore;
let index: VaultIndex;

beforeAll(async () => {
  store = new MemoryNoteStore(NOTES);
  index = new VaultIndex({ excludedFolders: ["Private"] });
  await index.sync(store, null);
});

const paths = (results: SearchResult[]) => results.map((r) => r.path);
const find = (results: SearchResult[], path: string) => {
  const r = results.find((x) => x.path === path);
  if (!r) throw new Error(`${path} not in ${JSON.stringify(paths(results))}`);
  return r;
};

describe("ranking", () => {
  it("puts a note with the word in its title above one with it only in the body", async () => {
    const results = await index.search("tar", store);
    const order = paths(results);
    expect(order).toContain("Tools/Backups.md");
    expect(order.indexOf("Tools/Tar.md")).toBeLessThan(order.indexOf("Tools/Backups.md"));
  });

  it("returns results best first", async () => {
    const scores = (await index.search("meeting notes launch", store)).map((r) => r.score);
    expect(scores.length).toBeGreaterThan(1);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it("explains which fields and words matched, the score parts and the word weights", async () => {
    const results = await index.search("tar archive", store);
    const tar = find(results, "Tools/Tar.md").explanation;
    expect(tar.fields.title).toEqual(["tar"]);
    expect(tar.fields.body).toEqual(expect.arrayContaining(["archive"]));
    expect(tar.matchedTerms).toEqual(expect.arrayContaining(["tar", "archive"]));
    expect(tar.missingTerms).toEqual([]);
    const textPart = tar.parts.find((p) => p.name === "text match");
    expect(textPart?.detail).toContain("title ×5");
    expect(textPart?.weight).toBeGreaterThan(0);
    expect(tar.parts.map((p) => p.name)).toContain("title match");
    // tar is in three notes, "archive" (stemmed: archiv) in fewer: the rarer word weighs more.
    expect(tar.termNotes.tar).toBe(3);
    expect(tar.termWeights.tar).toBeGreaterThan(0);
    const backups = find(results, "Tools/Backups.md").explanation;
    expect(backups.fields.title).toBeUndefined();
    expect(backups.fields.body).toContain("tar");
  });

  it("finds a note by the names of its properties that hold a value (split where written in camelCase) and by its figures", async () => {
    const solaris = find(await index.search("who is the director of solaris", store), "Films/Solaris.md");
    expect(solaris.explanation.fields.properties).toEqual(["director"]);
    expect(paths(await index.search("imdb", store))).toEqual(["Films/Solaris.md"]);
    expect(paths(await index.search("year", store))).toEqual(["Films/Blade Runner.md"]);
    expect(paths(await index.search("1982", store))).toEqual(["Films/Blade Runner.md"]);
    expect(paths(await index.search("1972", store))).toEqual(["Films/Solaris.md"]);
    // Shown, the note says what its values are.
    expect(solaris.sections[0].snippet).toContain("director: Andrei Tarkovsky;");
    // An empty property, and one that is bookkeeping, name nothing.
    expect(paths(await index.search("rating", store))).toEqual([]);
    expect(paths(await index.search("created", store))).toEqual([]);
  });

  it("lists query words the note lacks as missing", async () => {
    const results = await index.search("roses kubernetes", store);
    const roses = find(results, "Garden/Roses.md").explanation;
    expect(roses.matchedTerms).toEqual(["roses"]);
    expect(roses.missingTerms).toEqual(["kubernetes"]);
  });

  it("says which words it looked up as an earlier one (the same term), and how many notes the vault holds", async () => {
    const results = await index.search("tar archives archive tars", store);
    const tar = find(results, "Tools/Tar.md").explanation;
    expect(tar.foldedWords).toEqual({ archive: "archives", tars: "tar" });
    expect(tar.matchedTerms).toEqual(expect.arrayContaining(["tar", "archives"]));
    expect(tar.vaultNotes).toBe(index.status().notes);
    expect((await index.search("tar archive", store))[0].explanation.foldedWords).toBeUndefined();
    // Words that are names of an object's own keys fold like any other.
    const proto = (await index.search("tar constructors constructor", store))[0].explanation.foldedWords;
    expect(proto).toEqual({ constructor: "constructors" });
    expect(Object.hasOwn(proto ?? {}, "constructor")).toBe(true);
  });

  it("says a word the vault never uses matched no notes", async () => {
    const results = await index.search("roses zeppelin", store);
    expect(results[0].explanation.termNotes.zeppelin).toBe(0);
  });
});

describe("approximate matching", () => {
  it("finds a one-letter typo in a six-letter word", async () => {
    expect(paths(await index.search("gardan", store))).toContain("Garden/Roses.md");
  });

  it("credits an approximate match to the word that was mistyped, not to another query word", async () => {
    const roses = find(await index.search("roses gardan", store), "Garden/Roses.md");
    expect(roses.explanation.fields.tags).toEqual(["gardan"]);
    const fox = find(await index.search("dog jumpz", store), "Writing/Fox.md");
    expect(fox.explanation.fields.body?.sort()).toEqual(["dog", "jumpz"]);
    expect(fox.sections[0].matchedTerms.sort()).toEqual(["dog", "jumpz"]);
    const marks = fox.sections[0].highlights.map(([s, e]) => fox.sections[0].snippet.slice(s, e));
    expect(marks).toEqual(["jumps", "dog"]);
  });

  it("does not treat a one-letter change in a three-letter word as a typo", async () => {
    expect(paths(await index.search("cot", store))).not.toContain("Pets/Cat.md");
    expect(paths(await index.search("cat", store))).toContain("Pets/Cat.md");
  });

  it("completes a short last word while the user is typing, and not otherwise", async () => {
    expect(paths(await index.search("kub", store, { asYouType: true })).sort()).toEqual(["Infra/Cluster.md", "Privately shared/Open.md"]);
    expect(paths(await index.search("kub", store))).toEqual([]);
  });

  it("completes a short last word that has synonyms too (zip → zipper)", async () => {
    expect(paths(await index.search("zi", store, { asYouType: true }))).toContain("Gear/Jacket.md");
    expect(paths(await index.search("zip", store, { asYouType: true }))).toContain("Gear/Jacket.md");
  });

  it("finds accented words without the accent and the other way round", async () => {
    expect(paths(await index.search("cafe", store))).toContain("Food/Café.md");
    expect(paths(await index.search("CAFÉ", store))).toContain("Food/Café.md");
  });

  it("finds Chinese and Japanese notes by a two-character query", async () => {
    expect(paths(await index.search("搜索", store))).toEqual(["中文/搜索.md"]);
    expect(paths(await index.search("文章", store))).toEqual(["日本/文章.md"]);
  });

  it("finds a note that says directory when asked about a folder", async () => {
    const results = await index.search("folder rename", store);
    expect(paths(results)).toContain("Shell/Moving.md");
    const moving = find(results, "Shell/Moving.md");
    expect(moving.explanation.missingTerms).not.toContain("folder");
  });
});

describe("#tag and phrase filters", () => {
  it("keeps only notes with the tag, nested tags included", async () => {
    const results = await index.search("#project meeting", store);
    expect(paths(results).sort()).toEqual(["Projects/Alpha.md", "Projects/Beta.md"]);
  });

  it("does not take a longer tag that merely starts with the same letters (#projects for #project)", async () => {
    expect(paths(await index.search("#projects meeting", store))).toEqual(["Projects/Portfolio.md"]);
  });

  it("narrows to the nested tag when it is given in full", async () => {
    expect(paths(await index.search("#project/alpha notes", store))).toEqual(["Projects/Alpha.md"]);
  });

  it("lists every note with the tag when the query is only a tag", async () => {
    const results = await index.search("#project", store);
    expect(paths(results).sort()).toEqual(["Projects/Alpha.md", "Projects/Beta.md"]);
    expect(results[0].explanation.fields.tags).toEqual(["#project"]);
  });

  it("reads a tag no note has as a plain word", async () => {
    const results = await index.search("#kubernetes", store);
    expect(paths(results).sort()).toEqual(["Infra/Cluster.md", "Privately shared/Open.md"]);
  });

  it("keeps only notes that contain the exact phrase", async () => {
    const loose = paths(await index.search("quick brown", store));
    expect(loose).toEqual(expect.arrayContaining(["Writing/Fox.md", "Writing/Shuffled.md"]));
    const exact = await index.search('"quick brown"', store);
    expect(paths(exact)).toEqual(["Writing/Fox.md"]);
    expect(exact[0].explanation.parts.map((p) => p.name)).toContain("phrase");
  });

  it("finds a quoted Chinese phrase inside a run of text without spaces", async () => {
    expect(paths(await index.search('"中文搜索"', store))).toEqual(["中文/搜索.md"]);
    expect(paths(await index.search('"搜索中文"', store))).toEqual([]);
  });

  it("finds the one note with the phrase even when many notes rank higher on its words", async () => {
    const notes: Record<string, string> = {};
    for (let i = 0; i < 80; i++) notes[`Busy/${i}.md`] = `# Alpha beta ${i}\n\nalpha beta alpha beta alpha beta, never in that order twice: beta, alpha.\n`;
    notes["Quiet/Needle.md"] = `# Needle\n\n${"hay ".repeat(300)} the beta alpha order ${"hay ".repeat(300)}\n`;
    const crowded = new MemoryNoteStore(notes);
    const local = new VaultIndex();
    await local.sync(crowded, null);
    expect(paths(await local.search('"beta alpha order"', crowded))).toEqual(["Quiet/Needle.md"]);
  });

  it("matches a phrase across case, accents and punctuation", async () => {
    expect(paths(await index.search('"FLAT white, at"', store))).toEqual(["Food/Café.md"]);
  });
});

describe("excluded folders", () => {
  it("never indexes notes in an excluded folder", async () => {
    expect(index.paths()).not.toContain("Private/Diary.md");
    expect(paths(await index.search("confession", store))).toEqual([]);
  });

  it("keeps a folder whose name only starts like an excluded one", async () => {
    expect(paths(await index.search("manifesto", store))).toEqual(["Privately shared/Open.md"]);
  });

  it("reads a folder as the note writer does: ./Private, Private\\, ` Private / ` and .//Private all exclude Private", async () => {
    for (const spelled of ["./Private", "Private\\", " Private / ", ".//Private"]) {
      const local = new VaultIndex({ excludedFolders: [spelled] });
      await local.sync(store, null);
      expect(local.paths(), spelled).not.toContain("Private/Diary.md");
      expect(local.paths(), spelled).toContain("Privately shared/Open.md");
    }
  });

  it("drops notes of a newly excluded folder at once and takes them back after a sync", async () => {
    const local = new VaultIndex({ excludedFolders: ["Private"] });
    await local.sync(store, null);
    expect(paths(await local.search("tar", store))).toContain("Archive/Old tar notes.md");
    local.setExcludedFolders(["Private", "Archive/"]);
    expect(local.paths()).not.toContain("Archive/Old tar notes.md");
    expect(paths(await local.search("tar", store))).not.toContain("Archive/Old tar notes.md");
    local.setExcludedFolders([]);
    await local.sync(store, null);
    expect(local.paths()).toEqual(expect.arrayContaining(["Archive/Old tar notes.md", "Private/Diary.md"]));
  });
});

describe("sections, snippets and highlights", () => {
  const analyzer = createAnalyzer({ stemming: true });

  it("points at the section that matched, with its heading, line and offsets", async () => {
    const [result] = await index.search("installing plugin", store);
    expect(result.path).toBe("Guides/Install.md");
    const best = result.sections[0];
    expect(best.heading).toBe("Installing the plugin");
    expect(best.headingPath).toEqual(["Setup guide", "Installing the plugin"]);
    expect(best.level).toBe(2);
    expect(best.line).toBe(5);
    const text = NOTES["Guides/Install.md"];
    expect(text.slice(best.start, best.end).startsWith("## Installing the plugin")).toBe(true);
    expect(best.snippet).toContain("Copy main.js into the plugin folder");
    expect(best.matchedTerms).toEqual(expect.arrayContaining(["installing", "plugin"]));
    expect(best.closeTerms).toEqual(expect.arrayContaining(["installing", "plugin"]));
  });

  it("highlights exactly the words that matched the query", async () => {
    const [result] = await index.search("install plugins", store);
    const best = result.sections[0];
    expect(best.highlights.length).toBeGreaterThan(0);
    const queryTerms = new Set(["install", "plugins"].map((w) => analyzer.normalizeTerm(w)));
    for (const [start, end] of best.highlights) {
      const word = best.snippet.slice(start, end);
      expect(word).toMatch(/^[\p{L}\p{N}]+$/u);
      expect(analyzer.analyzeWord(word).some((t) => queryTerms.has(t))).toBe(true);
    }
    expect(best.highlights.map(([s, e]) => best.snippet.slice(s, e).toLowerCase())).toContain("plugin");
  });

  it("highlights the matched characters of Chinese and Japanese text, not the whole run", async () => {
    const [zh] = await index.search("搜索", store);
    const zhMarks = zh.sections[0].highlights.map(([s, e]) => zh.sections[0].snippet.slice(s, e));
    expect(zhMarks).toEqual(["搜索"]);
    const [ja] = await index.search("文章", store);
    const jaMarks = ja.sections[0].highlights.map(([s, e]) => ja.sections[0].snippet.slice(s, e));
    expect(jaMarks).toEqual(["文章"]);
  });

  it("shows where a note starts when only its title matched", async () => {
    const [result] = await index.search("#garden", store);
    expect(result.sections).toHaveLength(1);
    expect(result.sections[0].snippet).toContain("Prune the roses");
  });

  it("gives no more sections than asked for", async () => {
    const [result] = await index.search("plugin words introduction", store, { sectionsPerNote: 1 });
    expect(result.sections).toHaveLength(1);
  });

  it("respects the result limit", async () => {
    expect(await index.search("notes", store, { limit: 2 })).toHaveLength(2);
  });
});

describe("any query", () => {
  const pieces = ["#", '"', "tar", "#project", "/", "-", "_", "é", "中文", "  ", "the", "kub", "*", "(", "\u0000", "plugin"];
  const query = fc.oneof(fc.string({ maxLength: 30 }), fc.array(fc.constantFrom(...pieces), { maxLength: 8 }).map((p) => p.join("")));

  it("returns well-formed results and never throws", async () => {
    await fc.assert(
      fc.asyncProperty(query, fc.boolean(), async (q, asYouType) => {
        const results = await index.search(q, store, { limit: 5, asYouType });
        expect(results.length).toBeLessThanOrEqual(5);
        for (const r of results) {
          expect(Number.isFinite(r.score)).toBe(true);
          for (const s of r.sections) {
            for (const [start, end] of s.highlights) {
              expect(0 <= start && start < end && end <= s.snippet.length).toBe(true);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  // Questions made of the notes' names and other words: the named notes' lift keeps the results a ranking.
  const nameWords = ["typing", "drill", "pet", "care", "weekly", "sync", "old", "tar", "notes", "alpha", "launch", "of", "the", "moving", "things", "around"];
  const namingQuery = fc.array(fc.constantFrom(...nameWords, ...pieces), { minLength: 1, maxLength: 10 }).map((w) => w.join(" "));

  it("gives each note once, best first, whatever names the question says", async () => {
    await fc.assert(
      fc.asyncProperty(namingQuery, fc.integer({ min: 1, max: 6 }), async (q, limit) => {
        // rank() gives at least the limit (more are explained); search() gives at most it.
        const ranked = index.rank(parseQuery(q), limit);
        expect(new Set(ranked.map((h) => h.path)).size).toBe(ranked.length);
        for (let i = 1; i < ranked.length; i++) expect(ranked[i].score).toBeLessThanOrEqual(ranked[i - 1].score);
        const results = await index.search(q, store, { limit });
        expect(results.length).toBeLessThanOrEqual(limit);
        expect(new Set(paths(results)).size).toBe(results.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe("a quoted name", () => {
  it("is found by a quoted name, file name or alias its text never says", async () => {
    expect(paths(await index.search('"blade runner"', store))).toEqual(["Films/Blade Runner.md"]);
    expect(paths(await index.search('who wrote "do androids dream"', store))).toEqual(["Films/Blade Runner.md"]);
    expect(paths(await index.search('"old tar notes"', store))).toEqual(["Archive/Old tar notes.md"]);
  });
});

describe("loose: the closest notes by spelling, when nothing matched", () => {
  it("finds a note through a short start of its word and a typo in a short word, which the normal search does not", async () => {
    expect(await index.search("kube", store)).toEqual([]);
    const loose = await index.search("kube", store, { loose: true });
    expect(loose.map((r) => r.path)).toEqual(expect.arrayContaining(["Infra/Cluster.md", "Privately shared/Open.md"]));
    expect(await index.search("rosse", store)).toEqual([]);
    expect((await index.search("rosse", store, { loose: true })).map((r) => r.path)).toContain("Garden/Roses.md");
  });

  it("still finds nothing for words that are nowhere near any note's", async () => {
    expect(await index.search("zqxv wjkp", store, { loose: true })).toEqual([]);
  });
});
