// Research eval cases: the schema of a hand-written cases file (`vault-research eval --file`) and
// the pure check of one finished run against a case's expectations. Running the case is the
// CLI's job; here we only say, in words a person can act on, what did not hold.
//
// A cases file is strict on purpose: a misspelt expectation (`"verdikt"`) is a usage error, not
// an assertion that silently never ran.
import * as z from "zod";
import { canonicalizeUrl } from "../websearch/canonical-url";
import { sourceHosts } from "../websearch/source-hosts";
import { externalModes, freshnessSchema, providerNames, type ProviderName, type Settings } from "../settings";
import { judgeVerdicts, stopReasons, type Citation, type ResearchPack, type StopReason } from "../evidence/research-pack";
import { noteSourceKey, parseSourceKey } from "../evidence/keys";

const notePath = z
  .string()
  .min(1)
  .refine((p) => p.endsWith(".md") && !p.startsWith("/"), "expected a vault-relative note path ending in .md, e.g. Libraries/Yjs.md")
  // The index names a note one way only: "Libraries/../Libraries/Yjs.md" exists on disk but is never
  // evidence (the case could never pass), and "../x.md" is outside the vault.
  .refine((p) => !p.includes("\\") && p.split("/").every((part) => part !== "" && part !== "." && part !== ".."), "expected a note path as the vault names it: folders joined by '/', without '.', '..' or empty parts");
const sourceKey = z.string().refine((k) => parseSourceKey(k) !== null, "expected a source key like src:0123456789 or ext:brave:0123456789");
const webUrl = z.string().refine((u) => canonicalizeUrl(u) !== null, "expected an http(s) URL");
const provider = z.enum(providerNames);
/** A provider name (stands for its API host) or a host name such as `automerge.org`. */
const providerOrHost = z.string().regex(/^[a-z0-9][a-z0-9.-]*(:\d+)?$/i, "expected a provider name (brave, brave-web, exa) or a host name");
const verdict = z.enum(judgeVerdicts);
const atLeastZero = z.number().int().nonnegative();

export const evalExpectationsSchema = z
  .object({
    /** Notes that must be vault evidence. */
    note_paths: z.array(notePath).optional(),
    /** Keys (`src:…` or `ext:…`) that must be in the pack, as vault or outside-vault evidence. */
    source_keys: z.array(sourceKey).optional(),
    forbidden_note_paths: z.array(notePath).optional(),
    forbidden_source_keys: z.array(sourceKey).optional(),
    /** URLs that must be outside-vault rows (compared after canonicalisation). */
    external_urls: z.array(webUrl).optional(),
    /** URLs that must not be outside-vault rows, e.g. one that should collapse into a note. */
    forbidden_external_urls: z.array(webUrl).optional(),
    /** Exactly these providers gave outside-vault rows (order does not matter; [] means none). */
    providers: z.array(provider).optional(),
    counts: z
      .object({ vault_min: atLeastZero.optional(), vault_max: atLeastZero.optional(), outside_min: atLeastZero.optional(), outside_max: atLeastZero.optional() })
      .strict()
      .optional(),
    verdict: verdict.optional(),
    verdict_in: z.array(verdict).min(1).optional(),
    stop_reason: z.enum(stopReasons).optional(),
    /** Warning kinds the pack must carry, e.g. `provider_rate_limited`. */
    warning_kinds: z.array(z.string().min(1)).optional(),
    /** Providers (their API hosts) or hosts that must receive no request at all. */
    forbidden_provider_calls: z.array(providerOrHost).optional(),
    /** Nothing may leave the device: no web request and no model request. */
    no_requests: z.literal(true).optional(),
    /** Keys the answer must cite. */
    citation_keys: z.array(sourceKey).optional(),
    /** Notes the answer must cite. */
    cited_note_paths: z.array(notePath).optional(),
    /** Outside-vault URLs the answer must cite. */
    cited_urls: z.array(webUrl).optional(),
    /** Whether the answer's citations checked out (fails when no answer was written). */
    answer_verified: z.boolean().optional(),
    /** What wrote the answer; `none` when the run stopped without one (retrieval only, …). */
    answer_kind: z.enum(["none", "extractive", "model"]).optional(),
    /** Words the answer must contain (case and spacing ignored): the fact that shows the evidence was found. */
    answer_includes: z.array(z.string().trim().min(1)).optional(),
    /** Vault note → providers whose web results were that note's own source (collapsed into it). */
    also_found_by: z.record(notePath, z.array(provider).min(1)).optional(),
  })
  .strict();
