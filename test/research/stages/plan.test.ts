import { describe, expect, it } from "vitest";
import { namedTerms, planQuestion } from "../../../src/research/stages/plan";
import { queryPlanSchema } from "../../../src/evidence/research-pack";
import { STOP_WORDS } from "../../../src/index/stopwords";
import type { Clock } from "../../../src/ports";

const at = (iso: string): Clock => ({ now: () => Date.parse(iso), sleep: async () => undefined });
const plan = (q: string, history: string[] = []) => planQuestion(q, { history, currentYear: 2026 });

describe("planQuestion", () => {
  it("keeps content terms in question order and drops stop words", () => {
    const p = plan("How do I extract a tar archive into another folder?");
    expect(p.terms).toEqual(["extract", "tar", "archive", "another", "folder"]);
    for (const term of p.terms) expect(STOP_WORDS.has(term)).toBe(false);
    expect(p.normalized).toBe("how do i extract a tar archive into another folder?");
  });

  it("keeps a word's marks in it: Hindi's vowel signs, Thai's tone marks", () => {
    expect(planQuestion("पनीर कैसे बनता है").terms).toEqual(expect.arrayContaining(["पनीर", "बनता"]));
    expect(planQuestion("पनीर कैसे बनता है").terms.every((t) => !["पन", "र", "क", "स"].includes(t))).toBe(true);
    expect(planQuestion("ขนมปังทำอย่างไร").terms.join(" ")).toContain("ขนมปัง");
  });

  it("requires topic words but not generic or time words", () => {
    const p = plan("What is the best way to compare the latest Obsidian sync options?");
    expect(p.required_terms).toEqual(["obsidian", "sync", "options"]);
    expect(p.terms).toContain("latest");
    expect(plan("How many days does the tart keep in the fridge?").required_terms).toEqual(["days", "tart", "fridge"]);
  });

  it("does not treat 'in my notes' as part of the topic", () => {
    const p = plan("What do my notes say about spaced repetition?");
    expect(p.required_terms).toEqual(["spaced", "repetition"]);
    expect(p.provider_queries[0]).not.toMatch(/notes/i);
  });

  it("keeps 'the note' when a note is the topic, not where to look", () => {
    expect(plan("delete a task from the note when I complete it").required_terms).toEqual(["delete", "task", "note", "complete"]);
    expect(plan("What is in the vault about spaced repetition?").required_terms).toEqual(["spaced", "repetition"]);
    expect(plan("according to my note, when is the deadline?").required_terms).toEqual(["deadline"]);
    expect(plan("According to the note, when is the deadline?").required_terms).toEqual(["deadline"]);
    expect(plan("What is in the note about the deadline?").required_terms).toEqual(["deadline"]);
  });

  it("keeps 'notes' when notes are the topic", () => {
    expect(plan("How do I keep my notes private?").required_terms).toEqual(["notes", "private"]);
  });

  it("does not require the word a question relates two things with: it is the question's shape, not its subject", () => {
    expect(plan("how do libraries relate to repositories in SilverBullet?").required_terms).toEqual(["libraries", "repositories", "silverbullet"]);
    expect(plan("how do group by function and sort by function differ?").required_terms).toEqual(["group", "function"]);
    expect(plan("how do siteUrl and assetsPrefix work together?").required_terms).toEqual(["siteurl", "assetsprefix"]);
    expect(plan("what is the relationship between libraries and repositories?").required_terms).toEqual(["libraries", "repositories"]);
    expect(plan("how are tags and folders related?").required_terms).toEqual(["tags", "folders"]);
    // Still asked for where nothing is related, or inside a side: there it may be the subject.
    expect(plan("what does a relation object hold?").required_terms).toEqual(["relation", "object", "hold"]);
    expect(plan("squash the last commits together").required_terms).toContain("together");
    expect(plan("how does the relation object relate to the link object?").required_terms).toEqual(["relation", "object", "link"]);
  });

  it("picks out #tags and quoted phrases", () => {
    const p = plan('Which #project/alpha notes mention "error budget" or “burn rate”?');
    expect(p.tags).toEqual(["project/alpha"]);
    expect(p.phrases).toEqual(["error budget", "burn rate"]);
    expect(p.required_terms).toEqual(expect.arrayContaining(["error", "budget", "burn", "rate"]));
    expect(p.required_terms).not.toContain("project");
  });

  it("keeps a tag's combining marks in the tag (Hindi's vowel signs, Thai's tone marks)", () => {
    const hindi = plan("#पनीर recipes");
    expect(hindi.tags).toEqual(["पनीर"]);
    expect(hindi.terms).toEqual(["recipes", "पनीर"]);
    expect(plan("notes tagged #ไม้เอก").tags).toEqual(["ไม้เอก"]);
    expect(plan("#पनीर recipes").provider_queries).toEqual(["पनीर recipes"]);
  });

  it("reads '#123' as an issue number the notes must hold, not as a tag", () => {
    const p = plan("what was the decision on issue #123");
    expect(p.tags).toEqual([]);
    expect(p.required_terms).toContain("123");
    expect(plan("#2024-review notes").tags).toEqual(["2024-review"]);
  });

  it("takes no quoted run of no words for a phrase, so the judge is not sure of 'what is it \"—\"'", () => {
    expect(plan('filters "—" and "!!!"').phrases).toEqual([]);
    expect(plan('the "1982" tour').phrases).toEqual(["1982"]);
  });

  it.each([
    ["What is the latest version of Dataview?", "latest"],
    ["Is this plugin still supported today?", "today"],
    ["What changed in Obsidian Sync?", "what changed"],
    ["How is the project currently organised?", "currently"],
    ["Where do things stand as of now?", "as of now"],
    ["Is my setup up to date?", "up to date"],
    ["Which releases came out this year?", "this year"],
  ])("flags %j as a question about the current state", (question, cue) => {
    const p = plan(question);
    expect(p.freshness.flagged).toBe(true);
    expect(p.freshness.cues).toContain(cue);
  });

  it.each([
    "apply one commit from another branch onto my current branch",
    "where can I see which pages link to the current page",
    "open today's daily note in foam",
    "CSS snippet to colour tasks due today",
    "logseq query for tasks scheduled this week",
  ])("does not flag %j: the cue qualifies something in the user's own workspace", (question) => {
    expect(plan(question).freshness.flagged).toBe(false);
  });

  it("still flags the same cue words when they ask about the world", () => {
    expect(plan("What are the current download numbers of Automerge on npm?").freshness.cues).toEqual(["current"]);
    expect(plan("What happened in local-first software today?").freshness.cues).toEqual(["today"]);
  });

  it("does not flag a timeless question, nor words that merely contain a cue", () => {
    expect(plan("How does the Zettelkasten method link ideas?").freshness).toEqual({ flagged: false, cues: [] });
    expect(plan("Which currents run through the strait?").freshness.flagged).toBe(false);
  });

  it("flags a year from the clock's current year on, not earlier ones", () => {
    const clock = at("2026-03-01T00:00:00Z");
    expect(planQuestion("Kubernetes release notes 2026", { clock }).freshness).toEqual({ flagged: true, cues: ["2026"] });
    expect(planQuestion("Kubernetes release notes 2027", { clock }).freshness.flagged).toBe(true);
    expect(planQuestion("Kubernetes release notes 2019", { clock }).freshness.flagged).toBe(false);
    expect(planQuestion("Kubernetes release notes 2026", { clock: at("2030-01-01T00:00:00Z") }).freshness.flagged).toBe(false);
  });

  it("builds one provider query from the question alone for a timeless question", () => {
    const p = plan("According to my notes, how do I extract a #tar archive?");
    expect(p.provider_queries).toEqual(["how do I extract a tar archive?"]);
  });

  it("adds a keyword query pinned to the current year for a freshness question", () => {
    const p = plan('What is the latest "Local REST API" plugin release?');
    expect(p.provider_queries).toHaveLength(2);
    expect(p.provider_queries[1]).toBe('"local rest api" plugin release 2026');
  });

  it("builds provider queries only from words of the question (plus the year)", () => {
    const question = "What changed recently in the Obsidian Tasks plugin's recurrence rules?";
    const allowed = new Set([...question.toLowerCase().match(/[a-z0-9]+/g)!, "2026"]);
    for (const query of plan(question).provider_queries) {
      for (const word of query.toLowerCase().match(/[a-z0-9]+/g)!) expect(allowed).toContain(word);
    }
  });

  it("keeps long questions to a bounded provider query", () => {
    const p = plan(`Explain ${"very ".repeat(200)}long things`);
    expect(p.provider_queries[0].length).toBeLessThanOrEqual(300);
  });

  it("lets a follow-up borrow context terms from the previous question, marked apart", () => {
    const p = plan("And what about its licence?", ["How does Syncthing sync notes between devices?"]);
    expect(p.context_terms).toEqual(["syncthing", "sync", "notes", "devices"]);
    expect(p.required_terms).toEqual(["licence"]);
    expect(p.terms).not.toContain("syncthing");
  });

  it("does not borrow context for a question that stands on its own", () => {
    const p = plan("How do I configure Dataview inline queries?", ["How does Syncthing sync notes between devices?"]);
    expect(p.context_terms).toEqual([]);
  });

  it("keeps provider queries free of context borrowed from earlier questions", () => {
    const p = plan("And what about its licence?", ["How does Syncthing sync notes between devices?"]);
    for (const query of p.provider_queries) expect(query.toLowerCase()).not.toContain("syncthing");
  });

  it("produces a plan that satisfies the pack schema, even for an empty question", () => {
    for (const q of ["", "?", "the of and", "What is new in 2026?"]) {
      expect(queryPlanSchema.safeParse(plan(q)).success).toBe(true);
    }
  });
});

