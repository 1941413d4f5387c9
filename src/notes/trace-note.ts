// The trace note: the research trace as a markdown note a person reads in Obsidian — the answer,
// vault evidence and outside-vault evidence kept apart and labelled, warnings, a timeline — with
// the full (bounded) trace as JSON at the end (trace-note-json.ts), which promotion reads back
// (trace-note-read.ts). Web and model text reaches the note only through the one escaper
// (markdown-escape.ts). Everything here is pure: the caller writes the note through NoteStore.
import { stringify as toYaml } from "yaml";
import { warningsToShow, type ContentSection, type OutsideVaultRow } from "../evidence/research-pack";
import { alsoFoundByLabel, outsideVaultCounter, outsideVaultLabel, providerDisplayName, savedPageLabel, scoreFigure, vaultEvidenceCounter } from "../evidence/labels";
import type { ResearchTrace } from "../evidence/trace-types";
import { CUT_MARK, cutText } from "../evidence/trace-bounds";
import { TRACE_NOTE_TYPE } from "../index/trace-marks";
import { oneLine } from "../text/one-line";
import { roundTo } from "../text/numbers";
import { asSentence } from "../text/sentence-ends";
import { freeNotePath, notePathIn, noteFileName } from "./file-names";
import { CITATION_BRACKET, citationKeys, inertAnswerMarkdown, inertCodeSpanOf } from "./inert-answer";
import { escapeMarkdownText, plainLine, quoteLines } from "./markdown-escape";
import { linkableHeading, webLink, wikilink } from "./note-links";
import { recordingsIn, replayedWebFolder, SAMPLE_RESPONSES_TITLE, sampleProperties } from "./recorded-sample";
import { boundTraceJson, traceBlock } from "./trace-note-json";
import { webOutcomeHasFailures, webOutcomeOfTrace, webOutcomeSaysMore, webOutcomeSentence, type WebOutcome } from "./web-outcome";
import { fileTitle } from "../index/markdown";

export type Promotion = NonNullable<ResearchTrace["promotions"]>[number];

// ---------------------------------------------------------------------------------------------
// Rendering

export function renderTraceNote(trace: ResearchTrace): string {
  const data = boundTraceJson(trace);
  const parts = [
    frontmatter(trace),
    `# Research: ${escapeMarkdownText(oneLine(trace.question))}`,
    ...stoppedCallout(trace),
    answerSection(trace),
    vaultSection(trace),
    outsideSection(trace),
    warningsSection(trace, data.truncated),
    timelineSection(trace),
    `## Trace data\n\n${traceBlock(data.json)}`,
  ];
  return `${parts.join("\n\n")}\n`;
}

function frontmatter(trace: ResearchTrace): string {
  const data = {
    type: TRACE_NOTE_TYPE,
    question: plainLine(trace.question),
    // The local day, as the source notes and the user's own notes write `created` (a date property in
    // Obsidian, one type per vault: a UTC instant there reads as a wrong value); the exact start is `started_at` below.
    created: localStamp(trace.started_at).slice(0, 10),
    mode: trace.mode,
    providers: trace.providers,
    stop_reason: trace.stop_reason,
    verdict: trace.pack.judge.verdict,
    vault_rows: trace.pack.evidence.length,
    outside_rows: trace.pack.external_evidence.length,
    // As a source note promoted from such a run says it: a query over the vault tells samples from the live web.
    ...sampleProperties(replayedWebFolder(trace)),
    run_id: trace.run_id,
    tags: ["research/trace"],
  };
  return `---\n${toYaml(data, { lineWidth: 0 })}---`;
}

/**
 * Above everything else in the note of a run that was stopped (the panel's Stop, a cancelled call):
 * what follows is what it had found by then, not a finished run. Where it stopped is said in the
 * stage runner's words, the run's `cancelled` warning (research/stage-runner.ts), the one place
 * that knows it.
 */
