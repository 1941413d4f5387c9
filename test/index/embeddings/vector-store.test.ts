// The vector store: the same path/mtime/size diff as the index, brute-force nearest notes and
// sections, and vectors thrown away — with a reason — when the model or its dimensions change.
import { describe, expect, it } from "vitest";
import { UNITS_CUT, type EmbeddingUnit } from "../../../src/index/embeddings/embedding-units";
import { unitLength } from "../../../src/index/embeddings/quantize";
import { VectorStore } from "../../../src/index/embeddings/vector-store";
import { vectorResetWords } from "../../../src/index/embeddings/vector-reset";

const title: EmbeddingUnit = { kind: "title", headingPath: [], line: 1, start: 0, end: 0, text: "The title" };
const section = (heading: string, start: number): EmbeddingUnit => ({ kind: "section", headingPath: [heading], line: 3, start, end: start + 10, text: `${heading} says this` });
const v = (...xs: number[]) => unitLength(Float32Array.from(xs));
const file = (path: string, mtime = 1, size = 10) => ({ path, mtime, size });

function storeWithThree(): VectorStore {
  const store = new VectorStore("ollama:m");
  store.adoptDimensions(3);
  store.put(file("a.md"), [title, section("A1", 10)], [v(1, 0, 0), v(1, 0.1, 0)]);
  store.put(file("b.md"), [title, section("B1", 10), section("B2", 40)], [v(0, 1, 0), v(0, 1, 0.1), v(0, 0, 1)]);
  store.put(file("c.md"), [title], [v(0.7, 0.7, 0)]);
  return store;
}

