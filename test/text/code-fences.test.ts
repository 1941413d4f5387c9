import { Parser } from "commonmark";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { closesFence, fenceLanguage, fenceLine, fenceOpening, FenceReader, fenceReaderFor, type FenceLines, type FencePart } from "../../src/text/code-fences";

const parts = (text: string): FencePart[] => {
  const reader = new FenceReader();
  return text.split("\n").map((line) => reader.read(line));
};

/** The lines CommonMark's reference parser puts in fenced code blocks, opener and closer included (1-based). */
function fencedLinesByCommonMark(text: string): Set<number> {
  const lines = new Set<number>();
  const walker = new Parser().parse(text).walker();
  for (let step = walker.next(); step; step = walker.next()) {
    const node = step.node;
    if (!step.entering || node.type !== "code_block" || node.info === null) continue;
    const [[from], [to]] = node.sourcepos;
    for (let line = from; line <= to; line++) lines.add(line);
  }
  return lines;
}

describe("fence lines", () => {
  it("reads up to three spaces and a run of three or more backticks or tildes, taken whole", () => {
    expect(fenceLine("   ````js x")).toEqual({ indent: "   ", marker: "````", rest: "js x" });
    expect(fenceLine("~~~")).toEqual({ indent: "", marker: "~~~", rest: "" });
    expect(fenceLine("    ```")).toBeNull();
    expect(fenceLine("\t```")).toBeNull();
    expect(fenceLine("``")).toBeNull();
    expect(fenceLine("> ```")).toBeNull();
  });

  it("a backtick fence whose info string holds a backtick opens nothing; a tilde fence's may", () => {
    expect(fenceOpening("```a`b")).toBeNull();
    expect(fenceOpening("~~~a`b")?.rest).toBe("a`b");
  });

  it("closes only on its own character, as long or longer, with nothing but spaces and tabs after", () => {
    const open = { marker: "````" };
    expect(closesFence(open, "````")).toBe(true);
    expect(closesFence(open, "  `````  \t")).toBe(true);
    expect(closesFence(open, "```")).toBe(false);
    expect(closesFence(open, "~~~~")).toBe(false);
    expect(closesFence(open, "````js")).toBe(false);
    expect(closesFence(open, "````\u00a0")).toBe(false);
    expect(closesFence(open, "````\f")).toBe(false);
    expect(closesFence(open, "    ````")).toBe(false);
  });

  it("a language is the info string's first word", () => {
    expect(fenceLanguage("  dataviewjs  x")).toBe("dataviewjs");
    expect(fenceLanguage("")).toBe("");
  });
});

