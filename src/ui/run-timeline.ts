// The stage timeline of a run: one line per stage as progress events arrive, in the words the
// user reads ("Searching the web with Brave"), its status in text as well as an icon, its detail
// indented under it, and — when several web sources are asked — a line per source under the web
// stage. A source waiting its rate turn says so on its line, or, as the only source, in the stage's
// detail, then that its answer is awaited once the wait is over; the status line says the same
// (`currentStep`). A finished run folds it into one summary line ("9 steps · 1.2 s · web: Brave,
// 4 results") that opens it again.
import { setIcon } from "obsidian";
import { providerDisplayName, providerList } from "../evidence/labels";
import type { ProgressEvent, StageName } from "../research/types";

/** A stage's state on screen: the runner's statuses, and `stopped` for one a cancel cut off. */
export type StageStatus = ProgressEvent["status"] | "stopped";

const STAGE_TITLES: Record<StageName, string> = {
  plan: "Planning",
  local_retrieval: "Searching vault",
  judge: "Judging vault evidence",
  external_policy: "Deciding about the web",
  external_retrieval: "Searching the web",
  normalize: "Cleaning web results",
  read_pages: "Reading pages",
  merge: "Merging",
  prepare_synthesis: "Preparing the answer",
  synthesize: "Writing",
  verify: "Verifying citations",
  trace: "Writing trace note",
};

/** Stages whose detail the panel shows; the others' details count rows, which the cards below show better. */
const SHOWS_DETAIL: Record<StageName, boolean> = {
  plan: true,
  local_retrieval: true,
  judge: true,
  external_policy: true,
  external_retrieval: true,
  normalize: false,
  read_pages: true,
  merge: false,
  prepare_synthesis: false,
  synthesize: true,
  verify: true,
  trace: true,
};

const STATUS_ICONS: Record<StageStatus, string> = {
  started: "loader",
  done: "check",
  partial: "alert-triangle",
  skipped: "minus",
  failed: "x-circle",
  stopped: "x",
};

/** The status in words: read by screen readers always, shown when something went wrong. */
const STATUS_WORDS: Record<StageStatus, string> = {
  started: "running",
  done: "done",
  partial: "partly failed",
  skipped: "skipped",
  failed: "failed",
  stopped: "stopped",
};
const SHOWN_STATUSES: ReadonlySet<StageStatus> = new Set(["partial", "failed", "stopped"]);

export function stageTitle(stage: StageName, providers: readonly string[] = []): string {
  if (stage === "external_retrieval" && providers.length > 0) return `Searching the web with ${providerList(providers)}`;
  return STAGE_TITLES[stage] ?? stage;
}

interface StageRow {
  el: HTMLElement;
  status: StageStatus;
  detail: string;
  /** Web sources of the stage, in the order they were asked, with their own line. */
  parts: Map<string, { status: StageStatus; detail: string }>;
}

export class RunTimeline {
  private readonly rootEl: HTMLDetailsElement;
  private readonly summaryEl: HTMLElement;
  private readonly listEl: HTMLElement;
  private readonly rows = new Map<StageName, StageRow>();
  private lastAt = 0;
  private current: StageName | null = null;

  constructor(parent: HTMLElement) {
    this.rootEl = parent.createEl("details", { cls: "vault-research-timeline is-running", attr: { open: true } });
    this.summaryEl = this.rootEl.createEl("summary", { cls: "vault-research-timeline-summary", text: "Steps" });
    // Said to be a list: it has no markers (styles.css), and Safari reads a list without them as none,
    // so VoiceOver no longer said "list, 9 items" nor where in it a step was.
    this.listEl = this.rootEl.createEl("ol", { cls: "vault-research-stages", attr: { role: "list" } });
  }

  add(event: ProgressEvent): void {
    this.lastAt = Math.max(this.lastAt, event.at);
    let row = this.rows.get(event.stage);
    if (!row) {
      row = { el: this.listEl.createEl("li", { cls: "vault-research-stage", attr: { "data-stage": event.stage } }), status: "started", detail: "", parts: new Map() };
      this.rows.set(event.stage, row);
    }
    if (event.provider) {
      row.parts.set(event.provider, { status: event.status, detail: partDetail(row.parts.get(event.provider), event) });
    } else {
      row.status = event.status;
      // A stage's opening words repeat its title; its closing words say what it found.
      row.detail = event.status === "started" ? "" : event.detail;
    }
    if (row.status === "started") this.current = event.stage;
    this.draw(event.stage, row);
  }

