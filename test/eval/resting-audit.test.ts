import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { auditedVerdict, readRestingAudit, type RestingAuditEntry } from "../../src/eval/resting-audit";

const ROOT = path.resolve(__dirname, "../..");
/** The sets `npm run eval:judge` scores (bench/eval-sets.ts EVAL_SET_NAMES). */
const SETS = ["sample-vault", "corpora", "heldout-paraphrase", "heldout-fresh"];

const good = {
  set: "corpora",
  id: "j016",
  deciding_notes: ["tldr-pages-en/windows/nvm.md"],
  verdict: "answers",
  reason: "switches Node.js versions on Windows",
  auditor: "a test",
  date: "2026-12-07",
};

function problem(entries: unknown[]): string {
  const read = readRestingAudit({ entries }, "a.json", SETS);
  return read.ok ? "" : read.error.message;
}

describe("readRestingAudit", () => {
  it("reads a good audit", () => {
    const read = readRestingAudit({ about: "read by hand", entries: [good] }, "a.json", SETS);
    expect(read).toEqual({ ok: true, entries: [good] });
  });

  it("refuses a malformed entry, naming the file, the entry (place, set, id) and the field", () => {
    expect(problem([good, { ...good, id: "j017", verdict: "yes" }])).toMatch(/^a\.json: entry 2 \("corpora" j017\), field verdict: /);
    expect(problem([{ ...good, verdikt: "answers" }])).toMatch(/^a\.json: entry 1 \("corpora" j016\), field \(entry\): .*verdikt/);
    expect(problem([{ ...good, deciding_notes: [] }])).toMatch(/^a\.json: entry 1 \("corpora" j016\), field deciding_notes: /);
    expect(problem([{ ...good, deciding_notes: ["../outside.md"] }])).toMatch(/field deciding_notes\.0: expected a vault path/);
    expect(problem([{ ...good, reason: " " }])).toMatch(/field reason: /);
    expect(problem([{ ...good, date: "7 December" }])).toMatch(/field date: expected a date as YYYY-MM-DD/);
    expect(problem([{ ...good, auditor: undefined }])).toMatch(/field auditor: /);
    expect(problem([{ verdict: "answers" }])).toMatch(/^a\.json: entry 1, field set: /);
  });

  it("refuses a set that is no set, a note named twice, a per_note outside the deciding notes, and the same entry twice", () => {
    expect(problem([{ ...good, set: "heldout" }])).toBe('a.json: entry 1 ("heldout" j016), field set: "heldout" is no set; the sets are sample-vault, corpora, heldout-paraphrase, heldout-fresh');
    expect(problem([{ ...good, deciding_notes: ["a.md", "a.md"] }])).toBe('a.json: entry 1 ("corpora" j016), field deciding_notes: the same note twice');
    expect(problem([{ ...good, deciding_notes: ["a.md", "b.md"], per_note: { "c.md": "partial" } }])).toBe('a.json: entry 1 ("corpora" j016), field per_note: "c.md" is not one of the deciding notes');
    expect(problem([{ ...good, deciding_notes: ["a.md", "b.md"] }, { ...good, deciding_notes: ["b.md", "a.md"] }])).toBe('a.json: entry 2 ("corpora" j016): the same set, id and deciding notes as an earlier entry');
  });

  it("refuses a file that is not { entries: [...] }", () => {
    const list = readRestingAudit([good], "a.json", SETS);
    expect(list.ok ? "" : list.error.message).toMatch(/^a\.json: \(top level\): .*an audit is \{ "entries": \[ … \] \}/);
    const extra = readRestingAudit({ entries: [], notes: "x" }, "a.json", SETS);
    expect(extra.ok ? "" : extra.error.kind).toBe("bad_audit");
  });
});

describe("auditedVerdict", () => {
  const entries: RestingAuditEntry[] = [
    { ...good, verdict: "answers" },
    { ...good, id: "j031", deciding_notes: ["x/a.md", "x/b.md"], verdict: "does_not_answer" },
  ];

  it("matches set, id and the very deciding notes (a pair in either order)", () => {
    expect(auditedVerdict(entries, "corpora", "j016", ["tldr-pages-en/windows/nvm.md"])).toBe("answers");
    expect(auditedVerdict(entries, "corpora", "j031", ["x/b.md", "x/a.md"])).toBe("does_not_answer");
  });

  it("says nothing for other notes, one note of an audited pair, another set or a question without id", () => {
    expect(auditedVerdict(entries, "corpora", "j016", ["tldr-pages-en/common/nvm.md"])).toBeNull();
    expect(auditedVerdict(entries, "corpora", "j031", ["x/a.md"])).toBeNull();
    expect(auditedVerdict(entries, "heldout-fresh", "j016", ["tldr-pages-en/windows/nvm.md"])).toBeNull();
    expect(auditedVerdict(entries, "corpora", undefined, ["tldr-pages-en/windows/nvm.md"])).toBeNull();
  });
});

describe("the shipped audit, evals/judge/resting-audit.json", () => {
  const read = readRestingAudit(JSON.parse(readFileSync(path.join(ROOT, "evals/judge/resting-audit.json"), "utf8")), "resting-audit.json", SETS);

  it("reads, and every entry names a question of its set", () => {
    expect(read.ok ? "" : read.error.message).toBe("");
    const entries = read.ok ? read.entries : [];
    expect(entries.length).toBeGreaterThan(0);
    const ids = new Map<string, Set<string>>();
    for (const set of new Set(entries.map((e) => e.set))) {
      const json = JSON.parse(readFileSync(path.join(ROOT, `evals/judge/${set}.json`), "utf8")) as { cases?: { id?: string }[] } | { id?: string }[];
      const cases = Array.isArray(json) ? json : (json.cases ?? []);
      ids.set(set, new Set(cases.map((c) => c.id ?? "")));
    }
    expect(entries.filter((e) => !ids.get(e.set)?.has(e.id)).map((e) => `${e.set} ${e.id}`)).toEqual([]);
  });

  it("quotes no note at length: every reason is one line of under 200 characters", () => {
    const entries = read.ok ? read.entries : [];
    expect(entries.filter((e) => e.reason.includes("\n") || e.reason.length >= 200).map((e) => e.id)).toEqual([]);
  });
});
