// @vitest-environment happy-dom
// "Add to vault" on the panel's outside cards, against the stand-in `obsidian` module and a
// promotion host we control: progress, the saved link, the already-in-vault link, errors.
import { afterEach, describe, expect, it } from "vitest";
import type { WorkspaceLeaf as ObsidianLeaf } from "obsidian";
import { App, Vault, WorkspaceLeaf } from "../stubs/obsidian";
import { ResearchView, type ResearchPanelHost, type RunDeps } from "../../src/ui/research-view";
import { defaultSettings } from "../../src/settings";
import { outsideVaultLabel } from "../../src/evidence/labels";
import type { OutsideVaultRow } from "../../src/evidence/research-pack";
import type { PromotionResult } from "../../src/promote/promote";
import type { ResearchResult, ResearchTrace } from "../../src/research/types";
import { outsideRow, pack, vaultRow } from "../support/pack-fixtures";
import { hasProviderExcerpt } from "../../src/promote/promoted-note";
import { promotionNotice } from "../../src/ui/promote-modal";
import { savedWords } from "../../src/ui/promotion-words";

const note = vaultRow("Libraries/Automerge.md", "Automerge", [{ heading: "", text: "Automerge is a CRDT library." }]);
const blog = outsideRow("brave", "https://automerge.org/blog/automerge-3/", "Automerge 3.0: lower memory, one API", "Memory use drops.");
const releases = outsideRow("brave", "https://github.com/automerge/automerge/releases", "Releases · automerge/automerge", "3.1.0 adds splices.");
const SAVED = "Research/Sources/Automerge 3.0 lower memory, one API.md";

function researchResult(): ResearchResult {
  const p = pack("What changed in the latest Automerge release?", [note], [blog, releases]);
  const trace = { schema: "research_trace.v1", run_id: "r", started_at: "", question: p.question, mode: "always", providers: ["brave"], freshness: "any", queries_sent: [], stop_reason: "enough_evidence", timings_ms: {}, events: [], errors: [], pack: p } as ResearchTrace;
  return { pack: p, stop_reason: "enough_evidence", trace, trace_path: "Research/Traces/run.md" };
}

/** A promise the test settles when it wants to, to look at the card in between. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

async function panelWith(promote?: ResearchPanelHost["promote"]) {
  const app = new App({ vault: new Vault() });
  const host: ResearchPanelHost = {
    settings: defaultSettings(),
    runResearch: async () => researchResult(),
    prepareRun: async () => ({ ok: true, deps: {} as RunDeps }),
    ...(promote ? { promote } : {}),
  };
  const view = new ResearchView(new WorkspaceLeaf(app) as unknown as ObsidianLeaf, host);
  document.body.appendChild(view.containerEl);
  view.load();
  await (view as unknown as { onOpen(): Promise<void> }).onOpen();
  await view.ask("What changed in the latest Automerge release?", { mode: "always", providers: ["brave"] });
  const card = (row: OutsideVaultRow) => view.contentEl.querySelector<HTMLElement>(`.vault-research-card.is-outside[data-source-key="${row.source_key}"]`)!;
  return { app, view, card };
}

const addButton = (card: HTMLElement) => card.querySelector<HTMLButtonElement>(".vault-research-card-action");
const statusOf = (card: HTMLElement) => card.querySelector(".vault-research-promote-status")?.textContent ?? "";
const badgeOf = (card: HTMLElement) => card.querySelector(".vault-research-badge")?.textContent ?? "";
/** Lets the click handler's promise chain run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => {
  document.body.empty();
});

/** A panel whose first "Add to vault" saves the excerpt only (403) and the second the page; the blog row's card. */
async function excerptThenExtracted() {
  const excerptOnly: PromotionResult = { status: "created", notePath: SAVED, extractStatus: { kind: "fallback_snippet", reason: { kind: "http_error", status: 403 } }, message: "Saved.", traceUpdated: true, warnings: [] };
  const results: PromotionResult[] = [excerptOnly, { ...excerptOnly, extractStatus: { kind: "extracted" } }];
  let vault: Vault | null = null;
  const { app, card } = await panelWith(async () => {
    vault?.seed(SAVED, "Memory use drops.");
    return results.shift()!;
  });
  vault = app.vault;
  return { app, c: card(blog) };
}

