// The trace note: the research trace as a markdown note a person reads in Obsidian — the answer,
// vault evidence and outside-vault evidence kept apart and labelled, warnings, a timeline — with
// the full (bounded) trace as JSON at the end, which the promotion command reads back.
// Web text is untrusted: titles and snippets are escaped so they render as text, never as HTML,
// links, tags or fences. Everything here is pure: the caller writes the note through NoteStore.
import { stringify as toYaml } from "yaml";
import { z } from "zod";
import { judgeVerdicts, outsideVaultRowSchema, stopReasonSchema, vaultRowSchema, type OutsideVaultRow } from "../evidence/research-pack";
import { alsoFoundByLabel, outsideVaultCounter, outsideVaultLabel, providerDisplayName, vaultEvidenceCounter } from "../evidence/labels";
import type { ResearchTrace } from "../research/types";
import { boundStrings, cutText, type TraceTruncation } from "../research/trace-recorder";
import { oneLine } from "../text/one-line";
import { roundTo } from "../text/numbers";

/** The fence that opens the trace's JSON block; `parseTraceNote` looks for exactly this. */
export const TRACE_BLOCK_OPEN = "```json vault-research-trace";
/** The JSON block never grows past this many characters. */
export const TRACE_JSON_MAX_CHARS = 60_000;

export type Promotion = NonNullable<ResearchTrace["promotions"]>[number];

export type TraceNoteError =
  | { kind: "no_trace_block"; message: string }
  | { kind: "invalid_json"; message: string }
  | { kind: "invalid_trace"; message: string };

export type PromotionError = TraceNoteError | { kind: "unknown_source_key"; message: string };

// ---------------------------------------------------------------------------------------------
// Rendering

export function renderTraceNote(trace: ResearchTrace): string {
  const data = boundTraceJson(trace, TRACE_JSON_MAX_CHARS);
  const parts = [
    frontmatter(trace),
    `# Research: ${escapeInline(oneLine(trace.question))}`,
    answerSection(trace),
    vaultSection(trace),
    outsideSection(trace),
    warningsSection(trace, data.truncated),
    timelineSection(trace),
    ["## Trace data", "", TRACE_BLOCK_OPEN, data.json, "```"].join("\n"),
  ];
  return `${parts.join("\n\n")}\n`;
}

function frontmatter(trace: ResearchTrace): string {
  const data = {
    type: "research-trace",
    question: trace.question,
    created: trace.started_at,
    mode: trace.mode,
    providers: trace.providers,
    stop_reason: trace.stop_reason,
    verdict: trace.pack.judge.verdict,
    vault_rows: trace.pack.evidence.length,
    outside_rows: trace.pack.external_evidence.length,
    run_id: trace.run_id,
    tags: ["research/trace"],
  };
  return `---\n${toYaml(data, { lineWidth: 0 })}---`;
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
  if (!answer.verified) {
    lines.push(
      "> [!warning] Unverified answer",
      "> Its citations did not pass verification, even after a repair attempt. Read it as a draft and check each claim against the evidence below.",
      "",
    );
  }
  lines.push(neutraliseAnswer(answer.text.trim()), "");
  const by = answer.kind === "extractive" ? "Evidence brief quoted from the evidence; no model wrote it." : `Written by ${answer.model ? `\`${answer.model.replace(/`/g, "")}\`` : "a model"}.`;
  lines.push(`*${by} Citations ${answer.verified ? "verified" : "not verified"}.*`);
  return lines.join("\n");
}

function vaultSection(trace: ResearchTrace): string {
  const { evidence, judge } = trace.pack;
  const lines = ["## Vault evidence", "", vaultEvidenceCounter(evidence.length), ""];
  const missing = judge.missing_terms.length > 0 ? ` Missing: ${judge.missing_terms.map(escapeInline).join(", ")}.` : "";
  lines.push(`Judge: **${judge.verdict}** — ${escapeInline(sentence(judge.reason))}${missing}`);
  if (evidence.length > 0) lines.push("");
  for (const row of evidence) {
    const section = row.sections[0];
    const heading = section ? linkableHeading(section.heading) : "";
    const target = `${row.note_path.replace(/\.md$/i, "")}${heading ? `#${heading}` : ""}`;
    const shown = heading ? `${row.title} › ${heading}` : row.title;
    const facts = [`\`${row.source_key}\``, `score ${roundTo(row.retrieval.score, 1)}`];
    if (row.also_found_by && row.also_found_by.length > 0) facts.push(alsoFoundByLabel(row.also_found_by));
    lines.push(`- [[${target}|${aliasText(shown)}]] · ${facts.join(" · ")}`);
  }
  return lines.join("\n");
}

