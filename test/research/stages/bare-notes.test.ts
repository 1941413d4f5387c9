// A note that says nothing beyond its name (a stub, an empty file, a template, an outline, embeds
// only) is found by search as before, but the judge does not call it enough: its title is the
// question's words, not an answer (bare-notes.ts). Properties and short real answers are content.
import { describe, expect, it } from "vitest";
import { createAnalyzer } from "../../../src/index/tokenize";
import { VaultIndex } from "../../../src/index/vault-index";
import { bareNote } from "../../../src/research/stages/bare-notes";
import { judgeEvidence } from "../../../src/research/stages/judge";
import { retrieveLocal } from "../../../src/research/stages/local-retrieval";
import { planQuestion } from "../../../src/research/stages/plan";
import { MemoryNoteStore } from "../../support/memory-note-store";

const plan = (q: string) => planQuestion(q, { currentYear: 2026 });
const analyzer = createAnalyzer({ stemming: true });

/** Notes that share no word with the questions: a vault is more than one note. */
const ELSEWHERE = { "Cooking.md": "# Cooking\n\nTomato soup needs salt and a slow simmer.", "Garden.md": "# Garden\n\nWater the roses in the morning." };

/** The pack's first note and the judge's verdict for `question` over `notes`. */
async function judged(notes: Record<string, string>, question: string) {
  const store = new MemoryNoteStore({ ...notes, ...ELSEWHERE });
  const index = new VaultIndex();
  await index.sync(store, null);
  const asked = plan(question);
  const local = await retrieveLocal(asked, index, store);
  return { first: local.rows[0]?.note_path, verdict: judgeEvidence(asked, local.results) };
}

const FILM = '---\ncategories:\n  - "[[Movies]]"\ngenre:\n  - "[[Sci-fi]]"\ndirector:\n  - "[[Ridley Scott]]"\ncast:\n  - "[[Harrison Ford]]"\nrating: 7\nyear: 1982\nimdbId: tt0083658\n---\n\n';

describe("a note that says nothing beyond its name, before the judge", () => {
  it("a stub whose title is the question is found first but is weak evidence, and the reason says it is a stub", async () => {
    const { first, verdict } = await judged({ "Default location.md": "# Default location\n\nTODO" }, "what is the default location?");
    expect(first).toBe("Default location.md");
    expect(verdict).toMatchObject({ verdict: "weak_evidence", figures: { decidedBy: "bare_note", bestPath: "Default location.md" } });
    expect(verdict.reason).toBe('Partial evidence: "Default location" has "default" and "location" (100% of the question\'s weight), but says nothing of its own: it is a stub ("TODO").');
    expect(verdict.reason).not.toContain("one passage");
  });

  it.each([
    ["an empty file with the question's name", "", "the note is empty but for its title"],
    ["a title heading and nothing under it", "# Default location\n", "the note is empty but for its title"],
    ["an outline of empty headings", "# Default location\n\n## Attachments\n\n## New notes\n\n## Templates\n", "it is headings with nothing under them"],
    ["a template of placeholders and their labels", "# Default location\n\nCreated: {{date}}\n\n<% tp.file.title %>\n", 'it is a template\'s placeholders ("{{date}}")'],
    ["a body that only embeds another note", "# Default location\n\n![[Other note]]\n", 'it only embeds other notes or files ("![[Other note]]"), which were not read'],
    ["a body of links to other notes", "# Default location\n\n- [[Attachments]]\n- [[New notes]]\n", "it is only links to other notes"],
    ["a body that is only a Tasks query", "# Default location\n\n```tasks\nnot done\npath includes default location settings\n```\n", 'it only runs a query ("tasks"), whose results were not read'],
    // A heading and one line that promises the text, with no mark a word long.
    ["a line that promises the text later", "# Default location\n\nThis page will explain that later.\n", 'it is a stub ("will explain that later")'],
    // The to-do says what the answer will be about, in many words of the question's own.
    ["a to-do line of what is still to be written", "# Default location\n\nTODO: write down where new attachments go and how to change the folder for them.\n", 'it is a stub ("TODO")'],
    ["a form whose fields were never filled in", "# Default location\n\n## Folder\n\nPath:\n- **Changed on:**\nsource::\n", 'it is a form whose fields are empty ("Path:")'],
  ])("%s is found but not enough evidence", async (_, text, what) => {
    const { first, verdict } = await judged({ "Default location.md": text }, "what is the default location?");
    expect(first).toBe("Default location.md");
    expect(verdict).toMatchObject({ verdict: "weak_evidence", figures: { decidedBy: "bare_note" } });
    expect(verdict.reason).toContain(`says nothing of its own: ${what}.`);
  });

  it("a short real answer under the same title stays enough", async () => {
    const { verdict } = await judged({ "Default location.md": "# Default location\n\nDefault location: the vault's root folder." }, "what is the default location?");
    expect(verdict).toMatchObject({ verdict: "enough_evidence", figures: { decidedBy: "one_section" } });
  });

  it.each([["Blade Runner director"], ["what genre is Blade Runner?"], ["Blade Runner cast"]])("a note that is nothing but properties stays enough: %s", async (question) => {
    const { verdict } = await judged({ "References/Blade Runner.md": FILM }, question);
    expect(verdict).toMatchObject({ verdict: "enough_evidence", figures: { bestPath: "References/Blade Runner.md" } });
  });

  it("another top note that answers is enough, the stub named after the question notwithstanding", async () => {
    const { verdict } = await judged(
      { "Default location.md": "# Default location\n\nTODO", "Files.md": "# Files\n\nThe default location of attachments is the vault's root folder; change it in settings." },
      "what is the default location?",
    );
    expect(verdict).toMatchObject({ verdict: "enough_evidence", figures: { bestPath: "Files.md" } });
  });
});

