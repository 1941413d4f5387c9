// A note's words with their counts, read two ways that must agree: from its fields as it is
// indexed, and from the index's postings. The postings keep a field by its id, so this also pins
// that FIELDS is in the order the engine numbers its fields (a title's words count three times).
import { describe, expect, it } from "vitest";
import { parseNote } from "../../../src/index/markdown";
import { createEngine, FIELDS, notesWithTerm, toEngineDoc } from "../../../src/index/search-engine";
import { createAnalyzer } from "../../../src/index/tokenize";
import { docTermCounts, notesHolding, notesHoldingInSlices, postingTermCounts } from "../../../src/index/vault-language/note-term-counts";
import { dropPostings } from "../../../src/index/term-postings";
import { TITLE_WEIGHT } from "../../../src/index/vault-language/vault-language";
import { NO_SLICES, type WorkSlice } from "../../../src/index/work-slice";

const NOTES: Record<string, string> = {
  "Projects/Disk quota.md": "---\naliases: [storage limit]\ntags: [ops]\n---\n# Disk quota\n\nThe quota caps disk usage per user.\n\n## Raising a quota\n\nAsk ops; quota changes take a day. Disk, disk, disk.\n",
  "Journal/Tuesday.md": "# Tuesday\n\nMet the storage team about the backup window. #ops #meetings\n\n## Backup\n\nNightly backup of every disk, kept a week.\n",
  "References/Bread film.md": "---\ndirector: \"[[Ann Baker]]\"\nyear: 1999\n---\nA film about rye, the year the harvest failed.\n",
  "References/Essay.md": "---\nyear: 1972\n---\nAn essay on rye.\n",
  "Recipes/Bread.md": "Flour, water, salt and time: bread wants nothing else.\n\n## Starter\n\nFeed the starter flour and water daily.\n",
};

function build() {
  const analyzer = createAnalyzer({ stemming: true });
  const engine = createEngine(analyzer);
  const docs = Object.entries(NOTES).map(([path, text]) => toEngineDoc(parseNote(path, text)));
  for (const doc of docs) engine.add(doc);
  return { analyzer, engine, docs };
}

const plain = (m: ReadonlyMap<string, number>) => Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : 1)));