function outsideSection(trace: ResearchTrace): string {
  const rows = trace.pack.external_evidence;
  const rowProviders = [...new Set(rows.map((r) => r.provider))];
  const counterProviders = rows.length > 0 ? rowProviders : trace.queries_sent.length > 0 ? trace.providers : [];
  const lines = ["## Outside vault", "", outsideVaultCounter(rows.length, counterProviders), ""];
  if (trace.queries_sent.length > 0) {
    lines.push(`Queries sent: ${trace.queries_sent.map((q) => `“${escapeInline(oneLine(q))}”`).join(" · ")}`);
  } else {
    lines.push(`Nothing left the device: web search ${trace.mode === "never" ? "is off for this run" : "was not used"}.`);
  }
  const promotions = new Map((trace.promotions ?? []).map((p) => [p.source_key, p]));
  for (const row of rows) lines.push("", outsideRowBlock(row, promotions.get(row.source_key)));
  return lines.join("\n");
}

function outsideRowBlock(row: OutsideVaultRow, promotion: Promotion | undefined): string {
  const facts = [escapeInline(oneLine(row.domain))];
  if (row.published_at) facts.push(escapeInline(oneLine(row.published_at)));
  if (row.also_found_by.length > 0) facts.push(alsoFoundByLabel(row.also_found_by));
  const lines = [outsideRowLabelLine(row, promotion), `${webLink(row.title, row.url)} · ${facts.join(" · ")}`];
  for (const section of row.content_sections) {
    if (section.text.trim() === "") continue;
    lines.push("", quoteUntrusted(section.text));
  }
  return lines.join("\n");
}

/** The first line of an outside row; `recordPromotion` finds it again by the key on it. */
function outsideRowLabelLine(row: OutsideVaultRow, promotion: Promotion | undefined): string {
  const label = outsideVaultLabel(row.provider, promotion ? "promoted" : "ephemeral");
  const saved = promotion ? ` · saved as [[${promotion.note_path.replace(/\.md$/i, "")}|${aliasText(baseName(promotion.note_path))}]]` : "";
  return `**${label}** · \`${row.source_key}\`${saved}`;
}

function warningsSection(trace: ResearchTrace, truncated: readonly string[]): string {
  const lines = ["## Warnings", ""];
  for (const w of trace.pack.warnings) lines.push(`- **${escapeInline(w.kind)}** — ${escapeInline(oneLine(w.message))}`);
  for (const e of trace.errors) {
    const where = [e.provider ? providerDisplayName(e.provider) : "", e.stage].filter(Boolean).join(", ");
    lines.push(`- **${escapeInline(e.kind)}** (${escapeInline(where)}) — ${escapeInline(oneLine(e.message))}`);
  }
  for (const t of truncated) lines.push(`- **trace_cut** — ${escapeInline(oneLine(t))}`);
  if (lines.length === 2) lines.push("None.");
  return lines.join("\n");
}

function timelineSection(trace: ResearchTrace): string {
  const lines = ["## Timeline", "", "| ms | Event | Details |", "| ---: | --- | --- |"];
  for (const e of trace.events) {
    lines.push(`| ${Math.round(e.at)} | ${tableCell(e.type)} | ${tableCell(eventDetails(e.data))} |`);
  }
  const timings = Object.entries(trace.timings_ms)
    .filter(([stage]) => stage !== "total")
    .map(([stage, ms]) => `${stage} ${Math.round(ms ?? 0)} ms`);
  if (trace.timings_ms.total !== undefined) timings.push(`total ${Math.round(trace.timings_ms.total)} ms`);
  if (timings.length > 0) lines.push("", `Timings: ${timings.join(" · ")}`);
  return lines.join("\n");
}

