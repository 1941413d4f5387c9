// What a finished turn offers, on one row under the answer: copy it, insert it at the cursor of
// the last note, open its trace note (or, for a run the user stopped, save one). Each is an icon with a short word beside it; the accessible
// name says the whole action ("Copy answer").
import { setIcon } from "obsidian";

export interface TurnActionHandlers {
  copy?: () => void;
  insert?: () => void;
  openTrace?: () => void;
  /** "Search the web for this": the same question again, with the web, this turn only. */
  searchWeb?: () => void;
  /** A run the user stopped wrote no trace note: write it now. */
  saveTrace?: () => void;
}

const ACTIONS: { key: keyof TurnActionHandlers; icon: string; word: string; name: string }[] = [
  { key: "searchWeb", icon: "globe", word: "Search the web for this", name: "Search the web for this question" },
  { key: "copy", icon: "copy", word: "Copy", name: "Copy answer" },
  { key: "insert", icon: "text-cursor-input", word: "Insert", name: "Insert at cursor" },
  { key: "openTrace", icon: "file-text", word: "Trace", name: "Open trace note" },
  { key: "saveTrace", icon: "file-plus", word: "Save trace", name: "Save trace note" },
];

/** The row of actions, or null when none is offered. */
export function renderTurnActions(parent: HTMLElement, handlers: TurnActionHandlers): HTMLElement | null {
  const offered = ACTIONS.filter((a) => handlers[a.key]);
  if (offered.length === 0) return null;
  const row = parent.createDiv({ cls: "vault-research-turn-actions" });
  for (const action of offered) {
    const button = row.createEl("button", {
      cls: ["vault-research-turn-action", `is-${action.key}`],
      attr: { type: "button", "aria-label": action.name, "data-tooltip-position": "top" },
    });
    setIcon(button.createSpan({ cls: "vault-research-turn-action-icon", attr: { "aria-hidden": "true" } }), action.icon);
    button.createSpan({ cls: "vault-research-turn-action-word", text: action.word });
    button.addEventListener("click", () => handlers[action.key]?.());
  }
  return row;
}
