// `embed_report.v1`: what `vault-research embed --json` prints — how the vectors of the vault were
// brought up to date (embedded, already current, moved with a renamed note, unreadable), what was
// thrown away and why, and where the vectors are kept (the cache folder, never the vault).
import * as z from "zod";
import type { EmbeddingProgress } from "../../index/embeddings/embedding-job";
import { vectorResetWords, type VectorReset } from "../../index/embeddings/vector-reset";

export const embedReportSchema = z.strictObject({
  schema: z.literal("embed_report.v1"),
  model: z.string().describe("The embedding model's identity, e.g. ollama:nomic-embed-text: vectors of another model are thrown away."),
  dimensions: z.number().int().nonnegative().nullable().describe("Dimensions of the stored vectors; null before the first one."),
  state: z
    .enum(["done", "cancelled", "failed"])
    .describe(
      "cancelled: stopped (Ctrl-C); what was embedded is kept and a rerun resumes. failed: the embedding server failed, the vectors could not be saved (error.kind not_saved; a rerun sends those notes again), or the stored vectors are there but could not be read (error.kind vectors_unreadable: nothing was sent, they are left as they are).",
    ),
  notes_in_vault: z.number().int().nonnegative(),
  notes_to_embed: z.number().int().nonnegative().describe("Added or changed (by path, mtime and size) since their vectors were made."),
  notes_embedded: z.number().int().nonnegative(),
  notes_unchanged: z.number().int().nonnegative().describe("Notes whose vectors were still good, those found so when read again included."),
  notes_moved: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("Of notes_unchanged, those renamed or moved whose vectors followed them: read, found to send the text the vectors were made from, and not sent to the model. Always written by this version; absent in older reports."),
  notes_rechecked: z
    .number()
    .int()
    .nonnegative()
    .describe("Notes read again because their vectors were cut from the note by an older version: kept when the text sent would be the same, embedded again (and counted in notes_embedded) when not."),
  notes_unreadable: z.number().int().nonnegative(),
  notes_refused: z
    .number()
    .int()
    .nonnegative()
    .describe("Notes the embedding server could not embed even alone (a vector of NaN or of zeros, an error for that text): left out, tried again next run."),
  refused: z
    .strictObject({ first_note: z.string(), message: z.string() })
    .nullable()
    .describe("The first refused note (vault path) and the server's words; null when none was refused."),
  units_embedded: z.number().int().nonnegative().describe("Titles, outlines and sections embedded by this run."),
  resets: z.array(z.strictObject({ kind: z.string(), message: z.string() })).describe("Stored vectors thrown away, and why (another model, other dimensions, a damaged file)."),
  error: z.strictObject({ kind: z.string(), message: z.string() }).nullable(),
  vector_file: z.string().describe("Where the vectors are kept: the cache folder, never the vault."),
  vector_bytes: z
    .number()
    .int()
    .nonnegative()
    .describe("Bytes of the vectors on disk: the root (vector_file) and the parts it names. Parts of earlier vectors that no root names any more, kept for other processes until a save at least ten minutes later takes them away, are not counted."),
  disclosure: z.string().describe("What left the device: the text of every note, to the embedding endpoint."),
});
export type EmbedReportJson = z.infer<typeof embedReportSchema>;

export interface EmbedReportFacts {
  model: string;
  dimensions: number | null;
  notesInVault: number;
  /** Resets found while loading (a damaged file, another model) besides the run's own. */
  loadResets: VectorReset[];
  vectorFile: string;
  vectorBytes: number;
  disclosure: string;
  /** Why the run was refused before anything was sent, if it was. */
  refusal?: EmbedRefusal | null;
}

/** A run refused before anything was sent: the vector file cannot be written, or the stored vectors cannot be read. */
export interface EmbedRefusal {
  kind: "not_saved" | "vectors_unreadable";
  message: string;
}

export function embedReportJson(progress: EmbeddingProgress, facts: EmbedReportFacts): EmbedReportJson {
  const notSaved = progress.saveProblem;
  const refusal = facts.refusal ?? null;
  // Vectors that were not saved are lost, however the run ended: the run failed.
  const state = refusal || notSaved !== undefined || progress.state === "failed" ? "failed" : progress.state === "cancelled" ? "cancelled" : "done";
  return {
    schema: "embed_report.v1",
    model: facts.model,
    // A vector file saved before any vector was made says 0: still "before the first one".
    dimensions: facts.dimensions || null,
    state,
    notes_in_vault: facts.notesInVault,
    notes_to_embed: progress.notesTotal,
    notes_embedded: progress.notesDone,
    notes_unchanged: progress.notesUnchanged,
    notes_moved: progress.notesMoved ?? 0,
    notes_rechecked: progress.notesRechecked,
    notes_unreadable: progress.notesUnreadable,
    notes_refused: progress.refused?.notes ?? 0,
    refused: progress.refused ? { first_note: progress.refused.first, message: progress.refused.message } : null,
    units_embedded: progress.unitsDone,
    resets: [...facts.loadResets, ...progress.resets].map((r) => ({ kind: r.kind, message: vectorResetWords(r) })),
    error: refusal
      ? { kind: refusal.kind, message: refusal.message }
      : progress.error
      ? { kind: progress.error.kind, message: notSaved === undefined ? progress.error.message : `${progress.error.message} ${notSaved}` }
      : notSaved !== undefined
        ? { kind: "not_saved", message: notSaved }
        : null,
    vector_file: facts.vectorFile,
    vector_bytes: facts.vectorBytes,
    disclosure: facts.disclosure,
  };
}
