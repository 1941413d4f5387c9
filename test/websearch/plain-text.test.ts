import { describe, expect, it } from "vitest";
import { cutText, decodeEntities, htmlBlocksToLine, htmlToLine, isoDateTime, toPublishedDate } from "../../src/websearch/plain-text";

describe("htmlToLine", () => {
  it("decodes every named entity, not a short list", () => {
    expect(htmlToLine("Caf&eacute; &mdash; na&iuml;ve &frac12; &euro;5")).toBe("Café — naïve ½ €5");
  });

  it("keeps comparison signs that are not tags", () => {
    expect(htmlToLine("a < b and c > d")).toBe("a < b and c > d");
    expect(htmlToLine("if x<3 then y>2")).toBe("if x<3 then y>2");
  });

  it("removes tags, attributes and comments, and collapses white space", () => {
    expect(htmlToLine('<strong>CRDT</strong> <a href="https://x.test/?a=1&amp;b=2">sync</a><!-- note --> <br/>\n done')).toBe("CRDT sync done");
  });

  it("leaves encoded markup as visible text", () => {
    expect(htmlToLine("&lt;script&gt;alert(1)&lt;/script&gt;")).toBe("<script>alert(1)</script>");
  });

  it("decodes numeric entities in decimal and hex", () => {
    expect(decodeEntities("it&#39;s &#x27;quoted&#x27; &#x1F600;")).toBe("it's 'quoted' 😀");
  });
});

describe("cutText", () => {
  it("cuts at a word boundary near the limit and marks the cut", () => {
    expect(cutText("one two three four", 12)).toEqual({ text: "one two thr…", truncated: true });
    expect(cutText("alpha beta gamma delta epsilon", 26)).toEqual({ text: "alpha beta gamma delta…", truncated: true });
    expect(cutText("short", 12)).toEqual({ text: "short", truncated: false });
  });
});

describe("toPublishedDate", () => {
  const now = Date.UTC(2026, 11, 1);
  it("reads ISO dates, relative ages and long dates", () => {
    expect(toPublishedDate("2025-03-04T10:00:00Z", now)).toBe("2025-03-04T10:00:00Z");
    expect(toPublishedDate("2 days ago", now)).toBe("2026-11-29");
    expect(toPublishedDate("April 27, 2023", now)).toBe("2023-04-27");
    expect(toPublishedDate("recently", now)).toBeUndefined();
  });
});

// Big enough that the old patterns, which looked for a closer again from every unclosed opener,
// ran for minutes on these.
describe("plain text from a broken or hostile page", () => {
  const repeats = 500_000;

  it("htmlToLine drops a comment that is never closed, to the end", () => {
    expect(htmlToLine(`kept ${"<!--".repeat(repeats)}`)).toBe("kept");
  });

  it("htmlBlocksToLine drops a block tag that is never closed, to the end", () => {
    expect(htmlBlocksToLine(`<p>kept</p>${"<p ".repeat(repeats)}`)).toBe("kept");
  });
});

describe("toPublishedDate on dates no calendar holds", () => {
  const now = Date.UTC(2026, 11, 1);
  it("keeps only the day of an ISO date followed by anything but a time, and no day a month lacks", () => {
    expect(toPublishedDate("2023-04-27 (updated)\n---\ntags: [x]", now)).toBe("2023-04-27");
    expect(toPublishedDate("2023-04-27T10:00:00+0530", now)).toBe("2023-04-27T10:00:00+0530");
    expect(toPublishedDate("2023-04-27T10:00:00.000Z", now)).toBe("2023-04-27T10:00:00.000Z");
    expect(toPublishedDate("2023-04-27T25:00:00Z", now)).toBe("2023-04-27");
    expect(toPublishedDate("2023-02-31", now)).toBeUndefined();
    expect(toPublishedDate("2023-13-01", now)).toBeUndefined();
    expect(toPublishedDate("2024-02-29", now)).toBe("2024-02-29");
  });

  it("reads a long date only when it names its day, month and year, and no day the month lacks", () => {
    // The forms sources send: Brave's ages, Brave LLM Context's long date, Tavily's RFC 1123 date.
    expect(toPublishedDate("Wednesday, January 15, 2025", now)).toBe("2025-01-15");
    expect(toPublishedDate("Sept 5, 2023", now)).toBe("2023-09-05");
    expect(toPublishedDate("15 January 2025", now)).toBe("2025-01-15");
    expect(toPublishedDate("Sun, 09 Mar 2025 16:33:04 GMT", now)).toBe("2025-03-09");
    // A year, a month and a year, or words around a year, name no day: none is made up
    // ("maybe" was read as May, "Spring 2023" as 1 January).
    for (const vague of ["2023", "Mar 2024", "2024 Mar", "Spring 2023", "in 2023 maybe", "Decades before 2020", "12/03/2023"]) {
      expect(toPublishedDate(vague, now), vague).toBeUndefined();
    }
    expect(toPublishedDate("February 31, 2023", now)).toBeUndefined();
    expect(toPublishedDate("Mon, 31 Feb 2025 10:00:00 GMT", now)).toBeUndefined();
  });

  it("leaves the date unknown instead of throwing", () => {
    expect(toPublishedDate("300000 years ago", now)).toBeUndefined();
    expect(toPublishedDate(`${"9".repeat(400)} days ago`, now)).toBeUndefined();
  });

  it("isoDateTime gives undefined for NaN, infinity and moments past ±275,760 years", () => {
    expect(isoDateTime(Number.NaN)).toBeUndefined();
    expect(isoDateTime(-Infinity)).toBeUndefined();
    expect(isoDateTime(1e13 * 1000)).toBeUndefined();
    expect(isoDateTime(0)).toBe("1970-01-01T00:00:00.000Z");
  });
});
