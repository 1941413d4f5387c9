// The dial's filters: a tag is read as a note's tags are kept, so an agent's spelling of a tag finds
// the notes the query's own `#tag` finds.
import { describe, expect, it } from "vitest";
import { normalizeFilters, passesFilters } from "../../../src/index/dial/dial-filters";
import { parseNote } from "../../../src/index/markdown";
import type { IndexedNote } from "../../../src/index/types";

function indexed(path: string, text: string): IndexedNote {
  const { title, aliases, tags, sourceUrls, problems } = parseNote(path, text);
  return { path, mtime: 1, size: text.length, title, aliases, tags, sourceUrls, problems };
}

const alpha = indexed("Work/alpha.md", "---\ntags: [Project/Alpha]\n---\nThe plan.\n");

describe("tag filters", () => {
  it.each([["project"], ["#project"], ["project/"], ["##Project"], [" Project "], ["project//alpha"], ["#project/alpha/"]])("%s finds a note tagged #project/alpha", (tag) => {
    expect(passesFilters(alpha, normalizeFilters({ tags: [tag] }))).toBe(true);
  });

  it("spells each tag once, as notes' tags are kept", () => {
    expect(normalizeFilters({ tags: ["project/", "#project", "/Project/Alpha/", "", "#", "/"] }).tags).toEqual(["project", "project/alpha"]);
  });

  it("still asks for every tag, and a tag the note lacks keeps it out", () => {
    expect(passesFilters(alpha, normalizeFilters({ tags: ["project", "alpha"] }))).toBe(false);
    expect(passesFilters(alpha, normalizeFilters({ tags: ["proj"] }))).toBe(false);
  });
});

describe("folder filters", () => {
  it("finds a note inside the folder, however its slashes are written, and no note beside it", () => {
    expect(passesFilters(alpha, normalizeFilters({ folders: ["/Work/"] }))).toBe(true);
    expect(passesFilters(alpha, normalizeFilters({ folders: ["Wor"] }))).toBe(false);
    expect(passesFilters(undefined, normalizeFilters({}))).toBe(false);
  });
});
