// @vitest-environment happy-dom
// The stage timeline: one row per stage, its status in words, sources under the web stage when
// there are several, and one summary line once the run is over.
import { describe, expect, it } from "vitest";
import "../stubs/obsidian";
import { RunTimeline } from "../../src/ui/run-timeline";
import type { ProgressEvent } from "../../src/research/types";

const at = (stage: ProgressEvent["stage"], status: ProgressEvent["status"], detail: string, ms: number, provider?: ProgressEvent["provider"]): ProgressEvent => ({ stage, status, detail, at: ms, ...(provider ? { provider } : {}) });

describe("run timeline", () => {
  it("keeps one row per stage, with sources under the web stage and a failed one said in words", () => {
    const el = document.body.createDiv();
    const timeline = new RunTimeline(el);
    timeline.add(at("local_retrieval", "started", "Searching the vault", 0));
    timeline.add(at("local_retrieval", "done", "4 of 36 notes matched", 40));
    timeline.add(at("external_retrieval", "started", "Searching the web with Brave and Exa", 50));
    timeline.add(at("external_retrieval", "started", "Asking Brave", 50, "brave"));
    timeline.add(at("external_retrieval", "started", "Asking Exa", 50, "exa"));
    expect(timeline.currentStep()).toBe("Searching the web with Brave and Exa");
    timeline.add(at("external_retrieval", "done", "4 results", 700, "brave"));
    timeline.add(at("external_retrieval", "failed", "server error", 800, "exa"));
    timeline.add(at("external_retrieval", "partial", "4 web results from 1 answer; 1 provider error", 800));

    const rows = [...el.querySelectorAll<HTMLElement>(".vault-research-stage")];
    expect(rows.map((r) => r.dataset.stage)).toEqual(["local_retrieval", "external_retrieval"]);
    const web = rows[1];
    expect(web.className).toContain("is-partial");
    expect(web.querySelector(".vault-research-stage-status")?.textContent).toBe("partly failed");
    expect([...web.querySelectorAll(".vault-research-stage-part")].map((p) => p.textContent)).toEqual(["Brave, done4 results", "Exafailedserver error"]);
    // Done is still said, to a screen reader.
    expect(rows[0].querySelector(".vault-research-visually-hidden")?.textContent).toBe(", done");
  });

  it("says its steps and a stage's sources are lists, which Safari takes from a list drawn without markers", () => {
    const el = document.body.createDiv();
    const timeline = new RunTimeline(el);
    timeline.add(at("external_retrieval", "started", "Searching the web with Brave and Exa", 0));
    timeline.add(at("external_retrieval", "started", "Asking Brave", 0, "brave"));
    timeline.add(at("external_retrieval", "started", "Asking Exa", 0, "exa"));
    expect(el.querySelector(".vault-research-stages")?.getAttribute("role")).toBe("list");
    expect(el.querySelector(".vault-research-stage-parts")?.getAttribute("role")).toBe("list");
  });

  it("folds into one summary line when the run is over; a cancelled run leaves nothing spinning", () => {
    const el = document.body.createDiv();
    const timeline = new RunTimeline(el);
    timeline.add(at("plan", "done", "3 search terms", 5));
    timeline.add(at("local_retrieval", "started", "Searching the vault", 10));
    timeline.add(at("external_retrieval", "started", "Searching the web with Brave", 1200));
    timeline.settle("cancelled", "Brave failed");
    const details = el.querySelector<HTMLDetailsElement>(".vault-research-timeline")!;
    expect(details.open).toBe(false);
    expect(details.querySelector("summary")?.textContent).toBe("3 steps · 1.2 s · web: Brave failed · cancelled");
    expect(el.querySelectorAll(".vault-research-stage.is-started")).toHaveLength(0);
    expect(el.querySelectorAll(".vault-research-stage.is-stopped")).toHaveLength(2);
  });
});