describe("FenceReader", () => {
  it("a ~~~ or a shorter run inside a block is code, not its end", () => {
    expect(parts("````md\n```\n~~~\n# not a heading\n````\nafter")).toEqual(["opener", "code", "code", "code", "closer", "outside"]);
  });

  it("a block never closed runs to the end", () => {
    expect(parts("text\n~~~\ncode\n\ncode")).toEqual(["outside", "opener", "code", "code", "code"]);
  });

  it("reads fences behind quote, callout and list markers, and ends them with their container", () => {
    expect(parts("> [!note]\n> ```tasks\n> not done\n>\n> ```\nafter")).toEqual(["outside", "opener", "code", "code", "closer", "outside"]);
    expect(parts("> ```js\n> code\nnot quoted\n```")).toEqual(["opener", "code", "outside", "opener"]);
    expect(parts("- ```tasks\n  not done\n\n  ```\n- next")).toEqual(["opener", "code", "code", "closer", "outside"]);
    expect(parts("- ```js\n  code\nout of the item")).toEqual(["opener", "code", "outside"]);
    expect(parts("1. > ~~~\n   > code\n   > ~~~")).toEqual(["opener", "code", "closer"]);
  });

  it("a fence indented under a list item ends with the item and closes up to three spaces past its indent", () => {
    expect(parts("- item\n  ```js\n  code\n     ```\nafter")).toEqual(["outside", "opener", "code", "closer", "outside"]);
    expect(parts("- item\n  ```js\n  code\nnext paragraph")).toEqual(["outside", "opener", "code", "outside"]);
  });

  it("agrees with CommonMark's reference parser on which lines are fenced code", () => {
    const line = fc.constantFrom(
      "```", "````", "~~~", "~~~~", "```js", "~~~ tasks", "``` `", "```\u00a0", "```a`b", "    ```", "\t```",
      "code", "# heading", "", "   ", "> ```", "> ````", "> code", ">", "> ~~~", "- ```", "- ~~~", "  code", "  ```", "- item",
      "> - ```", ">   code", ">   ```",
      // What may interrupt a paragraph, and what goes on with one: an item numbered 2, an empty item.
      "text", "2. item", "1. item", "-", "- ", "> text", "===",
    );
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), expectFencedAsCommonMarkReadsThem),
      { numRuns: 3000 },
    );
  });

  it("reads a fence in a list nested at any depth, by spaces or by tabs (Logseq's outlines), as CommonMark does", () => {
    expect(parts("- a\n\t- b\n\t\t- ```edn\n\t\t  {:a 1}\n\t\t  ```\n\t- c")).toEqual(["outside", "outside", "opener", "code", "closer", "outside"]);
    expect(parts("- a\n  - b\n    - c\n      ```js\n      code\n  - d\n    ```")).toEqual(["outside", "outside", "outside", "opener", "code", "outside", "opener"]);
    const line = fc.constantFrom(
      "- a", "  - b", "    - c", "      - d", "\t- e", "\t\t- f", "1. g", "   1) h", "```", "~~~", "  ```", "    ```", "      ```", "\t```", "\t\t```",
      "- ```", "  - ```", "    - ```", "\t- ```", "\t\t- ~~~", "code", "  code", "    code", "\t\tcode", "", "> ```", "  > ```", "# heading",
      "2. i", "-", "  -", "\t2) j",
    );
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), expectFencedAsCommonMarkReadsThem),
      { numRuns: 3000 },
    );
  });

  it("reads a fence in a list inside a quote (obsidian-tasks-docs' Report a Bug)", () => {
    const steps = "> 3. Paste in to it the following content.\n>     - **Note:** hold down the shift key\n>\n>         ````text\n>         ```tasks\n>         ```\n>         ````\n>\n> 4. View in **Reading Mode**:";
    expect(parts(steps)).toEqual(["outside", "outside", "outside", "opener", "code", "code", "closer", "outside", "outside"]);
    expect(parts("- > - ```js\n  >   code\n  > x")).toEqual(["opener", "code", "outside"]);
  });

  it("lets only an item numbered 1, with text after its marker, interrupt a paragraph", () => {
    expect(parts("text\n2. item\n    ```js\n    code")).toEqual(["outside", "outside", "outside", "outside"]);
    // `*` alone is the paragraph's text, so the fence after it stands at the margin, in no item.
    expect(parts("text\n*\n  ```js\nafter")).toEqual(["outside", "outside", "opener", "code"]);
    expect(parts("text\n1. item\n    ```js\n    code")).toEqual(["outside", "outside", "opener", "code"]);
  });

  it("starts a list at an empty item after a quoted paragraph: the paragraph does not go on lazily there", () => {
    expect(parts("> text\n-\n  ```js\n  code\nafter")).toEqual(["outside", "outside", "opener", "code", "outside"]);
    expect(parts("> text\n2. item\n   ```js\n   code\nafter")).toEqual(["outside", "outside", "opener", "code", "outside"]);
  });

  it("reads a list inside a quote, and a quote inside a list, as CommonMark does", () => {
    const line = fc.constantFrom(
      "> - a", ">   - b", "> 1. c", ">     - d", "> > - e", "- > f", "  > - g", ">\t- h", "> -", ">",
      "> ```", ">   ```", ">     ```", ">       ```", ">         ````", "> > ```", "- > ```", ">\t```", "  >   ~~~",
      "> code", ">     code", ">   code", "code", "  code", "", "```", "- i", "> # heading", "> ---",
    );
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), expectFencedAsCommonMarkReadsThem),
      { numRuns: 3000 },
    );
  });

  it("agrees with CommonMark on lines made of the characters its blocks turn on", () => {
    const char = fc.constantFrom(" ", " ", " ", "\t", ">", "-", "*", "+", "1", "2", ".", ")", "`", "`", "`", "~", "#", "=", "_", "x");
    const line = fc.array(char, { maxLength: 10 }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 10 }), expectFencedAsCommonMarkReadsThem),
      { numRuns: 3000 },
    );
  });

  it("reads hostile texts line by line: a run of 100,000 backticks, 50,000 alternating openers, deep quotes, a deep outline, CRLF and NUL", () => {
    expect(parts("`".repeat(100_000))).toEqual(["opener"]);
    expect(parts(`x\n${"`".repeat(100_000)}a\`\n\`\`\``)).toEqual(["outside", "outside", "opener"]);
    // ``` opens, ~~~ is its code, ``` closes, ~~~ opens the next: four parts a cycle.
    const alternating = parts("```\n~~~\n".repeat(25_000).slice(0, -1));
    expect(alternating).toEqual(Array.from({ length: 50_000 }, (_, i) => (["opener", "code", "closer", "opener", "code", "closer"] as const)[i % 6]));
    const deep = `${"> ".repeat(20_000)}\`\`\`\n${`${"> ".repeat(20_000)}x\n`.repeat(200)}${">".repeat(20_000)}\`\`\``;
    expect(parts(deep)).toEqual(["opener", ...Array<FencePart>(200).fill("code"), "closer"]);
    // An outline 50,000 deep: each blank line under it stays in every item at once, not item by item.
    const outline = `${"- ".repeat(50_000)}x\n${"\n".repeat(50_000)}${" ".repeat(100_000)}\`\`\`js\n${" ".repeat(100_000)}code\nafter`;
    expect(parts(outline)).toEqual(["outside", ...Array<FencePart>(50_000).fill("outside"), "opener", "code", "outside"]);
    const crlf = "```\0\r\ncode\0\r\n```\r".split("\n").map((l) => l.replace(/\r$/, ""));
    const reader = new FenceReader();
    expect(crlf.map((l) => reader.read(l))).toEqual(["opener", "code", "closer"]);
  });
});

