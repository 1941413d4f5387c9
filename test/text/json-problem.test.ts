import { describe, expect, it } from "vitest";
import { jsonProblem } from "../../src/text/json-problem";

const problemOf = (text: string): string => {
  try {
    JSON.parse(text);
  } catch (error) {
    return jsonProblem(text, error instanceof Error ? error.message : String(error));
  }
  throw new Error("it parsed");
};

describe("jsonProblem", () => {
  it("names the kind of problem and its line and column, quoting none of the text", () => {
    const key = "sk-secret-0123456789";
    const said = problemOf(`{\n  "a": 1,\n  "b": ${key}\n}`);
    expect(said).toBe("an unexpected character at line 3, column 8");
    expect(said).not.toContain("sk-");
    expect(problemOf('{"a": 1')).toMatch(/^it ends before its value is complete, at line 1, column 8$/);
    expect(problemOf('{"a": 1} x')).toBe("more follows the value at line 1, column 10");
  });
});