describe("vector store", () => {
  it("plans like the index: new and changed notes are embedded, unchanged kept, gone ones dropped", () => {
    const store = storeWithThree();
    // d.md is dated otherwise than c.md, which went: it is no renamed c.md.
    const plan = store.plan([file("a.md"), file("b.md", 2), file("d.md", 3)]);
    expect(plan.toEmbed.map((f) => f.path)).toEqual(["b.md", "d.md"]);
    expect(plan.unchanged).toBe(1);
    expect(plan.removed).toEqual(["c.md"]);
    expect(store.note("c.md")).toBeUndefined();
    // A note keeps where its units are and a fingerprint of what they sent, never the text itself.
    expect(store.note("a.md")!.units[1]).toEqual({ kind: "section", headingPath: ["A1"], line: 3, start: 10, end: 20 });
    // A size change alone is a change too.
    expect(store.plan([file("a.md", 1, 11)]).toEmbed.map((f) => f.path)).toEqual(["a.md"]);
  });

  it("a note new at its path with the date and size of one that went is to move; it takes that note's vectors only for the same text", () => {
    const store = storeWithThree();
    const before = store.note("b.md")!;
    const plan = store.plan([file("a.md"), file("c.md"), file("Archive/b.md"), file("d.md", 5)]);
    expect(plan).toMatchObject({ toMove: [file("Archive/b.md")], toEmbed: [file("d.md", 5)], removed: ["b.md"], unchanged: 2 });
    // Gone from searches at once: the departed vectors are kept aside, not under either name.
    expect(store.nearestNotes(v(0, 1, 0), 3).map((n) => n.path)).toEqual(["c.md", "a.md"]);
    // Other text (a title from its old file name, an edit) is no proof: nothing follows.
    expect(store.follow(file("Archive/b.md"), [title, section("B1", 10), { ...section("B2", 40), text: "B2 says that" }])).toBe(false);
    expect(store.follow(file("Archive/b.md"), [title, section("B1", 12), section("B2", 42)])).toBe(true);
    expect(store.note("Archive/b.md")).toMatchObject({ path: "Archive/b.md", cut: UNITS_CUT, textHash: before.textHash, values: before.values, invNorms: before.invNorms });
    expect(store.note("Archive/b.md")!.units[1]).toMatchObject({ start: 12 });
    expect(store.nearestNotes(v(0, 1, 0), 1)[0].path).toBe("Archive/b.md");
    // The vectors followed one note: a second copy of that text is embedded.
    expect(store.follow(file("Copy/b.md"), [title, section("B1", 10), section("B2", 40)])).toBe(false);
  });

  it("departed vectors are kept until a run is done, and go with every vector another model makes stale", () => {
    const store = storeWithThree();
    const units = [title, section("A1", 10)];
    store.plan([file("b.md"), file("c.md")]);
    // A second plan (a run cancelled, another begun) still knows a note that went before it.
    expect(store.plan([file("b.md"), file("c.md"), file("New/a.md")]).toMove).toEqual([file("New/a.md")]);
    store.forgetDeparted();
    expect(store.follow(file("New/a.md"), units)).toBe(false);
    store.put(file("a.md"), units, [v(1, 0, 0), v(1, 0.1, 0)]);
    store.plan([file("b.md"), file("c.md")]);
    expect(store.adoptDimensions(4)).not.toBeNull();
    expect(store.follow(file("New/a.md"), units)).toBe(false);
  });

  it("a save keeps departed vectors at the path they left until a run is done, never a second note at a path a note holds now", () => {
    const store = storeWithThree();
    const b = store.note("b.md")!;
    const c = store.note("c.md")!;
    store.plan([file("a.md")]);
    // c.md is back with other text and was embedded: the path is its now.
    store.put(file("c.md", 7), [title], [v(0, 0, 1)]);
    const saved = [...store.savedEntries()];
    expect(saved.map((n) => n.path).sort()).toEqual(["a.md", "b.md", "c.md"]);
    expect(saved.find((n) => n.path === "b.md")).toBe(b);
    expect(saved.find((n) => n.path === "c.md")).not.toBe(c);
    expect([...store.entries()].map((n) => n.path).sort()).toEqual(["a.md", "c.md"]);
    store.forgetDeparted();
    expect([...store.savedEntries()].map((n) => n.path).sort()).toEqual(["a.md", "c.md"]);
  });

  it("remembers a note left out as it was then: not once it changed, was embedded, went, or another model came", () => {
    const store = storeWithThree();
    store.leaveOut(file("d.md", 4), "server_error");
    store.leaveOut(file("e.md", 4), "unreadable");
    store.leaveOut(file("b.md", 2), "not_a_vector");
    expect(store.leftOutAs(file("d.md", 4))).toBe("server_error");
    // Edited since it was tried: waiting its turn again, not refused.
    expect(store.leftOutAs(file("d.md", 5))).toBeNull();
    expect(store.leftOutAs(file("d.md", 4, 11))).toBeNull();
    store.put(file("d.md", 5), [title], [v(1, 0, 0)]);
    expect(store.leftOutAs(file("d.md", 4))).toBeNull();
    // Gone from the vault: forgotten at the next plan.
    store.plan([file("a.md"), file("b.md", 2), file("c.md"), file("d.md", 5)]);
    expect(store.leftOutAs(file("e.md", 4))).toBeNull();
    expect([...store.leftOutNotes()].map((n) => [n.path, n.reason])).toEqual([["b.md", "not_a_vector"]]);
    store.adoptModel("ollama:other");
    expect([...store.leftOutNotes()]).toEqual([]);
  });

  it("a note whose units were cut by an older version is to be checked, neither embedded nor called current", () => {
    const store = storeWithThree();
    store.restore({ ...store.note("a.md")!, cut: "1.0" });
    store.restore({ ...store.note("b.md")!, cut: "" });
    const plan = store.plan([file("a.md"), file("b.md"), file("c.md"), file("d.md")]);
    expect(plan.toCheck.map((f) => f.path)).toEqual(["a.md", "b.md"]);
    expect(plan.toEmbed.map((f) => f.path)).toEqual(["d.md"]);
    expect(plan.unchanged).toBe(1);
    // Changed on disk as well: embedded, whatever its cut.
    expect(store.plan([file("a.md", 2)]).toEmbed.map((f) => f.path)).toEqual(["a.md"]);
  });

  it("confirm keeps an older cut's vectors only when the units send the same text, and takes their new places", () => {
    const store = storeWithThree();
    const before = store.note("a.md")!;
    store.restore({ ...before, cut: "1.0" });
    // Another text: nothing changes, the note stays to be checked (and so is embedded again).
    expect(store.confirm("a.md", [title, { ...section("A1", 10), text: "A1 now says more" }])).toBe(false);
    expect(store.note("a.md")!.cut).toBe("1.0");
    // The same text at a new place (the parser moved the section): kept as this version's.
    expect(store.confirm("a.md", [title, { ...section("A1", 14), line: 5 }])).toBe(true);
    const after = store.note("a.md")!;
    expect(after).toMatchObject({ cut: UNITS_CUT, textHash: before.textHash, values: before.values });
    expect(after.units[1]).toEqual({ kind: "section", headingPath: ["A1"], line: 5, start: 14, end: 24 });
    expect(store.plan([file("a.md")])).toMatchObject({ toCheck: [], unchanged: 1 });
    // A note kept before the text was fingerprinted ("") is never confirmed.
    store.restore({ ...before, cut: "", textHash: "" });
    expect(store.confirm("a.md", [title, section("A1", 10)])).toBe(false);
    // Nor is a note the store does not hold.
    expect(store.confirm("z.md", [title])).toBe(false);
  });

  it("finds the nearest notes by their own vector, best first", () => {
    const near = storeWithThree().nearestNotes(v(1, 0, 0), 2);
    expect(near.map((n) => n.path)).toEqual(["a.md", "c.md"]);
    expect(near[0].similarity).toBeGreaterThan(0.99);
  });

  it("finds notes by their single closest unit and names that unit", () => {
    const near = storeWithThree().nearestSections(v(0, 0, 1), 3);
    expect(near[0].path).toBe("b.md");
    expect(near[0].unit.headingPath).toEqual(["B2"]);
    expect(near[0].similarity).toBeGreaterThan(0.99);
    // b.md's own vector (the mean of its three) is further from the query than its B2 section.
    expect(storeWithThree().nearestNotes(v(0, 0, 1), 1)[0].similarity).toBeLessThan(0.7);
  });

  // Before the job refused them, a text the server answered with zeros was stored: at cosine 0 from every
  // query, the note ranked above every note pointing away from it, and was counted as embedded for good.
  it("a note a version before stored with a row of zeros is embedded again, and found by its other rows only until then", () => {
    const store = storeWithThree();
    store.put(file("z.md"), [title], [new Float32Array(3)]);
    store.put(file("y.md"), [title, section("Y1", 10)], [v(0, 0, 1), new Float32Array(3)]);
    const plan = store.plan([file("a.md"), file("b.md"), file("c.md"), file("z.md"), file("y.md")]);
    expect(plan.toEmbed.map((f) => f.path)).toEqual(["z.md", "y.md"]);
    expect(plan.unchanged).toBe(3);
    // b.md points away from the query: a row of zeros, at cosine 0, came before it as if nearer.
    expect(store.nearestNotes(v(1, -0.5, 0.1), 10).map((n) => n.path)).toEqual(["a.md", "c.md", "y.md", "b.md"]);
    const sections = store.nearestSections(v(0, 0, -1), 10);
    expect(sections.map((n) => n.path)).not.toContain("z.md");
    expect(sections.find((n) => n.path === "y.md")).toMatchObject({ unit: { kind: "title" } });
  });

  it("leaves out notes the filter refuses", () => {
    expect(storeWithThree().nearestSections(v(1, 0, 0), 3, (p) => p !== "a.md").map((n) => n.path)).toEqual(["c.md", "b.md"]);
  });

  it("a model change throws every vector away and says how many notes it cost", () => {
    const store = storeWithThree();
    expect(store.adoptModel("ollama:m")).toBeNull();
    const reset = store.adoptModel("openai:text-embedding-3-small");
    expect(reset).toEqual({ kind: "model_changed", from: "ollama:m", to: "openai:text-embedding-3-small", notes: 3 });
    expect(store.size).toBe(0);
    expect(store.dimensions).toBeNull();
    expect(vectorResetWords(reset!)).toBe(
      "The stored vectors were made by ollama:m; the embedding model is now openai:text-embedding-3-small, so all 3 embedded notes will be embedded again.",
    );
  });

  it("a dimension change throws every vector away too", () => {
    const store = storeWithThree();
    const reset = store.adoptDimensions(4);
    expect(reset).toEqual({ kind: "dimension_changed", from: 3, to: 4, notes: 3 });
    expect(store.size).toBe(0);
    expect(vectorResetWords(reset!)).toMatch(/now answers with 4 dimensions instead of 3/);
  });

  it("the same model's fingerprint keeps every vector; another model's of the same dimensions throws them away", () => {
    const store = storeWithThree();
    // A store without one (a file from before it was kept) trusts its vectors and keeps this one.
    expect(store.adoptFingerprint(v(1, 0.2, 0))).toBeNull();
    // The same model on other hardware: almost the same answer.
    expect(store.adoptFingerprint(v(1, 0.21, 0.01))).toBeNull();
    expect(store.size).toBe(3);
    const reset = store.adoptFingerprint(v(0, 0.3, 1));
    expect(reset).toEqual({ kind: "model_swapped", model: "ollama:m", notes: 3 });
    expect(store.size).toBe(0);
    expect(store.dimensions).toBe(3);
    expect(Array.from(store.fingerprint!)).toEqual(Array.from(v(0, 0.3, 1)));
    expect(vectorResetWords(reset!)).toBe(
      "ollama:m now answers differently than when the stored vectors were made (another model behind the same name and dimensions?), so all 3 embedded notes will be embedded again.",
    );
  });

  it("a fingerprint of zeros kept by an older version is no fingerprint: the vectors are trusted, not thrown away", () => {
    const store = new VectorStore("ollama:m", 3, new Float32Array(3));
    store.put(file("a.md"), [title], [v(1, 0, 0)]);
    expect(store.adoptFingerprint(v(1, 0.2, 0))).toBeNull();
    expect(store.size).toBe(1);
  });

  it("a model or dimension change forgets the fingerprint with the vectors", () => {
    const store = storeWithThree();
    store.adoptFingerprint(v(1, 0, 0));
    store.adoptDimensions(4);
    expect(store.fingerprint).toBeNull();
  });

  it("refuses a query of another length rather than scoring garbage", () => {
    expect(() => storeWithThree().nearestNotes(v(1, 0), 1)).toThrow(/2 dimensions against vectors of 3/);
  });

  it("counts units and notes", () => {
    const store = storeWithThree();
    expect([store.size, store.unitCount()]).toEqual([3, 6]);
    store.remove("b.md");
    expect([store.size, store.unitCount()]).toEqual([2, 3]);
  });
});
