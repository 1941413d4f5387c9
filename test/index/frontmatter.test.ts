// Reading the properties search uses from a note's frontmatter, as Obsidian reads them.
import { describe, expect, it } from "vitest";
import { readFrontmatter, readProperties } from "../../src/index/frontmatter";
import { parseNote } from "../../src/index/markdown";

const propertiesOf = (yaml: string) => {
  const read = readFrontmatter(yaml);
  if (!read.ok) throw new Error(read.problem.message);
  return readProperties(read.data);
};

describe("aliases", () => {
  // Obsidian takes a list of aliases item by item: "Smith, John" is one name. Only a plain string
  // (the older way to write them) is a list of names separated by commas.
  it("keeps a listed alias that holds a comma whole, in the flow and the block form", () => {
    expect(propertiesOf('aliases: ["Smith, John", JS]').aliases).toEqual(["Smith, John", "JS"]);
    expect(propertiesOf("aliases:\n  - Smith, John\n  - JS").aliases).toEqual(["Smith, John", "JS"]);
    expect(propertiesOf("alias:\n- 'Paris, Texas'").aliases).toEqual(["Paris, Texas"]);
  });

  it("splits a plain string of aliases at its commas, as Obsidian does", () => {
    expect(propertiesOf("aliases: Smith, John").aliases).toEqual(["Smith", "John"]);
  });

  it("names the note by the whole alias", () => {
    const note = parseNote("People/js.md", '---\naliases: ["Smith, John"]\n---\nMet at the conference.\n');
    expect(note.aliases).toEqual(["Smith, John"]);
  });
});

describe("tags and sources", () => {
  it("still splits tags at commas and spaces, listed or not", () => {
    expect(propertiesOf("tags: a, b c").tags).toEqual(["a", "b", "c"]);
    expect(propertiesOf("tags: [a, b]").tags).toEqual(["a", "b"]);
  });

  it("never splits a source address, which may hold a comma", () => {
    expect(propertiesOf("source: https://en.wikipedia.org/wiki/Washington,_D.C.").sourceUrls).toEqual(["https://en.wikipedia.org/wiki/Washington,_D.C."]);
  });
});
