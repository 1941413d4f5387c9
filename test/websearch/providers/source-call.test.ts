import { describe, expect, it } from "vitest";
import * as z from "zod";
import { firstItems, looseCount, looseNumber, maxItemsRead, parseEach } from "../../../src/websearch/providers/source-call";

describe("what the sources share in reading an answer", () => {
  it("reads the first items of a list only, counts the rest, and words plurals as people do", () => {
    const warnings: string[] = [];
    const items = Array.from({ length: maxItemsRead + 5 }, (_, i) => (i === 0 ? { n: "x" } : { n: i }));
    const read = parseEach(items, z.object({ n: z.number() }), warnings, "story");
    expect(read).toHaveLength(maxItemsRead - 1);
    expect(warnings).toEqual(["5 stories beyond the first 100 not read", "1 story that could not be read skipped"]);
    expect(firstItems([1, 2], [], "x")).toEqual([1, 2]);
  });

  it("a loose number takes numbers and numeric strings, and reads anything else as absent", () => {
    const schema = z.object({ score: looseNumber, count: looseCount });
    expect(schema.parse({ score: "0.5", count: "7" })).toEqual({ score: 0.5, count: 7 });
    expect(schema.parse({ score: Infinity, count: -1 })).toEqual({ score: undefined, count: undefined });
    expect(schema.parse({ score: { a: 1 }, count: 2.5 })).toEqual({ score: undefined, count: undefined });
    expect(schema.parse({})).toEqual({});
  });
});
