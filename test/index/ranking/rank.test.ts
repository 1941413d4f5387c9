// Ranking on its own, over an engine built here: rare words lead, coverage lifts notes that match
// the whole question, typo tolerance and prefixes only where they help, #tags filter or fall back
// to words, and enough candidates are explained for a phrase check or a title bonus to reorder.
import { describe, expect, it } from "vitest";
import { parseNote } from "../../../src/index/markdown";
import { parseQuery } from "../../../src/index/query";
import { MAX_QUERY_WORDS, rankNotes, rarestWords, type RankingCorpus } from "../../../src/index/ranking/rank";
import { DEFAULT_RANKING, fuzzyDistance, type RankingOptions } from "../../../src/index/ranking/ranking-options";
import { createEngine, toEngineDoc } from "../../../src/index/search-engine";
import { synonymTable } from "../../../src/index/synonyms";
import { createAnalyzer } from "../../../src/index/tokenize";
import type { IndexedNote } from "../../../src/index/types";

function corpus(notes: Record<string, string>, ranking: Partial<RankingOptions> = {}): RankingCorpus {
  const analyzer = createAnalyzer({ stemming: false });
  const engine = createEngine(analyzer);
  const indexed = new Map<string, IndexedNote>();
  for (const [path, text] of Object.entries(notes)) {
    const parsed = parseNote(path, text);
    engine.add(toEngineDoc(parsed));
    const { title, aliases, tags, sourceUrls, problems } = parsed;
    indexed.set(path, { path, mtime: 1, size: text.length, title, aliases, tags, sourceUrls, problems });
  }
  return { engine, notes: indexed, analyzer, synonyms: synonymTable((w) => analyzer.normalizeTerm(w)), ranking: { ...DEFAULT_RANKING, ...ranking } };
}

const rank = (c: RankingCorpus, query: string, opts = { asYouType: false }, limit = 10) => rankNotes(c, parseQuery(query), limit, opts);
const paths = (hits: { path: string }[]) => hits.map((h) => h.path);

