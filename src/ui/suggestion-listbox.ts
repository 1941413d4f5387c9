// A suggestion modal's list as a screen reader needs it. The app's SuggestModal draws its suggestions
// as plain divs and marks the one ↑↓ (or the pointer) chose with `is-selected`, nothing more: a
// screen reader heard a text box, never that a list was there, nor which note the arrows moved to.
// Here the query box becomes a combobox that owns a listbox of options, and `aria-activedescendant`
// follows the app's own selection. The chooser is the app's, with no API that says when it moves, so
// the list is watched as the app draws and marks it.

let idCount = 0;

/** An id unique in the window: several modals and panels may be open at once. */
export function nextSuggestionId(): string {
  return `vault-research-suggestion-${++idCount}`;
}

/**
 * Makes `inputEl` a combobox over `listEl`, kept true to what the app draws in it. A listbox with no
 * options (the app's "No results found" line in it) is no listbox: it is left a plain block of text.
 * Returns the function that stops watching.
 */
export function suggestionListbox(inputEl: HTMLInputElement, listEl: HTMLElement, label: string): () => void {
  if (!listEl.id) listEl.id = nextSuggestionId();
  inputEl.setAttrs({ role: "combobox", "aria-autocomplete": "list", "aria-controls": listEl.id, "aria-expanded": "false" });
  const sync = (): void => {
    // Wherever the app nests them in the list: a wrapper between is no part of what is read.
    const options = Array.from(listEl.querySelectorAll<HTMLElement>(".suggestion-item"));
    for (const option of options) {
      if (!option.id) option.id = nextSuggestionId();
      setIfChanged(option, "role", "option");
      // Only the chosen one says so, as the ARIA practices' own list does: "not selected" after each other note is noise.
      setIfChanged(option, "aria-selected", option.classList.contains("is-selected") ? "true" : null);
    }
    const listed = options.length > 0;
    setIfChanged(listEl, "role", listed ? "listbox" : null);
    setIfChanged(listEl, "aria-label", listed ? label : null);
    setIfChanged(inputEl, "aria-expanded", String(listed));
    // A screen reader says the option the input's active descendant names each time it changes.
    setIfChanged(inputEl, "aria-activedescendant", options.find((o) => o.classList.contains("is-selected"))?.id ?? null);
  };
  // Only classes are watched among attributes: what `sync` sets itself never calls it again.
  const observer = new MutationObserver(sync);
  observer.observe(listEl, { childList: true, subtree: true, attributes: true, attributeFilter: ["class"] });
  sync();
  return () => observer.disconnect();
}

/** Sets (or, given null, removes) an attribute only when it differs: an unchanged active descendant is not news. */
function setIfChanged(el: HTMLElement, name: string, value: string | null): void {
  if (el.getAttribute(name) === value) return;
  if (value === null) el.removeAttribute(name);
  else el.setAttribute(name, value);
}
