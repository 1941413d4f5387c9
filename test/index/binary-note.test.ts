// The one rule for a `.md` file that is no text, which the index and the MCP server's read_note share.
import { describe, expect, it } from "vitest";
import { BINARY_SNIFF_CHARS, binaryProblem } from "../../src/index/binary-note";

describe("binaryProblem", () => {
  it("calls a file with a NUL in its first 8,000 characters no text, with an encoding problem", () => {
    expect(binaryProblem(`${"a".repeat(BINARY_SNIFF_CHARS - 1)}\0`)).toEqual({ kind: "encoding", message: expect.stringContaining("NUL bytes") as string });
    expect(binaryProblem("\0PNG")?.kind).toBe("encoding");
  });

  it("leaves a note alone, and a NUL past the first 8,000 characters too", () => {
    expect(binaryProblem("# Note\n\nPlain text.\n")).toBeNull();
    expect(binaryProblem(`${"a".repeat(BINARY_SNIFF_CHARS)}\0`)).toBeNull();
    expect(binaryProblem("")).toBeNull();
  });
});
