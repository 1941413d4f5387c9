// The evidence judge: behaviour on hand-made search results. Its quality floors on the labelled
// sets, counted on the note an enough rests on, are in test/eval/judge-quality-floors.test.ts;
// `npm run eval:judge -- --misses` shows which questions a change lost.
import { describe, expect, it } from "vitest";
import { DEFAULT_JUDGE, judgeEvidence } from "../../../src/research/stages/judge";
import { planQuestion } from "../../../src/research/stages/plan";
import type { SearchResult } from "../../../src/index/types";

/** A search result whose words were found where the test says. */
function result(path: string, found: { note: string[]; section: string[]; close?: string[]; title?: string[] }, weights: Record<string, number>, notes: Record<string, number> = {}): SearchResult {
  return {
    path,
    title: path,
    score: 10,
    tags: [],
    sections: [
      { heading: "", headingPath: [], level: 0, line: 1, start: 0, end: 10, snippet: "", highlights: [], matchedTerms: found.section, closeTerms: found.close ?? found.section, score: 1 },
    ],
    // As search explains it: every word it looked up (each word weighed) is matched or missing.
    explanation: { matchedTerms: found.note, missingTerms: Object.keys(weights).filter((w) => !found.note.includes(w)), fields: found.title ? { title: found.title } : {}, parts: [], termWeights: weights, termNotes: notes },
  };
}

const plan = (q: string) => planQuestion(q, { currentYear: 2026 });

