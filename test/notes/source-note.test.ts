import { describe, expect, it, vi } from "vitest";
import { isoDay, renderSourceNote, sourceNoteFileName, type SourceNote } from "../../src/notes/source-note";
import { parseNote } from "../../src/index/markdown";

describe("sourceNoteFileName", () => {
  it("removes characters that Windows, macOS, Android or Obsidian links refuse", () => {
    expect(sourceNoteFileName('A/B: "C" <D> | E? * F# ^G [H] \\I')).toBe("A B C D E F G H I");
  });

  it("trims dots and spaces at the ends, which Windows drops silently", () => {
    expect(sourceNoteFileName("  ...Hidden title...  ")).toBe("Hidden title");
  });

  it("renames Windows device names", () => {
    expect(sourceNoteFileName("CON")).toBe("CON (page)");
    expect(sourceNoteFileName("lpt1.txt")).toBe("lpt1 (page).txt");
  });

  it("uses the fallback when nothing of the title is left", () => {
    expect(sourceNoteFileName("???", "example.org")).toBe("example.org");
  });

  it("cuts long titles by bytes without splitting a character", () => {
    const name = sourceNoteFileName("日本語".repeat(100));
    expect(new TextEncoder().encode(name).byteLength).toBeLessThanOrEqual(150);
    expect(name).toMatch(/^(日本語)+(日本?|日)?$/u);
  });

  it("normalises to NFC so a title from macOS and one from Windows name the same file", () => {
    expect(sourceNoteFileName("Cafe\u0301")).toBe("Café");
  });
});

describe("isoDay", () => {
  it("reads ISO dates and date-times, and leaves text it cannot read empty", () => {
    expect(isoDay("2025-09-18T08:30:00Z")).toBe("2025-09-18");
    expect(isoDay("September 18, 2025 12:00 UTC")).toBe("2025-09-18");
    expect(isoDay("last Tuesday")).toBe("");
    // The day the source wrote, not the day in UTC.
    expect(isoDay("2025-09-18T01:00:00+05:30")).toBe("2025-09-18");
    expect(isoDay(undefined)).toBe("");
  });

  // A page's date is untrusted: `published` said 0000-00-00 of a WordPress draft's meta, the 30th of
  // February, Go's zero time, and Date.parse's guesses: "0" as 2000-01-01, "1.5" as 2001-01-05.
  it("names no day a date does not: zero dates, days that do not exist, and what Date.parse makes up", () => {
    for (const unwritten of ["0000-00-00 00:00:00", "0000-00-00T00:00:00+00:00", "2026-02-30", "2026-13-05", "0001-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "0", "1", "99", "1.5", "Jan 1 0001", "2024", "2024-05", "May 2024", "March 2026 10:01", "-000001-01-01", "+012345-01-01"]) {
      expect(isoDay(unwritten), unwritten).toBe("");
    }
    expect(isoDay("2024-02-29")).toBe("2024-02-29");
    expect(isoDay("1 January 2024")).toBe("2024-01-01");
    expect(isoDay("12/31/2023")).toBe("2023-12-31");
  });

  // Read as an instant in UTC, a page's "2026/03/05" was published on the 4th in Tokyo and its
  // "Mar 5 2026 23:30" on the 6th in Los Angeles: the note's `published` said a day it never was.
  it("keeps the day a page wrote in any time zone the app runs in", () => {
    try {
      for (const tz of ["Asia/Tokyo", "America/Los_Angeles", "Pacific/Kiritimati", "UTC"]) {
        vi.stubEnv("TZ", tz);
        for (const written of ["2026/03/05", "5 March 2026", "March 5, 2026", "Thu, 05 Mar 2026", "Mar 5 2026 23:30", "Thu, 05 Mar 2026 23:30:00 -0800", "Thu, 05 Mar 2026 00:30:00 GMT"]) {
          expect(isoDay(written), `${written} in ${tz}`).toBe("2026-03-05");
        }
      }
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe("renderSourceNote", () => {
  const base: SourceNote = {
    title: "Title",
    source: "https://example.org/a",
    authors: [],
    published: "",
    created: "2026-03-05",
    description: "",
    tags: ["research/source"],
    provider: "brave",
    retrieved: "2026-03-05T12:00:00.000Z",
    query: "q",
    extractStatus: { kind: "extracted" },
    tracePath: "Research/Traces/t.md",
    excerpt: null,
    extracted: "Body.",
    notes: [],
  };

  it("links the trace note when there is one, and writes no empty link when the run wrote none", () => {
    const withTrace = renderSourceNote(base);
    expect(parseNote("n.md", withTrace).frontmatter.trace).toBe("[[Research/Traces/t]]");
    expect(withTrace).toContain("[[Research/Traces/t|a research run]]");
    const without = renderSourceNote({ ...base, tracePath: null });
    expect(parseNote("n.md", without).frontmatter.trace).toBeUndefined();
    expect(without).not.toContain("[[]]");
    expect(without).not.toContain("[[|");
    expect(without).toContain("no trace note was written");
  });

  it("keeps hostile page text in properties as plain YAML strings that parse back unchanged", () => {
    const title = 'Evil: "quoted" [[link]] #tag\n---\nsource: https://spoof.example';
    const note = renderSourceNote({ ...base, title, description: "a: b\n- c", authors: ["X, Y", "[[Z]]"] });
    const fm = parseNote("n.md", note).frontmatter;
    expect(fm.source).toBe("https://example.org/a");
    expect(fm.title).toBe('Evil: "quoted" [link] #tag --- source: https://spoof.example');
    expect(fm.description).toBe("a: b - c");
    expect(fm.author).toEqual(["X, Y", "[Z]"]);
    expect(note.match(/^---$/gm)).toHaveLength(2);
  });
});
