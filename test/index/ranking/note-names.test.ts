// The notes a question names: titles, file names and aliases of two words or more, said word for
// word; the longest of overlapping names, none of a name too many notes share, and no lookup of a
// word too many titles hold.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseQuery } from "../../../src/index/query";
import { fileName, MAX_NAMED, MAX_NOTES_A_NAME, MAX_NOTES_A_WORD, nameKey, namedIn, unicodeNameKey, type NameSource, type NoteCalled } from "../../../src/index/ranking/note-names";

const note = (path: string, title = fileName(path), aliases: string[] = []): NoteCalled => ({ path, title, aliases });

describe("nameKey", () => {
  it("keys a name by its folded words, parted at hyphens, underscores and apostrophes", () => {
    expect(nameKey("Out of Control")).toBe("out of control");
    expect(nameKey("git-stash")).toBe("git stash");
    expect(nameKey("docker_compose  Stop")).toBe("docker compose stop");
    expect(nameKey("Kevin Kelly’s list")).toBe("kevin kelly s list");
    expect(nameKey("Crème Brûlée")).toBe("creme brulee");
    expect(nameKey("custom.css")).toBe("custom css");
  });

  it("gives none to one word, to stop words alone, or to a sentence", () => {
    expect(nameKey("Tasks")).toBeNull();
    expect(nameKey("How to")).toBeNull();
    expect(nameKey("")).toBeNull();
    expect(nameKey("one two three four five six seven eight")).toBe("one two three four five six seven eight");
    expect(nameKey("one two three four five six seven eight nine")).toBeNull();
  });
});

describe("nameKey without a regular expression", () => {
  it("reads every ASCII name as the Unicode reading does", () => {
    // Words, separators and stop words often enough that many names have 2 to 8 words.
    const piece = fc.oneof(fc.constantFrom("of", "the", "Out", "git", "X2", "a", "-", "_", "'", " ", ".", "  ", "(", "#"), fc.stringMatching(/^[ -~]{0,4}$/));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const name = pieces.join("");
        expect(nameKey(name)).toBe(unicodeNameKey(name));
      }),
      { numRuns: 3000 },
    );
  });
});

/** The notes whose title, aliases or path hold the word, as the index's postings give them (a field past the limit unread). */
function sourceOf(notes: NoteCalled[]): NameSource & { asked: string[] } {
  const asked: string[] = [];
  const holds = (text: string, word: string) => text.toLowerCase().split(/[^a-z0-9]+/).includes(word);
  const field = (word: string, limit: number, text: (n: NoteCalled) => string) => {
    const called = notes.filter((n) => holds(text(n), word));
    return called.length > limit ? [] : called;
  };
  return {
    asked,
    notesCalled: (word, limit) => {
      asked.push(word);
      const called = [...field(word, limit, (n) => n.title), ...field(word, limit, (n) => n.aliases.join(" ")), ...field(word, limit, (n) => n.path)];
      return [...new Set(called)];
    },
  };
}

const named = (notes: NoteCalled[], question: string) => namedIn(parseQuery(question).sequence, sourceOf(notes));

describe("namedIn", () => {
  it("finds a note by its title, its file name or an alias, said anywhere in the question", () => {
    const notes = [note("References/Out of Control.md"), note("common/git-stash.md", "git stash"), note("pkm.md", "Notes", ["Personal Knowledge Management"]), note("daily/2024-05-01.md", "Wednesday"), note("Space Lua.md", "Definitions")];
    expect(named(notes, "who wrote Out of Control and how many pages is it?")).toEqual([{ path: "References/Out of Control.md", name: "out of control", whole: false }]);
    expect(named(notes, "git-stash including untracked files")).toEqual([{ path: "common/git-stash.md", name: "git stash", whole: false }]);
    expect(named(notes, "what is personal knowledge management")).toEqual([{ path: "pkm.md", name: "personal knowledge management", whole: true }]);
    expect(named(notes, "notes of 2024-05-01")).toEqual([{ path: "daily/2024-05-01.md", name: "2024 05 01", whole: false }]);
    // A first heading makes the title; the file name still names the note.
    expect(named(notes, "what is space lua")).toEqual([{ path: "Space Lua.md", name: "space lua", whole: true }]);
    // Part of a name is not the name; the words must come in its order.
    expect(named(notes, "out of patience")).toEqual([]);
    expect(named(notes, "control out of")).toEqual([]);
  });

  it("looks up only the question's words that are not stop words", () => {
    const source = sourceOf([note("References/Out of Control.md")]);
    namedIn(parseQuery("who wrote Out of Control").sequence, source);
    expect(source.asked).toEqual(["wrote", "control"]);
  });

  it("takes the longest of two names that overlap, and both of two apart", () => {
    const notes = [note("docker-compose.md"), note("docker-compose-stop.md"), note("docker-volume.md")];
    expect(named(notes, "docker compose stop and remove volumes").map((n) => n.path)).toEqual(["docker-compose-stop.md"]);
    expect(named(notes, "docker compose or docker volume").map((n) => n.path)).toEqual(["docker-compose.md", "docker-volume.md"]);
  });

  it("lets no name shared by too many notes name any of them, and gives at most a few", () => {
    const shared = Array.from({ length: MAX_NOTES_A_NAME + 1 }, (_, i) => note(`folder${i}/Getting Started.md`));
    expect(named(shared, "getting started")).toEqual([]);
    expect(named(shared.slice(1), "getting started")).toHaveLength(MAX_NOTES_A_NAME);
    const distinct = Array.from({ length: MAX_NAMED + 1 }, (_, i) => note(`n${i}.md`, `alpha${i} beta`));
    const question = distinct.map((n) => n.title).join(" and ");
    expect(named(distinct, question)).toHaveLength(MAX_NAMED);
  });

  it("finds no name made only of words more notes hold than the limit", () => {
    const common = Array.from({ length: MAX_NOTES_A_WORD }, (_, i) => note(`log/Meeting ${i}.md`));
    const notes = [...common, note("Weekly Meeting.md"), note("Meeting Room.md")];
    // "meeting" is looked up no more; "weekly" still finds its note, and "room" would.
    expect(named(notes, "notes of the weekly meeting").map((n) => n.path)).toEqual(["Weekly Meeting.md"]);
    expect(named(notes, "meeting meeting")).toEqual([]);
  });

  it("keeps only the notes a filter lets through", () => {
    const notes = [note("work/Blade Runner.md"), note("home/Blade Runner.md")];
    expect(namedIn(parseQuery("who directed blade runner").sequence, sourceOf(notes), (path) => path.startsWith("home/"))).toEqual([{ path: "home/Blade Runner.md", name: "blade runner", whole: false }]);
  });
});