function stoppedCallout(trace: ResearchTrace): string[] {
  if (trace.stop_reason !== "cancelled") return [];
  const where = trace.pack.warnings.find((w) => w.kind === "cancelled")?.message ?? "The run was cancelled before it finished.";
  return [
    [
      "> [!warning] Stopped before it finished",
      `> ${escapeMarkdownText(sentence(where))} What it had found by then is below; the stages after that did not run.`,
    ].join("\n"),
  ];
}

const NO_ANSWER_REASONS: Record<ResearchTrace["stop_reason"], string> = {
  enough_evidence: "the run stopped before synthesis",
  no_evidence: "the vault had no evidence on this question",
  weak_evidence: "the vault's evidence was too weak",
  external_failed_local_used: "web search failed and synthesis did not run",
  external_required_failed: "web search was required and failed, and the vault had nothing",
  synthesis_unavailable: "the model was unavailable",
  verification_failed: "the answer failed citation checks",
  timeout: "the run ran out of time",
  retrieval_only: "retrieval only was asked",
  cancelled: "the run was cancelled",
};

function answerSection(trace: ResearchTrace): string {
  const lines = ["## Answer", ""];
  const answer = trace.answer;
  if (!answer) {
    lines.push(`No answer was written (${NO_ANSWER_REASONS[trace.stop_reason]}).`);
    return lines.join("\n");
  }
  const replayed = replayedWebFolder(trace);
  if (replayed !== null) lines.push(answerReplayCallout(replayed), "");
  if (!answer.verified) {
    lines.push(
      "> [!warning] Unverified answer",
      "> Its citations did not pass verification, even after a repair attempt. Read it as a draft and check each claim against the evidence below.",
      "",
    );
  }
  lines.push(inertAnswerMarkdown(answer.text.trim()), "");
  lines.push(`*${answerFooter(answer)}*`);
  return lines.join("\n");
}

/**
 * Who wrote the answer and what its check found. An answer that cites nothing (the vault had nothing,
 * the model wrote none) passed a check with nothing to check: "Citations verified" there claimed a check
 * of citations no one saw, and "quoted from the evidence" a quote that is not there.
 */
function answerFooter(answer: NonNullable<ResearchTrace["answer"]>): string {
  const cites = citesAnything(answer.text);
  const extractive = cites ? "Evidence brief quoted from the evidence; no model wrote it." : "Evidence brief; no model wrote it.";
  const by = answer.kind === "extractive" ? extractive : `Written by ${answer.model ? modelName(answer.model) : "a model"}.`;
  if (!answer.verified) return `${by} Citations not verified.`;
  return `${by} ${cites ? "Citations verified." : "It cites no source, so there was no citation to check."}`;
}

function citesAnything(text: string): boolean {
  return [...text.matchAll(CITATION_BRACKET)].some((m) => (citationKeys(m[1]) ?? []).length > 0);
}

function vaultSection(trace: ResearchTrace): string {
  const { evidence, judge } = trace.pack;
  const lines = ["## Vault evidence", "", vaultEvidenceCounter(evidence.length), ""];
  lines.push(`Judge: **${judge.verdict.replace(/_/g, " ")}** — ${escapeMarkdownText(sentence(judge.reason))}${missingBeyondReason(judge)}`);
  if (evidence.length > 0) lines.push("");
  for (const row of evidence) {
    const section = row.sections[0];
    const heading = section ? linkableHeading(section.heading) : "";
    const shown = heading ? `${row.title} › ${heading}` : row.title;
    // A page someone saved is vault evidence in the page's words, not the owner's: said as the panel and the CLI say it.
    const saved = row.saved_from !== undefined ? [escapeMarkdownText(oneLine(savedPageLabel(row.saved_from)))] : [];
    // A fused score (all near 1/60) to one decimal read "score 0" on every row: it says what it is, to four places.
    const fused = row.retrieval.fusion ?? (row.retrieval.lanes?.some((l) => l.name === "note_vector") ? { score: row.retrieval.score } : null);
    const score = fused ? `fused score ${scoreFigure(fused.score, true)}` : `score ${roundTo(row.retrieval.score, 1)}`;
    const facts = [...saved, `\`${row.source_key}\``, score];
    if (row.also_found_by && row.also_found_by.length > 0) facts.push(alsoFoundByLabel(row.also_found_by));
    lines.push(`- ${wikilink(row.note_path, { heading, alias: shown })} · ${facts.join(" · ")}`);
  }
  return lines.join("\n");
}

