// The engine is MiniSearch with packed postings: whatever notes are added, discarded, replaced and
// vacuumed, and however a term is looked up (exact, prefix, fuzzy, boosted, filtered), it answers
// exactly what MiniSearch itself answers over the same notes once it has cleaned up after the notes
// discarded, score for score. This is the pin on the MiniSearch internals search-engine.ts replaces:
// an upgrade that changes them fails here. (MiniSearch itself, before it cleans up, counts a
// discarded note among those holding a word: its scores move with every edit until a vacuum.)
import fc from "fast-check";
import MiniSearch, { type SearchOptions, type SearchResult } from "minisearch";
import { afterEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { createEngine, FIELDS, notesHolding, notesWithTerm, notesWithTermIn, termClumping, type EngineDoc, type SearchEngine } from "../../src/index/search-engine";
import { createAnalyzer } from "../../src/index/tokenize";

const analyzer = createAnalyzer({ stemming: false });
const WORDS = ["garden", "gardens", "garlic", "compost", "seed", "seeds", "kitchen", "knife", "knives", "tar", "tarball", "tax", "zebra", "e-mail", "MiniSearch", ""];

function stockEngine(): MiniSearch<EngineDoc> {
  return new MiniSearch<EngineDoc>({
    idField: "path",
    fields: [...FIELDS],
    storeFields: [],
    tokenize: (text: string) => analyzer.terms(text),
    processTerm: (term: string) => term,
    autoVacuum: false,
  });
}

const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 12 }).map((w) => w.join(" "));
const doc = (path: string) => fc.record({ title: text, lead: text, aliases: text, headings: text, tags: text, location: text, body: text, properties: text }).map((d) => ({ ...d, path }));

type Step = { kind: "add" | "replace"; doc: EngineDoc } | { kind: "discard"; path: string } | { kind: "vacuum" };
const paths = ["a.md", "b.md", "c.md", "d.md", "e.md"];
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constantFrom(...paths).chain((p) => doc(p).map((d) => ({ kind: "add" as const, doc: d }))),
  fc.constantFrom(...paths).chain((p) => doc(p).map((d) => ({ kind: "replace" as const, doc: d }))),
  fc.constantFrom(...paths).map((p) => ({ kind: "discard" as const, path: p })),
  fc.constant({ kind: "vacuum" as const }),
);

const lookup = fc.record({
  term: fc.constantFrom(...WORDS.filter(Boolean), "gard", "ta", "seedz", "nothing"),
  prefix: fc.boolean(),
  fuzzy: fc.constantFrom<false | number>(false, 0.2, 1, 2),
  boostTitle: fc.constantFrom(1, 5),
  boostSome: fc.boolean(),
  filterSome: fc.boolean(),
});

function optionsOf(q: { prefix: boolean; fuzzy: false | number; boostTitle: number; boostSome: boolean; filterSome: boolean }): SearchOptions {
  return {
    tokenize: (s) => [s],
    processTerm: (t) => t,
    prefix: q.prefix,
    fuzzy: q.fuzzy,
    boost: { title: q.boostTitle, body: 1, lead: 4 },
    weights: { fuzzy: 0.45, prefix: 0.75 },
    ...(q.boostSome ? { boostDocument: (id: unknown) => (id === "a.md" ? 0 : id === "b.md" ? 2 : 1) } : {}),
    ...(q.filterSome ? { filter: (r) => r.id !== "c.md" } : {}),
  };
}

async function apply(engines: MiniSearch<EngineDoc>[], steps: Step[]): Promise<void> {
  for (const s of steps) {
    for (const engine of engines) {
      if (s.kind === "vacuum") await engine.vacuum();
      else if (s.kind === "discard") {
        if (engine.has(s.path)) engine.discard(s.path);
      } else if (engine.has(s.doc.path)) engine.replace(s.doc);
      else engine.add(s.doc);
    }
  }
}