describe("docTermCounts and postingTermCounts", () => {
  it("read the same counts for every note: from its fields, and back from the postings", async () => {
    const { analyzer, engine, docs } = build();
    const fromFields = new Map(docs.map((doc) => [doc.path, docTermCounts(doc, analyzer)]));
    const words = new Set([...fromFields.values()].flatMap((c) => [...c.keys()]));
    const fromPostings = await postingTermCounts(engine, words, NO_SLICES);
    expect([...fromPostings.keys()].sort()).toEqual(Object.keys(NOTES).sort());
    for (const [path, counts] of fromFields) expect(plain(fromPostings.get(path)!), path).toEqual(plain(counts));
  });

  it("count a word of the title TITLE_WEIGHT times, a word of any other field once", () => {
    const { analyzer, docs } = build();
    const bread = docTermCounts(docs.find((d) => d.path === "Recipes/Bread.md")!, analyzer);
    const [flour] = analyzer.terms("flour");
    const [starter] = analyzer.terms("starter");
    const [bread_] = analyzer.terms("bread");
    // "Bread" is the title (from the file name) and in the body once; it is also in the location.
    expect(bread.get(bread_)).toBe(TITLE_WEIGHT + 1 + 1 + 1);
    // "flour" is in the body twice and in the lead (the first paragraph) once.
    expect(bread.get(flour)).toBe(3);
    // "starter" is a heading and in the body once.
    expect(bread.get(starter)).toBe(2);
    expect(FIELDS[0]).toBe("title");
  });

  it("leave out the names of a note's properties, which search finds it by", () => {
    const { analyzer, engine, docs } = build();
    const film = docs.find((d) => d.path === "References/Bread film.md")!;
    const [director] = analyzer.terms("director");
    expect(film.properties).toContain("director");
    expect(docTermCounts(film, analyzer).has(director)).toBe(false);
    expect(engine.search(director, { tokenize: (s) => [s], processTerm: (t) => t }).map((r) => r.id as string)).toEqual(["References/Bread film.md"]);
  });

  it("read only the words asked for, and never a removed note", async () => {
    const { analyzer, engine } = build();
    const [disk] = analyzer.terms("disk");
    const [flour] = analyzer.terms("flour");
    engine.discard("Journal/Tuesday.md");
    const counts = await postingTermCounts(engine, [disk, flour, "nosuchword"], NO_SLICES);
    expect([...counts.keys()].sort()).toEqual(["Projects/Disk quota.md", "Recipes/Bread.md"]);
    expect([...counts.get("Projects/Disk quota.md")!.keys()]).toEqual([disk]);
    expect([...counts.get("Recipes/Bread.md")!.keys()]).toEqual([flour]);
  });

  it("agree for a long note added in slices, and pause when the slice is over", async () => {
    const analyzer = createAnalyzer({ stemming: true });
    const engine = createEngine(analyzer);
    const vocabulary = Array.from({ length: 600 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
    const text = `# Long\n\n${Array.from({ length: 3000 }, (_, i) => vocabulary[(i * 7) % vocabulary.length]).join(" ")}\n`;
    const doc = toEngineDoc(parseNote("Long.md", text));
    let pauses = 0;
    const slice: WorkSlice = { over: () => true, pause: async () => void pauses++, restart: () => undefined };
    expect(await engine.addInSlices(doc, slice)).toBe(true);
    const expected = docTermCounts(doc, analyzer);
    pauses = 0;
    const fromPostings = await postingTermCounts(engine, expected.keys(), slice);
    expect(pauses).toBeGreaterThan(0);
    expect(plain(fromPostings.get("Long.md")!)).toEqual(plain(expected));
  });
});

describe("notesHolding", () => {
  it("counts the notes that hold a word, not a discarded note's postings the engine has not cleaned up yet", () => {
    const { analyzer, engine, docs } = build();
    const [disk] = analyzer.terms("disk");
    const [backup] = analyzer.terms("backup");
    expect(notesHolding(engine, disk)).toBe(2);
    // A note read again: discarded, then added anew (under a new short id), its old postings still listed.
    engine.discard("Journal/Tuesday.md");
    engine.add(docs.find((d) => d.path === "Journal/Tuesday.md")!);
    expect(engine.dirtCount).toBe(1);
    expect(notesWithTerm(engine, disk)).toBe(3);
    expect(notesHolding(engine, disk)).toBe(2);
    expect(notesHolding(engine, backup)).toBe(1);
    // And one removed for good is none.
    engine.discard("Projects/Disk quota.md");
    expect(notesHolding(engine, disk)).toBe(1);
    expect(notesHolding(engine, "nosuchword")).toBe(0);
  });

  it("counts the same in slices when the discarded notes' postings leave the list while it pauses (a search, a vacuum)", async () => {
    const analyzer = createAnalyzer({ stemming: false });
    const engine = createEngine(analyzer);
    // "meadow" past the lead: in one field only, whose walk alone says how many hold it.
    const docs = Array.from({ length: 10_000 }, (_, n) => toEngineDoc(parseNote(`notes/${n}.md`, `${"Lorem ipsum. ".repeat(40)}\n\nMeadow number ${n}.\n`)));
    for (const doc of docs) engine.add(doc);
    // Read again: each discarded and added anew; 150 stay listed twice (fewer than the engine cleans up after).
    for (const doc of docs.slice(0, 150)) {
      engine.discard(doc.path);
      engine.add(doc);
    }
    engine.discard(docs[9_999].path);
    expect(engine.terms.get("meadow")!.filter(Boolean)).toHaveLength(1);
    expect(notesWithTerm(engine, "meadow")).toBe(10_150);
    expect(notesHolding(engine, "meadow")).toBe(9_999);
    let pauses = 0;
    const slice: WorkSlice = {
      over: () => true,
      pause: async () => {
        // What a search or a vacuum does meanwhile: the discarded notes' postings leave the lists.
        if (pauses++ === 0) dropPostings(engine.terms.get("meadow")!, (id) => engine.holds(id));
      },
      restart: () => undefined,
    };
    expect(await notesHoldingInSlices(engine, "meadow", slice)).toBe(9_999);
    expect(pauses).toBeGreaterThan(1);
    expect(notesWithTerm(engine, "meadow")).toBe(9_999);
  });
});