describe("judgeEvidence", () => {
  it("says no evidence when nothing matched, naming what was looked for", () => {
    const j = judgeEvidence(plan("How do I rotate Kubernetes secrets?"), []);
    expect(j.verdict).toBe("no_evidence");
    expect(j.missing_terms.length).toBeGreaterThan(0);
  });

  it("is never sure of a question of common words only: a note titled 'What is New' does not answer 'what is it?'", () => {
    const found = [result("What is New.md", { note: [], section: [] }, {}), result("How To.md", { note: [], section: [] }, {})];
    for (const q of ["what is it?", "how", "?!"]) {
      const j = judgeEvidence(plan(q), found);
      expect(j.verdict).toBe("weak_evidence");
      expect(j.figures.decidedBy).toBe("common_words_only");
      expect(j.reason).not.toMatch(/tags or phrases/);
    }
    expect(judgeEvidence(plan("what is it?"), found).reason).toBe('The question has only common words ("what", "is" and "it"), so no note can be said to answer it; 2 notes matched only those.');
  });

  it("is enough when a question of tags or a quoted phrase only is matched: the match is the answer", () => {
    const found = [result("Hamlet.md", { note: [], section: [] }, {})];
    expect(judgeEvidence(plan('"to be or not to be"'), found)).toMatchObject({ verdict: "enough_evidence", figures: { decidedBy: "tags_or_phrases" } });
  });

  it("weighs a Chinese run by the character pairs the note shows, not whole for one pair the index matched", () => {
    // The index matches "冰箱温度" (fridge temperature) pair by pair and names the run matched when "冰箱" is found.
    const fridge = (snippet: string) => {
      const r = result("酵头.md", { note: ["冰箱温度"], section: ["冰箱温度"] }, { 冰箱温度: 1 });
      return { ...r, title: "酸面团酵头", sections: [{ ...r.sections[0], snippet }] };
    };
    const onlyFridge = judgeEvidence(plan("冰箱温度"), [fridge("两次烘焙之间把酵头放在冰箱里，每周喂一次。")]);
    expect(onlyFridge.verdict).toBe("weak_evidence");
    expect(onlyFridge.figures.noteCoverage).toBeCloseTo(1 / 3, 3);
    expect(onlyFridge.reason).toBe('Partial evidence: "酸面团酵头" covers only part of "冰箱温度" (33% of the question\'s weight).');
    expect(judgeEvidence(plan("冰箱温度"), [fridge("冰箱的温度应该在四度左右，冰箱温度不要太低。")]).verdict).toBe("enough_evidence");
  });

  it("says enough when one note holds all the content words close together", () => {
    const p = plan("extract a tar archive");
    const words = p.required_terms;
    const weights = Object.fromEntries(words.map((w) => [w, 2]));
    expect(judgeEvidence(p, [result("tar.md", { note: words, section: words }, weights)]).verdict).toBe("enough_evidence");
  });

  it("tells a note that only shares a keyword from one that answers: the rare missing word decides", () => {
    const p = plan("tar archive maximum size on zfs");
    const weights: Record<string, number> = { tar: 3, archive: 2, maximum: 1, size: 1, zfs: 6 };
    const sharesKeywords = result("tar.md", { note: ["tar", "archive", "maximum", "size"], section: ["tar", "archive", "maximum", "size"] }, weights);
    const j = judgeEvidence(p, [sharesKeywords]);
    expect(j.verdict).not.toBe("enough_evidence");
    expect(j.missing_terms).toContain("zfs");
  });

  it("wants the words together: spread over a long note they are only weak evidence", () => {
    const p = plan("publish graph epub ebook");
    const words = p.required_terms;
    const weights = Object.fromEntries(words.map((w) => [w, 2]));
    const spread = result("changelog.md", { note: words, section: words.slice(0, 1), close: words.slice(0, 1) }, weights);
    expect(judgeEvidence(p, [spread]).verdict).toBe("weak_evidence");
  });

  it("wants a count or an amount said in one place: spread over a section is weak for 'how many'", () => {
    const weights: Record<string, number> = { blocks: 2, logseq: 1, api: 2.5, return: 1, per: 1, request: 2 };
    const words = Object.keys(weights);
    // Every word in one section, no more than half of them close together: enough for a how-to…
    const spread = result("Changelog.md", { note: words, section: words, close: ["blocks", "api"] }, weights);
    const howTo = judgeEvidence(plan("get the logseq api to return blocks per request"), [spread]);
    expect(howTo.verdict).toBe("enough_evidence");
    expect(howTo.figures.decidedBy).toBe("spread_in_note");
    // …but not for how many.
    const count = judgeEvidence(plan("how many blocks does the logseq api return per request?"), [spread]);
    expect(count.verdict).toBe("weak_evidence");
    expect(count.figures.decidedBy).toBe("spread_out");
    expect(judgeEvidence(plan("how many blocks does the logseq api return per request?"), [spread], { ...DEFAULT_JUDGE, amountInOnePlace: false }).verdict).toBe("enough_evidence");
  });

  it("caps a question about the current state at weak evidence: notes record the past", () => {
    const p = plan("What changed in the latest Automerge release?");
    const words = p.required_terms;
    const weights = Object.fromEntries(words.map((w) => [w, 2]));
    const j = judgeEvidence(p, [result("Automerge.md", { note: words, section: words }, weights)]);
    expect(j.verdict).toBe("weak_evidence");
    expect(j.reason).toMatch(/current state/);
  });

  describe("an everyday word of the vault (its uses do not bunch together) counts little", () => {
    // "drop a screenshot straight from the clipboard into a note": the note has all but "straight",
    // a word this vault uses rarely (so it weighs much) and only ever once in passing.
    const p = plan("drop a screenshot straight from the clipboard into a note");
    const words = p.required_terms;
    const weights: Record<string, number> = { drop: 2, screenshot: 3, straight: 5, clipboard: 3, note: 0.5 };
    const clumping = { drop: { clumping: 0.9, notes: 40 }, screenshot: { clumping: 1.5, notes: 64 }, straight: { clumping: 0, notes: 6 }, clipboard: { clumping: 1.2, notes: 30 }, note: { clumping: 1.1, notes: 900 } };
    const has = words.filter((w) => w !== "straight");
    const answering = (vaultNotes: number, seen: Record<string, { clumping: number; notes: number }> = clumping) => {
      const r = result("add-images.md", { note: has, section: has }, weights);
      return { ...r, explanation: { ...r.explanation, termClumping: seen, vaultNotes } };
    };

    it("a note lacking only that word answers, and the reason says the word counts little", () => {
      expect(words).toContain("straight");
      const j = judgeEvidence(p, [answering(9000)]);
      expect(j.verdict).toBe("enough_evidence");
      expect(j.reason).toContain('"straight" is missing ("straight" counts little: this vault uses it as an everyday word)');
      // Without the spread of its uses, the same note is weak: the rare word decided.
      expect(judgeEvidence(p, [answering(9000)], { ...DEFAULT_JUDGE, unclumpedWeight: 1 }).verdict).toBe("weak_evidence");
    });

    it("not in a small vault, nor for a word seen in too few notes to tell", () => {
      expect(judgeEvidence(p, [answering(40)]).verdict).toBe("weak_evidence");
      expect(judgeEvidence(p, [answering(9000, { ...clumping, straight: { clumping: 0, notes: 1 } })]).verdict).toBe("weak_evidence");
    });

    it("a word asking for an extreme or a limit keeps its weight: 'the longest' is the point", () => {
      const q = plan("what is the longest page name silverbullet allows");
      const w: Record<string, number> = { longest: 7.75, page: 0.8, name: 1.6, silverbullet: 3.7, allows: 3.2 };
      const has2 = Object.keys(w).filter((x) => x !== "longest");
      const r = result("events.md", { note: has2, section: has2 }, w);
      const seen = Object.fromEntries(Object.keys(w).map((x) => [x, { clumping: x === "longest" ? 0 : 1.2, notes: 300 }]));
      expect(judgeEvidence(q, [{ ...r, explanation: { ...r.explanation, termClumping: seen, vaultNotes: 9000 } }]).verdict).not.toBe("enough_evidence");
    });
  });
});

