// Typo lookups without the radix tree must give what MiniSearch's tree gives, order included: the
// order is the order a note's scores are summed in and equal scores keep.
import fc from "fast-check";
import MiniSearch from "minisearch";
import { describe, expect, it } from "vitest";
import { fuzzyTerms } from "../../src/index/fuzzy-terms";

interface Tree {
  set(term: string, value: number): unknown;
  fuzzyGet(term: string, maxDistance: number): Map<string, [number, number]>;
}

/** MiniSearch's own radix tree (its SearchableMap), with `terms` inserted in their order. */
function treeOf(terms: ReadonlyMap<string, number>): Tree {
  const Tree = (new MiniSearch({ fields: ["text"] }) as unknown as { _index: { constructor: new () => Tree } })._index.constructor;
  const tree = new Tree();
  for (const [term, value] of terms) tree.set(term, value);
  return tree;
}

const termsInOrder = (words: string[]) => new Map(words.filter((w) => w.length > 0).map((w, i) => [w, i]));

describe("fuzzyTerms", () => {
  it("finds the terms, distances and order the tree's fuzzyGet does, over words that share beginnings", () => {
    // Few letters, so terms part at every depth and nodes are made, split and ordered in every way.
    const word = fc.stringMatching(/^[abc]{1,7}$/);
    fc.assert(
      fc.property(fc.array(word, { maxLength: 40 }), word, fc.constantFrom(1, 2), (words, query, distance) => {
        const terms = termsInOrder(words);
        expect([...fuzzyTerms(terms, query, distance)]).toEqual([...treeOf(terms).fuzzyGet(query, distance)]);
      }),
      { numRuns: 3000 },
    );
  });

  it("agrees over words of any characters, a surrogate pair's halves included", () => {
    const word = fc.array(fc.constantFrom("s", "y", "n", "t", "a", "x", "é", "\u{1F600}", "ก"), { minLength: 1, maxLength: 6 }).map((cs) => cs.join(""));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 60 }), word, fc.constantFrom(1, 2), (words, query, distance) => {
        const terms = termsInOrder(words);
        expect([...fuzzyTerms(terms, query, distance)]).toEqual([...treeOf(terms).fuzzyGet(query, distance)]);
      }),
      { numRuns: 2000 },
    );
  });

  it("orders a typo's matches as the tree does when later terms split the paths of earlier ones", () => {
    // "syntax" is inserted first; "syntaxes", "synth" and "sintax" each make a node on its path.
    const terms = termsInOrder(["syntax", "tax", "syntaxes", "sintax", "synth", "syntex", "sytax", "s", "syntax2"]);
    const found = [...fuzzyTerms(terms, "syntax", 1)].map(([term]) => term);
    expect(found).toEqual([...treeOf(terms).fuzzyGet("syntax", 1)].map(([term]) => term));
    expect(found).toHaveLength(5);
  });
});
