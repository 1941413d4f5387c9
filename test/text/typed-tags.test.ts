// The one pattern a typed #tag is read by, in the plan and in the index's query.
import { describe, expect, it } from "vitest";
import { TYPED_TAG } from "../../src/text/typed-tags";

const tagsIn = (text: string) => [...text.matchAll(TYPED_TAG)].map((m) => m[2]);

describe("TYPED_TAG", () => {
  it("reads a tag after white space or at the start, with its letters' marks", () => {
    expect(tagsIn("#पनीर recipes and #ภาษาไทย, #project/alpha")).toEqual(["पनीर", "ภาษาไทย", "project/alpha"]);
  });

  it("reads no tag of figures only, and none inside a word or an address", () => {
    expect(tagsIn("issue #123, C#sharp, https://example.com/#top, #2024-notes")).toEqual(["2024-notes"]);
  });

  it("keeps what came before the # for a replacement that keeps the words apart", () => {
    expect("a #tag b".replace(TYPED_TAG, (_m, lead: string) => lead)).toBe("a  b");
  });
});
