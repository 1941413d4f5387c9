// The trace of one research run: what it asked, what left the device, what came back, what it
// decided and how long each stage took. The recorder bounds everything as it goes (strings,
// event count, copied evidence text) so a trace can always be written into a note, and scrubs
// known secrets so an API key can never reach a trace, a note or a log through it.
import type { ExternalMode, Freshness, ProviderName } from "../settings";
import { monotonicReading, type Clock, type SecretName, type Secrets } from "../ports";
import type { ResearchPack, StopReason } from "../evidence/research-pack";
import { shortHash } from "../evidence/hash";
import { boundOutsideRowFields, boundStrings, cutText, OUTSIDE_ROW_LIMITS } from "../evidence/trace-bounds";
import { isCredential, secretScrubber, type SecretScrubber } from "../text/secret-scrub";
import type { ResearchAnswer, ResearchTrace, StageName, TraceEvent, TraceEventType, TraceTruncation } from "../evidence/trace-types";

/** Limits of what a trace keeps. They exist so a trace note stays readable and small. */
export const TRACE_LIMITS = {
  /** Any string inside event data, error messages and queries. */
  eventString: 300,
  /** Events kept; the last slot says how many more were dropped. */
  events: 200,
  /** Text of each vault section and each outside content section in the trace's copy of the pack. */
  sectionText: 600,
} as const;

export interface TraceRecorderInit {
  question: string;
  mode: ExternalMode;
  providers: ProviderName[];
  freshness: Freshness;
  clock: Clock;
  /** Default: `makeRunId(clock, question)`. */
  runId?: string;
}

export class TraceRecorder {
  readonly runId: string;
  readonly startedAt: number;
  private readonly clock: Clock;
  private readonly question: string;
  private readonly mode: ExternalMode;
  private readonly providers: ProviderName[];
  private readonly freshness: Freshness;
  private readonly events: TraceEvent[] = [];
  private droppedEvents = 0;
  private readonly errors: ResearchTrace["errors"] = [];
  private readonly queries: string[] = [];
  /** The folder the web's answers were replayed from (recorded samples), or null for a live web. */
  private replayFolder: string | null = null;
  private readonly timings: ResearchTrace["timings_ms"] = {};
  private readonly openStages = new Map<StageName, number>();
  private readonly secrets = new Set<string>();
  private scrubber: SecretScrubber = secretScrubber([]);
  /** The run's start on the clock's monotonic reading, what its durations are measured on. */
  private readonly startedReading: number;
  /** The latest such reading, and how far it has gone back since the run started (a clock with no monotonic reading). */
  private lastReading: number;
  private setBackMs = 0;

  constructor(init: TraceRecorderInit) {
    this.clock = init.clock;
    this.startedAt = init.clock.now();
    this.startedReading = monotonicReading(init.clock);
    this.lastReading = this.startedReading;
    this.question = init.question;
    this.mode = init.mode;
    this.providers = [...init.providers];
    this.freshness = init.freshness;
    this.runId = init.runId ?? makeRunId(init.clock, init.question);
  }

  /**
   * ms since the run started: the `at` of progress events and trace events alike, and what the
   * run's budget is counted in. Measured on the clock's monotonic reading: the wall clock may be set
   * back or forward (by hand, a time sync, a laptop waking) in the middle of a wait, and the recorder
   * would then see a wait that took no time, or a run a day old. A clock with wall time only (a
   * test's, a replay's) is measured on it, and a set-back it sees gives no time back.
   */
  elapsed(): number {
    const reading = monotonicReading(this.clock);
    if (reading < this.lastReading) this.setBackMs += this.lastReading - reading;
    this.lastReading = reading;
    return Math.max(0, reading + this.setBackMs - this.startedReading);
  }