function eventDetails(data: Record<string, unknown> | undefined): string {
  if (!data) return "";
  const parts = Object.entries(data).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
  return cutText(parts.join("; "), 240);
}

// ---------------------------------------------------------------------------------------------
// Bounding the JSON block

/**
 * `JSON.stringify(trace, null, 2)`, at most `max` characters. When the trace is too big, parts are
 * dropped in order of least use to a reader — event data, pack section texts, events, the answer's
 * length, evidence rows, then long strings and lists anywhere — and each step is named in the
 * `truncated` field, so the block always stays valid JSON that says what it lost.
 */
export function boundedTraceJson(trace: ResearchTrace, max = TRACE_JSON_MAX_CHARS): string {
  return boundTraceJson(trace, max).json;
}

/** The bounded JSON and everything the trace says it lost (the recorder's cuts and these). */
function boundTraceJson(trace: ResearchTrace, max: number): { json: string; truncated: string[] } {
  let current = JSON.parse(JSON.stringify(trace)) as ResearchTrace & TraceTruncation;
  let text = JSON.stringify(current, null, 2);
  const result = () => ({ json: text, truncated: current.truncated ?? [] });
  if (text.length <= max) return result();
  const steps: [string, (t: ResearchTrace & TraceTruncation) => void][] = [
    [`event data dropped to fit ${max} characters`, (t) => t.events.forEach((e) => delete e.data)],
    [
      `pack section texts dropped to fit ${max} characters`,
      (t) => {
        for (const row of t.pack.evidence) for (const s of row.sections) s.text = "";
        for (const row of t.pack.external_evidence) for (const s of row.content_sections) Object.assign(s, { text: "", truncated: true });
      },
    ],
    [`events dropped to fit ${max} characters`, (t) => (t.events = [])],
    [
      `answer cut to fit ${max} characters`,
      (t) => {
        if (t.answer) t.answer.text = cutText(t.answer.text, Math.floor(max / 3));
      },
    ],
    [
      `evidence rows dropped to fit ${max} characters (the coverage counts remain)`,
      (t) => {
        t.pack.evidence = [];
        t.pack.external_evidence = [];
      },
    ],
    [`long strings and lists cut to fit ${max} characters`, (t) => Object.assign(t, shrink(t, 200, 20))],
  ];
  for (const [note, apply] of steps) {
    apply(current);
    current.truncated = [...(current.truncated ?? []), note];
    text = JSON.stringify(current, null, 2);
    if (text.length <= max) return result();
  }
  // Only a pathological trace gets here (thousands of errors or warnings): keep the identity.
  current = shrink(current, 80, 3) as ResearchTrace & TraceTruncation;
  text = JSON.stringify(current, null, 2);
  return result();
}

function shrink(value: unknown, maxString: number, maxList: number): unknown {
  if (Array.isArray(value)) return value.slice(0, maxList).map((v) => shrink(v, maxString, maxList));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = shrink(v, maxString, maxList);
    return out;
  }
  return boundStrings(value, maxString);
}

// ---------------------------------------------------------------------------------------------
// Reading back

const traceEssentialsSchema = z.object({
  schema: z.literal("research_trace.v1"),
  run_id: z.string(),
  started_at: z.string(),
  question: z.string(),
  mode: z.string(),
  providers: z.array(z.string()),
  queries_sent: z.array(z.string()),
  stop_reason: stopReasonSchema,
  events: z.array(z.object({ type: z.string(), at: z.number() })),
  errors: z.array(z.object({ stage: z.string(), kind: z.string(), message: z.string() })),
  pack: z.object({
    question: z.string(),
    evidence: z.array(vaultRowSchema),
    external_evidence: z.array(outsideVaultRowSchema),
    judge: z.object({ verdict: z.enum(judgeVerdicts) }),
  }),
  promotions: z.array(z.object({ source_key: z.string(), note_path: z.string(), at: z.string() })).optional(),
});

