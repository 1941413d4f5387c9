// `vault-research embed --vault DIR --embed SPEC`: brings the vault's vectors (levels 2–4 of the
// search dial) up to date in the cache folder. Incremental: only notes added or changed since their
// vectors were made (path, mtime, size) are embedded. What leaves the device is said on stderr
// before the first call; progress goes to stderr; Ctrl-C stops after the request in flight and
// keeps what was embedded (exit 130, as for any command stopped so), so running it again resumes. A model or dimension change throws the old
// vectors away and says so. Vectors that could not be saved fail the run (exit 1, state "failed",
// error "not_saved"): they are lost, and the next run sends the notes again; a vector file or cache
// folder that cannot be written at all (a folder in its place, a read-only disk) fails it before anything is sent, as do stored
// vectors that are there but cannot be read (error "vectors_unreadable"; damaged ones are embedded again).
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { errorMessage } from "../text/error-message";
import { EmbeddingJob, type EmbeddingProgress } from "../index/embeddings/embedding-job";
import { embeddingProgressWords } from "../index/embeddings/progress-words";
import { vectorResetWords } from "../index/embeddings/vector-reset";
import type { VectorLoad } from "../index/embeddings/vector-file";
import { namesInStoredRoot, ROOT_PART } from "../index/embeddings/vector-parts";
import { createEmbeddingModel, embeddingDisclosure, embedSecretNameFor } from "../llm/embeddings/embed-spec";
import { monotonicReading, systemClock, type Http, type NoteFileInfo } from "../ports";
import { has, UsageError, type ParsedArgs } from "./args";
import { chattiness, type CommandIo } from "./cli-io";
import { envSecrets } from "./env-secrets";
import { createFetchHttp } from "./fetch-http";
import { FileVectorCache, loadVectors } from "./file-vector-cache";
import { makeFolderSync } from "./make-folder";
import { whyNot } from "./path-kind";
import { embedReportJson, type EmbedRefusal } from "./json/embed-report-json";
import { openVault, readSettings, type OpenedVault } from "./open-vault";
import { readEmbedConfig } from "./search-dial";
import { terminalJson } from "./terminal-text";

/** Without a live line, a progress line at most this often. */
const PROGRESS_EVERY_MS = 2_000;

export interface EmbedCommandHooks {
  /** The embedding client's Http (tests bring a recording one); default: fetch. */
  http?: Http;
  /** Aborting it is Ctrl-C (tests); the command also listens for SIGINT itself. */
  stop?: AbortSignal;
}

export async function embedCommand(args: ParsedArgs, io: CommandIo, hooks: EmbedCommandHooks = {}): Promise<number> {
  if (args.positionals.length > 0) throw new UsageError(`embed takes no words besides its flags (got "${args.positionals[0]}").`);
  const settings = readSettings(args, io);
  const config = readEmbedConfig(args, settings);
  if (config.kind === "none") throw new UsageError("embed needs an embedding model: --embed ollama:MODEL[@BASE_URL] or openai:MODEL[@BASE_URL] (or search.embedding in the config).");
  const opened = await openVault(args, io, settings);
  const secret = embedSecretNameFor(config);
  const apiKey = secret ? await envSecrets(io.env).get(secret) : null;
  const embedder = createEmbeddingModel(config, { http: hooks.http ?? createFetchHttp(), apiKey, requestsPerSecond: settings.search.embedding.requestsPerSecond })!;
  const cache = new FileVectorCache(opened.cache.folder);
  const loaded = await loadVectors(cache, embedder.name);
  const refusal = refusalOf(cache, loaded);
  // A run refused sends nothing, so no note "will be embedded again", and the refusal is the first thing said.
  const loadResets = loaded.reset && !refusal ? [loaded.reset] : [];
  for (const reset of loadResets) io.err(`${vectorResetWords(reset)}\n`);
  const disclosure = embeddingDisclosure(config);
  const job = new EmbeddingJob({ store: loaded.store, embedder, notes: opened.store, cache, clock: io.clock ?? systemClock });
  let progress: EmbeddingProgress;
  if (refusal) {
    progress = { ...job.progress(), state: "failed" };
  } else {
    io.err(`${disclosure}\n`);
    progress = await runWithProgress(job, indexedFiles(opened), args, io, hooks.stop);
  }
  const bytes = await vectorBytes(cache);
  const json = embedReportJson(progress, {
    model: embedder.name,
    dimensions: loaded.store.dimensions,
    notesInVault: opened.index.paths().length,
    loadResets,
    vectorFile: cache.file,
    vectorBytes: bytes.named,
    disclosure,
    refusal,
  });
  for (const reset of progress.resets) io.err(`${vectorResetWords(reset)}\n`);
  const problem = refusal?.message ?? progress.saveProblem;
  if (problem !== undefined) io.err(`error: ${problem}\n`);
  if (has(args, "json")) io.out(`${terminalJson(json)}\n`);
  else if (refusal) io.out(`${refusedLine(refusal, cache.file)}\n`);
  else io.out(`${embeddingProgressWords(progress)}\n${vectorsLine(progress, loaded.store.size, json.notes_in_vault, bytes, cache.file)}\n`);
  if (progress.state === "cancelled" && progress.saveProblem === undefined) io.err("Stopped: run the same command again to go on from here.\n");
  return refusal ? 1 : exitCode(progress);
}

/**
 * Why the run is refused before anything is sent, or null. Vectors that are there and cannot be
 * read (a permission, a moment of EIO, a sync tool's placeholder) are not damaged: embedding every
 * note again over them would pay for hours of work that may read fine tomorrow.
 */
