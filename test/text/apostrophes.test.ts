import { describe, expect, it } from "vitest";
import { straightApostrophes } from "../../src/text/apostrophes";

describe("straightApostrophes", () => {
  it("reads curly apostrophes as straight ones and leaves other quotes alone", () => {
    expect(straightApostrophes("it’s O‘Reilly’s")).toBe("it's O'Reilly's");
    expect(straightApostrophes("“quoted” and 'plain'")).toBe("“quoted” and 'plain'");
  });
});