const TRACE_BLOCK = /^```json vault-research-trace[ \t]*\r?\n([\s\S]*?)\r?\n```[ \t]*$/m;

/** The trace kept in a trace note's JSON block, checked for what promotion and replay rely on. */
export function parseTraceNote(markdown: string): { trace: ResearchTrace } | { error: TraceNoteError } {
  const block = TRACE_BLOCK.exec(markdown);
  if (!block) {
    return { error: { kind: "no_trace_block", message: `This note has no ${TRACE_BLOCK_OPEN} block; is it a research trace note?` } };
  }
  let data: unknown;
  try {
    data = JSON.parse(block[1]);
  } catch (e) {
    return { error: { kind: "invalid_json", message: `The trace block is not valid JSON (${e instanceof Error ? e.message : String(e)}).` } };
  }
  const checked = traceEssentialsSchema.safeParse(data);
  if (!checked.success) {
    const issues = checked.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    return { error: { kind: "invalid_trace", message: `The trace block is not a research trace: ${issues.join("; ")}.` } };
  }
  // The original object, not zod's copy: fields this version does not check are kept.
  return { trace: data as ResearchTrace };
}

/**
 * The note with a promotion recorded: added (or replaced, for the same key) in the JSON block's
 * `promotions`, and the row's visible label turned to `· promoted` with a link to the new note.
 * The rest of the note, including anything the user wrote in it, is left as it was.
 */
export function recordPromotion(markdown: string, promotion: Promotion): { markdown: string } | { error: PromotionError } {
  const parsed = parseTraceNote(markdown);
  if ("error" in parsed) return parsed;
  const trace = parsed.trace;
  const row = trace.pack.external_evidence.find((r) => r.source_key === promotion.source_key);
  if (!row) {
    return { error: { kind: "unknown_source_key", message: `${promotion.source_key} is not an outside-vault row of this trace.` } };
  }
  const promotions = [...(trace.promotions ?? []).filter((p) => p.source_key !== promotion.source_key), { ...promotion }];
  const updated: ResearchTrace = { ...trace, promotions };
  const labelLine = new RegExp(`^\\*\\*Outside vault · [^*\\n]+\\*\\* · \`${escapeRegExp(row.source_key)}\`.*$`, "m");
  const withBlock = markdown.replace(TRACE_BLOCK, () => `${TRACE_BLOCK_OPEN}\n${boundedTraceJson(updated)}\n\`\`\``);
  return { markdown: withBlock.replace(labelLine, () => outsideRowLabelLine(row, promotion)) };
}

// ---------------------------------------------------------------------------------------------
// Where the note goes

