import { describe, expect, it } from "vitest";
import { aside, maxAsideChars, saidWithCode, withoutFinalStops } from "../../src/text/asides";

describe("aside", () => {
  it("keeps no full stop of its own before the bracket, so ours follows it alone", () => {
    expect(`The key was refused${aside("Unauthorized: missing or invalid API key.")}.`).toBe("The key was refused (Unauthorized: missing or invalid API key).");
    expect(aside("gone. . .")).toBe(" (gone)");
  });

  it("keeps a question mark, and a cut's ellipsis", () => {
    expect(aside("Why not?")).toBe(" (Why not?)");
    expect(aside("cut short…")).toBe(" (cut short…)");
  });

  it("is nothing when the words say nothing", () => {
    for (const none of [undefined, "", " . ", "\n", "..."]) expect(aside(none), JSON.stringify(none)).toBe("");
  });

  it("is one line, cut with an ellipsis past its length (160 characters, or the length given)", () => {
    expect(aside("two\n  lines.\n")).toBe(" (two lines)");
    const long = aside("x".repeat(1000));
    expect(long.length).toBe(maxAsideChars + 3);
    expect(long.endsWith("…)")).toBe(true);
    expect(aside("a long reason.", 6)).toBe(" (a lon…)");
  });
});

describe("saidWithCode", () => {
  it("puts the code after the words as an aside, the words' own stop gone", () => {
    expect(saidWithCode("The title is invalid.", "badtitle")).toBe("The title is invalid (badtitle)");
  });

  it("leaves the words as said without a code, or with one of white space only", () => {
    for (const none of [undefined, "", "  "]) expect(saidWithCode("The title is invalid.", none), JSON.stringify(none)).toBe("The title is invalid.");
  });

  it("reads words of a million dots and a letter in one pass, not once for every dot", () => {
    const hostile = `${".".repeat(1_000_000)}x`;
    // Linear work finishes at once; a pattern retried from every dot would run for hours, and this test with it.
    expect(saidWithCode(hostile, "code").endsWith("x (code)")).toBe(true);
    expect(withoutFinalStops(`${hostile}.. `).endsWith("x")).toBe(true);
  });
});