/**
 * The missing words the judge's reason does not already name. The reason quotes the words it speaks
 * of ("papers" is missing, "sync" only through "replication"); said again after it, unquoted, the
 * same words read as a second finding. What it left out (past its first five, or a model's reason
 * that names none) is still said.
 */
function missingBeyondReason(judge: ResearchTrace["pack"]["judge"]): string {
  const named = (term: string) => judge.reason.includes(`"${term}"`);
  const unsaid = judge.missing_terms.filter((t) => !named(t));
  if (unsaid.length === 0) return "";
  const label = unsaid.length < judge.missing_terms.length ? "Also missing" : "Missing";
  return ` ${label}: ${unsaid.map(escapeMarkdownText).join(", ")}.`;
}

function outsideSection(trace: ResearchTrace): string {
  const rows = trace.pack.external_evidence;
  const rowProviders = [...new Set(rows.map((r) => r.provider))];
  // With no rows, the sources that answered with nothing: "0 rows from Hacker News" was said of one that never answered.
  const counterProviders = rows.length > 0 ? rowProviders : answeredSources(trace);
  const lines = ["## Outside vault", ""];
  const replayed = replayedWebFolder(trace);
  if (replayed !== null) lines.push(replayCallout(replayed), "");
  lines.push(outsideVaultCounter(rows.length, counterProviders), "");
  const outcome = webOutcomeOfTrace(trace);
  // The web search's outcome in the words the panel, the CLI and the recall note use (web-outcome.ts).
  if (webOutcomeSaysMore(outcome)) lines.push(`${webOutcomeSentence(outcome)}${webOutcomeHasFailures(outcome) ? " How each failed is under Warnings below." : ""}`, "");
  // Said whenever the policy sent the run to the web, whatever became of it: shown only with a query
  // sent, a run whose one source had no key (nothing left) lost why the web was asked at all.
  const why = webWasAsked(outcome) ? eventText(trace, "external_policy", "detail") : null;
  if (why) lines.push(`Why the web was asked: ${escapeMarkdownText(sentence(why))}`, "");
  if (trace.queries_sent.length > 0) lines.push(...queriesSent(trace));
  while (lines[lines.length - 1] === "") lines.pop();
  const promotions = new Map((trace.promotions ?? []).map((p) => [p.source_key, p]));
  for (const row of rows) lines.push("", outsideRowBlock(row, promotions.get(row.source_key), pageNotRead(trace, row.source_key)));
  return lines.join("\n");
}

/**
 * Whether the policy sent the run to the web: the search started (a query was handed to the sources,
 * sent or not), or the run stopped or ran out of time after the policy decided and before one was.
 * Not for a run not allowed the web, one the vault answered (on-weak) or one with no source turned on:
 * the policy's detail there says why the web was not asked.
 */
function webWasAsked(outcome: WebOutcome): boolean {
  return outcome.kind === "searched" || outcome.kind === "not_reached";
}

/** The sources that answered the run's web search, with results or none: each has its freshness entry (and any rows). */
function answeredSources(trace: ResearchTrace): string[] {
  const { coverage, external_evidence: rows } = trace.pack;
  return [...new Set([...coverage.external_freshness.map((f) => f.provider), ...rows.map((r) => r.provider)])];
}

/**
 * Each query that left, and where it came from. A reader saw "automerge release 2026", a query they
 * never typed, with nothing saying it was the question's keywords and why the year was added.
 */
