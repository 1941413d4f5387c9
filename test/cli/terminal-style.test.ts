// Colour is added only after each part's text is sanitised, so a note or a web page can neither
// bring escape codes nor forge a style; without colour a highlight is «marked», never [bracketed].
import { describe, expect, it } from "vitest";
import { renderStyled, styled } from "../../src/cli/terminal-style";
import { terminalOutput } from "../../src/cli/terminal-text";

function printed(colour: boolean, secrets: string[] = []) {
  let out = "";
  const io = terminalOutput({ out: (t: string) => (out += t), err: () => undefined }, secrets, { out: colour, err: false });
  return { io, text: () => out };
}

describe("styled output", () => {
  it("without colour: plain text, and a highlight in « » that Obsidian's link syntax does not read", () => {
    expect(renderStyled(["See ", styled("highlight", "Yjs"), " in ", styled("bold", "notes")], false)).toBe("See «Yjs» in notes");
  });

  it("with colour: ANSI codes around the part, and only there", () => {
    expect(renderStyled([styled("highlight", "Yjs")], true)).toBe("\u001b[1;33mYjs\u001b[22;39m");
  });

  it("sanitises and scrubs every part before colouring it: no escape code or key from the text survives", () => {
    const { io, text } = printed(true, ["sk-secret-123456"]);
    io.outStyled(["title \u001b[2J", styled("bold", "a\u001b]52;c;Zm9v\u0007 sk-secret-123456")]);
    expect(text()).toMatch(new RegExp(String.raw`^title \u001b\[1ma .+\u001b\[22m$`));
    expect(text()).not.toContain("sk-secret-123456");
    expect(text().match(new RegExp(String.raw`\u001b`, "g"))).toHaveLength(2);
  });

  it("keeps a plain out() free of every escape code, colour or not", () => {
    const { io, text } = printed(true);
    io.out("x \u001b[31mred\u001b[0m");
    expect(text()).toBe("x red");
  });
});
