// What a line of markdown leaves for the index and for what a snippet (and the extractive brief)
// quotes: the words a reader sees, never the markup around them or what Obsidian hides.
import { describe, expect, it } from "vitest";
import { codeAt, inlineToText, type InlineSink } from "../../src/index/inline-text";

function read(line: string): { text: string; sink: InlineSink } {
  const sink: InlineSink = { tags: [], links: [] };
  return { text: inlineToText(line, sink), sink };
}

describe("inlineToText", () => {
  it("hides an HTML comment to its `-->`, however many `>` it holds", () => {
    expect(read("Mulch keeps roots cool <!-- TODO: check if temp > 30 degrees hurts --> in summer.").text).toBe("Mulch keeps roots cool   in summer.");
    expect(read("a <!-- x --> b <!-- y > z --> c").text).toBe("a   b   c");
    // One nothing closes on its line is read as before: up to its first `>`.
    expect(read("a <!-- open > rest").text).toBe("a   rest");
  });

  it("reads a footnote's text without its `[^1]:` marker", () => {
    expect(read("[^1]: Hard water means over 120 mg/l of calcium carbonate.").text).toBe("Hard water means over 120 mg/l of calcium carbonate.");
    expect(read("[^note-2]:   Tagged #water, see [[Limescale]].")).toEqual({ text: "Tagged water, see Limescale.", sink: { tags: ["water"], links: ["Limescale"] } });
    expect(read("[^1]:").text).toBe("");
    // A reference in prose is still no words, and a bracket that is no footnote's stays.
    expect(read("Needed in hard water areas.[^1] See [^a b]: x").text).toBe("Needed in hard water areas. See : x");
  });

  it("leaves nothing of a link reference definition, which Obsidian never shows", () => {
    for (const line of [
      '[1]: https://example.com/ants "Ant colony optimisation paper"',
      "[swarm]: https://example.com/swarm",
      "[Docs]: <Projects/Sync plan.md> 'The plan'",
      "[a]:https://example.com (Title)",
    ]) {
      expect(read(line)).toEqual({ text: "", sink: { tags: [], links: [] } });
    }
  });

  it("keeps prose that only looks like a definition: more words after the target, a wikilink, a footnote", () => {
    expect(read("[Note]: call Bob about the ant colony tomorrow").text).toBe("[Note]: call Bob about the ant colony tomorrow");
    expect(read("[[Ant colonies]]: https://example.com").text).toBe("Ant colonies: https://example.com");
    expect(read("See [1]: https://example.com").text).toBe("See [1]: https://example.com");
  });

  it("keeps struck-out text marked as struck out, where the other marks go", () => {
    expect(read("~~Descale with vinegar.~~ Use ==citric acid==.").text).toBe("~~Descale with vinegar.~~ Use citric acid.");
  });

  it("reads markup cut off at a line's edge as text, never as a character beyond it", () => {
    // The readers ask `codeAt` past both ends; what is outside a line is no character (-1), as `charCodeAt`'s NaN was.
    expect([codeAt("ab", -1), codeAt("ab", 0), codeAt("ab", 1), codeAt("ab", 2), codeAt("", 0)]).toEqual([-1, 97, 98, -1, -1]);
    for (const line of ["a!", "a[", "![", "[[", "a[^", "a<", "a%", "a=", "a`", "``", "\\", "{{", "&", "&#x4", "[^1", "[x]", "[a](", "[a](<", '[a](b "', "[a](%e"]) {
      expect(read(line).text).toBe(line);
    }
    expect([read("a_").text, read("_a").text, read("e[x]").text, read("[ab]c").text, read("%%").text, read("*").text]).toEqual(["a", "a", "ex", "abc", "", ""]);
  });
});