function queriesSent(trace: ResearchTrace): string[] {
  const built = trace.events.filter((e) => e.type === "external_query_built" && e.data?.not_sent === undefined).map((e) => e.data ?? {});
  const lines = ["Queries sent:"];
  for (const query of trace.queries_sent) {
    // The query built as it was sent, once: a second query of the same words has an event of its own.
    const at = built.findIndex((data) => data.query === query);
    const origin = at < 0 ? null : queryOrigin(built.splice(at, 1)[0], trace.pack.query_plan.freshness.cues);
    lines.push(`- “${escapeMarkdownText(oneLine(query))}”${origin ? ` — ${origin}` : ""}`);
  }
  return lines;
}

/** A query's origin in words, from its `external_query_built` event (research/stages/external-retrieval.ts). */
function queryOrigin(data: Record<string, unknown>, cues: readonly string[]): string | null {
  if (data.from === "question") return "the question as typed";
  if (data.from === "question_tidied") return "the question, tidied for a search engine";
  if (data.from !== "question_keywords") return null;
  const current = `the question asks about the current state${cues.length > 0 ? ` (${cues.map((c) => `“${escapeMarkdownText(oneLine(c))}”`).join(", ")})` : ""}`;
  return typeof data.year_added === "number" ? `the question's keywords; ${data.year_added} added because ${current}` : `the question's keywords, sent because ${current}`;
}

/** A text fact of the run's first event of `type` (the trace's events keep the policy's and pages' words). */
function eventText(trace: ResearchTrace, type: string, key: string, where: (data: Record<string, unknown>) => boolean = () => true): string | null {
  for (const e of trace.events) {
    const value = e.type === type && e.data && where(e.data) ? e.data[key] : undefined;
    if (typeof value === "string" && value.trim() !== "") return value;
  }
  return null;
}

/** Why the run did not read the page behind a row it tried to read, or null (read, or never tried). */
function pageNotRead(trace: ResearchTrace, key: string): string | null {
  const skipped = (data: Record<string, unknown>) => data.key === key && data.outcome === "skipped";
  return eventText(trace, "page_fetch", "message", skipped) ?? eventText(trace, "page_extract", "message", skipped);
}

/** Said above the outside rows of a replayed run: they are recorded samples, not a live search. */
function replayCallout(folder: string): string {
  return [`> ${SAMPLE_RESPONSES_TITLE}`, `> The web's answers in this run were replayed from ${recordingsIn(folder)}; nothing here was searched on the web.`].join("\n");
}

/**
 * Said first in the Answer of a replayed run: the answer may quote outside rows, or a model may
 * have put them in its own words with no quote marks, and a reader meets it before the Outside
 * vault section says where they came from.
 */
function answerReplayCallout(folder: string): string {
  return [
    `> ${SAMPLE_RESPONSES_TITLE}`,
    `> The web's answers in this run were replayed from ${recordingsIn(folder)}, not searched live: what this answer takes from outside the vault comes from those samples.`,
  ].join("\n");
}

/** `notRead`: why the run could not read the row's page, when it tried (said as the CLI says it under the row). */
function outsideRowBlock(row: OutsideVaultRow, promotion: Promotion | undefined, notRead: string | null = null): string {
  const facts = [escapeMarkdownText(oneLine(row.domain))];
  if (row.published_at) facts.push(escapeMarkdownText(oneLine(row.published_at)));
  if (row.also_found_by.length > 0) facts.push(alsoFoundByLabel(row.also_found_by));
  const lines = [outsideRowLabelLine(row, promotion), `${webLink(row.title, row.url)} · ${facts.join(" · ")}`];
  if (notRead !== null) lines.push(`*Page not read: ${escapeMarkdownText(sentence(notRead))}*`);
  for (const section of row.content_sections) {
    if (section.text.trim() === "") continue;
    const caption = sectionCaption(row, section);
    lines.push("", caption ? `${caption}\n${quoteLines(section.text)}` : quoteLines(section.text));
  }
  return lines.join("\n");
}

/**
 * Who wrote a quoted section, when it is not the provider's snippet: a passage the run read from
 * the page, or a summary, which a model wrote (the run's or the provider's), not the page. The
 * panel, the CLI and the prompt say so; unsaid here, a model's words read as the page's.
 */