export type EvalExpectations = z.infer<typeof evalExpectationsSchema>;

export const evalCaseSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "expected letters, digits, '.', '_' or '-'"),
    question: z.string().trim().min(1),
    /** Why the case exists, for the person reading the file. */
    why: z.string().optional(),
    mode: z.enum(externalModes).default("never"),
    providers: z.array(provider).min(1).optional(),
    freshness: freshnessSchema.optional(),
    count: z.number().int().min(1).max(10).optional(),
    /** Folder of recorded exchanges, relative to the cases file. */
    replay: z.string().min(1).optional(),
    /** `none` (default), `openai:MODEL[@BASE_URL]` or `anthropic:MODEL`. */
    model: z.string().min(1).optional(),
    retrieval_only: z.boolean().default(false),
    expect: evalExpectationsSchema,
  })
  .strict();
export type EvalCase = z.infer<typeof evalCaseSchema>;

export const evalCasesFileSchema = z
  .object({
    /** What the set is for, for the person reading the file. */
    about: z.string().optional(),
    cases: z.array(z.unknown()).min(1, "expected at least one case"),
  })
  .strict();

export interface EvalCasesError {
  kind: "invalid_cases";
  /** Names the case (by id, else by position) and the field that was wrong. */
  message: string;
  caseId?: string;
  field?: string;
}

export type EvalCasesParse = { ok: true; about?: string; cases: EvalCase[] } | { ok: false; error: EvalCasesError };

/** Reads a parsed cases file; the first problem is reported with its case and field. */
export function parseEvalCases(raw: unknown): EvalCasesParse {
  if (Array.isArray(raw)) {
    // The search and judge question sets (evals/search, evals/judge) are bare arrays.
    return { ok: false, error: { kind: "invalid_cases", field: "(top level)", message: '(top level): this is a list, not a research cases file { "cases": [ … ] } (search and judge question sets have their own runners)' } };
  }
  const file = evalCasesFileSchema.safeParse(raw);
  if (!file.success) {
    const issue = file.error.issues[0];
    const field = issue.path.map(String).join(".") || "(top level)";
    return { ok: false, error: { kind: "invalid_cases", field, message: `${field}: ${issue.message} (a cases file is { "cases": [ … ] })` } };
  }
  const cases: EvalCase[] = [];
  const seen = new Set<string>();
  for (const [i, rawCase] of file.data.cases.entries()) {
    const rawId = rawCase && typeof rawCase === "object" && typeof (rawCase as { id?: unknown }).id === "string" ? (rawCase as { id: string }).id : undefined;
    const name = rawId ? `case "${rawId}" (#${i + 1})` : `case #${i + 1}`;
    const parsed = evalCaseSchema.safeParse(rawCase);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue.path.map(String).join(".") || "(case)";
      return fail(name, rawId, field, issueMessage(issue));
    }
    const c = parsed.data;
    if (seen.has(c.id)) return fail(name, c.id, "id", "the same id is used by an earlier case");
    seen.add(c.id);
    const problem = contradiction(c);
    if (problem) return fail(name, c.id, problem.field, problem.message);
    cases.push(c);
  }
  return { ok: true, ...(file.data.about ? { about: file.data.about } : {}), cases };
}

/** zod reports a bad record key as "Invalid key in record"; the key's own problem says more. */
function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_key" && issue.issues.length > 0) return `bad key: ${issue.issues[0].message}`;
  return issue.message;
}

function fail(name: string, caseId: string | undefined, field: string, message: string): EvalCasesParse {
  return { ok: false, error: { kind: "invalid_cases", message: `${name}, field ${field}: ${message}`, field, ...(caseId ? { caseId } : {}) } };
}

