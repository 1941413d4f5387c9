// The notes a question names: titles, file names and aliases of two words or more, said word for
// word; the longest of overlapping names, none of a name too many notes share, and names that
// leave with their notes.
import { describe, expect, it } from "vitest";
import { parseQuery } from "../../../src/index/query";
import { fileName, MAX_NAMED, MAX_NOTES_A_NAME, nameKey, NoteNames, type NoteCalled } from "../../../src/index/ranking/note-names";

const note = (path: string, title = fileName(path), aliases: string[] = []): NoteCalled => ({ path, title, aliases });
const named = (names: NoteNames, question: string) => names.namedIn(parseQuery(question).sequence);

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

describe("NoteNames", () => {
  it("finds a note by its title, its file name or an alias, said anywhere in the question", () => {
    const names = new NoteNames();
    names.add(note("References/Out of Control.md"));
    names.add(note("common/git-stash.md", "git stash"));
    names.add(note("pkm.md", "Notes", ["Personal Knowledge Management"]));
    names.add(note("daily/2024-05-01.md", "Wednesday"));
    expect(named(names, "who wrote Out of Control and how many pages is it?")).toEqual([{ path: "References/Out of Control.md", name: "out of control" }]);
    expect(named(names, "git-stash including untracked files")).toEqual([{ path: "common/git-stash.md", name: "git stash" }]);
    expect(named(names, "what is personal knowledge management")).toEqual([{ path: "pkm.md", name: "personal knowledge management" }]);
    expect(named(names, "what did I do on 2024-05-01")).toEqual([{ path: "daily/2024-05-01.md", name: "2024 05 01" }]);
    // Part of a name is not the name; the words must come in its order.
    expect(named(names, "out of patience")).toEqual([]);
    expect(named(names, "control out of")).toEqual([]);
  });

  it("takes the longest of two names that overlap, and both of two apart", () => {
    const names = new NoteNames();
    names.add(note("docker-compose.md"));
    names.add(note("docker-compose-stop.md"));
    names.add(note("docker-volume.md"));
    expect(named(names, "docker compose stop and remove volumes").map((n) => n.path)).toEqual(["docker-compose-stop.md"]);
    expect(named(names, "docker compose or docker volume").map((n) => n.path)).toEqual(["docker-compose.md", "docker-volume.md"]);
  });

  it("lets no name shared by too many notes name any of them, and gives at most a few", () => {
    const names = new NoteNames();
    for (let i = 0; i <= MAX_NOTES_A_NAME; i++) names.add(note(`folder${i}/Getting Started.md`));
    expect(named(names, "getting started")).toEqual([]);
    names.remove(note("folder0/Getting Started.md"));
    expect(named(names, "getting started")).toHaveLength(MAX_NOTES_A_NAME);
    for (let i = 0; i <= MAX_NAMED; i++) names.add(note(`n${i}.md`, `alpha${i} beta`));
    const question = Array.from({ length: MAX_NAMED + 1 }, (_, i) => `alpha${i} beta`).join(" and ");
    expect(named(names, question)).toHaveLength(MAX_NAMED);
  });

  it("forgets a note's names when it leaves, keeping those another note shares", () => {
    const names = new NoteNames();
    const a = note("a/Meeting Notes.md");
    const b = note("b/Meeting Notes.md", "Meeting Notes", ["Weekly Sync"]);
    names.add(a);
    names.add(b);
    names.add(b); // added twice: still once
    expect(named(names, "meeting notes").map((n) => n.path)).toEqual(["a/Meeting Notes.md", "b/Meeting Notes.md"]);
    names.remove(b);
    expect(named(names, "meeting notes").map((n) => n.path)).toEqual(["a/Meeting Notes.md"]);
    expect(named(names, "weekly sync")).toEqual([]);
    names.remove(a);
    names.remove(a);
    expect(named(names, "meeting notes")).toEqual([]);
    names.add(a);
    names.clear();
    expect(named(names, "meeting notes")).toEqual([]);
  });

  it("keeps only the notes a filter lets through", () => {
    const names = new NoteNames();
    names.add(note("work/Blade Runner.md"));
    names.add(note("home/Blade Runner.md"));
    expect(names.namedIn(parseQuery("who directed blade runner").sequence, (path) => path.startsWith("home/"))).toEqual([{ path: "home/Blade Runner.md", name: "blade runner" }]);
  });
});
