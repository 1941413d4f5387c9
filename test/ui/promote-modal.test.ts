// @vitest-environment happy-dom
// The trace picker's own words: the notice shown while a chosen result is added, and what a screen
// reader hears of its list; and which notes the command is offered for. (The picker over a real
// trace note, and the notices after, are test/ui/promote-command.test.ts.)
import { afterEach, describe, expect, it, vi } from "vitest";
import type { App as ObsidianApp } from "obsidian";
import { App, openModals, Vault, type TFile } from "../stubs/obsidian";
import { parseNote } from "../../src/index/markdown";
import { renderTraceNote } from "../../src/notes/trace-note";
import { addingNotice, isTraceNoteWithOutsideRows, PromoteResultModal } from "../../src/ui/promote-modal";
import { traceWith, webRow } from "../support/promote-fixtures";

describe("the notes the command is offered for", () => {
  const trace = renderTraceNote(traceWith("What changed in Automerge?", [webRow("brave", "https://automerge.org/blog/automerge-3/", "Automerge 3", "Lower memory.")]));
  /** Whether the command is offered for `text`, read as Obsidian's metadata cache reads it: its properties parsed. */
  const offeredFor = (text: string) => {
    const vault = new Vault("Sample");
    const file = vault.seed("Research/Traces/Run.md", text);
    const app = new App({ vault });
    app.metadataCache.getFileCache = ((f: TFile) => ({ frontmatter: parseNote(f.path, text).frontmatter })) as never;
    return isTraceNoteWithOutsideRows(app as unknown as ObsidianApp, file as never);
  };

  // The metadata cache gives a list property as a list: Obsidian writes `type` as one where it is a
  // list property in the vault. The index knows such a note for a trace (index/trace-marks.ts), yet
  // the command was not offered for it.
  it("is offered for a trace note whose type an editor rewrote: a list, a flow list, a comment after it", () => {
    expect(offeredFor(trace)).toBe(true);
    for (const type of ["type:\n  - research-trace", "type:\n- reading\n- research-trace", "type: [research-trace]", "type: research-trace # written by Vault Research"]) {
      expect(offeredFor(trace.replace("type: research-trace", type)), type).toBe(true);
    }
  });

  it("is not offered for a note whose type, in a list or not, is something else, nor for a trace with no outside rows", () => {
    for (const type of ["type: journal", "type:\n  - journal", "type: [research-trace-notes]", "type: research-trace-notes # research-trace"]) {
      expect(offeredFor(trace.replace("type: research-trace", type)), type).toBe(false);
    }
    expect(offeredFor(trace.replace("type: research-trace", "type:\n  - research-trace").replace(/^outside_rows: .*$/m, "outside_rows: 0"))).toBe(false);
  });
});

describe("the notice while a result is added", () => {
  it("isolates a right-to-left title, so the sentence around it keeps its order", () => {
    const row = webRow("brave", "https://example-1.org/a", "כיצד עובד מיזוג ב-CRDT?", null);
    expect(addingNotice({ row })).toBe("Adding \u2068כיצד עובד מיזוג ב-CRDT?\u2069 to the vault…");
  });

  it("shows a title edited to 5 KB, or over lines, as one short line: the notice stays up over a phone's screen while the page is fetched", () => {
    const row = webRow("brave", "https://example.org/long", `${"Conflict free replicated data types ".repeat(140)}\n\nend`, null);
    const notice = addingNotice({ row });
    expect(notice).not.toContain("\n");
    expect(notice.length).toBeLessThan(160);
    expect(notice).toMatch(/^Adding \u2068Conflict free replicated .*…\u2069 to the vault…$/);
  });

  it("names the address when the result has no title", () => {
    const row = webRow("brave", "https://example.org/untitled", "", null);
    expect(addingNotice({ row })).toBe("Adding \u2068https://example.org/untitled\u2069 to the vault…");
  });
});

describe("the picker as a screen reader hears it", () => {
  const rows = [
    { row: webRow("brave", "https://automerge.org/blog/crdts", "Automerge and CRDTs", "A post.") },
    { row: webRow("hackernews", "https://github.com/automerge/automerge/releases", "Automerge releases", null), promotedTo: "Research/Sources/Automerge releases.md" },
  ];
  const picker = () => new PromoteResultModal(new App() as unknown as ObsidianApp, rows, () => {});
  const items = async (modal: PromoteResultModal) =>
    vi.waitFor(() => {
      const shown = [...modal.resultContainerEl.querySelectorAll<HTMLElement>(".suggestion-item")];
      if (shown.length === 0) throw new Error("no suggestions yet");
      return shown;
    });

  afterEach(() => {
    for (const modal of [...openModals]) modal.close();
  });

  it("the query box is a combobox over a listbox of the trace's results, and ↓ moves the option it names as active", async () => {
    const modal = picker();
    modal.open();
    const input = modal.inputEl;
    expect(input.getAttribute("role")).toBe("combobox");
    const shown = await items(modal);
    await vi.waitFor(() => expect(input.getAttribute("aria-activedescendant")).toBe(shown[0].id));
    const list = document.getElementById(input.getAttribute("aria-controls")!)!;
    expect(list).toBe(modal.resultContainerEl);
    expect(list.getAttribute("role")).toBe("listbox");
    expect(list.getAttribute("aria-label")).toBe("Results of this trace");
    expect(shown.map((i) => i.getAttribute("role"))).toEqual(["option", "option"]);
    expect(input.getAttribute("aria-expanded")).toBe("true");
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
    await vi.waitFor(() => expect(input.getAttribute("aria-activedescendant")).toBe(shown[1].id));
    expect(shown.map((i) => i.getAttribute("aria-selected"))).toEqual([null, "true"]);
  });

  it("a filter that matches nothing leaves no listbox and no active option", async () => {
    const modal = picker();
    modal.open();
    await items(modal);
    modal.inputEl.value = "no such result";
    modal.inputEl.dispatchEvent(new Event("input"));
    await vi.waitFor(() => expect(modal.resultContainerEl.querySelector(".suggestion-empty")).not.toBeNull());
    await vi.waitFor(() => expect(modal.inputEl.getAttribute("aria-expanded")).toBe("false"));
    expect(modal.resultContainerEl.hasAttribute("role")).toBe(false);
    expect(modal.inputEl.hasAttribute("aria-activedescendant")).toBe(false);
  });

  it("stops following the list once closed", async () => {
    const modal = picker();
    modal.open();
    await items(modal);
    modal.close();
    modal.resultContainerEl.empty();
    modal.resultContainerEl.createDiv("suggestion-item is-selected");
    await new Promise((resolve) => window.setTimeout(resolve, 0));
    expect(modal.resultContainerEl.querySelector(".suggestion-item")!.hasAttribute("role")).toBe(false);
  });
});