const FORBIDDEN_IN_NAME = /[\\/:*?"<>|#^[\]\p{Cc}\p{Cf}\p{Cs}]/gu;
const MAX_NAME_CHARS = 80;

/**
 * `Research/Traces/2026-11-30 1412 What changed in the latest Automerge release.md` (local time of
 * the run's start). Never an existing path: ` 2`, ` 3`, … are added until `exists` says no.
 */
export async function traceNotePath(folder: string, trace: Pick<ResearchTrace, "started_at" | "question">, exists: (path: string) => boolean | Promise<boolean>): Promise<string> {
  const dir = folder.replace(/\\/g, "/").split("/").map((p) => p.trim()).filter((p) => p !== "" && p !== "." && p !== "..").join("/");
  const base = `${localStamp(trace.started_at)} ${safeFileName(trace.question)}`;
  const at = (name: string) => (dir ? `${dir}/${name}.md` : `${name}.md`);
  for (let n = 1; n < 1000; n++) {
    const candidate = at(n === 1 ? base : `${base} ${n}`);
    if (!(await exists(candidate))) return candidate;
  }
  return at(`${base} ${trace.started_at.replace(/\D/g, "")}`);
}

/** A question as a file name on every OS: forbidden characters out, no edge dots or spaces, ≤ 80 characters. */
export function safeFileName(text: string): string {
  const cleaned = text.replace(FORBIDDEN_IN_NAME, " ").replace(/\s+/g, " ");
  let name = trimEdges(cleaned);
  const points = Array.from(name);
  if (points.length > MAX_NAME_CHARS) {
    const cut = points.slice(0, MAX_NAME_CHARS).join("");
    const space = cut.lastIndexOf(" ");
    name = trimEdges(space > MAX_NAME_CHARS / 2 ? cut.slice(0, space) : cut);
  }
  return name === "" ? "Untitled question" : name;
}

function trimEdges(text: string): string {
  return text.replace(/^[\s.]+|[\s.]+$/g, "");
}

function localStamp(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "0000-00-00 0000";
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}${two(d.getMinutes())}`;
}

// ---------------------------------------------------------------------------------------------
// Untrusted text

/** Markdown punctuation that could turn text into links, emphasis, tags, math, comments or code. */
const INLINE_MARKUP = /[\\`*[\]#|~=^$%]/g;
/** `_` only makes emphasis at a word's edge, so `snake_case` is left readable. */
const EDGE_UNDERSCORE = /(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;

/** Web (or any untrusted) text as inert inline markdown: every markup character escaped, `<` as an entity. */
export function escapeInline(text: string): string {
  return text
    .replace(INLINE_MARKUP, (c) => `\\${c}`)
    .replace(EDGE_UNDERSCORE, "\\_")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

/** Untrusted text as a quote block: one `> ` line per line, block syntax at line starts neutralised. */
function quoteUntrusted(text: string): string {
  return text
    .split(/\r?\n/)
    .map((raw) => {
      const line = escapeInline(raw.trim()).replace(/^([-+]|\d+[.)])(?=\s|$)/, (m) => `${m.slice(0, -1)}\\${m.slice(-1)}`);
      return line === "" ? ">" : `> ${line}`;
    })
    .join("\n");
}

/**
 * The answer is markdown (the runner's evidence brief or a model's), but it quotes web text: raw
 * HTML, wikilinks and `#tags` are neutralised so it cannot add markup, links or tags to the vault.
 */
function neutraliseAnswer(text: string): string {
  const inert = text
    .replace(/<(?=[A-Za-z/!?])/g, "&lt;")
    .replace(/\[\[/g, "\\[\\[")
    .replace(/(^|\s)#(?=[^\s#])/gmu, "$1\\#");
  // An unclosed code fence would swallow the rest of the note, evidence and all.
  const fences = inert.split("\n").filter((line) => /^ {0,3}(`{3,}|~{3,})/.test(line));
  return fences.length % 2 === 1 ? `${inert}\n${fences[fences.length - 1].trim().replace(/^([`~]+).*$/, "$1")}` : inert;
}

/** `[title](url)` for http(s) URLs; anything else is shown as text, never linked. */
function webLink(title: string, url: string): string {
  const text = escapeInline(oneLine(title)) || escapeInline(url);
  if (!/^https?:\/\/[^\s]+$/i.test(url.trim())) return `${text} (${escapeInline(oneLine(url))})`;
  const target = url.trim().replace(/[()<>[\]`"' ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
  return `[${text}](${target})`;
}

/** Obsidian links to a heading by its text, minus the characters link syntax reserves. */
function linkableHeading(heading: string): string {
  return oneLine(heading.replace(/[[\]|#^:%]/g, " "));
}

function aliasText(text: string): string {
  return oneLine(text).replace(/\[/g, "(").replace(/\]/g, ")").replace(/\|/g, "/");
}

function tableCell(text: string): string {
  return escapeInline(oneLine(text));
}

function baseName(path: string): string {
  return (path.split("/").pop() ?? path).replace(/\.md$/i, "");
}

function sentence(text: string): string {
  const flat = oneLine(text);
  return flat === "" || /[.!?]$/.test(flat) ? flat : `${flat}.`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