/** Expectations that could never all hold, or a case that asserts nothing (it could never fail). */
function contradiction(c: EvalCase): { field: string; message: string } | null {
  const e = c.expect;
  // `providers: []` asserts "no outside rows"; any other empty list or object asserts nothing.
  const asserted = Object.entries(e).some(([name, v]) => v !== undefined && (name === "providers" || typeof v !== "object" || Object.keys(v).length > 0));
  if (!asserted) return { field: "expect", message: "no expectations: a case that asserts nothing can never fail" };
  if (e.verdict && e.verdict_in) return { field: "expect.verdict_in", message: "give verdict or verdict_in, not both" };
  const n = e.counts;
  if (n?.vault_min !== undefined && n.vault_max !== undefined && n.vault_min > n.vault_max) return { field: "expect.counts", message: "vault_min is above vault_max" };
  if (n?.outside_min !== undefined && n.outside_max !== undefined && n.outside_min > n.outside_max) return { field: "expect.counts", message: "outside_min is above outside_max" };
  for (const p of e.note_paths ?? []) {
    if (e.forbidden_note_paths?.includes(p)) return { field: "expect.forbidden_note_paths", message: `"${p}" is both expected and forbidden` };
  }
  for (const k of e.source_keys ?? []) {
    if (e.forbidden_source_keys?.includes(k)) return { field: "expect.forbidden_source_keys", message: `"${k}" is both expected and forbidden` };
  }
  if (e.answer_kind === "none" && (e.answer_verified !== undefined || e.citation_keys || e.cited_note_paths || e.cited_urls || e.answer_includes)) {
    return { field: "expect.answer_kind", message: "answer_kind none cannot go with expectations about the answer" };
  }
  return null;
}

/** Every note path a case names, so the runner can check they exist before running anything. */
export function notePathsOf(c: EvalCase): { field: string; path: string }[] {
  const e = c.expect;
  const out: { field: string; path: string }[] = [];
  const add = (field: string, paths: string[] | undefined) => paths?.forEach((path) => out.push({ field, path }));
  add("expect.note_paths", e.note_paths);
  add("expect.forbidden_note_paths", e.forbidden_note_paths);
  add("expect.cited_note_paths", e.cited_note_paths);
  add("expect.also_found_by", Object.keys(e.also_found_by ?? {}));
  return out;
}

// ── checking a run ──────────────────────────────────────────────────────────────────────────

/** One request a case's run made, as the recording Http saw it. */
export interface EvalRequest {
  method: string;
  url: string;
  /** `web`: search and page fetches; `model`: the chat model endpoint. */
  channel: "web" | "model";
  /**
   * `answered`: a response came back (a recording, or the model endpoint); `replay_miss`: no
   * recording matched; `refused_offline`: the case has no replay folder, so nothing was sent;
   * `failed`: the adapter could not get a response.
   */
  outcome: "answered" | "replay_miss" | "refused_offline" | "failed";
  status?: number;
}

/** What a finished run looked like, as far as expectations care. */
export interface EvalObservation {
  pack: ResearchPack;
  stop_reason: StopReason;
  answer?: { kind: "model" | "extractive"; verified: boolean; text?: string };
  citations?: Citation[];
  verification?: { passed: boolean; errors: { message: string }[] };
  requests: EvalRequest[];
}

/** Provider name → the host its API calls go to (from settings, so a proxy base URL counts). */
export function providerHosts(settings: Settings): Record<ProviderName, string> {
  return sourceHosts(settings);
}

/** Everything in the case that did not hold, in words; empty when the case passed. */
export function checkEvalCase(c: EvalCase, seen: EvalObservation, hosts: Record<ProviderName, string>): string[] {
  return [
    ...offlineFailures(seen),
    ...evidenceFailures(c.expect, seen.pack),
    ...judgementFailures(c.expect, seen),
    ...trafficFailures(c.expect, seen, hosts),
    ...citationFailures(c.expect, seen),
    ...answerFailures(c.expect, seen),
    ...alsoFoundByFailures(c.expect, seen.pack),
  ];
}

/** Whatever the case expects, eval never reaches the live web and every request needs a recording. */
function offlineFailures(seen: EvalObservation): string[] {
  const failures: string[] = [];
  for (const r of seen.requests) {
    if (r.outcome === "refused_offline") {
      failures.push(`needed the web but has no replay folder: ${r.method} ${shortUrl(r.url)} was not sent (eval never uses the live network; give the case "replay" or pass --replay)`);
    } else if (r.outcome === "replay_miss") {
      failures.push(`no recording answers ${r.method} ${shortUrl(r.url)} (add one to the replay folder)`);
    }
  }
  return failures;
}

