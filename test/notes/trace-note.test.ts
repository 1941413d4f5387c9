import { describe, expect, it } from "vitest";
import fc from "fast-check";
import path from "node:path";
import type { Clock } from "../../src/ports";
import { RESEARCH_PACK_VERSION, type OutsideVaultRow, type PackWarningKind, type QueryPlan, type ResearchPack, type VaultRow } from "../../src/evidence/research-pack";
import type { ResearchTrace } from "../../src/research/types";
import { TraceRecorder } from "../../src/research/trace-recorder";
import { renderTraceNote, traceNotePath } from "../../src/notes/trace-note";
import { boundedTraceJson, TRACE_BLOCK_OPEN, TRACE_JSON_MAX_CHARS } from "../../src/notes/trace-note-json";
import { parseTraceNote, recordPromotion } from "../../src/notes/trace-note-read";
import { outsideRow, vaultRow } from "../support/pack-fixtures";
import { expectGolden } from "../support/golden";
import { markupIn } from "./obsidian-markup";

const GOLDEN_DIR = path.resolve(__dirname, "../golden/notes");

function expectTraceGolden(name: string, rendered: string) {
  expectGolden(path.join(GOLDEN_DIR, name), rendered);
}

function fakeClock(): Clock & { advance(ms: number): void } {
  let now = Date.UTC(2026, 10, 30, 14, 12, 3);
  return { now: () => now, sleep: async (ms) => void (now += ms), advance: (ms) => void (now += ms) };
}

/** A query plan written out by hand, so these goldens do not move when the planner changes. */
function plan(question: string, terms: string[], freshness: string[] = [], providerQueries = [question.toLowerCase()]): QueryPlan {
  return {
    question,
    normalized: question.toLowerCase(),
    terms,
    required_terms: terms,
    context_terms: [],
    tags: [],
    phrases: [],
    freshness: { flagged: freshness.length > 0, cues: freshness },
    provider_queries: providerQueries,
  };
}

function packOf(question: string, queryPlan: QueryPlan, evidence: VaultRow[], external: OutsideVaultRow[], extra: Partial<ResearchPack> = {}): ResearchPack {
  const byProvider = new Map<string, number>();
  for (const row of external) byProvider.set(row.provider, (byProvider.get(row.provider) ?? 0) + 1);
  return {
    schema: RESEARCH_PACK_VERSION,
    question,
    query_plan: queryPlan,
    evidence,
    external_evidence: external,
    judge: { verdict: "enough_evidence", reason: "two notes cover every required term", missing_terms: [] },
    coverage: {
      local_evidence_count: evidence.length,
      external_evidence_count: external.length,
      external_by_provider: [...byProvider].map(([key, count]) => ({ key, count })),
      external_freshness: [],
      recall_note: "Searched 3 notes; web search not used.",
    },
    warnings: [],
    ...extra,
  };
}

const syncNote = vaultRow("Tools/Syncthing.md", "Syncthing setup", [
  { heading: "Versioning", text: "Staggered versioning keeps old copies in .stversions for a year." },
  { heading: "Conflicts", text: "Conflicting edits become .sync-conflict files." },
], 14.26);
const backupNote = vaultRow("Tools/Backups.md", "Backups", [{ heading: "", text: "The vault is backed up nightly with restic." }], 6.1);

/** A vault-only run that stopped with enough evidence and a verified evidence brief. */
function vaultOnlyTrace(): ResearchTrace {
  const question = "How does Syncthing keep old versions of my notes?";
  const clock = fakeClock();
  const rec = new TraceRecorder({ question, mode: "never", providers: [], freshness: "any", clock });
  const stage = (name: Parameters<TraceRecorder["stageStart"]>[0], ms: number, data?: Record<string, unknown>) => {
    rec.stageStart(name);
    clock.advance(ms);
    rec.stageEnd(name, data);
  };
  stage("plan", 1, { terms: ["syncthing", "old", "versions", "notes"] });
  stage("local_retrieval", 12, { notes_matched: 2 });
  stage("judge", 1, { verdict: "enough_evidence" });
  stage("external_policy", 0, { decision: "skip" });
  rec.event("external_search_skipped", { reason: "mode is never" });
  stage("merge", 1, { vault_rows: 2, outside_rows: 0 });
  stage("prepare_synthesis", 2, { admitted: 2, dropped: 0 });
  stage("synthesize", 3, { kind: "extractive" });
  stage("verify", 1, { passed: true });
  const thePack = packOf(question, plan(question, ["syncthing", "old", "versions", "notes"]), [syncNote, backupNote], []);
  return rec.finish("enough_evidence", thePack, {
    text: [
      "**Evidence brief (extractive, no model)**",
      "",
      "Vault evidence:",
      `- Syncthing setup: “Staggered versioning keeps old copies in .stversions for a year.” [${syncNote.source_key}]`,
      `- Backups: “The vault is backed up nightly with restic.” [${backupNote.source_key}]`,
    ].join("\n"),
    kind: "extractive",
    verified: true,
  });
}

const releaseUrl = "https://github.com/automerge/automerge/releases/tag/v3.2.0";
const automergeNote: VaultRow = {
  ...vaultRow("Research/Automerge.md", "Automerge notes", [{ heading: "Sync protocol", text: "Automerge 2 sync uses bloom filters." }], 9.4),
  also_found_by: ["brave"],
};
const braveRelease: OutsideVaultRow = {
  ...outsideRow("brave", releaseUrl, "Release v3.2.0 · automerge/automerge", "Automerge 3.2 adds a new #compaction mode and [[faster]] loading.", { published_at: "2026-11-02" }),
  also_found_by: ["exa"],
};
const braveBlog = outsideRow("brave", "https://automerge.org/blog/2026/11/", "Automerge [blog] (November)", "Version 3.2 is out. <b>Upgrade</b> soon.", { published_at: "2026-11-04" });
const exaTalk = outsideRow("exa", "https://example.org/talks/automerge-3", "Local-first conf: Automerge 3", "# A talk\nAbout `compaction` and **memory**.");