  /**
   * Secrets (API keys) the run looked up. Add them as soon as they are known: strings are scrubbed
   * before they are cut, so a key can never survive as a cut-off prefix.
   */
  addSecrets(...secrets: (string | null | undefined)[]): void {
    const before = this.secrets.size;
    for (const s of secrets) if (s && s.trim() !== "") this.secrets.add(s);
    if (this.secrets.size !== before) this.scrubber = secretScrubber(this.secrets);
  }

  /** `value` without any secret the run knows, in any of its forms (`text/secret-scrub.ts`). */
  scrub<T>(value: T): T {
    return this.scrubber.value(value);
  }

  event(type: TraceEventType, data?: Record<string, unknown>): void {
    const at = this.elapsed();
    if (this.events.length >= TRACE_LIMITS.events - 1) {
      this.droppedEvents++;
      return;
    }
    const entry: TraceEvent = { type, at };
    if (data !== undefined) entry.data = this.bound(data) as Record<string, unknown>;
    this.events.push(entry);
  }

  stageStart(stage: StageName): void {
    this.openStages.set(stage, this.elapsed());
  }

  /**
   * Ends a stage: adds its duration to `timings_ms` (a stage run twice, like a synthesis repair,
   * adds up) and records one event of the stage's type with `ms` and the given facts.
   * Returns the duration.
   */
  stageEnd(stage: StageName, data?: Record<string, unknown>): number {
    const now = this.elapsed();
    const started = this.openStages.get(stage) ?? now;
    this.openStages.delete(stage);
    const ms = now - started;
    this.timings[stage] = (this.timings[stage] ?? 0) + ms;
    this.event(stage, { ...data, ms });
    return ms;
  }

  error(stage: StageName, kind: string, message: string, provider?: string): void {
    const entry: ResearchTrace["errors"][number] = { stage, kind, message: this.boundString(message) };
    if (provider !== undefined) entry.provider = provider;
    this.errors.push(entry);
  }

  /** The web's answers of this run are recorded samples replayed from `folder`: the trace says so. */
  replayedFrom(folder: string): void {
    this.replayFolder = this.boundString(folder);
  }

  /**
   * A query that actually left the device: said as a source's call is sent (or its answer comes from
   * the session's cache, which sent it earlier), never as the query is handed to a source that may
   * refuse it unsent (external-retrieval.ts, `recordSends`).
   */
  querySent(query: string): void {
    this.queries.push(this.boundString(query));
  }

  finish(stopReason: StopReason, pack: ResearchPack, answer?: ResearchAnswer): ResearchTrace & TraceTruncation {
    const truncated: string[] = [];
    const events = [...this.events];
    if (this.droppedEvents > 0) {
      events.push({ type: "events_dropped", at: this.elapsed(), data: { count: this.droppedEvents } });
      truncated.push(`${this.droppedEvents} events dropped after the first ${TRACE_LIMITS.events - 1}`);
    }
    const boundedPack = boundPack(pack, TRACE_LIMITS.sectionText, truncated);
    const trace: ResearchTrace & TraceTruncation = {
      schema: "research_trace.v1",
      run_id: this.runId,
      started_at: new Date(this.startedAt).toISOString(),
      question: this.question,
      mode: this.mode,
      providers: [...this.providers],
      freshness: this.freshness,
      queries_sent: [...this.queries],
      stop_reason: stopReason,
      timings_ms: { ...this.timings, total: this.elapsed() },
      events,
      errors: this.errors.map((e) => ({ ...e })),
      pack: boundedPack,
    };
    if (answer) trace.answer = { ...answer };
    if (this.replayFolder !== null) trace.replayed_from = this.replayFolder;
    if (truncated.length > 0) trace.truncated = truncated;
    return this.scrub(trace);
  }

  private bound(value: unknown): unknown {
    return boundStrings(this.scrub(value), TRACE_LIMITS.eventString);
  }

  private boundString(text: string): string {
    return cutText(this.scrub(text), TRACE_LIMITS.eventString);
  }
}

/** The secrets a chat model may send: the run reads them only once it is about to call one. */
const MODEL_SECRETS: readonly SecretName[] = ["openai", "anthropic"];