describe("Add to vault on outside cards", () => {
  it("is offered on every outside card when promotion is available, and on none otherwise", async () => {
    const without = await panelWith();
    expect(without.view.contentEl.querySelectorAll(".vault-research-card.is-outside")).toHaveLength(2);
    expect(without.view.contentEl.querySelectorAll(".vault-research-card-action")).toHaveLength(0);
    document.body.empty();

    const { view } = await panelWith(async () => ({ status: "failed", error: { kind: "write_failed", message: "x" }, message: "x" }));
    const buttons = [...view.contentEl.querySelectorAll<HTMLButtonElement>(".vault-research-card.is-outside .vault-research-card-action")];
    expect(buttons.map((b) => b.textContent)).toEqual(["Add to vault", "Add to vault"]);
    expect(view.contentEl.querySelectorAll(".vault-research-card.is-vault .vault-research-card-action")).toHaveLength(0);
  });

  it("shows progress, then the saved note as a link that opens it, and the badge says promoted", async () => {
    const pending = deferred<PromotionResult>();
    const asked: { row: OutsideVaultRow; result: ResearchResult }[] = [];
    const { app, card } = await panelWith((row, result) => {
      asked.push({ row, result });
      return pending.promise;
    });
    const c = card(blog);
    expect(badgeOf(c)).toBe(outsideVaultLabel("brave", "ephemeral"));

    addButton(c)!.click();
    expect(asked.map((a) => a.row.source_key)).toEqual([blog.source_key]);
    expect(asked[0].result.trace_path).toBe("Research/Traces/run.md");
    expect(addButton(c)!.getAttribute("aria-disabled")).toBe("true");
    expect(addButton(c)!.textContent).toBe("Adding…");
    expect(c.hasClass("is-promoting")).toBe(true);
    expect(statusOf(c)).toBe("Fetching the page and saving it as a note…");
    addButton(c)!.click();
    expect(asked).toHaveLength(1);

    pending.resolve({ status: "created", notePath: SAVED, extractStatus: { kind: "extracted" }, message: `Saved ${SAVED}: page text extracted.`, traceUpdated: true, warnings: [] });
    await settle();
    expect(addButton(c)).toBeNull();
    expect(c.hasClass("is-promoting")).toBe(false);
    expect(statusOf(c)).toBe("Saved as [[Automerge 3.0 lower memory, one API]]");
    expect(badgeOf(c)).toBe(outsideVaultLabel("brave", "promoted"));
    expect(badgeOf(card(releases))).toBe(outsideVaultLabel("brave", "ephemeral"));

    app.vault.seed(SAVED, "saved page\n");
    c.querySelector<HTMLElement>(".vault-research-promote-link")!.click();
    expect(app.workspace.openedLinks.map((l) => l.linktext)).toEqual([SAVED]);
  });

  it("links to the note that already has the page instead of writing a duplicate", async () => {
    const existing = "Reading/Automerge 3 notes.md";
    let calls = 0;
    const { app, card } = await panelWith(async () => {
      calls++;
      return { status: "already_in_vault", notePath: existing, extractStatus: null, message: "Already in the vault.", traceUpdated: true };
    });
    const c = card(blog);
    addButton(c)!.click();
    await settle();
    expect(calls).toBe(1);
    expect(statusOf(c)).toBe("Already in your vault: [[Automerge 3 notes]]");
    expect(addButton(c)).toBeNull();
    // Nothing was promoted by this click: the row is still this run's web result.
    expect(badgeOf(c)).toBe(outsideVaultLabel("brave", "ephemeral"));
    app.vault.seed(existing, "my notes on it\n");
    c.querySelector<HTMLElement>(".vault-research-promote-link")!.click();
    expect(app.workspace.openedLinks.map((l) => l.linktext)).toEqual([existing]);
  });

  it("says what went wrong in words and lets the user try again", async () => {
    const results: PromotionResult[] = [
      { status: "failed", error: { kind: "write_failed", message: "The note could not be written: disk full" }, message: "The note could not be written: disk full" },
      { status: "created", notePath: SAVED, extractStatus: { kind: "extracted" }, message: "Saved.", traceUpdated: false, warnings: ["The trace note Research/Traces/run.md does not record the promotion: it was deleted"] },
    ];
    const { card } = await panelWith(async () => results.shift()!);
    const c = card(blog);
    addButton(c)!.click();
    await settle();
    expect(statusOf(c)).toBe("The note could not be written: disk full");
    expect(c.querySelector(".vault-research-promote-status")!.hasClass("is-error")).toBe(true);
    expect(addButton(c)!.getAttribute("aria-disabled")).toBeNull();
    expect(addButton(c)!.textContent).toBe("Try again");
    expect(badgeOf(c)).toBe(outsideVaultLabel("brave", "ephemeral"));

    addButton(c)!.click();
    await settle();
    expect(statusOf(c)).toBe("Saved as [[Automerge 3.0 lower memory, one API]]");
    expect(c.querySelector(".vault-research-promote-status")!.hasClass("is-error")).toBe(false);
    expect([...c.querySelectorAll(".vault-research-promote-warning")].map((w) => w.textContent)).toEqual([
      "The trace note Research/Traces/run.md does not record the promotion: it was deleted",
    ]);
  });

  it("keeps keyboard focus: on the saved note's link once the button is gone, on the button while it offers to fetch again", async () => {
    const { c } = await excerptThenExtracted();
    const press = async () => {
      addButton(c)!.focus();
      addButton(c)!.click();
      expect(document.activeElement).toBe(addButton(c));
      for (let i = 0; i < 3; i++) await settle();
    };
    await press();
    expect(addButton(c)!.textContent).toBe("Fetch the page again");
    expect(document.activeElement).toBe(addButton(c));
    await press();
    expect(addButton(c)).toBeNull();
    expect(document.activeElement).toBe(c.querySelector(".vault-research-promote-link"));
  });

  it("leaves the focus where the user took it while the page was fetched: it is not pulled back to the card", async () => {
    const pending = deferred<PromotionResult>();
    const { card } = await panelWith(() => pending.promise);
    const c = card(blog);
    addButton(c)!.focus();
    addButton(c)!.click();
    // The user reads on: Tab to the next web result while this page is fetched.
    const next = card(releases).querySelector<HTMLElement>(".vault-research-card-title")!;
    next.focus();
    pending.resolve({ status: "created", notePath: SAVED, extractStatus: { kind: "extracted" }, message: "Saved.", traceUpdated: true, warnings: [] });
    for (let i = 0; i < 3; i++) await settle();
    expect(addButton(c)).toBeNull();
    expect(document.activeElement).toBe(next);
  });

  it("says when only the provider's excerpt was saved, and why, and fetches the page again in place of that note", async () => {
    const { c, app } = await excerptThenExtracted();
    addButton(c)!.click();
    await settle();
    await settle();
    expect(statusOf(c)).toBe("Saved as [[Automerge 3.0 lower memory, one API]] with the provider's excerpt only: the site answered 403.");
    expect(addButton(c)!.textContent).toBe("Fetch the page again");

    addButton(c)!.click();
    await settle();
    await settle();
    await settle();
    expect(statusOf(c)).toBe("Saved as [[Automerge 3.0 lower memory, one API]]");
    expect(addButton(c)).toBeNull();
    expect(app.vault.getFileByPath(SAVED)).not.toBeNull();
  });

  it("a PDF saved from a result with no excerpt says the note holds the link only, not an excerpt", async () => {
    const pdfStub = (): PromotionResult => ({ status: "created", notePath: SAVED, extractStatus: { kind: "pdf_stub" }, message: "Saved.", warnings: [], traceUpdated: true });
    const { card } = await panelWith(async () => pdfStub());
    const withExcerpt = card(blog);
    addButton(withExcerpt)!.click();
    await settle();
    await settle();
    expect(statusOf(withExcerpt)).toBe("Saved as [[Automerge 3.0 lower memory, one API]] with the link and the provider's excerpt only: PDFs are not read.");
    expect(savedWords({ kind: "pdf_stub" }, hasProviderExcerpt(outsideRow("brave", "https://x.example/a.pdf", "A PDF", "")))).toBe("with the link only: PDFs are not read.");
    expect(promotionNotice(pdfStub(), false)).toContain("with the link only: PDFs are not read.");
  });

  it("says where an old result's address leads now, instead of its page", () => {
    expect(savedWords({ kind: "link_only", reason: { kind: "redirected", to: "sign_in_page" } })).toBe("with the link only: the address now leads to a sign-in page.");
    expect(savedWords({ kind: "fallback_snippet", reason: { kind: "redirected", to: "not_found_page" } })).toBe('with the provider\'s excerpt only: the address now leads to a "not found" page.');
    expect(savedWords({ kind: "fallback_snippet", reason: { kind: "redirected", to: "front_page" } })).toBe("with the provider's excerpt only: the address now leads to the site's front page.");
  });

  it("keeps an excerpt-only note the user has edited, instead of fetching again", async () => {
    let vault: Vault | null = null;
    const { app, card } = await panelWith(async () => {
      vault?.seed(SAVED, "Memory use drops.");
      return { status: "created", notePath: SAVED, extractStatus: { kind: "link_only", reason: { kind: "timeout" } }, message: "Saved.", traceUpdated: true, warnings: [] };
    });
    vault = app.vault;
    const c = card(blog);
    addButton(c)!.click();
    await settle();
    await settle();
    expect(statusOf(c)).toBe("Saved as [[Automerge 3.0 lower memory, one API]] with the link only: the page took too long to load.");
    await app.vault.modify(app.vault.getFileByPath(SAVED)!, "My own notes on this page.");
    addButton(c)!.click();
    await settle();
    await settle();
    expect(statusOf(c)).toBe("The note was kept: it changed since it was saved, or is gone.");
    expect(await app.vault.read(app.vault.getFileByPath(SAVED)!)).toBe("My own notes on this page.");
  });

  it("turns an unexpected exception into a readable message, not a stuck button", async () => {
    const { card } = await panelWith(async () => {
      throw new Error("the index is being rebuilt");
    });
    const c = card(releases);
    addButton(c)!.click();
    await settle();
    expect(statusOf(c)).toBe("The page could not be added to the vault: the index is being rebuilt");
    expect(addButton(c)!.getAttribute("aria-disabled")).toBeNull();
  });
});
