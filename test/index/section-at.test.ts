// A section a vector (or an earlier search) named is found again in the note as it reads now: by its
// heading path, never by its offsets alone, which in a note edited since name another section.
import { describe, expect, it } from "vitest";
import { parseNoteSafely } from "../../src/index/parse-note-safely";
import { sectionAt } from "../../src/index/section-at";
import { ShownNotes } from "../../src/index/shown-notes";

const WEEK = "# Week\n\n## Monday\n\nBread.\n\n## Tuesday\n\nBrakes.\n\n## Wednesday\n\nGardens.\n";

/** Where the index's parse of `text` puts the section under `heading`. */
function placeOf(text: string, heading: string) {
  const s = parseNoteSafely("Week.md", text).sections.find((x) => x.heading === heading);
  if (!s) throw new Error(`no ${heading}`);
  return s;
}

const shown = (text: string) => new ShownNotes().parse("Week.md", text);

describe("sectionAt", () => {
  it("finds the section at its place in an unchanged note", () => {
    expect(sectionAt(shown(WEEK), placeOf(WEEK, "Tuesday"))?.text).toBe("Brakes.");
  });

  it("finds it by its heading path when an edit moved it, and finds none once it is gone", () => {
    const tuesday = placeOf(WEEK, "Tuesday");
    expect(sectionAt(shown(WEEK.replace("## Monday\n\nBread.\n\n", "")), tuesday)?.text).toBe("Brakes.");
    expect(sectionAt(shown(WEEK.replace("## Tuesday\n\nBrakes.\n\n", "")), tuesday)).toBeUndefined();
  });

  it("takes the nearest of two sections of one heading path", () => {
    const twice = "# Log\n\n## Notes\n\nFirst.\n\n## Notes\n\nSecond.\n";
    const second = parseNoteSafely("Log.md", twice).sections[2];
    const edited = twice.replace("First.\n", "First.\nA line more.\n");
    expect(sectionAt(new ShownNotes().parse("Log.md", edited), second)?.text).toBe("Second.");
  });

  it("knows a heading the shown parse reads otherwise by its very span, and no other section by it", () => {
    const text = "# Shop\n\n## Q&amp;A\n\nReturns.\n";
    const place = placeOf(text, "Q&amp;A");
    expect(sectionAt(shown(text), place)?.text).toBe("Returns.");
    // Same characters but a heading of another depth: not that section.
    expect(sectionAt(shown(text), { ...place, headingPath: ["Q&amp;A"] })).toBeUndefined();
  });
});