/**
 * The same notes, scores, words and fields, where the radix trees differ: MiniSearch's cleaned up
 * took out the words only discarded notes held, and a node taken out reorders its neighbours, so a
 * prefix or fuzzy lookup meets its words in another order (a note lists them so, and its score adds
 * them up so, to the last bit or two; notes of equal score come in that order too).
 */
function expectSameAnswer(ours: SearchResult[], clean: SearchResult[]): void {
  const scores = ours.map((r) => r.score);
  expect(scores).toEqual([...scores].sort((a, b) => b - a));
  const byId = new Map(clean.map((r) => [r.id as string, r]));
  expect(ours.map((r) => r.id as string).sort()).toEqual([...byId.keys()].sort());
  for (const r of ours) {
    const c = byId.get(r.id as string)!;
    expect(r.score).toBeCloseTo(c.score, 12);
    expect([...r.terms].sort()).toEqual([...c.terms].sort());
    expect([...r.queryTerms].sort()).toEqual([...c.queryTerms].sort());
    expect(r.match).toEqual(c.match);
  }
}

describe("SearchEngine", () => {
  // With its radix tree kept, or made at the first prefix or fuzzy lookup (or a term leaving): same answers, same order.
  it.each(["kept", "when needed"] as const)("answers every lookup exactly as MiniSearch does once cleaned up, after any adds, discards, replaces and vacuums (radix tree %s)", async (making) => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 14 }), fc.array(lookup, { minLength: 1, maxLength: 6 }), async (steps, lookups) => {
        const ours = createEngine(analyzer, making);
        (ours as unknown as { _options: { autoVacuum: boolean } })._options.autoVacuum = false;
        const stock = stockEngine();
        await apply([ours, stock], steps);
        expect(ours.documentCount).toBe(stock.documentCount);
        // Ours is not cleaned up: its lists may still hold discarded notes' postings.
        const pending = stock.dirtCount > 0;
        await stock.vacuum();
        // Twice: the first pass also cleans up discarded notes' postings as it meets them.
        for (let pass = 0; pass < 2; pass++) {
          for (const q of lookups) {
            if (pending) expectSameAnswer(ours.search(q.term, optionsOf(q)), stock.search(q.term, optionsOf(q)));
            else expect(ours.search(q.term, optionsOf(q))).toEqual(stock.search(q.term, optionsOf(q)));
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it("makes its radix tree, when first needed, exactly as the one kept all along: same terms in the same order, whatever left before", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const treeOrder = (engine: SearchEngine) => [...(engine as unknown as { _index: Iterable<[string, unknown]> })._index].map(([term]) => term);
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 14 }), fc.array(lookup, { maxLength: 3 }), async (steps, lookups) => {
        const [kept, late] = [createEngine(analyzer, "kept"), createEngine(analyzer, "when needed")];
        for (const engine of [kept, late]) (engine as unknown as { _options: { autoVacuum: boolean } })._options.autoVacuum = false;
        await apply([kept, late], steps);
        // Exact lookups clean up after discarded notes, and may take terms away.
        for (const q of lookups) for (const engine of [kept, late]) engine.search(q.term, { ...optionsOf(q), prefix: false, fuzzy: false });
        // Walking the tree makes it; the order it walks in is the order of every node's children.
        expect(treeOrder(late)).toEqual(treeOrder(kept));
        expect(late.radixTreeMade).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it("adds a long note in slices to exactly the postings it gets at once", async () => {
    const long = { path: "long.md", title: "seed garden", lead: "", aliases: "", headings: "", tags: "", location: "", properties: "", body: Array.from({ length: 9000 }, (_, i) => WORDS[i % WORDS.length]).join(" ") };
    const whole = createEngine(analyzer);
    whole.add(long);
    const sliced = createEngine(analyzer);
    let pauses = 0;
    expect(await sliced.addInSlices(long, { over: () => true, pause: async () => void pauses++, restart: () => undefined })).toBe(true);
    expect(pauses).toBeGreaterThan(2);
    for (const term of ["garden", "seeds", "tarball", "mail"]) expect(sliced.search(term, { prefix: true })).toEqual(whole.search(term, { prefix: true }));
  });

  it("stops adding a note that was discarded while it waited, leaving the engine as if it had never come", async () => {
    const long = { path: "long.md", title: "zebra", lead: "", aliases: "", headings: "", tags: "", location: "", properties: "", body: Array.from({ length: 9000 }, (_, i) => WORDS[i % WORDS.length]).join(" ") };
    const engine = createEngine(analyzer);
    engine.add({ path: "a.md", title: "garden", lead: "", aliases: "", headings: "", tags: "", location: "", properties: "", body: "seed" });
    const added = await engine.addInSlices(long, { over: () => true, pause: async () => (engine.has("long.md") ? engine.discard("long.md") : undefined), restart: () => undefined });
    expect(added).toBe(false);
    expect(engine.has("long.md")).toBe(false);
    expect(engine.documentCount).toBe(1);
    expect(engine.search("garden").map((r) => r.id as string)).toEqual(["a.md"]);
  });

  it("counts the notes holding a term, the way the radix tree's postings would", () => {
    const engine = createEngine(analyzer);
    engine.add({ path: "a.md", title: "seed", lead: "", aliases: "", headings: "", tags: "", location: "", properties: "", body: "seed seed garden" });
    engine.add({ path: "b.md", title: "", lead: "", aliases: "", headings: "", tags: "", location: "", properties: "", body: "seed" });
    expect(notesWithTerm(engine, "seed")).toBe(2);
    expect(notesWithTerm(engine, "garden")).toBe(1);
    expect(notesWithTerm(engine, "absent")).toBe(0);
  });

  it("lists the notes holding a term in given fields, none that left, and none of a field past the limit", () => {
    const engine = createEngine(analyzer);
    (engine as unknown as { _options: { autoVacuum: boolean } })._options.autoVacuum = false;
    const doc = (path: string, title: string, aliases: string, body: string) => ({ path, title, lead: "", aliases, headings: "", tags: "", location: "", properties: "", body });
    engine.add(doc("a.md", "seed", "", "seed"));
    engine.add(doc("b.md", "", "seed bank", ""));
    engine.add(doc("c.md", "garden", "", "seed"));
    engine.add(doc("d.md", "seed", "seed", ""));
    const ids = (term: string, limit = 10) => notesWithTermIn(engine, term, ["title", "aliases"], limit).map((id) => engine.pathOf(id));
    expect(ids("seed")).toEqual(["a.md", "b.md", "d.md"]);
    expect(ids("absent")).toEqual([]);
    // The titles hold it in two notes, the aliases in two: a limit of one reads neither.
    expect(ids("seed", 2)).toEqual(["a.md", "b.md", "d.md"]);
    expect(ids("seed", 1)).toEqual([]);
    expect(notesWithTermIn(engine, "seed", ["aliases"], 2).map((id) => engine.pathOf(id))).toEqual(["b.md", "d.md"]);
    engine.discard("a.md");
    expect(ids("seed")).toEqual(["b.md", "d.md"]);
  });

  it("replaces only the MiniSearch methods it means to: no other name of its own shadows one of MiniSearch's", () => {
    const own = Object.getOwnPropertyNames(Object.getPrototypeOf(createEngine(analyzer)));
    const miniSearch = new Set(Object.getOwnPropertyNames(MiniSearch.prototype));
    expect(own.filter((name) => miniSearch.has(name)).sort()).toEqual(["add", "addTerm", "constructor", "discard", "performVacuuming", "removeAll", "removeTerm", "termResults", "toJSON"]);
  });

  it("refuses MiniSearch's JSON form: the cache has its own", () => {
    expect(() => JSON.stringify(createEngine(analyzer))).toThrow(/cache-file/);
  });
});

describe("notes discarded and not cleaned up yet (a note read again is discarded and added anew)", () => {
  const note = (path: string, body: string, title = ""): EngineDoc => ({ path, title, lead: "", aliases: "", headings: "", tags: "", location: "", properties: "", body });

  const text = (i: number) => (i % 4 === 0 ? "seed garden" : "garden kitchen");

  /** 40 notes, "seed" in every fourth, "garden" in all; autoVacuum off, so only `vacuum()` cleans up. */
  function vault(): SearchEngine {
    const engine = createEngine(analyzer);
    (engine as unknown as { _options: { autoVacuum: boolean } })._options.autoVacuum = false;
    for (let i = 0; i < 40; i++) engine.add(note(`n${i}.md`, text(i)));
    return engine;
  }

  /** The notes read again, unchanged: each discarded and added anew under a new short id. */
  function readAgain(engine: SearchEngine, notes: number[]): void {
    for (const i of notes) {
      engine.discard(`n${i}.md`);
      engine.add(note(`n${i}.md`, text(i)));
    }
  }

  it("scores every note as once cleaned up, those met before a discarded copy as those after it", async () => {
    const engine = vault();
    readAgain(engine, [8]);
    const seeds = engine.search("seed");
    // n0 and n4 come before n8's old copy in the list, n12… after it: all hold the word alike.
    expect(new Set(seeds.map((r) => r.score)).size).toBe(1);
    expect(seeds).toHaveLength(10);
    await engine.vacuum();
    expect(engine.search("seed")).toEqual(seeds);
  });

  it("counts the notes holding a word without the discarded copies: by a few binary searches or, past as many, a walk", async () => {
    const engine = vault();
    expect(engine.listsDiscarded).toBe(false);
    readAgain(engine, [4]);
    expect(engine.listsDiscarded).toBe(true);
    expect(notesWithTerm(engine, "seed")).toBe(11);
    expect(notesHolding(engine, "seed")).toBe(10);
    expect(notesHolding(engine, "garden")).toBe(40);
    expect(notesHolding(engine, "nothing")).toBe(0);
    // A span of a list: "garden" is at positions 0–39 (short ids 0–39, id 4 discarded) and 40 (n4 anew).
    const garden = () => engine.terms.get("garden")![FIELDS.indexOf("body")]!;
    expect(engine.heldIn(garden(), 0, 10)).toBe(9);
    expect(engine.heldIn(garden(), 10, 41)).toBe(31);
    // Many discarded notes: counted by walking the lists, the same.
    readAgain(engine, Array.from({ length: 30 }, (_, i) => i + 10));
    expect(notesWithTerm(engine, "garden")).toBe(71);
    expect(notesHolding(engine, "garden")).toBe(40);
    expect(notesWithTerm(engine, "seed")).toBe(18);
    expect(notesHolding(engine, "seed")).toBe(10);
    // Short ids 30–39 went (read again as 41–70).
    expect(engine.heldIn(garden(), 30, 71)).toBe(31);
    // One gone for good is none.
    engine.discard("n0.md");
    expect(notesHolding(engine, "seed")).toBe(9);
    await engine.vacuum();
    expect(engine.listsDiscarded).toBe(false);
    expect(notesWithTerm(engine, "seed")).toBe(9);
    expect(notesHolding(engine, "garden")).toBe(39);
  });

  it("keeps counting out a note discarded while a vacuum was under way, and forgets every discarded note once emptied", async () => {
    const engine = vault();
    readAgain(engine, [0]);
    // A vacuum pauses after each batch of terms: here after each term, "seed" the first walked; a
    // note is read again while it waits, its old postings left in the list of "seed".
    const vacuum = engine.vacuum({ batchSize: 1, batchWait: 1 });
    readAgain(engine, [4]);
    await vacuum;
    expect(notesWithTerm(engine, "seed")).toBe(11);
    expect(notesHolding(engine, "seed")).toBe(10);
    engine.removeAll();
    expect(engine.listsDiscarded).toBe(false);
  });
});

describe("termClumping: how a word's uses bunch together in note bodies", () => {
  const note = (path: string, body: string): EngineDoc => ({ path, title: "", lead: "", aliases: "", headings: "", tags: "", location: "", properties: "", body });

  function vault(): ReturnType<typeof createEngine> {
    const engine = createEngine(analyzer);
    // "zebra" is a topic: three notes, many times each. "garlic" is an everyday word: once in each of three notes.
    for (let i = 0; i < 40; i++) engine.add(note(`n${i}.md`, i < 3 ? "zebra zebra zebra zebra garlic" : i < 6 ? "seed" : "kitchen"));
    return engine;
  }

  it("is near 0 for a word used once in each note that holds it, and above 1 for a topic's word", () => {
    const engine = vault();
    expect(termClumping(engine, "garlic")?.clumping).toBeCloseTo(Math.log2(40 * (1 - Math.exp(-3 / 40)) / 3), 6);
    expect(termClumping(engine, "garlic")?.clumping ?? 1).toBeLessThan(0.1);
    expect(termClumping(engine, "zebra")?.clumping ?? 0).toBeGreaterThan(1.5);
    expect(termClumping(engine, "zebra")?.notes).toBe(3);
  });

  it("knows nothing of a word no body holds, and no longer counts a note that left", () => {
    const engine = vault();
    expect(termClumping(engine, "nothing")).toBeUndefined();
    engine.discard("n0.md");
    expect(termClumping(engine, "zebra")?.notes).toBe(2);
  });
});

describe("the radix tree made ahead, in slices", () => {
  interface TreePrototype {
    set(term: string, postings: unknown): unknown;
    fuzzyGet(term: string, maxDistance: number): unknown;
  }
  /** MiniSearch's radix tree class (its SearchableMap), whose methods the counts below spy on. */
  const Tree = (stockEngine() as unknown as { _index: { constructor: { prototype: TreePrototype } } })._index.constructor;
  const treeOrder = (engine: SearchEngine) => [...(engine as unknown as { _index: Iterable<[string, unknown]> })._index].map(([term]) => term);
  const note = (path: string, body: string): EngineDoc => ({ path, title: "", lead: "", aliases: "", headings: "", tags: "", location: "", properties: "", body });
  const GARDENS = [note("a.md", "garden gardens garlic compost"), note("b.md", "kitchen knife knives seed seeds"), note("c.md", "tar tarball tax zebra")];

  /** An engine of GARDENS whose tree is made when needed, and spies counting the tree's work. */
  function gardens(): { engine: SearchEngine; sets: MockInstance<TreePrototype["set"]>; fuzzyGets: MockInstance<TreePrototype["fuzzyGet"]> } {
    const engine = createEngine(analyzer, "when needed");
    for (const doc of GARDENS) engine.add(doc);
    return { engine, sets: vi.spyOn(Tree.prototype, "set"), fuzzyGets: vi.spyOn(Tree.prototype, "fuzzyGet") };
  }
  const afterEveryTerm = () => true;

  afterEach(() => vi.restoreAllMocks());

  it("makes the tree kept all along, whatever is added, discarded, vacuumed or looked up between its slices", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    type Between = { step: Step } | { lookup: Parameters<typeof optionsOf>[0] & { term: string } };
    const between: fc.Arbitrary<Between> = fc.oneof(step.map((s) => ({ step: s })), lookup.map((q) => ({ lookup: q })));
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 10 }), fc.array(between, { maxLength: 8 }), fc.integer({ min: 1, max: 4 }), async (before, meanwhile, termsASlice) => {
        const [kept, ahead] = [createEngine(analyzer, "kept"), createEngine(analyzer, "when needed")];
        for (const engine of [kept, ahead]) (engine as unknown as { _options: { autoVacuum: boolean } })._options.autoVacuum = false;
        await apply([kept, ahead], before);
        const queue = [...meanwhile];
        let putIn = 0;
        const pause = async () => {
          const next = queue.shift();
          if (next === undefined) return;
          if ("step" in next) await apply([kept, ahead], [next.step]);
          else expect(ahead.search(next.lookup.term, optionsOf(next.lookup))).toEqual(kept.search(next.lookup.term, optionsOf(next.lookup)));
        };
        expect(await ahead.makeRadixTreeInSlices(() => ++putIn % termsASlice === 0, pause)).toBe(true);
        for (const rest of queue) if ("step" in rest) await apply([kept, ahead], [rest.step]);
        expect(treeOrder(ahead)).toEqual(treeOrder(kept));
      }),
      { numRuns: 400 },
    );
  });

  it("answers lookups from the term map until the last term is in, then from the tree swapped in whole", async () => {
    const stock = stockEngine();
    for (const doc of GARDENS) stock.add(doc);
    const typo = stock.search("gardem", { fuzzy: 1 });
    const { engine, sets, fuzzyGets } = gardens();
    const terms = engine.terms.size;
    let pauses = 0;
    const made = await engine.makeRadixTreeInSlices(afterEveryTerm, async () => {
      pauses++;
      expect(engine.radixTreeMade).toBe(false);
      expect(engine.search("gardem", { fuzzy: 1 })).toEqual(typo);
    });
    expect(made).toBe(true);
    expect(pauses).toBe(terms);
    // Every term put in once; no typo lookup walked the tree while it was being made.
    expect(sets).toHaveBeenCalledTimes(terms);
    expect(fuzzyGets).not.toHaveBeenCalled();
    expect(engine.radixTreeMade).toBe(true);
    expect(engine.search("gardem", { fuzzy: 1 })).toEqual(typo);
    expect(fuzzyGets).toHaveBeenCalledTimes(1);
  });

  it("lets a prefix lookup meanwhile put in only the terms not yet in, not make the tree again", async () => {
    const { engine, sets } = gardens();
    const terms = engine.terms.size;
    let pauses = 0;
    const made = await engine.makeRadixTreeInSlices(afterEveryTerm, async () => {
      if (++pauses === 2) expect(engine.search("gard", { prefix: true }).map((r) => r.id as string)).toEqual(["a.md"]);
    });
    expect(made).toBe(true);
    expect(pauses).toBe(2);
    expect(sets).toHaveBeenCalledTimes(terms);
  });

  it("stops when no longer wanted, and the next lookup that needs the tree finishes what it began", async () => {
    const { engine, sets } = gardens();
    const terms = engine.terms.size;
    let wanted = true;
    expect(await engine.makeRadixTreeInSlices(afterEveryTerm, async () => void (wanted = sets.mock.calls.length < 3), () => wanted)).toBe(false);
    expect(sets).toHaveBeenCalledTimes(3);
    expect(engine.radixTreeMade).toBe(false);
    expect(engine.search("tarb", { prefix: true }).map((r) => r.id as string)).toEqual(["c.md"]);
    expect(sets).toHaveBeenCalledTimes(terms);
  });

  it("stops once the engine was emptied: the old terms' tree is never swapped in", async () => {
    const { engine, sets } = gardens();
    const made = await engine.makeRadixTreeInSlices(afterEveryTerm, async () => {
      if (engine.documentCount > 0) engine.removeAll();
    });
    expect(made).toBe(false);
    expect(sets).toHaveBeenCalledTimes(1);
    expect(engine.radixTreeMade).toBe(false);
  });

  it("has nothing to do when the tree is kept from the start", async () => {
    const engine = createEngine(analyzer, "kept");
    for (const doc of GARDENS) engine.add(doc);
    const sets = vi.spyOn(Tree.prototype, "set");
    let pauses = 0;
    expect(await engine.makeRadixTreeInSlices(afterEveryTerm, async () => void pauses++)).toBe(true);
    expect(pauses).toBe(0);
    expect(sets).not.toHaveBeenCalled();
  });
});