describe("judgeEvidence: levers and reasons", () => {
  it("names a note on one line, even when its title property spans lines", () => {
    const p = plan("kiln firing schedule");
    const words = p.required_terms;
    const r = { ...result("kiln.md", { note: words, section: words }, Object.fromEntries(words.map((w) => [w, 2]))), title: "Kiln firing\n# Injected heading" };
    const j = judgeEvidence(p, [r]);
    expect(j.reason).not.toContain("\n");
    expect(j.reason).toMatch(/^"Kiln firing # Injected heading" covers/);
  });

  it("names the note and the words it covers, and says which are missing", () => {
    const p = plan("tar archive maximum size on zfs");
    const weights: Record<string, number> = { tar: 3, archive: 2, maximum: 1, size: 1, zfs: 6 };
    const j = judgeEvidence(p, [result("tar.md", { note: ["tar", "archive", "maximum", "size"], section: ["tar", "archive", "maximum", "size"] }, weights)]);
    expect(j.reason).toContain('"tar.md"');
    expect(j.reason).toMatch(/"zfs" is missing/);
    expect(j.figures.decidedBy).toBe("partial_coverage");
  });

  it("judges a two-part question on what two notes cover together, and names both", () => {
    const p = plan("what is the difference between foam grep and foam search");
    const weights: Record<string, number> = { foam: 2, grep: 3, search: 3 };
    const grep = result("grep.md", { note: ["foam", "grep"], section: ["foam", "grep"] }, weights);
    const search = result("search.md", { note: ["foam", "search"], section: ["foam", "search"] }, weights);
    const j = judgeEvidence(p, [grep, search]);
    expect(j.verdict).toBe("enough_evidence");
    expect(j.figures.decidedBy).toBe("two_notes");
    expect(j.figures.pairedPath).toBe("search.md");
    expect(j.reason).toMatch(/"grep.md" has "grep"; "search.md" has "search"; both have "foam"/);
  });

  it("is not enough on a note named after one side of a comparison that never says the other; both notes together are", () => {
    const weights: Record<string, number> = { foam: 2, grep: 3, search: 3 };
    // Each note is named after its own side: its title and opening say it, its text never says the other.
    const named = (path: string, words: string[]) => result(path, { note: words, section: words, title: words }, weights);
    const search = named("foam search.md", ["foam", "search"]);
    const grep = named("foam grep.md", ["foam", "grep"]);
    for (const question of ["what is the difference between foam grep and foam search?", "foam grep vs foam search", "how does foam grep compare with foam search?"]) {
      const alone = judgeEvidence(plan(question), [search]);
      expect(alone.verdict, question).toBe("weak_evidence");
      expect(alone.figures.decidedBy).toBe("side_missing");
      expect(alone.reason).toBe('Partial evidence: "foam search.md" covers "foam" and "search" (63% of the question\'s weight), but never says "grep", one of the two things the question asks about; "grep" is missing.');
      const both = judgeEvidence(plan(question), [search, grep]);
      expect(both).toMatchObject({ verdict: "enough_evidence", figures: { decidedBy: "two_notes", bestPath: "foam search.md", pairedPath: "foam grep.md" } });
    }
    // A question that compares nothing is judged on its words, as before.
    expect(judgeEvidence(plan("foam search grep"), [search]).figures.decidedBy).toBe("named_note");
  });

  it("does not need a note to say the word that asks how two things relate: it is the question's shape, not its subject", () => {
    // "relate" is rare in the vault, so it weighed as much as either thing asked about.
    const weights: Record<string, number> = { libraries: 3, relate: 4, repositories: 3 };
    const repository = result("Repository.md", { note: ["libraries", "repositories"], section: ["libraries", "repositories"] }, weights);
    const j = judgeEvidence(plan("how do libraries relate to repositories?"), [repository]);
    expect(j).toMatchObject({ verdict: "enough_evidence", figures: { decidedBy: "one_section" } });
    expect(j.missing_terms).toEqual([]);
    // Nor does a note that says it in passing ("a few Share related keys") answer better than one about both things.
    const development = result("Development.md", { note: ["libraries", "relate", "repositories"], section: ["libraries", "relate", "repositories"] }, weights);
    expect(judgeEvidence(plan("how do libraries relate to repositories?"), [repository, development]).figures.bestPath).toBe("Repository.md");
  });

  it("does not count a note that says nothing beyond its name as half of a two-note answer", () => {
    const p = plan("what is the difference between foam grep and foam search");
    const weights: Record<string, number> = { foam: 2, grep: 3, search: 3 };
    const grep = { ...result("grep.md", { note: ["foam", "grep"], section: ["foam", "grep"] }, weights), bare: { kind: "stub" as const, mark: "TODO" } };
    const search = result("search.md", { note: ["foam", "search"], section: ["foam", "search"] }, weights);
    const j = judgeEvidence(p, [grep, search]);
    expect(j.verdict).toBe("weak_evidence");
    expect(j.figures.pairedPath).toBeUndefined();
  });

  it("weighs the question's words as the whole question's search did, even when a focused retry's note comes first", () => {
    const p = plan("what is the difference between foam grep and foam search");
    const weights: Record<string, number> = { foam: 2, grep: 3, search: 3 };
    const grep = result("grep.md", { note: ["foam", "grep"], section: ["foam", "grep"] }, weights);
    // The retry searched only the part the first note lacked and the subject: its weights know no "grep".
    const retried = result("search.md", { note: ["foam", "search"], section: ["foam", "search"] }, { search: 3, foam: 2 });
    const j = judgeEvidence(p, [retried, grep]);
    expect(j.figures.decidedBy).toBe("two_notes");
    expect(j.reason).toMatch(/"search.md" has "search"; "grep.md" has "grep"; both have "foam"/);
  });

  it("does not add up two notes that each hold half of a one-part question's words", () => {
    const p = plan("make tail follow a file over ssh with automatic reconnects");
    const weights: Record<string, number> = { tail: 3, follow: 1, file: 1, ssh: 3, automatic: 1, reconnects: 4 };
    const tail = result("tail.md", { note: ["tail", "follow", "file"], section: ["tail", "follow", "file"] }, weights);
    const ssh = result("ssh.md", { note: ["ssh", "reconnects"], section: ["ssh", "reconnects"] }, weights);
    expect(judgeEvidence(p, [tail, ssh]).verdict).toBe("weak_evidence");
  });

  it("is not enough for a note that never says a name the question asks about, unless the name is the vault's subject", () => {
    const p = plan("How do I sync Obsidian Tasks with Microsoft To Do?");
    const weights: Record<string, number> = { sync: 2, obsidian: 1, tasks: 1, microsoft: 1.5 };
    const notes: Record<string, number> = { sync: 40, obsidian: 90, tasks: 95, microsoft: 30 };
    const words = ["sync", "obsidian", "tasks"];
    const withVault = (vaultNotes: number) => {
      const r = result("Sync.md", { note: words, section: words }, weights, notes);
      return { ...r, explanation: { ...r.explanation, vaultNotes } };
    };
    const lacking = judgeEvidence(p, [withVault(1000)]);
    expect(lacking.verdict).toBe("weak_evidence");
    expect(lacking.figures.decidedBy).toBe("name_missing");
    expect(lacking.reason).toMatch(/never says "microsoft", which the question names/);
    // The same words without a capital: nothing says "microsoft" is a name, and the words decide.
    expect(judgeEvidence(plan("how do i sync obsidian tasks with microsoft to do?"), [withVault(1000)]).figures.decidedBy).toBe("one_section");
    // The note says it: enough.
    const all = [...words, "microsoft"];
    expect(judgeEvidence(p, [result("Sync.md", { note: all, section: all }, weights, notes)]).verdict).toBe("enough_evidence");
    // In a vault where most notes say "Microsoft", it is the vault's subject: a note may leave it unsaid.
    expect(judgeEvidence(p, [withVault(100)]).verdict).toBe("enough_evidence");
  });

  it("lets a second note say the name the first lacks, for a question of two parts", () => {
    const p = plan("How do I export tasks, and how do I send them to Todoist?");
    const weights: Record<string, number> = { export: 3, tasks: 1, send: 1, todoist: 1.5 };
    const exporting = result("Export.md", { note: ["export", "tasks", "send"], section: ["export", "tasks", "send"] }, weights);
    const todoist = result("Todoist.md", { note: ["tasks", "send", "todoist"], section: ["tasks", "send", "todoist"] }, weights);
    const alone = judgeEvidence(p, [exporting]);
    expect(alone.figures.decidedBy).toBe("name_missing");
    const j = judgeEvidence(p, [exporting, todoist]);
    expect(j.verdict).toBe("enough_evidence");
    expect(j.figures.decidedBy).toBe("two_notes");
    expect([j.figures.bestPath, j.figures.pairedPath]).toContain("Todoist.md");
  });

  it("takes another top note that answers and says the name over a fuller one that never says it", () => {
    const p = plan("How do I sync tasks with Microsoft To Do?");
    const weights: Record<string, number> = { sync: 2, tasks: 1, microsoft: 0.4 };
    const lacking = result("Sync.md", { note: ["sync", "tasks"], section: ["sync", "tasks"] }, weights);
    const saying = result("To Do.md", { note: ["sync", "tasks", "microsoft"], section: ["sync"], close: ["sync"] }, weights);
    const broad = (r: SearchResult): SearchResult => ({ ...r, sections: [...r.sections, { ...r.sections[0], matchedTerms: ["sync", "tasks", "microsoft"], closeTerms: ["sync", "microsoft"] }] });
    for (const order of [[lacking, broad(saying)], [broad(saying), lacking]]) {
      const j = judgeEvidence(p, order);
      expect(j.verdict).toBe("enough_evidence");
      expect(j.figures.bestPath).toBe("To Do.md");
    }
    // With the rule off, the fuller note's words decide, as before.
    expect(judgeEvidence(p, [lacking, broad(saying)], { ...DEFAULT_JUDGE, namesSaid: false }).figures.bestPath).toBe("Sync.md");
  });

  it("wants a name said even when search looked it up as an earlier word ('Tasks' after 'task')", () => {
    const p = plan("How do I set a recurring task in Obsidian Tasks?");
    const weights: Record<string, number> = { set: 1, recurring: 3, task: 1, obsidian: 1 };
    const withFold = (r: SearchResult): SearchResult => ({ ...r, explanation: { ...r.explanation, foldedWords: { tasks: "task" } } });
    const events = withFold(result("Recurring events.md", { note: ["set", "recurring", "obsidian"], section: ["set", "recurring", "obsidian"] }, weights));
    const lacking = judgeEvidence(p, [events]);
    expect(lacking.figures.decidedBy).toBe("name_missing");
    expect(lacking.reason).toMatch(/never says "task"/);
    const tasks = withFold(result("Recurring Tasks.md", { note: ["set", "recurring", "task", "obsidian"], section: ["set", "recurring", "task", "obsidian"] }, weights));
    expect(judgeEvidence(p, [tasks]).verdict).toBe("enough_evidence");
    expect(judgeEvidence(p, [tasks]).missing_terms).toEqual([]);
  });

  it("does not pair two notes on unrelated subjects even when the question compares", () => {
    const p = plan("compare ldap logins with active directory");
    const weights: Record<string, number> = { ldap: 4, logins: 1, active: 2, directory: 2 };
    const ldap = result("ldap.md", { note: ["ldap", "logins"], section: ["ldap", "logins"] }, weights);
    const ad = result("ad.md", { note: ["active", "directory"], section: ["active", "directory"] }, weights);
    expect(judgeEvidence(p, [ldap, ad]).figures.decidedBy).not.toBe("two_notes");
  });
});