function sectionCaption(row: OutsideVaultRow, section: ContentSection): string | null {
  if (section.role === "external_summary") return section.fetched ? "*Summary by the model, not the page's words:*" : `*Summary by ${providerDisplayName(row.provider)}, not the page's words:*`;
  if (!section.fetched) return null;
  const path = (section.heading_path ?? []).map((h) => escapeMarkdownText(oneLine(h))).filter((h) => h !== "");
  return `*Passage read from the page${path.length > 0 ? ` (§ ${path.join(" › ")})` : ""}:*`;
}

/** The first line of an outside row; `recordPromotion` finds it again by the key on it. */
export function outsideRowLabelLine(row: OutsideVaultRow, promotion: Promotion | undefined): string {
  const label = outsideVaultLabel(row.provider, promotion ? "promoted" : "ephemeral");
  const saved = promotion ? ` · saved as ${wikilink(promotion.note_path, { alias: fileTitle(promotion.note_path) })}` : "";
  return `**${label}** · \`${row.source_key}\`${saved}`;
}

/**
 * The run's warnings and errors, each said once and in words. A provider's failure, a timeout, a model
 * that could not answer is both a pack warning and a trace error, and two queries fail the same way:
 * listed as they were, one failure read as two or three, under names (`provider_network`,
 * `external_retrieval`) a reader never chose. The kinds stay in the trace data.
 */
function warningsSection(trace: ResearchTrace, truncated: readonly string[]): string {
  const said: string[] = [];
  const items: string[] = [];
  const say = (text: string) => {
    said.push(text);
    items.push(`- ${escapeMarkdownText(sentence(text))}`);
  };
  for (const w of warningsToShow(trace.stop_reason, trace.pack.warnings)) if (!said.includes(oneLine(w.message))) say(oneLine(w.message));
  for (const e of trace.errors) {
    const message = oneLine(e.message);
    if (said.some((text) => text.includes(uncut(message)))) continue;
    say(`${e.provider ? `${providerDisplayName(e.provider)}, during` : "During"} the ${e.stage.replace(/_/g, " ")} stage: ${message}`);
  }
  for (const t of truncated) items.push(`- Cut from the trace data below: ${escapeMarkdownText(sentence(oneLine(t)))}`);
  return ["## Warnings", "", ...(items.length > 0 ? items : ["None."])].join("\n");
}

/** A message without the mark the trace's bound left on it, to find it inside the whole sentence. */
function uncut(message: string): string {
  return message.endsWith(CUT_MARK) ? message.slice(0, -CUT_MARK.length) : message;
}

/**
 * Every event at its time since the run started, and each stage's time; what the stages do not add up
 * to (before the first one and between them) is said, so the total is accounted for.
 */
function timelineSection(trace: ResearchTrace): string {
  const lines = ["## Timeline", "", "Times are milliseconds since the run started; *took* is how long a stage ran.", "", "| At (ms) | Event | Details |", "| ---: | --- | --- |"];
  for (const e of trace.events) {
    lines.push(`| ${Math.round(e.at)} | ${tableCell(e.type)} | ${tableCell(eventDetails(e.data))} |`);
  }
  const stages = Object.entries(trace.timings_ms).filter(([stage]) => stage !== "total");
  const timings = stages.map(([stage, ms]) => `${stage} ${figure(ms ?? 0)} ms`);
  const total = trace.timings_ms.total;
  if (total !== undefined) {
    const outside = total - stages.reduce((sum, [, ms]) => sum + (ms ?? 0), 0);
    if (outside >= 0.05) timings.push(`outside the stages ${figure(outside)} ms`);
    timings.push(`total ${figure(total)} ms`);
  }
  if (timings.length > 0) lines.push("", `Timings: ${timings.join(" · ")}`);
  return lines.join("\n");
}

/**
 * An event's facts on one line. A stage's duration is said as "took 2 ms", last: "ms: 1.8015530000000126"
 * was the clock's reading to the nanosecond, in a column of times of another kind.
 */