describe("namedTerms", () => {
  const names = (q: string) => namedTerms(plan(q));

  it("reads a capital that does not start a sentence as a name, and an inner capital anywhere", () => {
    expect(names("How do I sync Obsidian Tasks with Microsoft To Do?")).toEqual(["obsidian", "tasks", "microsoft"]);
    expect(names("Can foam grep search inside PDF attachments?")).toEqual(["pdf"]);
    expect(names("How do I configure SilverBullet's AI assistant?")).toEqual(["silverbullet", "ai"]);
    expect(names("macOS: grab the screen. Then crop it")).toEqual(["macos"]);
  });

  it("does not read the first word of a sentence, one-letter words or stop words as names", () => {
    expect(names("Where is the screenshot? Dendron keeps it")).toEqual([]);
    expect(names("show the word high instead of H for a task's priority")).toEqual([]);
    expect(names("I think The Archive has it")).toEqual(["archive"]);
  });

  it("reads nothing from a question in Title Case or capitals, whose capitals say nothing (three content words or more)", () => {
    expect(names("How To Sync Tasks With Calendar")).toEqual([]);
    expect(names("How to Sync Tasks with Calendar")).toEqual([]);
    expect(names("HOW DO I SYNC TASKS WITH CALENDAR")).toEqual([]);
    // Two capitalised words are names: too few to call it Title Case.
    expect(names("Compare Dendron and Foam")).toEqual(["dendron", "foam"]);
  });

  it("reads no names from a German question, where every noun has a capital", () => {
    expect(names("Wie kann ich Aufgaben mit dem Kalender synchronisieren?")).toEqual([]);
    expect(names("Welche Plugins brauche ich für Zotero?")).toEqual([]);
    // One word German and English share ("die", "im") is not enough.
    expect(names("why do Syncthing transfers die im the middle")).toEqual(["syncthing"]);
  });

  it("starts a sentence at a new line or list item, and not after an abbreviation's dot", () => {
    expect(names("- Install the plugin\n- Configure sync for tasks")).toEqual([]);
    expect(names("Sync my calendar\nExport upcoming events")).toEqual([]);
    expect(names("Obsidian vs. Logseq for daily notes")).toEqual(["logseq"]);
    expect(names("use a manager, e.g. Zotero, for references")).toEqual(["zotero"]);
    expect(names("MICROSOFT'S sync api")).toEqual(["microsoft"]);
  });
});
