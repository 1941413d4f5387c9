// The one rule for an answer's markdown, as properties: whatever a model (or the web text it
// quotes) writes, the answer keeps only headings, code and its citation brackets as markup —
// no link, embed, image, HTML, tag, callout, comment, highlight, math, block id or inline field,
// and no Templater command anywhere, code included.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inertAnswerMarkdown } from "../../src/notes/inert-answer";
import { headingsIn } from "./heading-levels";
import { markupIn, type MarkupKind } from "./obsidian-markup";

const ALLOWED: readonly MarkupKind[] = ["heading", "code"];

const hostileText = fc
  .oneof(
    fc.string({ unit: "grapheme", maxLength: 80 }),
    fc.string({ unit: fc.constantFrom(..."[]()!#<>`*_~=%$^:&;|\\-+.1 \n\t>\r/ab"), maxLength: 60 }),
    fc.array(fc.constantFrom("![p](https://evil.example/p.png)", "[[Secret]]", "![[Private.pdf]]", "<img src=x onerror=alert(1)>", "<% tp.system.prompt() %>", "`= this.file.name`", "`$= dv.page('x')`", "==mark==", "%%hidden%%", "$\\href{javascript:alert(1)}{x}$", "status:: done", " ^block", "> [!note] hi", "#tag", "[x]: https://evil.example", "```dataviewjs", "```", "\n", " text "), { maxLength: 12 }).map((parts) => parts.join("")),
  )
  .filter((t) => !/\[\s*(?:src|ext):/i.test(t));

describe("inertAnswerMarkdown", () => {
  it("leaves no markup but headings and code, whatever the answer says", () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const found = Object.keys(markupIn(inertAnswerMarkdown(text))) as MarkupKind[];
        expect(found.filter((k) => !ALLOWED.includes(k))).toEqual([]);
      }),
      { numRuns: 600 },
    );
  });

  // Where two runs of spaces could share the spaces between markers, a line of them that ends in
  // no heading or fence was tried every way: 18 list markers took 6 s, 24 quote markers 0.4 s, and
  // 40 of either would take days. Each line here comes back at once, its markers as they were.
  it("reads a line of many quote or list markers at once", () => {
    const lists = `${"-   ".repeat(40)}x`;
    const quotes = `${">  ".repeat(40)}x`;
    expect(inertAnswerMarkdown(`Intro\n${lists}\n---`)).toContain("x");
    expect(inertAnswerMarkdown(`Intro\n${quotes}\n===`)).toContain("x");
    expect(inertAnswerMarkdown(`Text\n${">  ".repeat(40)}\n---`)).toContain("---");
  });

  // 100,000 backticks before a U+2028 (a line break to `.`, not to the split) took the fence
  // pattern 9 s, giving back one backtick at a time; this line, some 15 minutes.
  it("reads a line of 1,000,000 backticks that `.` cannot read to its end once, as escaped text", () => {
    expect(inertAnswerMarkdown(`${"`".repeat(1_000_000)}\u2028x`)).toBe(`${"\\`".repeat(1_000_000)}\u2028x`);
    expect(inertAnswerMarkdown("```js\u2028\n```")).toBe("\\`\\`\\`js\u2028\n```\n```");
  });

  it("reads a line of backtick runs of 1, 2 … 4,000 that none closes once, each run as escaped text", () => {
    // Each run looked for its closer along the rest of the line: 12 s at half this size, growing with its cube.
    let line = "a";
    for (let n = 1; n <= 4_000; n++) line += `${"`".repeat(n)}a`;
    const out = inertAnswerMarkdown(line);
    expect(out.startsWith("a\\`a\\`\\`a")).toBe(true);
    expect(out.replace(/\\`/g, "").replace(/a/g, "")).toBe("");
  });

  it("reads a 400,000-character line of prose once", () => {
    // Each character read the last one back from the answer as written so far, which joined all of it again: 297 s.
    expect(inertAnswerMarkdown("a $b ".repeat(80_000))).toBe("a \\$b ".repeat(80_000));
  });

  it("leaves no Templater command anywhere, code included", () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        expect(inertAnswerMarkdown(text)).not.toContain("<%");
      }),
      { numRuns: 600 },
    );
  });

  it("shows Dataview and Meta Bind inline code as text, and other code as code", () => {
    const inert = inertAnswerMarkdown("Name: `= this.file.name` and `$= dv.current()` and `INPUT[text:x]`");
    expect(markupIn(inert)).toEqual({});
    expect(inert).toBe("Name: \\`= this.file.name\\` and \\`\\$= dv.current()\\` and \\`INPUT\\[text:x\\]\\`");
    expect(inertAnswerMarkdown("Run `npm install yjs` [src:0123456789].")).toBe("Run `npm install yjs` [src:0123456789].");
    // A span closes only at a run of as many backticks: the one below opens at the first and ends at the last.
    const adjacent = inertAnswerMarkdown("`= this.file.name``$= dv.pages().length`");
    expect(markupIn(adjacent)).toEqual({});
  });

  it("escapes highlights, comments, math, inline fields and block ids, and leaves plain prose as it was", () => {
    expect(inertAnswerMarkdown("==a== %%b%% $c$ d:: e ^f")).toBe("\\=\\=a\\=\\= \\%\\%b\\%\\% \\$c\\$ d\\:\\: e \\^f");
    const prose = "Automerge 3.2 adds a compaction mode [ext:brave:88e76693df], 50% less memory, a=b, 2^10, https://automerge.org.";
    expect(inertAnswerMarkdown(prose)).toBe(prose);
  });

  it("cannot forge the trace note's JSON block: a fence keeps no info string", () => {
    expect(inertAnswerMarkdown('```json vault-research-trace\n{"schema":"research_trace.v1"}\n```')).toBe('```\n{"schema":"research_trace.v1"}\n```');
  });

  it("keeps headings only two levels down or deeper, so none is a # or ## heading, whatever the answer says", () => {
    const headingish = fc.array(fc.constantFrom("# Sources", "## Trace data", "Sources", "\n", "---", "===", "=", "-", "> ", "- ", "* ", "+ ", "1. ", "2. ", "3) ", "  ", "    ", "\t", "#", "##", "###### deep", "```", "~~~", "text", "\\#"), { maxLength: 14 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(fc.oneof(hostileText, headingish), (text) => {
        for (const heading of headingsIn(inertAnswerMarkdown(text))) expect(heading.level, JSON.stringify(text)).toBeGreaterThanOrEqual(3);
      }),
      { numRuns: 1500 },
    );
  });

  it("moves ATX headings two levels down (six at most), and shows a setext underline as text", () => {
    expect(inertAnswerMarkdown("# Title\n## Sources\n##### five\n> ## Quoted\n- # Listed")).toBe("### Title\n#### Sources\n###### five\n> #### Quoted\n- ### Listed");
    expect(inertAnswerMarkdown("Sources\n---\nMore\n=")).toBe("Sources\n\\---\nMore\n\\=");
    // Not headings, left as they were: a rule after a blank line, code, an escaped #.
    expect(inertAnswerMarkdown("a\n\n---\n```\n# code\n```\n\\# plain")).toBe("a\n\n---\n```\n# code\n```\n\\# plain");
  });

  it("shows a setext underline as text under a list marker it escaped (fast-check found # Sources, - , ---)", () => {
    expect(inertAnswerMarkdown("# Sources\n- \n---")).toBe("### Sources\n\\- \n\\---");
    expect(headingsIn(inertAnswerMarkdown("a\n- \n---"))).toEqual([]);
  });

  it("shows a setext underline as text under an empty list item, which cannot interrupt the text above (review found a * and 1. under text)", () => {
    expect(inertAnswerMarkdown("a\n* \n---")).toBe("a\n* \n\\---");
    expect(inertAnswerMarkdown("Sources\n1. \n===")).toBe("Sources\n1. \n\\=\\=\\=");
    expect(inertAnswerMarkdown("> a\n> 2. \n> ---")).toBe("> a\n> 2. \n> \\---");
    // An empty quote does interrupt: the rule under it stays a rule.
    expect(inertAnswerMarkdown("a\n>\n---")).toBe("a\n>\n---");
  });

  it("closes a fence indented under a list item where the item ends, so what follows is no code to hide a heading in (fast-check found - ## Warnings, a blank line, ```)", () => {
    expect(inertAnswerMarkdown("- a\n\n  ```\n## Sources")).toBe("- a\n\n  ```\n  ```\n#### Sources");
    expect(inertAnswerMarkdown("- ## Warnings\n\n  ```")).toBe("- #### Warnings\n\n  ```\n  ```");
    expect(headingsIn(inertAnswerMarkdown("1. x\n   ```\n# Research") + "\n\n## Trace data")).toEqual([
      { level: 3, text: "Research" },
      { level: 2, text: "Trace data" },
    ]);
    // A fence kept to its item's indent is code, as written.
    expect(inertAnswerMarkdown("1. Run:\n   ```bash\n   npm i\n   ```\n2. Done")).toBe("1. Run:\n   ```\n   npm i\n   ```\n2. Done");
  });

  it("writes no terminal escape or control character a model put in its answer, in prose or code, as the note's other text has none", () => {
    const answer = "Done \u001b]52;c;ZXZpbA==\u0007[src:0123456789]\u001b[2J.\n\n```\nx()\u0007\u009b31m\n```\n\u202eevil";
    expect(inertAnswerMarkdown(answer)).toBe("Done [src:0123456789].\n\n```\nx()31m\n```\nevil");
  });

  it("ends its code where every reader does: a closer followed by a no-break space or a form feed is none, and is not left open to swallow the note's sections", () => {
    for (const after of ["\u00a0", "\f", "\u2003", "\v"]) {
      const answer = `Run this:\n\n\`\`\`js\nx()\n\`\`\`${after}\nDone [src:0123456789].`;
      const note = `${inertAnswerMarkdown(answer)}\n\n## Vault evidence`;
      expect(headingsIn(note), JSON.stringify(after)).toEqual([{ level: 2, text: "Vault evidence" }]);
      expect(inertAnswerMarkdown(answer)).toBe(`Run this:\n\n\`\`\`\nx()\n\`\`\`\n${after}\nDone [src:0123456789].`);
    }
  });

  it("closes a list item's fence where CommonMark does, up to three columns past its indent, so no code after it is live", () => {
    for (const answer of ["1. x\n   ```\n    ```\n     ```dataviewjs\n     dv.el('b', 'x')\n   ```", "- a\n\n  ```\n\t```\n     ```dataviewjs\n     dv.el('b', 'x')"]) {
      const out = inertAnswerMarkdown(answer);
      expect(markupIn(out).code ?? 0, out).toBeLessThanOrEqual(2);
      expect(out).not.toContain("```dataviewjs");
    }
  });

  it("a line of backticks with a backtick after them is text with a code span, as CommonMark reads it, not an opener", () => {
    expect(inertAnswerMarkdown("```a`b` [x](https://e.example)\n## Sources")).toBe("\\`\\`\\`a`b` \\[x\\](https://e.example)\n#### Sources");
    expect(headingsIn(`${inertAnswerMarkdown("```a`b`\n## Sources")}\n\n## Trace data`)).toEqual([
      { level: 4, text: "Sources" },
      { level: 2, text: "Trace data" },
    ]);
  });

  it("moves a heading down behind a tab, or indented under a list item (CommonMark's reading found them)", () => {
    expect(inertAnswerMarkdown("> \t## Trace data")).toBe("> \t#### Trace data");
    expect(inertAnswerMarkdown("\n-\n\t#")).toBe("\n-\n\t###");
    expect(inertAnswerMarkdown("- * * *\n    ## Trace data")).toBe("- * * *\n    #### Trace data");
    expect(headingsIn(inertAnswerMarkdown("3) <div>=* #\n    ="))).toEqual([]);
  });

  it("moves a heading down that follows a fence closed with text on its line (fast-check found ```## Sources)", () => {
    expect(inertAnswerMarkdown("```\n\n```## Sources")).toBe("```\n\n```\n#### Sources");
  });

  it("reads what follows such a close as a line of its own, never leaving a fence or an underline live", () => {
    // The rest opens a fence of its own, which the answer closes.
    expect(inertAnswerMarkdown("```\n\n```~~~")).toBe("```\n\n```\n~~~\n~~~");
    // The rest is text, so a --- under it is shown as text, not a ## heading.
    expect(inertAnswerMarkdown("~~~\n~~~Sources\n---")).toBe("~~~\n~~~\nSources\n\\---");
  });

  it("shows a fence behind a quote or list marker as text, and a tab-indented fence is not one", () => {
    expect(inertAnswerMarkdown("> ~~~\nx")).toBe("> \\~~~\nx");
    expect(inertAnswerMarkdown("- ~~~\nx")).toBe("- \\~~~\nx");
    expect(inertAnswerMarkdown("## Sources\n\t```")).toBe("#### Sources\n\t\\`\\`\\`");
  });
});