/** Which notes, keys, URLs and providers made it into the pack, and how many rows. */
function evidenceFailures(e: EvalExpectations, pack: ResearchPack): string[] {
  const failures: string[] = [];
  const vaultPaths = pack.evidence.map((r) => r.note_path);
  const packKeys = new Set([...pack.evidence, ...pack.external_evidence].map((r) => r.source_key));
  const outsideUrls = new Map(pack.external_evidence.map((r) => [canonicalizeUrl(r.url) ?? r.url, r]));
  for (const p of e.note_paths ?? []) {
    if (!vaultPaths.includes(p)) failures.push(`expected "${p}" in vault evidence; vault evidence was ${listOf(vaultPaths)}`);
  }
  for (const p of e.forbidden_note_paths ?? []) {
    const at = vaultPaths.indexOf(p);
    if (at >= 0) failures.push(`"${p}" is forbidden but was vault evidence (row ${at + 1})`);
  }
  for (const k of e.source_keys ?? []) {
    if (!packKeys.has(k)) failures.push(`expected ${k} in the evidence; keys were ${listOf([...packKeys])}`);
  }
  for (const k of e.forbidden_source_keys ?? []) {
    if (packKeys.has(k)) failures.push(`${k} is forbidden but was in the evidence`);
  }
  for (const u of e.external_urls ?? []) {
    if (!outsideUrls.has(canonicalizeUrl(u) ?? u)) failures.push(`expected an outside-vault row for ${u}; outside rows were ${listOf(pack.external_evidence.map((r) => r.url))}`);
  }
  for (const u of e.forbidden_external_urls ?? []) {
    const row = outsideUrls.get(canonicalizeUrl(u) ?? u);
    if (row) failures.push(`${u} is forbidden as an outside-vault row but was one (${row.source_key})`);
  }
  if (e.providers) {
    const got = [...new Set(pack.external_evidence.map((r) => r.provider))].sort();
    const want = [...new Set(e.providers)].sort();
    if (got.join(",") !== want.join(",")) failures.push(`expected outside-vault rows from ${listOf(want, "no provider")}; they came from ${listOf(got, "no provider")}`);
  }
  const counts = e.counts ?? {};
  failures.push(...countFailures("vault evidence", pack.evidence.length, counts.vault_min, counts.vault_max));
  failures.push(...countFailures("outside-vault", pack.external_evidence.length, counts.outside_min, counts.outside_max));
  return failures;
}

function countFailures(what: string, n: number, min?: number, max?: number): string[] {
  const failures: string[] = [];
  if (min !== undefined && n < min) failures.push(`expected at least ${min} ${what} rows; got ${n}`);
  if (max !== undefined && n > max) failures.push(`expected at most ${max} ${what} rows; got ${n}`);
  return failures;
}

/** The judge's verdict, the stop reason and the warnings the run raised. */
function judgementFailures(e: EvalExpectations, seen: EvalObservation): string[] {
  const failures: string[] = [];
  const { judge, warnings } = seen.pack;
  const got = judge.verdict;
  if (e.verdict && got !== e.verdict) failures.push(`verdict: expected ${e.verdict}, got ${got} (${judge.reason})`);
  if (e.verdict_in && !e.verdict_in.includes(got)) failures.push(`verdict: expected one of ${e.verdict_in.join(", ")}, got ${got} (${judge.reason})`);
  if (e.stop_reason && seen.stop_reason !== e.stop_reason) failures.push(`stop_reason: expected ${e.stop_reason}, got ${seen.stop_reason}`);
  const warningKinds: string[] = warnings.map((w) => w.kind);
  for (const kind of e.warning_kinds ?? []) {
    if (!warningKinds.includes(kind)) failures.push(`expected a "${kind}" warning; warnings were ${listOf(warningKinds)}`);
  }
  return failures;
}