/**
 * A freshness run: Brave and Exa, one URL found by both, a vault duplicate, an Exa failure, an unverified answer.
 * `replayedFrom`: the web's answers came from that folder of recorded sample responses (`--replay`).
 */
function outsideTrace(replayedFrom?: string): ResearchTrace {
  const question = "What changed in the latest Automerge release?";
  const clock = fakeClock();
  const rec = new TraceRecorder({ question, mode: "on-weak", providers: ["brave", "exa"], freshness: "pm", clock });
  if (replayedFrom !== undefined) rec.replayedFrom(replayedFrom);
  rec.addSecrets("BSA-secret-key-123456", "exa-secret-key-654321");
  const step = (ms: number) => clock.advance(ms);
  rec.stageStart("plan"); step(1); rec.stageEnd("plan", { freshness_cues: ["latest"] });
  rec.stageStart("local_retrieval"); step(9); rec.stageEnd("local_retrieval", { notes_matched: 1 });
  rec.stageStart("judge"); step(1); rec.stageEnd("judge", { verdict: "weak_evidence", missing: ["release"] });
  rec.stageStart("external_policy"); rec.stageEnd("external_policy", { detail: "The vault's evidence is weak, so the web is searched (mode: if vault is weak)." });
  rec.event("external_query_built", { query: "automerge latest release", from: "question_keywords", why: "the question's keywords: it asks about the current state (“latest”)" });
  rec.stageStart("external_retrieval");
  rec.querySent("automerge latest release");
  rec.event("external_provider_request", { provider: "brave", count: 5, freshness: "pm" });
  step(180);
  rec.event("external_provider_response", { provider: "brave", status: 200, results: 4 });
  rec.event("external_provider_request", { provider: "exa", count: 5 });
  step(95);
  rec.event("external_provider_response", { provider: "exa", status: 429, results: 0 });
  rec.error("external_retrieval", "rate_limited", "Exa answered 429 Too Many Requests; retry after 30 s", "exa");
  rec.stageEnd("external_retrieval", { providers_ok: ["brave"], providers_failed: ["exa"] });
  rec.stageStart("normalize"); step(1);
  rec.event("external_result_deduped", { url: releaseUrl, kept: braveRelease.source_key, also_found_by: "exa" });
  rec.event("external_result_deduped", { url: "https://automerge.org/docs/sync", collapsed_into: automergeNote.source_key, provider: "brave" });
  rec.stageEnd("normalize");
  rec.event("external_evidence_selected", { keys: [braveRelease.source_key, braveBlog.source_key, exaTalk.source_key] });
  rec.stageStart("merge"); step(1); rec.stageEnd("merge");
  rec.event("external_merge_completed", { vault_rows: 1, outside_rows: 3 });
  rec.stageStart("synthesize"); step(2400); rec.stageEnd("synthesize", { model: "llama3.1:8b", attempts: 2 });
  rec.stageStart("verify"); step(1); rec.stageEnd("verify", { passed: false, errors: ["unknown_key ext:brave:0000000000"] });
  const thePack = packOf(question, plan(question, ["automerge", "release"], ["latest"], ["automerge latest release"]), [automergeNote], [braveRelease, braveBlog, exaTalk], {
    judge: { verdict: "weak_evidence", reason: "one note mentions Automerge but none covers a release", missing_terms: ["release"] },
    // A kind from before warning kinds were closed, kept so the golden note stays as it was.
    warnings: [{ kind: "provider_failed" as PackWarningKind, message: "Exa was rate limited (429); results come from Brave only." }],
  });
  return rec.finish("verification_failed", thePack, {
    text: `Automerge 3.2 adds a compaction mode [${braveRelease.source_key}] and faster loading [ext:brave:0000000000]. Your vault's notes stop at Automerge 2 [${automergeNote.source_key}].`,
    kind: "model",
    verified: false,
    model: "llama3.1:8b",
  });
}

/** The lines of the note before its JSON block: what a person sees rendered. */
function visiblePart(markdown: string): string {
  return markdown.slice(0, markdown.indexOf(TRACE_BLOCK_OPEN));
}