  /**
   * What the run is doing now, for the status line: "Searching the web with Brave", or what its
   * sources still at work say ("Waiting 30 s: Brave asked us to slow down", then "Waiting for Brave's
   * answer (…)"). The title alone stood through a rate wait, and a source held back by its limit
   * looked the same as one slow to answer.
   */
  currentStep(): string | null {
    if (!this.current) return null;
    const row = this.rows.get(this.current);
    const news = row ? [...row.parts.values()].filter((p) => p.status === "started" && p.detail !== "").map((p) => p.detail) : [];
    return news.length > 0 ? news.join("; ") : stageTitle(this.current, [...(row?.parts.keys() ?? [])]);
  }

  /** The run ended: nothing is left spinning, and the steps fold into their summary line. */
  settle(outcome: "done" | "cancelled" | "failed", web?: string): void {
    for (const [stage, row] of this.rows) {
      const settled: StageStatus = outcome === "done" ? "done" : "stopped";
      if (row.status === "started") row.status = settled;
      for (const part of row.parts.values()) if (part.status === "started") part.status = settled;
      this.draw(stage, row);
    }
    const steps = this.rows.size;
    const parts: [string, string][] = [
      ["steps", `${steps} step${steps === 1 ? "" : "s"}`],
      ["time", seconds(this.lastAt)],
    ];
    if (web) parts.push(["web", `web: ${web}`]);
    if (outcome === "cancelled") parts.push(["outcome", "cancelled"]);
    this.summaryEl.empty();
    parts.forEach(([part, text], i) => {
      if (i > 0) this.summaryEl.appendText(" · ");
      this.summaryEl.createSpan({ cls: `vault-research-timeline-${part}`, text });
    });
    this.rootEl.removeClass("is-running");
    this.rootEl.open = false;
  }

  private draw(stage: StageName, row: StageRow): void {
    const el = row.el;
    el.empty();
    el.className = `vault-research-stage is-${row.status}`;
    statusLine(el, "vault-research-stage-line", stageTitle(stage, [...row.parts.keys()]), row.status);
    const detail = row.parts.size === 1 ? loneSourceNews(row) ?? row.detail : row.detail;
    if (detail && SHOWS_DETAIL[stage]) el.createDiv({ cls: "vault-research-stage-detail", text: detail });
    // One source says all it has to say in the stage's own line.
    if (row.parts.size < 2) return;
    const list = el.createEl("ul", { cls: "vault-research-stage-parts", attr: { role: "list" } });
    for (const [provider, part] of row.parts) {
      const item = list.createEl("li", { cls: `vault-research-stage-part is-${part.status}`, attr: { "data-provider": provider } });
      statusLine(item, "vault-research-stage-line", providerDisplayName(provider), part.status, part.detail);
    }
  }
}

/**
 * What a source's line says. Its opening words ("Asking Brave") repeat its name and are left out;
 * what it says while still running ("Waiting 1 s for Brave's rate limit") is news, and replaces the
 * line's words until its answer does. Without it, a run that waits its turn sat silent and looked hung.
 */
function partDetail(before: { status: StageStatus } | undefined, event: ProgressEvent): string {
  if (event.status !== "started") return event.detail;
  return before?.status === "started" ? event.detail : "";
}

/**
 * The news of a stage's only source while it runs, for the stage's own line (one source has no line
 * of its own); its answer is left to the stage's closing words, which count every query's.
 */
function loneSourceNews(row: StageRow): string | null {
  const [only] = row.parts.values();
  return only.status === "started" && only.detail !== "" ? only.detail : null;
}

function statusLine(parent: HTMLElement, cls: string, title: string, status: StageStatus, detail?: string): void {
  const line = parent.createDiv({ cls });
  setIcon(line.createSpan({ cls: "vault-research-stage-icon", attr: { "aria-hidden": "true" } }), STATUS_ICONS[status]);
  line.createSpan({ cls: "vault-research-stage-title", text: title });
  const shown = SHOWN_STATUSES.has(status);
  line.createSpan({ cls: shown ? "vault-research-stage-status" : "vault-research-visually-hidden", text: shown ? STATUS_WORDS[status] : `, ${STATUS_WORDS[status]}` });
  if (detail) line.createSpan({ cls: "vault-research-stage-part-detail", text: detail });
}

/** 0.4 s, 1.2 s, 12 s. */
export function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