/** What left the machine: nothing at all, or nothing to a forbidden provider. */
function trafficFailures(e: EvalExpectations, seen: EvalObservation, hosts: Record<ProviderName, string>): string[] {
  const failures: string[] = [];
  if (e.no_requests && seen.requests.length > 0) {
    failures.push(`expected no requests; ${seen.requests.length} left: ${listOf(seen.requests.map((r) => `${r.method} ${shortUrl(r.url)}`))}`);
  }
  for (const name of e.forbidden_provider_calls ?? []) {
    const host = (hosts as Record<string, string>)[name] ?? name.toLowerCase();
    const hits = seen.requests.filter((r) => hostOf(r.url) === host);
    if (hits.length > 0) failures.push(`${name} must receive no request; it got ${hits.length}: ${listOf(hits.map((r) => `${r.method} ${shortUrl(r.url)}`))}`);
  }
  return failures;
}

/** The keys, notes and URLs the answer cites. */
function citationFailures(e: EvalExpectations, seen: EvalObservation): string[] {
  const failures: string[] = [];
  const cited = seen.citations ?? [];
  const citedKeys = cited.map((x) => x.source_key);
  for (const k of e.citation_keys ?? []) {
    if (!citedKeys.includes(k)) failures.push(`expected the answer to cite ${k}; it cited ${listOf(citedKeys)}`);
  }
  for (const p of e.cited_note_paths ?? []) {
    const key = noteSourceKey(p);
    if (!cited.some((x) => x.note_path === p || x.source_key === key)) failures.push(`expected the answer to cite "${p}" (${key}); it cited ${listOf(citedKeys)}`);
  }
  for (const u of e.cited_urls ?? []) {
    const want = canonicalizeUrl(u) ?? u;
    if (!cited.some((x) => x.url !== undefined && (canonicalizeUrl(x.url) ?? x.url) === want)) failures.push(`expected the answer to cite ${u}; it cited ${listOf(citedKeys)}`);
  }
  return failures;
}

/** Whether an answer was written, of which kind, and whether its citations checked out. */
function answerFailures(e: EvalExpectations, seen: EvalObservation): string[] {
  const failures: string[] = [];
  if (e.answer_verified !== undefined) {
    if (!seen.answer) failures.push(`answer_verified: expected ${e.answer_verified}, but no answer was written (${seen.stop_reason})`);
    else if (seen.answer.verified !== e.answer_verified) {
      const errors = seen.verification?.errors.map((x) => x.message) ?? [];
      failures.push(`answer_verified: expected ${e.answer_verified}, got ${seen.answer.verified}${errors.length ? ` (${errors.join("; ")})` : ""}`);
    }
  }
  if (e.answer_kind) {
    const kind = seen.answer?.kind ?? "none";
    if (kind !== e.answer_kind) failures.push(`answer_kind: expected ${e.answer_kind}, got ${kind}`);
  }
  const text = (seen.answer?.text ?? "").toLowerCase().replace(/\s+/g, " ");
  for (const words of e.answer_includes ?? []) {
    if (!text.includes(words.toLowerCase().replace(/\s+/g, " "))) failures.push(`answer_includes: the answer does not say "${words}"${seen.answer ? "" : ` (no answer was written: ${seen.stop_reason})`}`);
  }
  return failures;
}

/** Vault rows that should have gained "also found by <provider>" from a web result. */
function alsoFoundByFailures(e: EvalExpectations, pack: ResearchPack): string[] {
  const failures: string[] = [];
  for (const [path, providers] of Object.entries(e.also_found_by ?? {})) {
    const row = pack.evidence.find((r) => r.note_path === path);
    if (!row) {
      failures.push(`also_found_by: "${path}" is not in vault evidence`);
      continue;
    }
    const found = row.also_found_by ?? [];
    const missing = providers.filter((p) => !found.includes(p));
    if (missing.length > 0) failures.push(`also_found_by: expected "${path}" to be also found by ${missing.join(", ")}; it was also found by ${listOf(found, "no provider")}`);
  }
  return failures;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return "";
  }
}

/** Origin and path: the query string of a search request is the question, noise in a report. */
function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return url;
  }
}

function listOf(items: string[], empty = "none"): string {
  if (items.length === 0) return empty;
  const shown = items.slice(0, 6).map((s) => (s.startsWith("src:") || s.startsWith("ext:") ? s : `"${s}"`));
  return `${shown.join(", ")}${items.length > 6 ? ` and ${items.length - 6} more` : ""}`;
}