describe("bareNote", () => {
  it("names what a bare note holds", () => {
    expect(bareNote("a.md", "# A\n\nTODO", analyzer)).toEqual({ kind: "stub", mark: "TODO" });
    expect(bareNote("a.md", "# A\n\nTODO: write this", analyzer)).toEqual({ kind: "stub", mark: "TODO" });
    expect(bareNote("a.md", "# A\n\nComing soon.", analyzer)).toEqual({ kind: "stub", mark: "Coming soon" });
    expect(bareNote("a.md", "%% draft %%\n<!-- later -->\n", analyzer)).toEqual({ kind: "empty" });
    // Dendron's stubs: bookkeeping properties and nothing else.
    expect(bareNote("dendron.topic.md", "---\nid: x1\ntitle: Topic\ndesc: ''\nupdated: 1\ncreated: 1\nstub: true\n---\n\n", analyzer)).toEqual({ kind: "empty" });
    // A Logseq page of its name and aliases only.
    expect(bareNote("pages/Toolbar.md", "title:: Toolbar\nalias:: Tool bar\n\n-", analyzer)).toEqual({ kind: "empty" });
    // A property whose value is a placeholder is the template's, not the note's.
    expect(bareNote("Movie Template.md", "---\ngenre: \"{{genre}}\"\nlast: \"{{date}}\"\n---\n", analyzer)).toEqual({ kind: "template", placeholder: "{{genre}}" });
  });

  it("reads a note's properties, short answers and written-down placeholders as its own words", () => {
    expect(bareNote("References/Blade Runner.md", FILM, analyzer)).toBeNull();
    expect(bareNote("Default location.md", "# Default location\n\nDefault location: the vault's root folder.", analyzer)).toBeNull();
    expect(bareNote("Default port.md", "# Default port\n\n8080", analyzer)).toBeNull();
    expect(bareNote("Date placeholder.md", "# Date placeholder\n\nWrite `{{date}}` for today's date.", analyzer)).toBeNull();
    expect(bareNote("pages/Right sidebar.md", "type:: [[UI Element]]", analyzer)).toBeNull();
    expect(bareNote("a.md", "# A\n\nTODO: the default location is the vault's root folder.", analyzer)).toBeNull();
    // A mark that is the note's subject, a field with its value, a label over what it labels: the note's words.
    expect(bareNote("Task markers.md", "# Task markers\n\nTODO: marks a task not yet started.", analyzer)).toBeNull();
    expect(bareNote("Task markers.md", "# Task markers\n\nTODO is the marker of a task nobody has begun; DONE marks one finished.", analyzer)).toBeNull();
    expect(bareNote("Review.md", "# Review\n\nStatus: done\nOwner: Ana\n", analyzer)).toBeNull();
    expect(bareNote("Review.md", "# Review\n\nSteps:\n\n1. Empty the inbox.\n2. Plan the week.\n", analyzer)).toBeNull();
    expect(bareNote("Review.md", "# Review\n\n```yaml\nstatus:\nowner:\n```\n", analyzer)).toBeNull();
    // A query written down inside another code block is a note about queries; prose beside a query is the note's.
    expect(bareNote("Queries.md", "# Queries\n\n````text\n```tasks\nnot done\ndue before tomorrow\n```\n````\n", analyzer)).toBeNull();
    expect(bareNote("Open tasks.md", "# Open tasks\n\nEverything due this week.\n\n```dataview\nTASK FROM #project\n```\n", analyzer)).toBeNull();
    expect(bareNote("Open tasks.md", "# Open tasks\n\n```dataview\nTASK FROM #project WHERE !completed\n```\n", analyzer)).toEqual({ kind: "query", language: "dataview" });
    // A comment or a placeholder never closed hides nothing.
    expect(bareNote("a.md", "# A\n\n%% the default location is the vault's root", analyzer)).toBeNull();
    expect(bareNote("a.md", "# A\n\n{{ the default location is the vault's root", analyzer)).toBeNull();
  });

  it.each([
    ["in a block quote", "# A\n\n> ```tasks\n> not done\n> path includes projects\n> ```\n"],
    ["in a list item", "# A\n\n- ```tasks\n  not done\n  path includes projects\n  ```\n"],
    ["under a line that holds a code span of three backticks", "# A\n\n```a`b`\n```tasks\nnot done\npath includes projects\n```\n"],
    ["holding a line that looks like a closer and is none (```, then a backtick)", "# A\n\n```tasks\nnot done\n``` `\npath includes projects\n```\n"],
    ["closed by a longer tilde run, as CommonMark closes it", "# A\n\n~~~tasks\nnot done\n~~~~\n"],
    ["with CRLF line ends", "# A\r\n\r\n```tasks\r\nnot done\r\npath includes projects\r\n```\r\n"],
  ])("a body that is only a Tasks query %s is bare, as Obsidian shows it", (_, text) => {
    expect(bareNote("a.md", text, analyzer)).toEqual({ kind: "query", language: "tasks" });
  });

  it("a query block quoted inside a longer fence, or indented as code, is the note's own words", () => {
    expect(bareNote("a.md", "# A\n\n~~~~markdown\n~~~tasks\nnot done\n~~~\n~~~~\n", analyzer)).toBeNull();
    expect(bareNote("a.md", "# A\n\n    ```tasks\n    not done here\n    ```\n", analyzer)).toBeNull();
  });

  it("reads a body of unclosed markers once, however many it holds", () => {
    const many = `# A\n\n${"<%".repeat(50_000)}\n${"{{".repeat(50_000)}\n${"![[".repeat(50_000)}\n${"<!--".repeat(50_000)} the vault's root`;
    expect(bareNote("a.md", many, analyzer)).toBeNull();
  });
});