function refusalOf(cache: FileVectorCache, loaded: VectorLoad): EmbedRefusal | null {
  const folderUnwritable = whyFolderUnwritable(cache.folder);
  if (folderUnwritable) {
    return { kind: "not_saved", message: `The vectors could not be saved: ${cache.folder} ${folderUnwritable}. Nothing was sent; make it writable, or choose another cache folder with --cache-dir, and run again.` };
  }
  const unwritable = whyVectorFileUnwritable(cache.file);
  if (unwritable) return { kind: "not_saved", message: `The vectors could not be saved: ${cache.file} ${unwritable}. Nothing was sent; move it out of the way and run again.` };
  if (loaded.reset?.kind !== "unreadable") return null;
  return {
    kind: "vectors_unreadable",
    message: `The stored vectors could not be read (${loaded.reset.detail}). Nothing was sent and they are left as they are: make the file readable and run again (or move the vectors out of the way to embed every note again).`,
  };
}

function refusedLine(refusal: EmbedRefusal, file: string): string {
  return refusal.kind === "not_saved" ? `Vectors: not saved in ${file}.` : `Vectors: left as they are in ${path.dirname(file)}: they could not be read.`;
}

/** 0 done; 130 stopped with Ctrl-C, what was embedded kept (as every command's help says: stopped, not failed); 1 failed or not saved. */
function exitCode(progress: EmbeddingProgress): number {
  if (progress.saveProblem !== undefined) return 1;
  if (progress.state === "done") return 0;
  return progress.state === "cancelled" ? 130 : 1;
}

/** Where the vectors are, or that this run's were not saved (never a claim about a file that was not written). */
function vectorsLine(progress: EmbeddingProgress, notes: number, notesInVault: number, bytes: VectorBytes, file: string): string {
  if (progress.saveProblem !== undefined) {
    const lost = progress.notesDone > 0 ? `: the ${progress.notesDone.toLocaleString("en-US")} ${progress.notesDone === 1 ? "note" : "notes"} embedded by this run will be sent again next time` : "";
    return `Vectors: not saved in ${file}${lost}.`;
  }
  const where = `Vectors: ${notes} notes of ${notesInVault}, ${bytes.named.toLocaleString("en-US")} bytes in ${path.dirname(file)} (${path.basename(file)} and its parts)`;
  if (bytes.kept === 0) return where;
  return `${where}; ${bytes.kept.toLocaleString("en-US")} bytes more are earlier vectors kept for other processes, until a save ten minutes or more from now takes them away`;
}

/** The bytes of the vectors the stored root names, itself included, and of the parts it no longer names. */
interface VectorBytes {
  named: number;
  /** Parts a root stopped naming: another process may still load or save them, so a save takes them away only ten minutes on (index/unlisted-parts.ts). */
  kept: number;
}

/**
 * The vectors' bytes on disk, those the root names apart from the rest: counting every part, a
 * re-embed with another model and back reported three sets of vectors, two of them on their way out.
 */
async function vectorBytes(cache: FileVectorCache): Promise<VectorBytes> {
  // The root and the parts it names, whichever model's it is (a run refused before anything was sent leaves another's).
  const named = await cache.storedBytes(new Set([ROOT_PART, ...(await namesInStoredRoot(cache))]));
  return { named, kept: Math.max(0, (await cache.storedBytes()) - named) };
}

/**
 * Why nothing can be saved in the vectors' folder — a read-only disk or folder, a path through a
 * file — or null. Found only at the first save, it cost every note of the vault sent, then lost.
 */
function whyFolderUnwritable(folder: string): string | null {
  try {
    // Made a level at a time, a refusal in the disk's own words (a read-only disk's EROFS, a file in the way named as one): make-folder.ts.
    makeFolderSync(folder);
    accessSync(folder, constants.W_OK);
    return null;
  } catch (error) {
    return `cannot be written (${codeOf(error)})`;
  }
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? errorMessage(error);
}

/** Why the vector file could not be written over ("is a folder, not a file"), or null when it can (or is not there yet). */
function whyVectorFileUnwritable(file: string): string | null {
  const why = whyNot("file", file);
  return why === "does not exist" ? null : why;
}

/** The notes as the index has them (trace notes and excluded folders left out, as the index leaves them). */
function indexedFiles(opened: OpenedVault): NoteFileInfo[] {
  return opened.index.paths().map((path) => {
    const note = opened.index.note(path)!;
    return { path, mtime: note.mtime, size: note.size };
  });
}

/** Runs the job with its progress on stderr and Ctrl-C (or `stop`) cancelling it. */
async function runWithProgress(job: EmbeddingJob, files: NoteFileInfo[], args: ParsedArgs, io: CommandIo, stop?: AbortSignal): Promise<EmbeddingProgress> {
  const talk = chattiness(io, { quiet: has(args, "quiet"), noColor: has(args, "no-color") });
  const clock = io.clock ?? systemClock;
  let lastLineAt = -Infinity;
  const unsubscribe = job.onProgress((p) => {
    if (!talk.progress || p.state !== "running") return;
    if (talk.liveLine) return io.statusLine!(embeddingProgressWords(p));
    // On the monotonic reading: on the wall clock, one set back an hour held every line back for the hour.
    if (monotonicReading(clock) - lastLineAt < PROGRESS_EVERY_MS) return;
    lastLineAt = monotonicReading(clock);
    io.err(`${embeddingProgressWords(p)}\n`);
  });
  // The first Ctrl-C stops gently (what was embedded is saved); a second one is Node's own.
  const cancel = (): void => job.cancel();
  process.once("SIGINT", cancel);
  if (stop?.aborted) cancel();
  else stop?.addEventListener("abort", cancel, { once: true });
  try {
    return await job.run(files);
  } finally {
    process.removeListener("SIGINT", cancel);
    stop?.removeEventListener("abort", cancel);
    unsubscribe();
    if (talk.liveLine) io.statusLine!(null);
  }
}
