// The notes a question names: titles, file names and aliases of two words or more (or one in
// lowerCamelCase), said word for word; the longest of overlapping names, none of a name too many notes share, and no lookup of a
// word too many titles hold.
import { describe, expect, it } from "vitest";
import { parseQuery } from "../../../src/index/query";
import { fileTitle } from "../../../src/index/markdown";
import type { RankedHit } from "../../../src/index/ranking/explain";
import { VaultIndex } from "../../../src/index/vault-index";
import { MemoryNoteStore } from "../../support/memory-note-store";
import { liftNamed, MAX_CANDIDATES, MAX_NAMED, MAX_NOTES_A_NAME, MAX_NOTES_A_WORD, namedIn, nameWordsKey, type NameSource, type NoteCalled } from "../../../src/index/ranking/note-names";

const note = (path: string, title = fileTitle(path), aliases: string[] = []): NoteCalled => ({ path, title, aliases });

describe("nameWordsKey", () => {
  it("keys a name by its folded words, parted at hyphens, underscores and apostrophes", () => {
    expect(nameWordsKey("Out of Control")).toBe("out of control");
    expect(nameWordsKey("git-stash")).toBe("git stash");
    expect(nameWordsKey("docker_compose  Stop")).toBe("docker compose stop");
    expect(nameWordsKey("Kevin Kelly’s list")).toBe("kevin kelly s list");
    expect(nameWordsKey("Crème Brûlée")).toBe("creme brulee");
    expect(nameWordsKey("custom.css")).toBe("custom css");
  });

  it("gives none to one word, to stop words alone, or to a sentence", () => {
    expect(nameWordsKey("Tasks")).toBeNull();
    expect(nameWordsKey("How to")).toBeNull();
    expect(nameWordsKey("")).toBeNull();
    expect(nameWordsKey("one two three four five six seven eight")).toBe("one two three four five six seven eight");
    expect(nameWordsKey("one two three four five six seven eight nine")).toBeNull();
    expect(nameWordsKey(`a ${"b".repeat(500)}`)).toBeNull();
  });

  it("keys a name in a script written without spaces by its characters, measured in the words they make", () => {
    // Chinese: about two characters a word. "索引" (index) is one word, as "Tasks" is; "周杰伦" and
    // "机器学习" (machine learning) are names, as two English words are.
    expect(nameWordsKey("索引")).toBeNull();
    expect(nameWordsKey("周杰伦")).toBe("周 杰 伦");
    expect(nameWordsKey("机器学习")).toBe("机 器 学 习");
    expect(nameWordsKey("Git管理")).toBe("git 管 理");
    // Sixteen characters are eight words; eighteen are a sentence.
    expect(nameWordsKey("一二三四五六七八九十一二三四五六")).not.toBeNull();
    expect(nameWordsKey("一二三四五六七八九十一二三四五六七八")).toBeNull();
    // Kana and Thai: about three letters a word, a tone or vowel mark none. "コーヒー" (coffee) and
    // "ข้าว" (rice) are one word; "カレーライス" (curry rice) and "ข้าวผัดกุ้ง" (shrimp fried rice) are names.
    expect(nameWordsKey("コーヒー")).toBeNull();
    expect(nameWordsKey("ข้าว")).toBeNull();
    expect(nameWordsKey("カレーライス")).toBe("カ レ ー ラ イ ス");
    expect(nameWordsKey("ข้าวผัดกุ้ง")).toBe("ข้ า ว ผั ด กุ้ ง");
  });

  it("keys one word written in lowerCamelCase, as a setting or a function is named, and no other one word", () => {
    expect(nameWordsKey("assetsPrefix")).toBe("assetsprefix");
    expect(nameWordsKey("enableSmartRefs")).toBe("enablesmartrefs");
    expect(nameWordsKey("h1Title")).toBe("h1title");
    expect(nameWordsKey("`siteUrl`")).toBe("siteurl");
    // Brands and one-letter prefixes are not settings; a capital first or none inside is a word.
    for (const word of ["iPhone", "macOS", "eBay", "GitHub", "SilverBullet", "siteURL", "sitename", "Siteurl"]) expect(nameWordsKey(word)).toBeNull();
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
    notesHolding: (word) => notes.filter((n) => holds(`${n.title} ${n.aliases.join(" ")} ${n.path}`, word)).length,
    notesCalled: (word, limit) => {
      asked.push(word);
      const called = [...field(word, limit, (n) => n.title), ...field(word, limit, (n) => n.aliases.join(" ")), ...field(word, limit, (n) => n.path)];
      return [...new Set(called)];
    },
  };
}

const named = (notes: NoteCalled[], question: string) => namedIn(parseQuery(question), sourceOf(notes));

describe("namedIn", () => {
  it("finds a note by its title, its file name or an alias, said anywhere in the question", () => {
    const notes = [note("References/Out of Control.md"), note("common/git-stash.md", "git stash"), note("pkm.md", "Notes", ["Personal Knowledge Management"]), note("daily/2024-05-01.md", "Wednesday"), note("Space Lua.md", "Definitions")];
    expect(named(notes, "who wrote Out of Control and how many pages is it?")).toEqual([{ path: "References/Out of Control.md", name: "out of control", whole: false }]);
    expect(named(notes, "git-stash including untracked files")).toEqual([{ path: "common/git-stash.md", name: "git stash", whole: false }]);
    expect(named(notes, "what is personal knowledge management")).toEqual([{ path: "pkm.md", name: "personal knowledge management", whole: true }]);
    expect(named(notes, "notes of 2024-05-01")).toEqual([{ path: "daily/2024-05-01.md", name: "2024 05 01", whole: false }]);
    // A first heading makes the title; the file name still names the note.
    expect(named(notes, "what is space lua")).toEqual([{ path: "Space Lua.md", name: "space lua", whole: true }]);
    // A stop word written with an apostrophe asks nothing of the name, in either apostrophe.
    expect(named(notes, "What's Space Lua?")).toEqual([{ path: "Space Lua.md", name: "space lua", whole: true }]);
    expect(named(notes, "what’s space lua")).toEqual([{ path: "Space Lua.md", name: "space lua", whole: true }]);
    // Part of a name is not the name; the words must come in its order.
    expect(named(notes, "out of patience")).toEqual([]);
    expect(named(notes, "control out of")).toEqual([]);
  });

  it("finds a note called by one lowerCamelCase word when the question writes it so, not a plain word spelt alike", () => {
    const notes = [note("dendron.topic.publish.config.siteUrl.md", "siteUrl"), note("Site.md"), note("Url.md"), note("Devices/reMarkable.md")];
    expect(named(notes, "how do siteUrl and the custom domain work together?")).toEqual([{ path: "dendron.topic.publish.config.siteUrl.md", name: "siteurl", whole: false }]);
    expect(named(notes, "what is siteUrl")).toEqual([{ path: "dendron.topic.publish.config.siteUrl.md", name: "siteurl", whole: true }]);
    expect(named(notes, "sync notes to my reMarkable")).toEqual([{ path: "Devices/reMarkable.md", name: "remarkable", whole: false }]);
    // Written plainly, the word is a word: left to the title bonus.
    expect(named(notes, "what is siteurl")).toEqual([]);
    expect(named(notes, "a remarkable result")).toEqual([]);
    expect(named(notes, "the site url of my site")).toEqual([]);
  });

  it("looks up only the question's words that are not stop words, the rarest first", () => {
    const source = sourceOf([note("References/Out of Control.md"), note("Control Panel.md")]);
    namedIn(parseQuery("who took Out of Control"), source);
    expect(source.asked).toEqual(["took", "control"]);
    const other = sourceOf([note("References/Out of Control.md"), note("Control Panel.md"), note("Took.md"), note("Took Again.md"), note("Took It.md")]);
    namedIn(parseQuery("who took Out of Control"), other);
    expect(other.asked).toEqual(["control", "took"]);
  });

  it("reads at most so many notes, through the rarest words first, so a rare name is not crowded out", () => {
    // Three words each in a few thousand titles: more notes than are read, were they read first.
    const perWord = Math.min(MAX_NOTES_A_WORD, Math.ceil(MAX_CANDIDATES / 2));
    const common = ["plan", "meeting", "notes"].flatMap((word) => Array.from({ length: perWord }, (_, i) => note(`${word}/${word} ${i}.md`)));
    const notes = [...common, note("films/Blade Runner.md")];
    expect(named(notes, "plan meeting notes about blade runner")).toEqual([{ path: "films/Blade Runner.md", name: "blade runner", whole: false }]);
  });

  it("finds a name each place the question says it, beside a longer one that takes the first", () => {
    const notes = [note("git stash.md"), note("git stash list.md")];
    expect(named(notes, "git stash list or git stash").map((n) => n.path)).toEqual(["git stash list.md", "git stash.md"]);
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

  it("lifts the names of one note before a name two notes share, when there are more notes than are lifted", () => {
    const notes = [note("a/GitHub Pages.md"), note("b/GitHub Pages.md"), note("config.siteUrl.md", "siteUrl"), note("config.assetsPrefix.md", "assetsPrefix")];
    const found = named(notes, "publishing to GitHub Pages: how do siteUrl and assetsPrefix work together?");
    expect(MAX_NAMED).toBe(3);
    expect(found.map((n) => n.path)).toEqual(["config.siteUrl.md", "config.assetsPrefix.md", "a/GitHub Pages.md"]);
    // With room for all, every name still counts.
    expect(named(notes.slice(1), "GitHub Pages with siteUrl").map((n) => n.path)).toEqual(["b/GitHub Pages.md", "config.siteUrl.md"]);
  });

  it("finds no name made only of words more notes hold than the limit", () => {
    const common = Array.from({ length: MAX_NOTES_A_WORD }, (_, i) => note(`log/Meeting ${i}.md`));
    const notes = [...common, note("Weekly Meeting.md"), note("Meeting Room.md")];
    // "meeting" is looked up no more; "weekly" still finds its note, and "room" would.
    expect(named(notes, "notes of the weekly meeting").map((n) => n.path)).toEqual(["Weekly Meeting.md"]);
    expect(named(notes, "meeting meeting")).toEqual([]);
  });

  it("reads a note's first aliases only, and no name from a title too long to be one", () => {
    const aliases = Array.from({ length: 100 }, (_, i) => `alias number${i}`);
    const notes = [note("many.md", "Many", aliases), note("long.md", `blade runner ${"x ".repeat(300)}`)];
    expect(named(notes, "alias number10").map((n) => n.path)).toEqual(["many.md"]);
    expect(named(notes, "alias number99")).toEqual([]);
    expect(named(notes, "blade runner")).toEqual([]);
  });

  it("keeps only the notes a filter lets through", () => {
    const notes = [note("work/Blade Runner.md"), note("home/Blade Runner.md")];
    expect(namedIn(parseQuery("who directed blade runner"), sourceOf(notes), (path) => path.startsWith("home/"))).toEqual([{ path: "home/Blade Runner.md", name: "blade runner", whole: false }]);
  });
});

describe("liftNamed", () => {
  const hit = (path: string, score: number): RankedHit => ({
    path,
    score,
    docTerms: new Map(),
    explanation: { matchedTerms: [], missingTerms: [], fields: {}, parts: [], termWeights: {}, termNotes: {} },
  });
  const order = (hits: RankedHit[]) => hits.map((h) => `${h.path}:${h.score}`);

  it("puts a named note at its place among the others even when the notes above tie", () => {
    const hits = [hit("a.md", 8), hit("b.md", 8), hit("c.md", 8), hit("d.md", 8), hit("named.md", 2)];
    expect(order(liftNamed(hits, [{ path: "named.md", name: "the unit", whole: false }], 2))).toEqual(["a.md:8", "b.md:8", "named.md:8", "c.md:8", "d.md:8"]);
  });

  it("leaves a named note that ranks higher already where it is, and puts a whole name first, kept first", () => {
    const hits = [hit("a.md", 9), hit("named.md", 7), hit("b.md", 5), hit("c.md", 4)];
    const part = liftNamed(hits, [{ path: "named.md", name: "x y", whole: false }], 2);
    expect(order(part)).toEqual(["a.md:9", "named.md:7", "b.md:5", "c.md:4"]);
    expect(part[1].explanation.parts).toEqual([]);
    const whole = liftNamed(hits, [{ path: "named.md", name: "x y", whole: true }], 2);
    expect(order(whole)).toEqual(["named.md:9", "a.md:9", "b.md:5", "c.md:4"]);
    expect(whole[0].keepFirst).toBe(true);
    expect(whole[0].explanation.parts).toEqual([{ name: "named in the question", detail: 'the question is its name, "x y"', weight: 2 }]);
    expect(whole.slice(1).some((h) => h.keepFirst)).toBe(false);
  });

  it("keeps two notes lifted to one place in the order of their own scores, and gives up on a place past the end", () => {
    const hits = [hit("a.md", 9), hit("b.md", 8), hit("c.md", 7), hit("n1.md", 3), hit("n2.md", 5)].sort((x, y) => y.score - x.score);
    const named = [{ path: "n1.md", name: "n one", whole: false }, { path: "n2.md", name: "n two", whole: false }];
    expect(order(liftNamed(hits, named, 1))).toEqual(["a.md:9", "n2.md:8", "n1.md:8", "b.md:8", "c.md:7"]);
    expect(order(liftNamed(hits, named, 5))).toEqual(["a.md:9", "b.md:8", "c.md:7", "n2.md:5", "n1.md:3"]);
  });
});

describe("named notes through the index", () => {
  it("names a note by a title in a script written without spaces, said inside a longer run, as an English title is", async () => {
    const store = new MemoryNoteStore({
      "Thai/Recipe.md": "# ข้าวผัดกุ้ง\n\nวิธีทำอาหารง่ายๆ\n",
      "Thai/Cooking.md": "# อาหารไทย\n\nข้าวผัด ข้าวผัด ข้าวผัดกุ้ง วิธีทำข้าวผัด ข้าวผัดอร่อย ทำข้าวผัดกุ้งอย่างไร\n",
      "Thai/Shrimp.md": "# กุ้ง\n\nกุ้ง กุ้ง ข้าวผัดกุ้ง วิธีทำ ข้าวผัดกุ้งอย่างไร\n",
      "Thai/Rice.md": "# ข้าว\n\nข้าวผัด ข้าวผัดกุ้ง ทำอย่างไร ข้าวผัดกุ้งอย่างไร\n",
      "AI/机器学习.md": "# 机器学习\n\n从数据中学习规律的方法。\n",
      "Notes/机器人.md": "# 机器人\n\n机器人的基本概念是什么？机器和机器人，机器学习。\n",
      "Notes/学习方法.md": "# 学习方法\n\n学习的基本方法：学习，复习，再学习。机器学习是什么？\n",
      "Notes/概念图.md": "# 概念图\n\n概念图的基本概念是什么？概念和概念图。\n",
    });
    const index = new VaultIndex({ ranking: { vaultLanguage: null } });
    await index.sync(store, null);
    const search = async (question: string) => (await index.search(question, store, { limit: 5 })).map((r) => ({ path: r.path, named: r.explanation.parts.find((p) => p.name === "named in the question")?.detail }));
    // "How do you make shrimp fried rice": the note called "shrimp fried rice" comes third, and says why.
    const thai = await search("ข้าวผัดกุ้งทำอย่างไร");
    expect(thai[2]).toEqual({ path: "Thai/Recipe.md", named: 'the question says "ข้าวผัดกุ้ง"' });
    // "What are the basic concepts of machine learning": the note called "machine learning" comes third.
    const chinese = await search("机器学习的基本概念是什么");
    expect(chinese[2]).toEqual({ path: "AI/机器学习.md", named: 'the question says "机器学习"' });
    // One word ("rice") names no note.
    expect((await search("ข้าว ทำอย่างไร")).some((r) => r.named !== undefined)).toBe(false);
  });

  it("lifts the notes of two settings a question names into the top five, past two notes called alike", async () => {
    const notes: Record<string, string> = {
      "config.siteUrl.md": "---\ntitle: siteUrl\n---\nThe URL the site is published under.",
      "config.assetsPrefix.md": "---\ntitle: assetsPrefix\n---\nA prefix for every URL of the site.",
      "dendron/GitHub Pages.md": "# GitHub Pages\n\nPublishing to GitHub Pages without a custom domain: set siteUrl and assetsPrefix, then publish.",
      "foam/GitHub Pages.md": "# GitHub Pages\n\nPublishing to GitHub Pages with a custom domain, or without one.",
    };
    // Notes that share more of the question's words than the two settings' notes do.
    for (let i = 0; i < 8; i++) notes[`Publishing ${i}.md`] = `# Publishing ${i}\n\nPublishing to GitHub Pages without a custom domain, and how the pages work together with siteUrl and assetsPrefix.`;
    const store = new MemoryNoteStore(notes);
    const index = new VaultIndex({ ranking: { vaultLanguage: null } });
    await index.sync(store, null);
    const top = (await index.search("when publishing to GitHub Pages without a custom domain, how do siteUrl and assetsPrefix work together?", store, { limit: 5 })).map((r) => r.path);
    expect(top).toContain("config.siteUrl.md");
    expect(top).toContain("config.assetsPrefix.md");
    // Written plainly, they are words, and the settings' notes stay where their words put them.
    const plain = (await index.search("when publishing to github pages without a custom domain, how do siteurl and assetsprefix work together?", store, { limit: 3 })).map((r) => r.path);
    expect(plain).not.toContain("config.assetsPrefix.md");
  });
});