describe("renderTraceNote", () => {
  it("renders the golden note of a vault-only run with a verified evidence brief", () => {
    expectTraceGolden("trace-vault-only.md", renderTraceNote(vaultOnlyTrace()));
  });

  it("renders the golden note of a run with Brave and Exa results, a duplicate, a failed provider and an unverified answer", () => {
    expectTraceGolden("trace-outside-vault.md", renderTraceNote(outsideTrace()));
  });

  it("names a fused score as such, to four places: to one decimal every fused row read \"score 0\"", () => {
    const trace = vaultOnlyTrace();
    const [first, second] = trace.pack.evidence;
    first.retrieval = { ...first.retrieval, fusion: { score: 0.128223, fused_with: "vault_language", words_rank: 1, words_score: 54.108, kept_first: false } };
    const note = visiblePart(renderTraceNote(trace));
    expect(note).toContain(`\`${first.source_key}\` · fused score 0.1282`);
    expect(note).toContain(`\`${second.source_key}\` · score 6.1`);
  });

  it("starts with frontmatter a person can search by", () => {
    const note = renderTraceNote(outsideTrace());
    const front = note.slice(0, note.indexOf("\n---\n", 4));
    expect(front).toContain("type: research-trace");
    expect(front).toContain("question: What changed in the latest Automerge release?");
    // The local day, as source notes and the user's notes write `created` (a date property): not a UTC instant.
    const start = new Date(Date.UTC(2026, 10, 30, 14, 12, 3));
    const day = [start.getFullYear(), start.getMonth() + 1, start.getDate()].map((n) => String(n).padStart(2, "0")).join("-");
    expect(front).toMatch(new RegExp(`^created: ${day}$`, "m"));
    expect(front).toMatch(/mode: on-weak/);
    expect(front).toMatch(/providers:\n {2}- brave\n {2}- exa/);
    expect(front).toContain("stop_reason: verification_failed");
    expect(front).toContain("verdict: weak_evidence");
    expect(front).toContain("vault_rows: 1");
    expect(front).toContain("outside_rows: 3");
    expect(front).toMatch(/tags:\n {2}- research\/trace/);
  });

  it("uses the product's counters and labels, and keeps vault and outside rows in their own sections", () => {
    const note = visiblePart(renderTraceNote(outsideTrace()));
    const vaultAt = note.indexOf("## Vault evidence");
    const outsideAt = note.indexOf("## Outside vault");
    expect(note).toContain("\nVault evidence: 1 row\n");
    expect(note).toContain("\nOutside vault: 3 rows from Brave and Exa\n");
    expect(note.match(/\*\*Outside vault · Brave · ephemeral\*\*/g)).toHaveLength(2);
    expect(note.match(/\*\*Outside vault · Exa · ephemeral\*\*/g)).toHaveLength(1);
    expect(note.indexOf(`[[Research/Automerge#Sync protocol|Automerge notes › Sync protocol]]`)).toBeGreaterThan(vaultAt);
    expect(note.indexOf(`\`${automergeNote.source_key}\``)).toBeLessThan(outsideAt);
    expect(note.indexOf(`\`${braveRelease.source_key}\``)).toBeGreaterThan(outsideAt);
    expect(note).toContain(`(${releaseUrl})`);
  });

  // The panel and the CLI say a saved page is one; the trace note showed it as the owner's own note.
  it("says a vault row is a saved web page, as the panel and the CLI do", () => {
    const base = vaultOnlyTrace();
    const clipped: VaultRow = { ...syncNote, saved_from: "https://www.kites.example/how-to" };
    const odd: VaultRow = { ...backupNote, saved_from: "[[Evil]] #tag" };
    const note = renderTraceNote({ ...base, pack: { ...base.pack, evidence: [clipped, odd] } });
    expect(note).toContain(`|Syncthing setup › Versioning]] · Saved web page · kites.example · \`${syncNote.source_key}\``);
    expect(note).toContain(`|Backups]] · Saved web page · \\[\\[Evil\\]\\] \\#tag · \`${backupNote.source_key}\``);
  });

  it("marks an unverified answer as such", () => {
    const note = visiblePart(renderTraceNote(outsideTrace()));
    expect(note).toContain("> [!warning] Unverified answer");
    expect(visiblePart(renderTraceNote(vaultOnlyTrace()))).not.toContain("Unverified");
  });

  it("says why there is no answer when none was written", () => {
    const trace: ResearchTrace = { ...vaultOnlyTrace(), stop_reason: "retrieval_only", answer: undefined };
    delete trace.answer;
    expect(renderTraceNote(trace)).toContain("No answer was written (retrieval only was asked).");
  });

  it("lists provider failures and pack warnings under Warnings", () => {
    const note = visiblePart(renderTraceNote(outsideTrace()));
    const warnings = note.slice(note.indexOf("## Warnings"), note.indexOf("## Timeline"));
    expect(warnings).toContain("- Exa, during the external retrieval stage: Exa answered 429 Too Many Requests; retry after 30 s.");
    expect(warnings).toContain("- Exa was rate limited (429); results come from Brave only.");
    expect(visiblePart(renderTraceNote(vaultOnlyTrace()))).toMatch(/## Warnings\n\nNone\./);
  });

  it("ends each warning as a sentence once: a stop before a closing quote or bracket is an end (it read 'said \"done.\".'), a colon is not", () => {
    const trace = vaultOnlyTrace();
    trace.pack.warnings.push(
      { kind: "provider_warning", message: 'Brave said "Quota nearly used."' },
      { kind: "provider_warning", message: "Exa sent fewer results (see above.)" },
      { kind: "provider_warning", message: "Wikipedia answered:" },
    );
    const warnings = section(renderTraceNote(trace), "## Warnings", "## Timeline");
    expect(warnings).toContain('- Brave said "Quota nearly used."\n');
    expect(warnings).toContain("- Exa sent fewer results (see above.)\n");
    expect(warnings).toContain("- Wikipedia answered.\n");
  });

  it("shows every event with its time in the timeline", () => {
    const trace = outsideTrace();
    const note = visiblePart(renderTraceNote(trace));
    const rows = note.split("\n").filter((l) => /^\| \d+ \|/.test(l));
    expect(rows).toHaveLength(trace.events.length);
    expect(rows.find((r) => r.includes("external_provider_response") && r.includes("exa"))).toMatch(/^\| 286 \|/);
  });

  it("says each stage's time in whole units, and the time outside the stages, so the timings add up to the total", () => {
    const clock = fakeClock();
    const rec = new TraceRecorder({ question: "q", mode: "never", providers: [], freshness: "any", clock });
    clock.advance(5); // before the first stage, as the run opens
    rec.stageStart("plan");
    clock.advance(1.8015530000000126);
    rec.stageEnd("plan", { detail: "2 search terms" });
    rec.stageStart("local_retrieval");
    clock.advance(36.76839599999994);
    rec.stageEnd("local_retrieval", { detail: "7 of 35 notes matched" });
    const thePack = packOf("q", plan("q", ["q"]), [], []);
    const note = visiblePart(renderTraceNote(rec.finish("no_evidence", thePack)));
    const timeline = note.slice(note.indexOf("## Timeline"));
    expect(timeline).toContain("Times are milliseconds since the run started");
    expect(timeline).toContain("| At (ms) | Event | Details |");
    expect(timeline).toContain("| 7 | plan | detail: 2 search terms; took 1.8 ms |");
    expect(timeline).toContain("| 44 | local_retrieval | detail: 7 of 35 notes matched; took 37 ms |");
    expect(timeline).toContain("Timings: plan 1.8 ms · local_retrieval 37 ms · outside the stages 5 ms · total 44 ms");
    expect(timeline).not.toMatch(/\d\.\d{2,}/);
  });

  it("claims no verified citations, and no quotes, for an answer that cites nothing", () => {
    const none: ResearchTrace = {
      ...vaultOnlyTrace(),
      answer: { text: "**Evidence brief (extractive, no model)**\n\nThe vault has no evidence on this question, so there is nothing to quote.", kind: "extractive", verified: true },
    };
    const answer = visiblePart(renderTraceNote(none));
    expect(answer).toContain("*Evidence brief; no model wrote it. It cites no source, so there was no citation to check.*");
    expect(answer).not.toContain("Citations verified");
    expect(visiblePart(renderTraceNote(vaultOnlyTrace()))).toContain("*Evidence brief quoted from the evidence; no model wrote it. Citations verified.*");
  });

  it("gives the verdict in words and says the missing words once: those the judge's reason names are not listed again", () => {
    const judged = (reason: string, missing: string[]) => {
      const trace = vaultOnlyTrace();
      const note = visiblePart(renderTraceNote({ ...trace, pack: { ...trace.pack, judge: { verdict: "weak_evidence", reason, missing_terms: missing } } }));
      return note.split("\n").find((l) => l.startsWith("Judge:"));
    };
    expect(judged('Partial evidence: "Automerge" covers only "sequence" (32% of the question\'s weight); "papers" and "developers" are missing.', ["papers", "developers"])).toBe(
      'Judge: **weak evidence** — Partial evidence: "Automerge" covers only "sequence" (32% of the question\'s weight); "papers" and "developers" are missing.',
    );
    expect(judged('No note matched "penguins", "body".', ["penguins", "body"])).toBe('Judge: **weak evidence** — No note matched "penguins", "body".');
    expect(judged('"A" covers "x"; "b", "c", "d", "e" and "f" and 1 more are missing.', ["b", "c", "d", "e", "f", "g"])).toMatch(/are missing\. Also missing: g\.$/);
    expect(judged("Checked by the model m: the notes never mention a release.", ["release"])).toMatch(/release\. Missing: release\.$/);
  });

  it("says who wrote each quoted text of an outside row: a passage read from the page, or a summary that is not the page's words", () => {
    const read: OutsideVaultRow = {
      ...braveBlog,
      content_sections: [
        ...braveBlog.content_sections,
        { role: "external_text", text: "Compaction now runs in the background.", truncated: false, fetched: true, start: 120, end: 158, heading_path: ["Release #notes", "[[Compaction]]"] },
        { role: "external_summary", text: "The page says compaction is automatic now.", truncated: false, fetched: true },
      ],
    };
    const exaSummary: OutsideVaultRow = { ...exaTalk, content_sections: [{ role: "external_summary", text: "A talk on compaction.", truncated: false }] };
    const base = outsideTrace();
    const note = visiblePart(renderTraceNote({ ...base, pack: { ...base.pack, external_evidence: [braveRelease, read, exaSummary] } }));

    expect(note).toContain("\n\n> Automerge 3.2 adds a new"); // the provider's snippet, as before
    expect(note).toContain("*Passage read from the page (§ Release \\#notes › \\[\\[Compaction\\]\\]):*\n> Compaction now runs in the background.");
    expect(note).toContain("*Summary by the model, not the page's words:*\n> The page says compaction is automatic now.");
    expect(note).toContain("*Summary by Exa, not the page's words:*\n> A talk on compaction.");
  });

  it("does not let untrusted web text become markup", () => {
    const hostile = outsideRow(
      "brave",
      "https://evil.example/page",
      "Click](javascript:alert(1)) [[Evil]] <img src=x onerror=alert(1)>",
      "<script>alert('x')</script>\n# Heading\n```js\nfence()\n```\n[[Evil]] and ![[Embed]] #tag %%hidden%% $x$ ==mark==\n> quoted\n- item\n1. first\n    indented code",
    );
    const evilLink = outsideRow("brave", "javascript:alert(1)", "plain", "text");
    const base = outsideTrace();
    const trace: ResearchTrace = {
      ...base,
      pack: { ...base.pack, external_evidence: [hostile, evilLink] },
      answer: { text: "See <script>x</script> and [[Evil]] #injected [ext:brave:0000000000]", kind: "model", verified: false },
    };
    const note = visiblePart(renderTraceNote(trace));
    expect(note).not.toMatch(/<script|<img/i);
    expect(note).not.toMatch(/(^|[^\\])\[\[Evil/m);
    expect(note).not.toContain("![[Embed]]");
    expect(note).not.toMatch(/^(> )?#+ Heading/m);
    expect(note).not.toContain("```");
    expect(note).not.toMatch(/(^|\s)#(tag|injected)/);
    expect(note).not.toMatch(/%%|==mark|\$x\$/);
    expect(note).not.toMatch(/^> > quoted/m);
    expect(note).not.toMatch(/^> (- item|1\. first| {4})/m);
    expect(note).not.toMatch(/(^|[^\\])\]\(javascript:/m);
    expect(note).toContain("plain (javascript:alert(1))");
    // Only our own two links (the evil-link row has none): the escaped title adds no link of its own.
    const outside = note.slice(note.indexOf("## Outside vault"), note.indexOf("## Warnings"));
    expect(outside.match(/(^|[^\\])\]\(/gm)).toHaveLength(1);
  });

  // Canonical addresses keep a `%` that starts no escape; two rows' `%%` made one Obsidian comment
  // of everything between them, the second row's Outside vault label included.
  it("lets no address open a comment that would hide the rows after it", () => {
    const first = outsideRow("brave", "https://evil.example/100%%", "First", "text");
    const second = outsideRow("brave", "https://evil.example/%3C%tp%%3E", "Second", "text");
    const base = outsideTrace();
    const note = visiblePart(renderTraceNote({ ...base, pack: { ...base.pack, external_evidence: [first, second] } }));
    expect(note).not.toContain("%%");
    expect(markupIn(note).comment).toBeUndefined();
    expect(note).toContain(`**Outside vault · Brave · ephemeral** · \`${second.source_key}\``);
  });

  it("closes a code fence the answer left open, so the evidence below still renders", () => {
    const base = vaultOnlyTrace();
    const note = renderTraceNote({ ...base, answer: { text: "Run this:\n~~~~sh\nsyncthing --reset", kind: "model", verified: true } });
    const answer = note.slice(note.indexOf("## Answer"), note.indexOf("## Vault evidence"));
    expect(answer).toContain("syncthing --reset\n~~~~\n");
  });

  it("keeps a secret out of the note wherever the run met it", () => {
    const secret = "BSA-secret-key-123456";
    const clock = fakeClock();
    const rec = new TraceRecorder({ question: "q", mode: "always", providers: ["brave"], freshness: "any", clock });
    rec.addSecrets(secret);
    rec.event("external_provider_request", { url: `https://api.search.brave.com/res/v1/web/search?q=q&token=${secret}` });
    rec.error("external_retrieval", "unauthorized", `Brave refused the key ${secret}`, "brave");
    rec.querySent(`q ${secret}`);
    const web = outsideRow("brave", "https://x.example/", `Title ${secret}`, `Snippet ${secret}`);
    const trace = rec.finish("enough_evidence", packOf("q", plan("q", ["q"]), [], [web], { warnings: [{ kind: "provider_warning", message: `warn ${secret}` }] }), {
      text: `Answer ${secret}`,
      kind: "model",
      verified: true,
    });
    const note = renderTraceNote(trace);
    expect(note).not.toContain(secret);
    expect(note).not.toContain(secret.slice(0, 10));
    expect(note).toContain("\\[redacted\\]");
  });
});

/** A freshness run of one source asked twice: the question as typed, then its keywords with the year; Brave waits its turn. */
function twoQueryTrace(cues = ["latest"], wait: Record<string, unknown> = { rate_wait_ms: 975, rate_wait: "pacing" }): ResearchTrace {
  const question = "What changed in the latest Automerge release?";
  const clock = fakeClock();
  const rec = new TraceRecorder({ question, mode: "always", providers: ["brave"], freshness: "any", clock });
  rec.stageStart("external_retrieval");
  rec.event("external_query_built", { query: question, from: "question", why: "the question as typed" });
  rec.querySent(question);
  rec.event("external_provider_response", { provider: "brave", endpoint: "llm_context", results: 5 });
  rec.event("external_query_built", { query: "automerge release 2026", from: "question_keywords", year_added: 2026, why: "the question's keywords" });
  rec.querySent("automerge release 2026");
  clock.advance(975);
  rec.event("external_provider_response", { provider: "brave", ...wait, endpoint: "llm_context", results: 5 });
  rec.stageEnd("external_retrieval");
  const queries = [question, "automerge release 2026"];
  return rec.finish("enough_evidence", packOf(question, plan(question, ["automerge", "release"], cues, queries), [], [braveBlog]));
}

describe("the model's name a server reported", () => {
  // It stands in a code span ("Written by `llama3.1:8b`"), and a server names its model as it likes.
  it("is shown as text when it is code a plugin runs where the note is read (Dataview, Meta Bind), else as code", () => {
    for (const model of ["$= dv.el('p', app.vault.adapter.basePath)", " = this.file.name", "INPUT[text:x]", "VIEW[{x}]"]) {
      const note = visiblePart(renderTraceNote({ ...outsideTrace(), answer: { text: "An answer.", kind: "model", verified: false, model } }));
      expect(note, model).toContain("Written by ");
      expect(note, model).not.toMatch(/(?<!\\)`\s*(?:\$?=|INPUT\[|VIEW\[)/);
    }
    const plain = visiblePart(renderTraceNote({ ...outsideTrace(), answer: { text: "An answer.", kind: "model", verified: false, model: "llama3.1:8b" } }));
    expect(plain).toContain("Written by `llama3.1:8b`.");
  });
});

describe("where each query sent came from, and a source's rate wait", () => {
  it("says under Queries sent each query's origin: as typed, or the keywords with the year added and why", () => {
    const outside = section(renderTraceNote(twoQueryTrace()), "## Outside vault", "**Outside vault ·");
    expect(outside).toContain([
      "Queries sent:",
      "- “What changed in the latest Automerge release?” — the question as typed",
      "- “automerge release 2026” — the question's keywords; 2026 added because the question asks about the current state (“latest”)",
    ].join("\n"));
  });

  it("says a source's rate wait in words on its answer's row of the timeline", () => {
    const timeline = section(renderTraceNote(twoQueryTrace()), "## Timeline", "## Trace data");
    expect(timeline).toContain("| 975 | external_provider_response | provider: brave; waited 975 ms for Brave's rate limit; endpoint: llm_context; results: 5 |");
    const asked = section(renderTraceNote(twoQueryTrace(undefined, { rate_wait_ms: 30000, rate_wait: "provider_asked" })), "## Timeline", "## Trace data");
    expect(asked).toContain("provider: brave; waited 30000 ms: Brave asked us to slow down; endpoint");
  });

  it("says a rate wait a stop cut short in words, without the field's name (it read 'waited 250 ms for Brave's rate limit; rate_wait_cut: cancelled')", () => {
    const cut = renderTraceNote(twoQueryTrace(undefined, { rate_wait_ms: 250, rate_wait: "pacing", rate_wait_cut: "cancelled" }));
    const timeline = section(cut, "## Timeline", "## Trace data");
    expect(timeline).toContain("provider: brave; stopped after 250 ms of its wait for Brave's rate limit; endpoint");
    expect(timeline).not.toContain("rate_wait_cut");
    const asked = section(renderTraceNote(twoQueryTrace(undefined, { rate_wait_ms: 12000, rate_wait: "provider_asked", rate_wait_cut: "cancelled" })), "## Timeline", "## Trace data");
    expect(asked).toContain("provider: brave; stopped after 12000 ms of the pause Brave asked for; endpoint");
    // The trace data below keeps the field, for programs.
    expect(cut.slice(cut.indexOf("## Trace data"))).toContain('"rate_wait_cut": "cancelled"');
  });

  it("puts the question's own words in an origin through the escaper", () => {
    const outside = section(renderTraceNote(twoQueryTrace(["[[Secret plans]] #now"])), "## Outside vault", "**Outside vault ·");
    const line = outside.split("\n").find((l) => l.includes("2026 added"))!;
    expect(line).toContain("Secret plans");
    expect(markupIn(line)).toEqual({});
  });

  it("says no origin for a query the trace gives none (a trace kept by an older version)", () => {
    const trace = twoQueryTrace();
    trace.events = trace.events.filter((e) => e.type !== "external_query_built");
    const outside = section(renderTraceNote(trace), "## Outside vault", "**Outside vault ·");
    expect(outside).toContain("Queries sent:\n- “What changed in the latest Automerge release?”\n- “automerge release 2026”\n");
  });
});

describe("the note of a run whose web answers were replayed (the demo, --replay)", () => {
  const folder = "fixtures/replay/brave-demo";
  const properties = (note: string) => note.slice(0, note.indexOf("\n---\n", 4));
  const answerPart = (note: string) => note.slice(note.indexOf("## Answer\n"), note.indexOf("## Vault evidence"));

  it("renders the golden note: marked in its properties, at the top of its Answer and above its outside rows", () => {
    expectTraceGolden("trace-replayed.md", renderTraceNote(outsideTrace(folder)));
  });

  it("says it in the properties a query over traces reads, with the names a promoted source note uses", () => {
    const front = properties(renderTraceNote(outsideTrace(folder)));
    expect(front).toMatch(/^sample: true$/m);
    expect(front).toMatch(new RegExp(`^replayed_from: ${folder}$`, "m"));
    // A live run's note carries neither: `sample: false` would be a claim about every note that lacks it.
    const live = properties(renderTraceNote(outsideTrace()));
    expect(live).not.toMatch(/^sample:/m);
    expect(live).not.toMatch(/^replayed_from:/m);
  });

  it("says it first in the Answer, before the answer a model may have put in its own words, and above its unverified warning", () => {
    const answer = answerPart(renderTraceNote(outsideTrace(folder)));
    expect(answer).toMatch(/^## Answer\n\n> \[!note\] Recorded sample responses, not a live search\n> The web's answers in this run were replayed from recordings in fixtures\/replay\/brave-demo, not searched live/);
    expect(answer.indexOf("Recorded sample responses")).toBeLessThan(answer.indexOf("Automerge 3.2 adds"));
    expect(answer.indexOf("Recorded sample responses")).toBeLessThan(answer.indexOf("[!warning] Unverified answer"));
    expect(answerPart(renderTraceNote(outsideTrace()))).not.toContain("Recorded sample");
  });

  it("calls nothing a sample when the run asked the web nothing, though the replay folder was set", () => {
    const trace: ResearchTrace = { ...vaultOnlyTrace(), replayed_from: folder };
    const note = renderTraceNote(trace);
    expect(properties(note)).not.toMatch(/^(sample|replayed_from):/m);
    expect(visiblePart(note)).not.toContain("Recorded sample");
  });

  it("keeps a folder's line breaks, brackets and Templater marks out of the properties and the callout", () => {
    const note = renderTraceNote(outsideTrace("replays/[[Secret]]\n<% tp.file %>"));
    const front = properties(note);
    expect(front).not.toContain("[[");
    expect(front).not.toContain("<%");
    expect(front).toMatch(/^replayed_from: .*Secret/m);
    const answer = answerPart(note);
    expect(answer).not.toContain("[[Secret]]");
    expect(answer).not.toContain("<%");
  });
});

describe("the outside section of a run whose web search failed", () => {
  /** Hacker News and Wikipedia asked; those in `failed` answered 5xx, the others answered with nothing. */
  function webTrace(failed: ("hackernews" | "wikipedia")[]): ResearchTrace {
    const question = "What is the history of Automerge and its latest release?";
    const rec = new TraceRecorder({ question, mode: "always", providers: ["hackernews", "wikipedia"], freshness: "any", clock: fakeClock() });
    rec.querySent(question);
    for (const provider of failed) rec.error("external_retrieval", "http", `${provider} answered HTTP 503`, provider);
    const answered = (["hackernews", "wikipedia"] as const).filter((p) => !failed.includes(p));
    const pack = packOf(question, plan(question, ["history", "automerge", "release"], ["latest"]), [], [], {
      coverage: { local_evidence_count: 0, external_evidence_count: 0, external_by_provider: [], external_freshness: answered.map((provider) => ({ provider, requested: "any" })), recall_note: "" },
    });
    return rec.finish("external_failed_local_used", pack);
  }
  const outside = (trace: ResearchTrace) => section(renderTraceNote(trace), "## Outside vault", "## Warnings");

  it("says the sources that did not answer, and names none as having found nothing (it said 'Outside vault: 0 rows from Hacker News and Wikipedia')", () => {
    const note = outside(webTrace(["hackernews", "wikipedia"]));
    expect(note).toContain("Outside vault: 0 rows\n\nWeb search failed: Hacker News answered with a server error; Wikipedia answered with a server error. How each failed is under Warnings below.");
  });

  it("names the sources that answered with nothing apart from those that failed", () => {
    expect(outside(webTrace(["hackernews"]))).toContain(
      "Outside vault: 0 rows from Wikipedia\n\nWeb search added no outside rows: Wikipedia answered with nothing to add; Hacker News answered with a server error. How each failed is under Warnings below.",
    );
    // Every source answered: the search found nothing, and says no more than that.
    const none = outside(webTrace([]));
    expect(none).toContain("Outside vault: 0 rows from Hacker News and Wikipedia\n\nWeb search added no outside rows: Hacker News and Wikipedia answered with nothing to add.\n\nQueries sent:");
    expect(none).not.toMatch(/failed/);
  });
});

describe("why the web was asked, for a run that sent nothing", () => {
  const question = "What is new in Automerge?";
  /** A run the policy sent to the web (mode always), with `after` recorded once it decided. */
  function askedTrace(after: (rec: TraceRecorder) => void, stop: "external_failed_local_used" | "cancelled" = "external_failed_local_used"): ResearchTrace {
    const rec = new TraceRecorder({ question, mode: "always", providers: ["brave"], freshness: "any", clock: fakeClock() });
    rec.stageStart("external_policy");
    rec.stageEnd("external_policy", { detail: "External search is set to always for this run." });
    after(rec);
    return rec.finish(stop, packOf(question, plan(question, ["automerge"], []), [], []));
  }
  const outside = (trace: ResearchTrace) => section(renderTraceNote(trace), "## Outside vault", "## Warnings");

  it("says why the web was asked when its one source had no key: the web was asked for, though no query left", () => {
    const noKey = askedTrace((rec) => {
      rec.event("external_query_built", { query: question, from: "question", why: "the question as typed" });
      rec.error("external_retrieval", "auth", "No Brave API key is set. Add one in Vault Research settings.", "brave");
      rec.event("external_provider_response", { provider: "brave", sent: false, error: "auth", message: "No Brave API key is set. Add one in Vault Research settings." });
    });
    const note = outside(noKey);
    expect(note).toContain("Web search failed: Brave has no API key set. How each failed is under Warnings below.\n\nWhy the web was asked: External search is set to always for this run.");
    expect(note).not.toContain("Queries sent:");
  });

  it("says it for a run stopped after the policy decided and before a query was handed over", () => {
    expect(outside(askedTrace(() => undefined, "cancelled"))).toContain("Why the web was asked: External search is set to always for this run.");
  });

  it("says no such thing of a run the policy kept off the web: its detail says why not", () => {
    const rec = new TraceRecorder({ question, mode: "on-weak", providers: ["brave"], freshness: "any", clock: fakeClock() });
    rec.stageStart("external_policy");
    rec.stageEnd("external_policy", { detail: "The vault has enough evidence; the web was not searched." });
    rec.event("external_search_skipped", { reason: "The vault has enough evidence; the web was not searched.", mode: "on-weak" });
    const note = outside(rec.finish("enough_evidence", packOf(question, plan(question, ["automerge"], []), [], [])));
    expect(note).not.toContain("Why the web was asked");
  });
});

/** The text from the line starting `from` up to the next line starting `to`. */
function section(note: string, from: string, to: string): string {
  const start = note.indexOf(`\n${from}`);
  return note.slice(start, note.indexOf(`\n${to}`, start + 1));
}

describe("the trace data block", () => {
  it("reads back exactly the trace that was rendered", () => {
    for (const trace of [vaultOnlyTrace(), outsideTrace(), outsideTrace("fixtures/replay/brave-demo")]) {
      const parsed = parseTraceNote(renderTraceNote(trace));
      expect(parsed).toEqual({ trace: JSON.parse(JSON.stringify(trace)) as ResearchTrace });
    }
  });

  it("reports a note without a trace block, broken JSON and JSON that is not a trace, each by kind", () => {
    expect(parseTraceNote("# Just a note\n")).toMatchObject({ error: { kind: "no_trace_block" } });
    expect(parseTraceNote(`${TRACE_BLOCK_OPEN}\n{"schema": \n\`\`\`\n`)).toMatchObject({ error: { kind: "invalid_json" } });
    expect(parseTraceNote(`${TRACE_BLOCK_OPEN}\n{"schema": "other"}\n\`\`\`\n`)).toMatchObject({ error: { kind: "invalid_trace" } });
    const broken = JSON.parse(JSON.stringify(outsideTrace())) as ResearchTrace;
    (broken.pack.external_evidence[0] as Partial<OutsideVaultRow>).label = undefined;
    const result = parseTraceNote(renderTraceNote(broken));
    expect(result).toMatchObject({ error: { kind: "invalid_trace" } });
    expect("error" in result && result.error.message).toMatch(/pack\.external_evidence\.0\.label/);
  });

  it("stays valid JSON under 60,000 characters when the trace is huge, and says what it dropped", () => {
    const base = outsideTrace();
    const chatty: ResearchTrace = {
      ...base,
      events: Array.from({ length: 200 }, (_, i) => ({ type: "external_provider_response", at: i, data: { title: "t".repeat(300), i } })),
    };
    const json = boundedTraceJson(chatty);
    expect(JSON.stringify(chatty, null, 2).length).toBeGreaterThan(TRACE_JSON_MAX_CHARS);
    expect(json.length).toBeLessThanOrEqual(TRACE_JSON_MAX_CHARS);
    const parsed = JSON.parse(json) as ResearchTrace & { truncated: string[] };
    expect(parsed.truncated).toEqual(["event data dropped to fit 60000 characters"]);
    expect(parsed.events).toHaveLength(200);
    expect(parsed.events[0]).toEqual({ type: "external_provider_response", at: 0 });
    expect(parsed.pack).toEqual(JSON.parse(JSON.stringify(base.pack)));
    const note = renderTraceNote(chatty);
    expect(parseTraceNote(note)).toHaveProperty("trace");
    expect(visiblePart(note)).toContain("- Cut from the trace data below: event data dropped to fit 60000 characters.");
  });

  it("drops pack section texts next, keeping the rows", () => {
    const base = outsideTrace();
    const wordy: ResearchTrace = {
      ...base,
      pack: {
        ...base.pack,
        evidence: Array.from({ length: 40 }, (_, i) =>
          vaultRow(`Notes/N${i}.md`, `Note ${i}`, [0, 1, 2].map((j) => ({ heading: `H${j}`, text: "v".repeat(600) }))),
        ),
      },
    };
    const json = boundedTraceJson(wordy);
    expect(json.length).toBeLessThanOrEqual(TRACE_JSON_MAX_CHARS);
    const parsed = JSON.parse(json) as ResearchTrace & { truncated: string[] };
    expect(parsed.truncated).toHaveLength(2);
    expect(parsed.truncated[1]).toMatch(/pack section texts dropped/);
    expect(parsed.pack.evidence).toHaveLength(40);
    expect(parsed.pack.evidence[0].sections[0].text).toBe("");
    expect(parsed.pack.external_evidence[0].content_sections[0]).toEqual({ role: "external_snippet", text: "", truncated: true });
    expect(parseTraceNote(renderTraceNote(wordy))).toHaveProperty("trace");
  });

  it("drops more, step by step, when dropping event data is not enough", () => {
    const base = outsideTrace();
    const enormous: ResearchTrace = {
      ...base,
      answer: { text: "a".repeat(200_000), kind: "model", verified: false },
      errors: Array.from({ length: 3000 }, () => ({ stage: "external_retrieval" as const, kind: "bad_response", message: "m".repeat(300) })),
    };
    const json = boundedTraceJson(enormous);
    expect(json.length).toBeLessThanOrEqual(TRACE_JSON_MAX_CHARS);
    const parsed = JSON.parse(json) as { truncated: string[]; run_id: string };
    expect(parsed.run_id).toBe(base.run_id);
    expect(parsed.truncated.length).toBeGreaterThan(3);
  });

  it("leaves a trace that fits untouched", () => {
    const trace = vaultOnlyTrace();
    expect(boundedTraceJson(trace)).toBe(JSON.stringify(trace, null, 2));
  });
});

describe("recordPromotion", () => {
  const promotion = { source_key: braveRelease.source_key, note_path: "Sources/Release v3.2.0.md", at: "2026-12-01T09:00:00.000Z" };

  it("gives the same note as rendering the trace with the promotion in it", () => {
    const trace = outsideTrace();
    const result = recordPromotion(renderTraceNote(trace), promotion);
    expect(result).toEqual({ markdown: renderTraceNote({ ...trace, promotions: [promotion] }) });
  });

  it("turns the row's label to promoted with a link to the new note, and keeps the others ephemeral", () => {
    const result = recordPromotion(renderTraceNote(outsideTrace()), promotion);
    if (!("markdown" in result)) throw new Error(result.error.message);
    const note = visiblePart(result.markdown);
    expect(note).toContain(`**Outside vault · Brave · promoted** · \`${braveRelease.source_key}\` · saved as [[Sources/Release v3.2.0|Release v3.2.0]]`);
    expect(note).toContain(`**Outside vault · Brave · ephemeral** · \`${braveBlog.source_key}\``);
    const parsed = parseTraceNote(result.markdown);
    expect("trace" in parsed && parsed.trace.promotions).toEqual([promotion]);
  });

  it("keeps what the user wrote in the note and records the same key only once", () => {
    const edited = renderTraceNote(outsideTrace()).replace("## Warnings", "My own remark about this run.\n\n## Warnings");
    const once = recordPromotion(edited, promotion);
    if (!("markdown" in once)) throw new Error(once.error.message);
    const again = recordPromotion(once.markdown, { ...promotion, at: "2026-12-02T09:00:00.000Z" });
    if (!("markdown" in again)) throw new Error(again.error.message);
    expect(again.markdown).toContain("My own remark about this run.");
    const parsed = parseTraceNote(again.markdown);
    expect("trace" in parsed && parsed.trace.promotions).toEqual([{ ...promotion, at: "2026-12-02T09:00:00.000Z" }]);
  });

  it("refuses a key that is not an outside row of the trace, and a note that is not a trace", () => {
    const note = renderTraceNote(outsideTrace());
    expect(recordPromotion(note, { ...promotion, source_key: automergeNote.source_key })).toMatchObject({ error: { kind: "unknown_source_key" } });
    expect(recordPromotion("# hello", promotion)).toMatchObject({ error: { kind: "no_trace_block" } });
  });
});

describe("traceNotePath", () => {
  // Built from local time, so the expected name holds in any time zone.
  const started_at = new Date(2026, 10, 30, 14, 12, 3).toISOString();

  it("names the note by the run's local start time and its question", async () => {
    const p = await traceNotePath("Research/Traces", { started_at, question: "What changed in the latest Automerge release?" }, () => false);
    expect(p).toBe("Research/Traces/2026-11-30 1412 What changed in the latest Automerge release.md");
  });

  it("never overwrites: adds 2, 3, … while the path exists, asking sync or async", async () => {
    const taken = new Set(["Research/Traces/2026-11-30 1412 Why.md", "Research/Traces/2026-11-30 1412 Why 2.md"]);
    expect(await traceNotePath("Research/Traces/", { started_at, question: "Why?" }, (p) => taken.has(p))).toBe("Research/Traces/2026-11-30 1412 Why 3.md");
    expect(await traceNotePath("/Research/Traces", { started_at, question: "Why?" }, async (p) => taken.has(p))).toBe("Research/Traces/2026-11-30 1412 Why 3.md");
  });

  it("cuts a long question at a word, within 80 characters", async () => {
    const p = await traceNotePath("Research/Traces", { started_at, question: "How do I " + "really ".repeat(30) + "sync my vault?" }, () => false);
    const name = p.slice("Research/Traces/2026-11-30 1412 ".length, -".md".length);
    expect(name.length).toBeLessThanOrEqual(80);
    expect(name.endsWith("really")).toBe(true);
  });

  it("gives a safe, new file name for any question and any existing files", async () => {
    const forbidden = /[\\/:*?"<>|#^[\]]/;
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ unit: "grapheme", maxLength: 200 }), fc.string({ unit: "binary", maxLength: 120 })), fc.array(fc.string(), { maxLength: 5 }), async (question, others) => {
        const first = await traceNotePath("Research/Traces", { started_at, question }, () => false);
        const taken = new Set([first, `${first.slice(0, -3)} 2.md`, ...others]);
        const p = await traceNotePath("Research/Traces", { started_at, question }, (c) => taken.has(c));
        expect(p.startsWith("Research/Traces/")).toBe(true);
        expect(taken.has(p)).toBe(false);
        const name = p.slice("Research/Traces/".length, -".md".length);
        expect(name).not.toMatch(forbidden);
        expect(name).not.toMatch(/[\p{Cc}\p{Cs}]/u);
        expect(name).not.toMatch(/^[\s.]|[\s.]$/);
        expect(Array.from(name).length).toBeLessThanOrEqual(16 + 80 + 3);
        expect(name.startsWith("2026-11-30 1412 ")).toBe(true);
      }),
    );
  });
});