describe("run timeline: a source waiting its rate turn", () => {
  it("says the wait in the web stage's own line when one source is asked, and drops it once the source answers", () => {
    const el = document.body.createDiv();
    const timeline = new RunTimeline(el);
    timeline.add(at("external_retrieval", "started", "Searching the web with Brave", 50));
    timeline.add(at("external_retrieval", "started", "Asking Brave", 50, "brave"));
    timeline.add(at("external_retrieval", "done", "5 results", 400, "brave"));
    timeline.add(at("external_retrieval", "started", "Asking Brave", 410, "brave"));
    const web = () => el.querySelector<HTMLElement>("[data-stage='external_retrieval']")!;
    const detail = () => web().querySelector(".vault-research-stage-detail")?.textContent ?? null;
    // Its opening words repeat the title: nothing under it yet.
    expect(detail()).toBeNull();
    timeline.add(at("external_retrieval", "started", "Waiting 1 s for Brave's rate limit", 410, "brave"));
    expect(detail()).toBe("Waiting 1 s for Brave's rate limit");
    // One line, replaced: no list of sources for one source.
    expect(web().querySelectorAll(".vault-research-stage-part")).toHaveLength(0);
    timeline.add(at("external_retrieval", "done", "5 results", 1500, "brave"));
    expect(detail()).toBeNull();
    timeline.add(at("external_retrieval", "done", "10 web results from 2 answers", 1500));
    expect(detail()).toBe("10 web results from 2 answers");
  });

  it("says the wait on the waiting source's own line when several are asked", () => {
    const el = document.body.createDiv();
    const timeline = new RunTimeline(el);
    timeline.add(at("external_retrieval", "started", "Searching the web with Brave and Exa", 50));
    timeline.add(at("external_retrieval", "started", "Asking Brave", 50, "brave"));
    timeline.add(at("external_retrieval", "started", "Asking Exa", 50, "exa"));
    timeline.add(at("external_retrieval", "started", "Waiting 30 s: Brave asked us to slow down", 60, "brave"));
    const parts = () => [...el.querySelectorAll(".vault-research-stage-part")].map((p) => p.textContent);
    expect(parts()).toEqual(["Brave, runningWaiting 30 s: Brave asked us to slow down", "Exa, running"]);
    expect(el.querySelector(".vault-research-stage-detail")).toBeNull();
  });

  it("says the wait's end, in the source's line and the status line, so a source held back reads apart from a slow one", () => {
    const el = document.body.createDiv();
    const timeline = new RunTimeline(el);
    timeline.add(at("external_retrieval", "started", "Searching the web with Brave and Exa", 50));
    timeline.add(at("external_retrieval", "started", "Asking Brave", 50, "brave"));
    timeline.add(at("external_retrieval", "started", "Asking Exa", 50, "exa"));
    expect(timeline.currentStep()).toBe("Searching the web with Brave and Exa");
    timeline.add(at("external_retrieval", "started", "Waiting 30 s: Brave asked us to slow down", 60, "brave"));
    expect(timeline.currentStep()).toBe("Waiting 30 s: Brave asked us to slow down");
    timeline.add(at("external_retrieval", "started", "Waiting for Brave's answer (after the 30 s pause it asked for)", 30_060, "brave"));
    const parts = () => [...el.querySelectorAll(".vault-research-stage-part")].map((p) => p.textContent);
    expect(parts()).toEqual(["Brave, runningWaiting for Brave's answer (after the 30 s pause it asked for)", "Exa, running"]);
    expect(timeline.currentStep()).toBe("Waiting for Brave's answer (after the 30 s pause it asked for)");
    timeline.add(at("external_retrieval", "done", "4 results", 31_000, "brave"));
    expect(timeline.currentStep()).toBe("Searching the web with Brave and Exa");
  });

  it("says two sources held back at once, both", () => {
    const timeline = new RunTimeline(document.body.createDiv());
    timeline.add(at("external_retrieval", "started", "Searching the web with Wikipedia and arXiv", 50));
    timeline.add(at("external_retrieval", "started", "Asking Wikipedia", 50, "wikipedia"));
    timeline.add(at("external_retrieval", "started", "Asking arXiv", 50, "arxiv"));
    timeline.add(at("external_retrieval", "started", "Waiting 3 s for arXiv's rate limit", 60, "arxiv"));
    timeline.add(at("external_retrieval", "started", "Waiting 5 s: Wikipedia asked us to slow down", 60, "wikipedia"));
    expect(timeline.currentStep()).toBe("Waiting 5 s: Wikipedia asked us to slow down; Waiting 3 s for arXiv's rate limit");
  });
});
