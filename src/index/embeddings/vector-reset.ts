// Why stored vectors were thrown away: a closed union, and the words a user reads. Not finding
// any vectors is not a reset (there was nothing to lose).

export type VectorReset =
  | { kind: "model_changed"; from: string; to: string; notes: number }
  | { kind: "dimension_changed"; from: number; to: number; notes: number }
  | { kind: "model_swapped"; model: string; notes: number }
  | { kind: "old_version"; found: string }
  /** Written by a later version of the plugin or the CLI, in a format this one cannot read. */
  | { kind: "newer_version"; found: string }
  | { kind: "corrupt"; detail: string }
  /** Some notes' rows were damaged (the rest of the file is kept). */
  | { kind: "notes_damaged"; notes: number }
  /** Some notes' parts were not there: another process saving into the same cache took them away (the rest is kept). */
  | { kind: "notes_missing"; notes: number }
  | { kind: "unreadable"; detail: string };

export function vectorResetWords(reset: VectorReset): string {
  switch (reset.kind) {
    case "model_changed":
      return `The stored vectors were made by ${reset.from}; the embedding model is now ${reset.to}, so ${notesWord(reset.notes)} will be embedded again.`;
    case "dimension_changed":
      return `The embedding model now answers with ${reset.to} dimensions instead of ${reset.from} (another model behind the same name?), so ${notesWord(reset.notes)} will be embedded again.`;
    case "model_swapped":
      return `${reset.model} now answers differently than when the stored vectors were made (another model behind the same name and dimensions?), so ${notesWord(reset.notes)} will be embedded again.`;
    case "old_version":
      return `The stored vectors are in an older format (${reset.found}); every note will be embedded again.`;
    case "newer_version":
      return `The stored vectors are in a newer format (${reset.found}) than this version of Vault Research reads; every note will be embedded again, in this version's format.`;
    case "corrupt":
      return `The stored vectors were damaged (${reset.detail}); every note will be embedded again.`;
    case "notes_damaged":
      return `The stored vectors of ${reset.notes === 1 ? "1 note were" : `${reset.notes} notes were`} damaged; ${reset.notes === 1 ? "that note" : "those notes"} will be embedded again, the others are kept.`;
    case "notes_missing":
      return `The stored vectors of ${reset.notes === 1 ? "1 note were" : `${reset.notes} notes were`} not found (another process saving vectors for this vault may have replaced them); ${reset.notes === 1 ? "that note" : "those notes"} will be embedded again, the others are kept.`;
    case "unreadable":
      return `The stored vectors could not be read (${reset.detail}); they are left as they are, and searches go by words alone until they can be read.`;
  }
}

function notesWord(n: number): string {
  return n === 1 ? "the 1 embedded note" : `all ${n} embedded notes`;
}
