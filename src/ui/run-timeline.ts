// The live stage timeline of a run: one line per stage as progress events arrive, in the words
// the user reads ("Searching the web with Brave"), with the runner's own detail beside it.
import { setIcon } from "obsidian";
import { providerDisplayName } from "../evidence/labels";
import type { ProgressEvent, StageName } from "../research/types";

const STAGE_TITLES: Record<StageName, string> = {
  plan: "Planning",
  local_retrieval: "Searching vault",
  judge: "Judging vault evidence",
  external_policy: "Deciding about the web",
  external_retrieval: "Searching the web",
  normalize: "Cleaning web results",
  merge: "Merging",
  prepare_synthesis: "Preparing the answer",
  synthesize: "Writing",
  verify: "Verifying citations",
  trace: "Writing trace note",
};

export function stageTitle(event: Pick<ProgressEvent, "stage" | "provider">): string {
  if (event.stage === "external_retrieval" && event.provider) return `Searching the web with ${providerDisplayName(event.provider)}`;
  return STAGE_TITLES[event.stage] ?? event.stage;
}

const STATUS_ICONS: Record<ProgressEvent["status"], string> = {
  started: "loader",
  done: "check",
  partial: "alert-triangle",
  skipped: "minus",
  failed: "alert-triangle",
};

/** Keeps one row per stage (and provider); a later event for the same stage updates its row. */
export class RunTimeline {
  private readonly listEl: HTMLElement;
  private readonly rows = new Map<string, HTMLElement>();

  constructor(parent: HTMLElement) {
    this.listEl = parent.createEl("ol", { cls: "vault-research-timeline", attr: { "aria-live": "polite" } });
  }

  add(event: ProgressEvent): void {
    const id = `${event.stage}:${event.provider ?? ""}`;
    let row = this.rows.get(id);
    if (!row) {
      row = this.listEl.createEl("li", { cls: "vault-research-stage" });
      this.rows.set(id, row);
    }
    row.empty();
    row.className = `vault-research-stage is-${event.status}`;
    row.setAttr("data-stage", event.stage);
    setIcon(row.createSpan({ cls: "vault-research-stage-icon" }), STATUS_ICONS[event.status]);
    row.createSpan({ cls: "vault-research-stage-title", text: stageTitle(event) });
    if (event.detail) row.createSpan({ cls: "vault-research-stage-detail", text: event.detail });
  }

  /** A run that ends early leaves no stage spinning. */
  settle(status: "cancelled" | "failed" | "done"): void {
    for (const row of this.rows.values()) {
      if (!row.hasClass("is-started")) continue;
      row.removeClass("is-started");
      row.addClass(status === "done" ? "is-done" : "is-stopped");
      const icon = row.querySelector<HTMLElement>(".vault-research-stage-icon");
      if (icon) setIcon(icon, status === "done" ? "check" : "x");
    }
    this.listEl.toggleClass("is-settled", true);
  }
}