/** The lines the reader calls code are those CommonMark's reference parser puts in a code block. */
function expectFencedAsCommonMarkReadsThem(lines: string[]): void {
  expectReadAsCommonMark(lines, new FenceReader());
}

/** The lines `reader` calls code are those CommonMark's reference parser puts in a code block. */
function expectReadAsCommonMark(lines: string[], reader: FenceLines): void {
  const expected = fencedLinesByCommonMark(lines.join("\n"));
  const read = lines.map((l) => reader.read(l) !== "outside");
  // Blank lines aside: the reference parser's positions leave those at an unclosed block's end out.
  const shown = (i: number) => !/^[>\s]*$/.test(lines[i]);
  expect(lines.flatMap((_, i) => (shown(i) && read[i] ? [i + 1] : []))).toEqual(lines.flatMap((_, i) => (shown(i) && expected.has(i + 1) ? [i + 1] : [])));
}

describe("fenceReaderFor", () => {
  const readerKind = (text: string) => {
    const reader = fenceReaderFor(text);
    return reader === null ? "none" : reader instanceof FenceReader ? "full" : "margin";
  };

  it("gives no reader to a text without three backticks or tildes in a row", () => {
    expect(readerKind("text `` code ``\n~~ struck ~~")).toBe("none");
  });

  it("gives the full reader where a quote's or a list item's marker or an indent could stand before a fence", () => {
    for (const text of ["> ```js", "- ```js", "1. ~~~", "2) ```", "  ```", "\t~~~", "x\n   ```", "```\n  ```", "* + ```", "x\r  ```"]) expect(readerKind(text), text).toBe("full");
  });

  it("gives the margin reader where every run starts a line or stands behind text", () => {
    for (const text of ["```js\ncode\n```", "text ``` x", "a```\n~~~", "> quote\n- item\n```\ncode\n```", "```\nx ```\n```"]) expect(readerKind(text), text).toBe("margin");
  });

  it("the margin reader reads as the full one around blocks that end before a fence: a quoted paragraph (no lazy line), list items, indented code", () => {
    const texts = [
      "> quoted paragraph\n```js\ncode\n```\nafter",
      "- item\n```js\ncode\n```\nafter",
      "- item\n\n  text in the item\n~~~\ncode\n~~~~\n~~~",
      "1. item\n   > quoted\n```\n> code\n```",
      "    indented code\n```\ncode\n````",
      "text\n```a`b\nstill text\n```",
    ];
    for (const text of texts) {
      expect(readerKind(text), text).toBe("margin");
      expectSameAsFullReader(text.split("\n"));
    }
  });

  it("says what the full reader says of every line of a text, on lines made of the characters blocks turn on", () => {
    const char = fc.constantFrom(" ", " ", "\t", ">", "-", "*", "+", "1", "2", ".", ")", "`", "`", "`", "~", "#", "=", "x");
    const line = fc.array(char, { maxLength: 8 }).map((chars) => chars.join(""));
    fc.assert(fc.property(fc.array(line, { minLength: 1, maxLength: 10 }), expectSameAsFullReader), { numRuns: 3000 });
  });

  it("the margin reader agrees with CommonMark's reference parser on texts where it is given", () => {
    const line = fc.constantFrom(
      "```", "````", "~~~", "```js", "~~~ tasks", "```a`b", "```\u00a0", "text ```", "code", "", "   ", "# heading", "text",
      "> text", ">", "> - item", "- item", "-", "1. item", "2. item", "  text", "    indented", "\tindented", "===", "---",
    );
    const qualifying = fc.array(line, { minLength: 1, maxLength: 12 }).filter((lines) => readerKind(lines.join("\n")) === "margin");
    fc.assert(
      fc.property(qualifying, (lines) => {
        expectReadAsCommonMark(lines, fenceReaderFor(lines.join("\n"))!);
        expectSameAsFullReader(lines);
      }),
      { numRuns: 3000 },
    );
  });
});

/** The reader `fenceReaderFor` gives a text says of each of its lines what FenceReader says: the same part, fence and indented code (which the margin reader never reports: a text it reads shows no fence there). */
function expectSameAsFullReader(lines: string[]): void {
  const full = new FenceReader();
  const chosen = fenceReaderFor(lines.join("\n"));
  if (chosen === null) return;
  for (const line of lines) {
    expect(chosen.read(line), line).toBe(full.read(line));
    expect(chosen.fence).toEqual(full.fence);
  }
}