function eventDetails(data: Record<string, unknown> | undefined): string {
  if (!data) return "";
  const waited = typeof data.rate_wait_ms === "number";
  const parts = Object.entries(data)
    .filter(([k]) => k !== "ms" && !(waited && (k === "rate_wait" || k === "rate_wait_cut")))
    .map(([k, v]) => (waited && k === "rate_wait_ms" ? rateWaitWords(data.rate_wait_ms as number, data) : `${k}: ${typeof v === "string" ? v : JSON.stringify(typeof v === "number" ? roundTo(v, 1) : v)}`));
  if (typeof data.ms === "number") parts.push(`took ${figure(data.ms)} ms`);
  return cutText(parts.join("; "), 240);
}

/**
 * A source's wait for its rate turn before it was asked, beside its answer, as the run said it while
 * it waited: "rate_wait_ms: 975; rate_wait: pacing" named neither whose limit it was nor who asked.
 * A wait a stop cut short (`rate_wait_cut`) says so in words: the field's name read as a code.
 */
function rateWaitWords(ms: number, data: Record<string, unknown>): string {
  const who = typeof data.provider === "string" ? providerDisplayName(data.provider) : "the source";
  const asked = data.rate_wait === "provider_asked";
  if (data.rate_wait_cut !== undefined) return `stopped after ${figure(ms)} ms of ${asked ? `the pause ${who} asked for` : `its wait for ${who}'s rate limit`}`;
  const waited = `waited ${figure(ms)} ms`;
  return asked ? `${waited}: ${who} asked us to slow down` : `${waited} for ${who}'s rate limit`;
}

/** A duration as a reader reads it: whole milliseconds, or one decimal under ten. */
function figure(ms: number): string {
  return String(ms < 10 ? roundTo(ms, 1) : Math.round(ms));
}

// ---------------------------------------------------------------------------------------------
// Where the note goes

/**
 * `Research/Traces/2026-11-30 1412 What changed in the latest Automerge release.md` (local time of
 * the run's start). Never an existing path: ` 2`, ` 3`, … are added until `exists` says no; past
 * ` 999`, the run's start to the second and its milliseconds tell it apart.
 */
export async function traceNotePath(folder: string, trace: Pick<ResearchTrace, "started_at" | "question">, exists: (path: string) => boolean | Promise<boolean>): Promise<string> {
  const name = traceNoteName(trace);
  return (await freeNotePath(folder, name, exists)) ?? notePathIn(folder, traceNoteLastResortName(trace));
}

/** `2026-11-30 1412 What changed in the latest Automerge release` (local time of the run's start). */
export function traceNoteName(trace: Pick<ResearchTrace, "started_at" | "question">): string {
  return noteFileName({ prefix: `${localStamp(trace.started_at)} `, text: trace.question, fallback: "Untitled question" });
}

/** The name once ` 2` … ` 999` are all taken: the run's start to the millisecond tells it apart. */
export function traceNoteLastResortName(trace: Pick<ResearchTrace, "started_at" | "question">): string {
  return `${traceNoteName(trace)} ${trace.started_at.replace(/\D/g, "")}`;
}

function localStamp(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "0000-00-00 0000";
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}${two(d.getMinutes())}`;
}

// ---------------------------------------------------------------------------------------------
// Untrusted text

/**
 * The model's name as the server reported it, in a code span: one line (a blank line would end
 * the span and free what follows), no backtick, no `<%` (Templater reads code too), and as text
 * when it is code a plugin runs (`$= dv.el(…)`: Dataview ran it as the note opened).
 */
function modelName(model: string): string {
  return inertCodeSpanOf(oneLine(model));
}

function tableCell(text: string): string {
  return escapeMarkdownText(oneLine(text));
}


/** `text` ended as a sentence (`asSentence`), on one line: a line break would end the list item or callout it stands in. */
function sentence(text: string): string {
  return asSentence(oneLine(text));
}