describe("rankNotes", () => {
  it("lets a note matching the whole question beat one that repeats a single word", () => {
    const c = corpus({
      "both.md": "# Notes\n\nzebra crossing on the project site\n",
      "repeats.md": `# Log\n\n${"project ".repeat(30)}\n`,
      "other.md": "# Other\n\nproject plan\n",
    });
    const hits = rank(c, "zebra project");
    expect(hits[0].path).toBe("both.md");
    expect(hits[0].explanation.missingTerms).toEqual([]);
    const repeats = hits.find((h) => h.path === "repeats.md")!;
    expect(repeats.explanation.missingTerms).toEqual(["zebra"]);
    expect(repeats.explanation.parts.find((p) => p.name === "query coverage")!.weight).toBeLessThan(0);
  });

  it("looks a word most of a large vault uses up only among notes rarer words found", () => {
    const notes: Record<string, string> = { "rare.md": "# Zebra\n\nzebra and the project\n" };
    for (let i = 0; i < 10; i++) notes[`n${i}.md`] = `# Note ${i}\n\nthe project plan\n`;
    const restricted = corpus(notes, { commonShare: 0.3, commonMinNotes: 2 });
    expect(paths(rank(restricted, "zebra project"))).toEqual(["rare.md"]);
    // Alone, the common word still finds every note that has it.
    expect(rank(restricted, "project")).toHaveLength(11);
    // In a small vault every word may be common: nothing is restricted.
    expect(rank(corpus(notes), "zebra project")).toHaveLength(11);
  });

  it("tolerates typos only in longer words the vault barely uses as typed", () => {
    const c = corpus({ "syntax.md": "# Query syntax\n", "task.md": "# Task list\n" });
    expect(paths(rank(c, "sintax"))).toEqual(["syntax.md"]);
    expect(rank(c, "tack")).toEqual([]);
    const common = corpus({ "syntax.md": "# Query syntax\n", "sintax.md": "# Sintax\n" }, { fuzzyBelowNotes: 1 });
    expect(paths(rank(common, "sintax"))).toEqual(["sintax.md"]);
  });

  it("matches the word being typed as a prefix, and only that word", () => {
    const c = corpus({ "k.md": "# Kubernetes\n\nclusters\n" });
    expect(paths(rank(c, "kub", { asYouType: true }))).toEqual(["k.md"]);
    expect(rank(c, "kub")).toEqual([]);
    expect(rank(c, "kub clusters", { asYouType: true })[0].explanation.missingTerms).toEqual(["kub"]);
  });

  it("counts a word and its synonyms once for coverage, the synonym weighing less", () => {
    const c = corpus({ "dir.md": "# Moving\n\nrename a directory\n", "folder.md": "# Moving\n\nrename a folder\n" });
    const hits = rank(c, "folder rename");
    expect(paths(hits)).toEqual(["folder.md", "dir.md"]);
    expect(hits[1].explanation.missingTerms).toEqual([]);
    expect(hits[1].explanation.fields.body).toEqual(expect.arrayContaining(["folder"]));
    // Saying "folder" twice over (folder and directory) covers one word of the question, not two.
    const both = corpus({ "twice.md": "# Words\n\nfolder or directory\n", "other.md": "# Other\n\nrename and more\n" });
    const coverage = rank(both, "folder rename").find((h) => h.path === "twice.md")!.explanation.parts.find((p) => p.name === "query coverage")!;
    expect(coverage.detail).toMatch(/^1 of 2 query words matched, \d\d% of the query's weight/);
  });

  it("filters by a tag some note has and reads one no note has as a word", () => {
    const c = corpus({
      "a.md": "---\ntags: [project/alpha]\n---\n# Alpha\n\nmeeting\n",
      "b.md": "# Beta\n\nmeeting about the kubernetes cluster\n",
    });
    expect(paths(rank(c, "#project meeting"))).toEqual(["a.md"]);
    expect(rank(c, "#project meeting")[0].explanation.parts.at(-1)).toEqual({ name: "tag", detail: "has #project", weight: 0 });
    expect(paths(rank(c, "#kubernetes"))).toEqual(["b.md"]);
  });

  it("lists every note with the tags, by title, when the query is only tags", () => {
    const c = corpus({ "z.md": "---\ntags: [x]\n---\n# Zulu\n", "a.md": "---\ntags: [x]\n---\n# Alpha\n", "n.md": "# None\n" });
    const hits = rank(c, "#x");
    expect(paths(hits)).toEqual(["a.md", "z.md"]);
    expect(hits[0]).toMatchObject({ score: 1, explanation: { fields: { tags: ["#x"] }, parts: [{ name: "tag", detail: "has #x", weight: 1 }] } });
    expect(rank(c, "the")).toEqual([]);
  });

  it("explains more candidates than the limit, at least fifty, best first", () => {
    const notes: Record<string, string> = {};
    for (let i = 0; i < 80; i++) notes[`n${i}.md`] = `# Note ${i}\n\n${"garden ".repeat(1 + (i % 7))}\n`;
    const hits = rank(corpus(notes), "garden", { asYouType: false }, 3);
    expect(hits).toHaveLength(50);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    expect(rank(corpus(notes), "garden", { asYouType: false }, 12)).toHaveLength(60);
  });
});

describe("a vault with notes read again (their old postings not cleaned up yet)", () => {
  // A note read again (an edit; one read too soon and proved unchanged) is discarded and added anew;
  // the engine cleans up its old postings only after 200 notes and a tenth of the vault.
  function readAgain(c: RankingCorpus, notes: Record<string, string>, paths: string[]): void {
    for (const path of paths) {
      c.engine.discard(path);
      c.engine.add(toEngineDoc(parseNote(path, notes[path])));
    }
  }

  it("ranks, scores and explains as once cleaned up: no word weighs less, none turns common", async () => {
    const notes: Record<string, string> = { "rare.md": "# Zebra\n\nzebra and the project plan\n" };
    const body = (i: number) => (i < 3 ? "the project plan" : i < 7 ? "a seed to plant" : "the kitchen");
    for (let i = 0; i < 20; i++) notes[`n${i}.md`] = `# Note ${i}\n\n${body(i)}\n`;
    // "project": 4 notes of 21, not over the common share (4.2); with n0 and n1 listed twice, it was.
    // "seed": 4 notes; n6 listed twice, after n3–n5, which were scored as if 5 held it.
    const c = corpus(notes, { commonShare: 0.2, commonMinNotes: 2 });
    const queries = ["zebra project", "seed"];
    const clean = queries.map((q) => rank(c, q));
    expect(paths(clean[0])).toEqual(["rare.md", "n0.md", "n1.md", "n2.md"]);
    readAgain(c, notes, ["n0.md", "n1.md", "n6.md"]);
    // Each a first look at the lists (a lookup drops the old postings it meets).
    const dirty = queries.map((q) => rank(c, q));
    await c.engine.vacuum();
    expect(dirty).toEqual(queries.map((q) => rank(c, q)));
    // The notes read again rank where they did: only their short ids changed.
    for (const [i, hits] of dirty.entries()) expect(hits.map((h) => [h.path, h.score]).sort(), queries[i]).toEqual(clean[i].map((h) => [h.path, h.score]).sort());
  });
});

describe("a long query (a pasted page)", () => {
  // Sixty words a few notes share each, and "zebra", which one note holds, typed last.
  const everyday = Array.from({ length: 60 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
  function pasted(): RankingCorpus {
    const notes: Record<string, string> = { "zebra.md": "# Stripes\n\nzebra\n" };
    for (let i = 0; i < 12; i++) notes[`n${i}.md`] = `# Note ${i}\n\n${everyday.join(" ")}\n`;
    return corpus(notes);
  }
  const lookupsOf = (c: RankingCorpus, query: string) => {
    let lookups = 0;
    const search = c.engine.search.bind(c.engine);
    c.engine.search = (...args: Parameters<typeof search>) => {
      lookups++;
      return search(...args);
    };
    const hits = rank(c, query);
    return { hits, lookups };
  };

  it(`looks up only its ${MAX_QUERY_WORDS} rarest words, the rare one typed last among them`, () => {
    const { hits, lookups } = lookupsOf(pasted(), `${everyday.join(" ")} zebra`);
    expect(lookups).toBeLessThanOrEqual(MAX_QUERY_WORDS * 2);
    expect(hits.find((h) => h.path === "zebra.md")?.explanation.matchedTerms).toEqual(["zebra"]);
    expect(hits[0].explanation.parts.at(-1)).toEqual({ name: "long query", detail: `its ${MAX_QUERY_WORDS} rarest words of 61 were looked up`, weight: 0 });
  });

  it("hands out the words it weighed, for the vault-language lane to ask with the same", () => {
    const c = pasted();
    const query = parseQuery(`${everyday.join(" ")} zebra`);
    const { query: kept, wordsAsked } = rarestWords(query, c);
    expect(wordsAsked).toBe(61);
    expect(kept.words).toHaveLength(MAX_QUERY_WORDS);
    const weighed = rankNotes(c, query, 10, { asYouType: false })[0].explanation;
    expect([...kept.words].sort()).toEqual([...weighed.matchedTerms, ...weighed.missingTerms].sort());
  });

  it("keeps the words the vault holds before words it never uses, which only a typo could match", () => {
    const unknown = Array.from({ length: 40 }, (_, i) => `qx${i}`);
    expect(paths(rank(pasted(), `${unknown.join(" ")} zebra`))).toEqual(["zebra.md"]);
  });

  it(`leaves a query of ${MAX_QUERY_WORDS} words or fewer as it is, however often a word is repeated`, () => {
    const words = [...everyday.slice(0, MAX_QUERY_WORDS - 1), "zebra"];
    const { hits } = lookupsOf(pasted(), [...words, ...words].join(" "));
    expect(hits[0].explanation.missingTerms.length + hits[0].explanation.matchedTerms.length).toBe(MAX_QUERY_WORDS);
    expect(hits.flatMap((h) => h.explanation.parts).some((p) => p.name === "long query")).toBe(false);
  });
});

describe("#tags in the query", () => {
  it("reads the notes once to learn which tags exist, however many tags the query has", () => {
    const c = corpus({ "a.md": "---\ntags: [project/alpha]\n---\n# Alpha\n\nmeeting\n", "b.md": "# Beta\n\nmeeting\n" });
    let passes = 0;
    const notes = c.notes as Map<string, IndexedNote>;
    const values = notes.values.bind(notes);
    notes.values = () => (passes++, values());
    const tags = Array.from({ length: 100 }, (_, i) => `#missing${i}`).join(" ");
    expect(paths(rank(c, `${tags} #project meeting`))).toEqual(["a.md"]);
    expect(passes).toBe(1);
  });
});

describe("how each word of the question bunches (for the judge)", () => {
  // "snake_case" four times in each of its notes; "case" once in each of many more.
  const notes: Record<string, string> = {};
  for (let i = 0; i < 10; i++) notes[`style${i}.md`] = `# Style ${i}\n\nsnake_case snake_case snake_case snake_case names\n`;
  for (let i = 0; i < 40; i++) notes[`other${i}.md`] = `# Other ${i}\n\nin any case it works\n`;

  it("a word looked up as several terms bunches as its most bunched one, not as its commonest part", () => {
    const hits = rank(corpus(notes), "snake_case names");
    const clumping = hits[0].explanation.termClumping ?? {};
    expect(Object.keys(clumping)).toContain("snake_case");
    expect(clumping["snake_case"].clumping).toBeGreaterThan(1);
  });

  it("is not worked out while the user types", () => {
    expect(rank(corpus(notes), "snake_case nam", { asYouType: true })[0].explanation.termClumping).toBeUndefined();
  });
});

describe("words an object's prototype also names", () => {
  it("searches and explains 'constructor', 'toString' and '__proto__' like any other word", () => {
    const c = corpus({ "classes.md": "# Classes\n\nA constructor runs toString on __proto__ once.\n", "other.md": "# Other\n\nnothing here\n" });
    const hits = rank(c, "constructor toString __proto__");
    expect(hits[0].path).toBe("classes.md");
    expect(hits[0].explanation.fields.body).toEqual(expect.arrayContaining(["constructor"]));
    expect(Object.values(hits[0].explanation.termWeights).every((w) => typeof w === "number" && Number.isFinite(w))).toBe(true);
  });
});

describe("a note the question names", () => {
  // Four notes about pages and writing rank above the book, which shares one word with the question.
  const notes = {
    "Out of Control.md": "---\nisbn: 201483408\n---\n",
    "pages.md": "# Pages\n\nHow many pages a note can have, and who wrote the pages plugin.\n",
    "writing.md": "# Writing\n\nWho wrote the pages? Many people wrote many pages.\n",
    "count.md": "# Count\n\nCount how many pages you wrote.\n",
    "authors.md": "# Authors\n\nWho wrote which pages, and how many.\n",
  };

  it("is lifted to the third place when it ranked lower, with the lift in its explanation", () => {
    const question = "who wrote Out of Control and how many pages is it?";
    const off = rank(corpus(notes, { namedPlace: null }), question);
    expect(paths(off).indexOf("Out of Control.md")).toBeGreaterThan(2);
    const hits = rank(corpus(notes), question);
    expect(paths(hits).slice(0, 2)).toEqual(paths(off).slice(0, 2));
    expect(hits[2].path).toBe("Out of Control.md");
    const lift = hits[2].explanation.parts.find((p) => p.name === "named in the question")!;
    expect(lift.detail).toBe('the question says "out of control"');
    expect(lift.weight).toBeGreaterThan(0);
    // Its score is the note's it passed: the order and the scores agree.
    expect(hits[2].score).toBe(hits[3].score);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
  });

  it("goes where the place says, and stays where it was when already higher", () => {
    const question = "who wrote Out of Control and how many pages is it?";
    expect(rank(corpus(notes, { namedPlace: 0 }), question)[0].path).toBe("Out of Control.md");
    expect(rank(corpus(notes, { namedPlace: 1 }), question)[1].path).toBe("Out of Control.md");
    const first = rank(corpus(notes), "out of control");
    expect(first[0].path).toBe("Out of Control.md");
    expect(first[0].explanation.parts.map((p) => p.name)).not.toContain("named in the question");
  });

  it("is found even when its only word is one a large vault restricts to notes rarer words found", () => {
    const many: Record<string, string> = { "Project Plan.md": "# Project Plan\n\nsteps\n", "zebra.md": "# Zebra\n\nzebra notes\n" };
    for (let i = 0; i < 10; i++) many[`n${i}.md`] = `# Note ${i}\n\nthe project plan\n`;
    const restricted = { commonShare: 0.3, commonMinNotes: 2 };
    expect(paths(rank(corpus(many, { ...restricted, namedPlace: null }), "zebra project plan"))).toEqual(["zebra.md"]);
    expect(paths(rank(corpus(many, restricted), "zebra project plan"))).toEqual(["zebra.md", "Project Plan.md"]);
  });

  it("goes first, and says the question is its name, when the question asks for nothing else", () => {
    const titled = { ...notes, "Space Lua.md": "# Definitions\n\nHow scripts run.\n", "lua.md": "# Lua\n\nLua in space, lua everywhere: space lua, lua space.\n" };
    const off = rank(corpus(titled, { namedPlace: null }), "what is space lua");
    expect(off[0].path).toBe("lua.md");
    const hits = rank(corpus(titled), "what is space lua");
    expect(hits[0].path).toBe("Space Lua.md");
    expect(hits[0].keepFirst).toBe(true);
    expect(hits[0].explanation.parts.find((p) => p.name === "named in the question")?.detail).toBe('the question is its name, "space lua"');
    // A question that asks more than the name places it third at best, as before.
    const more = rank(corpus(titled), "what is space lua and who wrote the pages");
    expect(more.findIndex((h) => h.path === "Space Lua.md")).toBeLessThanOrEqual(2);
    expect(more[0].path).not.toBe("Space Lua.md");
    expect(more.some((h) => h.keepFirst)).toBe(false);
  });

  it("names only notes a #tag filter keeps, so untagged names take none of the few places", () => {
    // Three untagged notes the question names first, and a tagged one it names fourth.
    const tagged = {
      "Alpha Beta.md": "alpha beta\n",
      "Gamma Delta.md": "gamma delta\n",
      "Epsilon Zeta.md": "epsilon zeta\n",
      "Eta Theta.md": "#film\n\ntheta\n",
      "a.md": "# A\n\n#film alpha beta gamma delta epsilon zeta eta\n",
      "b.md": "# B\n\n#film alpha gamma epsilon eta eta\n",
      "c.md": "# C\n\n#film beta delta zeta eta\n",
      "d.md": "# D\n\n#film alpha delta eta\n",
    };
    const hits = rank(corpus(tagged), "#film alpha beta gamma delta epsilon zeta eta theta");
    expect(paths(hits)).not.toContain("Alpha Beta.md");
    expect(hits.findIndex((h) => h.path === "Eta Theta.md")).toBe(2);
    expect(hits[2].explanation.parts.map((p) => p.name)).toContain("named in the question");
  });
});

describe("fuzzyDistance", () => {
  it("allows no edit below five letters, one up to eight, two from nine", () => {
    expect(["task", "sintax", "gardens", "keybindng"].map((w) => fuzzyDistance(w))).toEqual([false, 1, 1, 2]);
  });
});
