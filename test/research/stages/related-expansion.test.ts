import { describe, expect, it } from "vitest";
import { VaultLinks } from "../../../src/index/links/vault-links";
import { createAnalyzer } from "../../../src/index/tokenize";
import { VaultIndex } from "../../../src/index/vault-index";
import { expandAlongLinks, DEFAULT_RELATED_EXPANSION } from "../../../src/research/stages/related-expansion";
import { retrieveLocal } from "../../../src/research/stages/local-retrieval";
import { planQuestion } from "../../../src/research/stages/plan";
import { MemoryNoteStore } from "../../support/memory-note-store";
import { sampleVaultHarness } from "../../support/research-harness";
import { RUN_LIMITS } from "../../../src/research/run-limits";

/** A vault where the note about the question's subject links to the note holding its missing part. */
export function linkedVault(): MemoryNoteStore {
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `# Filler ${i}\n\nNotes about gardening and tomatoes, item ${i}.\n`);
  const notes: Record<string, string> = {
    "Backup routine.md": "# Backup routine\n\nEvery night the backup script copies the photo library to the external disk.\n\nThe schedule is kept in [[Cron schedule]].\n",
    "Cron schedule.md": "# Cron schedule\n\nThe crontab entry runs at 02:00 nightly; edit it with crontab -e.\n",
    "Unlinked crontab.md": "# Crontab elsewhere\n\nA crontab entry for the weekly report, unrelated to photos.\n",
    "Photo library.md": "# Photo library\n\nThe photo library lives on the laptop. See [[Backup routine]]. #photos\n",
  };
  filler(30).forEach((text, i) => (notes[`filler/${i}.md`] = text));
  return new MemoryNoteStore(notes);
}

async function setUp(store = linkedVault()) {
  const index = new VaultIndex();
  await index.sync(store, null);
  const links = new VaultLinks();
  await links.sync(index, store);
  return { index, store, links, analyzer: createAnalyzer({ stemming: true }) };
}

async function expand(question: string, deps: Awaited<ReturnType<typeof setUp>>, options = DEFAULT_RELATED_EXPANSION) {
  const plan = planQuestion(question, { currentYear: 2026 });
  const local = await retrieveLocal(plan, deps.index, deps.store, { limit: 2 });
  return { local, x: await expandAlongLinks(plan, local.results, deps, options) };
}

describe("the related expansion looks along the best notes' links for the missing part", () => {
  it("adds the linked note that holds a word the best note lacks, says how it was found, and the pair is judged together", async () => {
    const deps = await setUp();
    const { local, x } = await expand("which crontab entry runs the photo backup script", deps);
    expect(local.results[0].path).toBe("Backup routine.md");
    expect(x.lexical.verdict).not.toBe("enough_evidence");
    expect(x.added.map((a) => a.result.path)).toContain("Cron schedule.md");
    expect(x.related).toEqual(x.added);
    const cron = x.added.find((a) => a.result.path === "Cron schedule.md")!;
    expect(cron.found).toEqual({ kind: "link", from: "Backup routine.md", fromTitle: "Backup routine", relation: { kind: "links_to" } });
    expect(x.results.indexOf(cron.result)).toBe(x.results.findIndex((r) => r.path === "Backup routine.md") + 1);
    expect(x.verdict.verdict).toBe("enough_evidence");
    expect(x.verdict.figures.decidedBy).toBe("related_note");
    expect(x.verdict.reason).toContain('"Backup routine" links to "Cron schedule"');
    expect(x.decided).toBe(true);
  });

  it("adds nothing when the first pass is already enough", async () => {
    const deps = await setUp();
    const { x } = await expand("backup script photo library external disk", deps);
    expect(x.lexical.verdict).toBe("enough_evidence");
    expect(x.added).toEqual([]);
    expect(x.verdict).toBe(x.lexical);
    expect(x.decided).toBe(false);
  });

  it("never adds more notes than allowed, and none that lack every missing word", async () => {
    const deps = await setUp();
    const none = await expand("which crontab entry runs the photo backup script", deps, { ...DEFAULT_RELATED_EXPANSION, maxAdded: 0 });
    expect(none.x.added).toEqual([]);
    const unrelated = await expand("which zstd level compresses the photo backup", deps);
    expect(unrelated.x.added).toEqual([]);
  });
});

