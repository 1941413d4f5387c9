// Words people use for the same thing in notes about software and personal knowledge work. A query
// word also searches its synonyms at a lower weight, and a note that has only the synonym still
// counts as covering that part of the question. Kept short and general on purpose: a long list
// drifts into guessing, and every group here is a real, common interchange.
export const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ["folder", "directory", "dir"],
  ["delete", "remove", "erase"],
  ["kill", "terminate"],
  ["picture", "image", "photo"],
  ["password", "passphrase"],
  ["shortcut", "hotkey", "keybinding"],
  ["todo", "task"],
  ["recurring", "repeating", "recurrence"],
  ["deadline", "due"],
  ["settings", "configuration", "config", "preferences"],
  ["search", "find"],
  ["website", "site"],
  ["compress", "zip"],
  ["extract", "unpack", "unzip", "decompress"],
  ["merge", "combine"],
  ["convert", "transform"],
  ["journal", "diary"],
  ["orphan", "unlinked"],
  ["symlink", "symbolic"],
  ["encrypt", "encryption", "cipher"],
  ["sync", "synchronize", "synchronise"],
];

/** Word (as normalised by `normalize`) → the other words of its groups. */
export function synonymTable(normalize: (word: string) => string): Map<string, string[]> {
  const table = new Map<string, string[]>();
  for (const group of SYNONYM_GROUPS) {
    const forms = group.map(normalize);
    for (const form of forms) {
      const others = forms.filter((f) => f !== form);
      table.set(form, Array.from(new Set([...(table.get(form) ?? []), ...others])));
    }
  }
  return table;
}