/**
 * Registers the model's key with the recorder before the model is called, so that a server
 * echoing it back (in an error, the answer or the `model` field) cannot carry it into an output.
 * Provider keys are registered as external retrieval looks them up. A secret that cannot be read
 * is one the run does not know.
 */
export async function learnModelSecrets(recorder: TraceRecorder, secrets: Secrets): Promise<void> {
  for (const name of MODEL_SECRETS) {
    try {
      const key = await secrets.get(name);
      // A local server's placeholder (`ollama`) is no credential; scrubbing it would mangle the answer.
      if (isCredential(key)) recorder.addSecrets(key);
    } catch {
      // Nothing to scrub: the run cannot have seen what it could not read.
    }
  }
}

/**
 * The trace's copy of the pack: vault section texts and outside text cut to `max` characters, and
 * outside rows' titles, URLs and domains to `OUTSIDE_ROW_LIMITS`.
 */
function boundPack(pack: ResearchPack, max: number, truncated: string[]): ResearchPack {
  let vaultCut = 0;
  let outsideCut = 0;
  let outsideFieldsCut = 0;
  const evidence = pack.evidence.map((row) => ({
    ...row,
    sections: row.sections.map((s) => {
      if (s.text.length <= max) return { ...s };
      vaultCut++;
      return { ...s, text: cutText(s.text, max) };
    }),
  }));
  const external = pack.external_evidence.map((whole) => {
    const row = boundOutsideRowFields(whole);
    if (row !== whole) outsideFieldsCut++;
    return {
      ...row,
      content_sections: row.content_sections.map((s) => {
        if (s.text.length <= max) return { ...s };
        outsideCut++;
        return { ...s, text: cutText(s.text, max), truncated: true };
      }),
    };
  });
  const { title, url, domain } = OUTSIDE_ROW_LIMITS;
  if (vaultCut > 0) truncated.push(`${vaultCut} vault section texts cut to ${max} characters`);
  if (outsideCut > 0) truncated.push(`${outsideCut} outside-vault texts cut to ${max} characters`);
  if (outsideFieldsCut > 0) truncated.push(`${outsideFieldsCut} outside-vault titles, addresses or domains cut to ${title}, ${url} and ${domain} characters`);
  return structuredCopy({ ...pack, evidence, external_evidence: external });
}

/** A deep copy through JSON: the trace must not share objects with the live pack. */
function structuredCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * The run ids each clock gave out lately, oldest first (many more than runs that start in one second).
 * Per clock: every run of a process reads the one system clock, or the MCP server's, so its ids are
 * unique in the process; a test's fresh fake clock starts afresh, and its golden notes keep their id.
 */
const issuedRunIds = new WeakMap<object, Set<string>>();
const ISSUED_RUN_IDS_KEPT = 4_096;

/**
 * `20261130-141203-3fa9c1`: the run's start (UTC) and a short hash of the clock reading and the
 * salt (the question), so two runs started in the same second still differ. One this clock gave out
 * already gets a count folded into its hash: two MCP research_pack calls with the same question in
 * the same millisecond had one id, and the second's kept trace replaced the first's.
 */
export function makeRunId(clock: Pick<Clock, "now">, salt = ""): string {
  const now = clock.now();
  const iso = new Date(now).toISOString();
  const stamp = `${iso.slice(0, 10).replace(/-/g, "")}-${iso.slice(11, 19).replace(/:/g, "")}`;
  const issued = issuedRunIds.get(clock) ?? new Set<string>();
  issuedRunIds.set(clock, issued);
  let id = `${stamp}-${shortHash(`${now}\u0000${salt}`, 6)}`;
  for (let count = 1; issued.has(id); count++) id = `${stamp}-${shortHash(`${now}\u0000${salt}\u0000${count}`, 6)}`;
  issued.add(id);
  if (issued.size > ISSUED_RUN_IDS_KEPT) issued.delete(issued.values().next().value as string);
  return id;
}
