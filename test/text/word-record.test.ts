import { describe, expect, it } from "vitest";
import { ownValue, wordRecord } from "../../src/text/word-record";

describe("wordRecord and ownValue", () => {
  it("a word such as constructor or __proto__ is a key like any other, and nothing comes from a prototype", () => {
    const record = wordRecord<string[]>();
    expect(record["constructor"]).toBeUndefined();
    (record["constructor"] ??= []).push("body");
    (record["__proto__"] ??= []).push("title");
    expect(Object.keys(record).sort()).toEqual(["__proto__", "constructor"]);
    expect(record["__proto__"]).toEqual(["title"]);
    expect(ownValue<number>({}, "toString")).toBeUndefined();
    expect(ownValue<number>({ toString: 3 }, "toString")).toBe(3);
  });
});