describe("the related expansion along tags", () => {
  it("finds a note through a rare tag the best note carries, and not through a tag most notes carry", async () => {
    const notes: Record<string, string> = {
      "Backup routine.md": "---\ntags: [nightly-jobs, docs]\n---\n# Backup routine\n\nEvery night the backup script copies the photo library to the external disk.\n",
      "Cron schedule.md": "---\ntags: [nightly-jobs]\n---\n# Cron schedule\n\nThe crontab entry runs at 02:00 nightly.\n",
      "Crontab docs.md": "---\ntags: [docs]\n---\n# Crontab docs\n\nA crontab entry runs a command.\n",
    };
    for (let i = 0; i < 31; i++) notes[`docs/${i}.md`] = `---\ntags: [docs]\n---\n# Page ${i}\n\nGardening notes ${i}.\n`;
    const deps = await setUp(new MemoryNoteStore(notes));
    const { x } = await expand("which crontab entry runs the photo backup script", deps);
    const found = x.related.map((r) => [r.result.path, r.found]);
    expect(found).toContainEqual(["Cron schedule.md", { kind: "link", from: "Backup routine.md", fromTitle: "Backup routine", relation: { kind: "shares_tag", tag: "nightly-jobs" } }]);
    expect(found.map(([path]) => path)).not.toContain("Crontab docs.md");
  });
});

describe("a research run with the vault's link graph", () => {
  it("weighs a linked note the first search ranked too low for the judge, and the trace says the related expansion decided", async () => {
    const h = await sampleVaultHarness({ store: linkedVault() });
    const result = await h.run({ question: "which crontab entry runs the photo backup script", retrievalOnly: true }, { links: new VaultLinks() });
    expect(result.pack.judge.verdict).toBe("enough_evidence");
    expect(result.pack.judge.reason).toMatch(/^A note and one it is related to answer it together \("Backup routine" links to "Cron schedule"\)/);
    const decided = result.trace.events.filter((e) => e.type === "judge" && e.data?.decided_by !== undefined).map((e) => e.data);
    expect(decided).toEqual([expect.objectContaining({ decided_by: "related_expansion", lever: "related_note" })]);
    // The first search had it (eight notes deep), so it is weighed, not added twice.
    expect(result.trace.events.find((e) => e.data?.lever === "related_expansion")?.data).toMatchObject({ status: "used", related: [{ path: "Cron schedule.md", from: "Backup routine.md", how: "links to", joined_pack: false }] });
    expect(result.pack.evidence.filter((r) => r.note_path === "Cron schedule.md")).toHaveLength(1);
  });

  it("a related note the first search did not find joins the pack with its lane and a signal saying how", async () => {
    // The cron note holds "crontab" once in a long page: far below the best note, so the first
    // search leaves it out of the pack (under 8% of the best score).
    const longPage = Array.from({ length: 60 }, (_, i) => `Line ${i} of the table lists a job for the mail server.`).join("\n");
    const store = new MemoryNoteStore({
      "Photo backup script.md": "# Photo backup script\n\nCopies the photos each night; when it starts is in [[Cron schedule]].\n",
      "Cron schedule.md": `# Cron schedule\n\nEdit the table with crontab -e.\n\n${longPage}\n`,
    });
    const h = await sampleVaultHarness({ store });
    const plain = await h.run({ question: "which crontab entry runs the photo backup script", retrievalOnly: true });
    expect(plain.pack.evidence.map((r) => r.note_path)).not.toContain("Cron schedule.md");
    const result = await h.run({ question: "which crontab entry runs the photo backup script", retrievalOnly: true }, { links: new VaultLinks() });
    const row = result.pack.evidence.find((r) => r.note_path === "Cron schedule.md");
    expect(row?.retrieval.lanes).toEqual([{ name: "related_expansion", status: "used" }]);
    expect(row?.retrieval.signals[0]).toEqual({ name: "related_expansion", detail: '"Photo backup script" links to it', weight: 0 });
  });

  it("a link graph that takes longer than its stage allows costs only the expansion: the run goes on to its verdict and answer", async () => {
    const h = await sampleVaultHarness({ store: linkedVault() });
    // The first use reads every note of a large vault; this one never finishes.
    class EndlessLinks extends VaultLinks {
      override sync(): ReturnType<VaultLinks["sync"]> {
        h.clock.advance(RUN_LIMITS.localStageMs + 1);
        return new Promise(() => {});
      }
    }
    const result = await h.run({ question: "which crontab entry runs the photo backup script" }, { links: new EndlessLinks() });
    expect(result.stop_reason).toBe("weak_evidence");
    expect(result.pack.judge.verdict).toBe("weak_evidence");
    expect(result.answer?.text).toContain("Evidence brief");
    expect(result.trace.events.find((e) => e.data?.lever === "related_expansion")?.data).toMatchObject({ status: "failed", why: "timeout" });
    expect(result.pack.warnings.map((w) => w.kind)).not.toContain("timeout");
  });

  it("without the graph (the default) the pack and verdict are the first search's, decided by the lexical judge", async () => {
    const h = await sampleVaultHarness({ store: linkedVault() });
    const result = await h.run({ question: "which crontab entry runs the photo backup script", retrievalOnly: true });
    expect(result.pack.evidence.some((r) => r.retrieval.lanes.some((l) => l.name === "related_expansion"))).toBe(false);
    expect(result.pack.judge.verdict).toBe("weak_evidence");
    expect(result.trace.events.find((e) => e.type === "judge" && e.data?.decided_by !== undefined)?.data).toMatchObject({ decided_by: "lexical" });
  });
});
