// Control characters never reach a terminal or a file name; the ASCII test drives the analyser's
// fast path.
import { describe, expect, it } from "vitest";
import { hasNonAscii, removeBidiControls, removeControlChars } from "../../src/text/control-chars";

describe("hasNonAscii", () => {
  it("is false for plain ASCII, including DEL", () => {
    expect(hasNonAscii("plain text 123 ~\x7f")).toBe(false);
    expect(hasNonAscii("")).toBe(false);
  });

  it("is true as soon as one character is beyond 7 bits", () => {
    expect(hasNonAscii("cafe\u0301")).toBe(true);
    expect(hasNonAscii("naïve")).toBe(true);
    expect(hasNonAscii("中")).toBe(true);
    expect(hasNonAscii("\u0080")).toBe(true);
  });
});

describe("removeControlChars", () => {
  it("returns the very same string when there is nothing to remove", () => {
    const text = "Nothing to strip here — ok";
    expect(removeControlChars(text)).toBe(text);
  });

  it("removes NUL, bell, C1 controls and DEL", () => {
    expect(removeControlChars("a\u0000b\u0007c\u0085d\u009fe\u007ff")).toBe("abcdef");
  });

  it("removes a whole ANSI escape sequence, not just the ESC", () => {
    expect(removeControlChars("\u001b[31mred\u001b[0m text \u001b[2J")).toBe("red text ");
  });

  it("removes a lone ESC that starts no sequence", () => {
    expect(removeControlChars("a\u001bb")).toBe("ab");
  });

  it("drops line breaks and tabs by default, keeps them when asked", () => {
    expect(removeControlChars("one\ntwo\tthree\r")).toBe("onetwothree");
    expect(removeControlChars("one\ntwo\tthree\r\u0000", true)).toBe("one\ntwo\tthree\r");
  });

  it("removes a control string whole, payload and all: OSC 52, OSC 8, a window title, DCS", () => {
    expect(removeControlChars("a\u001b]52;c;Y3VybCBldmls\u0007b")).toBe("ab");
    expect(removeControlChars("\u001b]8;;https://evil.example/\u001b\\link\u001b]8;;\u001b\\ text")).toBe("link text");
    expect(removeControlChars("a\u001b]0;owned\u001b\\b\u001bP+q544e\u001b\\c")).toBe("abc");
    expect(removeControlChars("title\u001b]52;c;AAAA")).toBe("title");
    expect(removeControlChars("a\u001b]0;x\u001b[31mred")).toBe("ared");
  });

  it("removes what a short escape takes only when asked (text bound for a terminal)", () => {
    expect(removeControlChars("a\u001bcb\u001b(Bc\u001b7d")).toBe("acb(Bc7d");
    expect(removeControlChars("a\u001bcb\u001b(Bc\u001b7d", false, { shortEscapes: true })).toBe("abcd");
    expect(removeControlChars("a\u001b]0;x\u001b\\b", false, { shortEscapes: true })).toBe("ab");
  });

  it("swallows an unterminated escape sequence at the end", () => {
    expect(removeControlChars("ok\u001b[12;")).toBe("ok");
  });
});

describe("removeBidiControls", () => {
  it("removes embeddings, overrides and isolates, and nothing else", () => {
    expect(removeBidiControls("a\u202Eevil\u202C b\u2066c\u2069 d\u200Fe")).toBe("aevil bc d\u200Fe");
  });
});

describe("removeControlChars, visible", () => {
  it("writes each control character where it stood, and an escape sequence as \\x1b alone, its payload gone", () => {
    expect(removeControlChars("a\nb\tc\u0007d\u001b[31me\u001b]52;c;AAAA\u0007f", false, { shortEscapes: true, visible: true })).toBe("a\\nb\\tc\\x07d\\x1be\\x1bf");
  });
});
