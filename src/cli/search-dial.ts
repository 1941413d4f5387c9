// The search dial for a CLI command: which level (--level, else the settings' remembered one),
// which embedding model (--embed, else settings.search.embedding), which chat model reranks
// (--model, else the settings'), the vectors from the vault's cache folder and the query log beside
// them. Level 1 builds no client at all, so it cannot reach the network.
import { VaultSearch } from "../index/dial/vault-search";
import { DIAL_LEVEL_NAMES, type DialLevel, type DialNotice } from "../index/dial/dial-types";
import type { RerankModel } from "../index/dial/rerank";
import type { VectorLoad } from "../index/embeddings/vector-file";
import { vectorResetWords } from "../index/embeddings/vector-reset";
import type { QueryLog } from "../index/query-log/query-log";
import { createEmbeddingModel, embedSecretNameFor, parseEmbedSpec, type EmbedConfig } from "../llm/embeddings/embed-spec";
import type { EmbeddingModel } from "../llm/embeddings/embedding-model";
import { createChatModel, modelConfigFromSettings, parseModelSpec, secretNameFor, type ModelConfig } from "../llm/model-spec";
import type { Clock, Http } from "../ports";
import type { Settings } from "../settings";
import { secretScrubber } from "../text/secret-scrub";
import { joinSentences } from "../text/sentence-ends";
import { flag, UsageError, valueShown, type ParsedArgs } from "./args";
import { envSecrets, envSecretValues, secretEnvNames } from "./env-secrets";
import { createFetchHttp } from "./fetch-http";
import { FileVectorCache, loadVectors } from "./file-vector-cache";
import { openQueryLog } from "./file-query-log";
import type { OpenedVault } from "./open-vault";

/** `--level 1|2|3|4`, else the settings' remembered position for this surface. */
export function readLevel(args: ParsedArgs, settings: Settings, surface: "search" | "research"): DialLevel {
  const raw = flag(args, "level");
  if (raw === undefined) return surface === "search" ? settings.search.searchLevel : settings.search.researchLevel;
  if (!/^[1-4]$/.test(raw.trim())) {
    throw new UsageError(`--level must be 1, 2, 3 or 4 (got ${valueShown(raw)}): 1 lexical, 2 hybrid (needs --embed), 3 multi-field (needs --embed), 4 rerank (needs --embed and --model).`);
  }
  return Number(raw.trim()) as DialLevel;
}

/** `--embed SPEC`, else settings.search.embedding; a bad spec is a usage error. */
export function readEmbedConfig(args: ParsedArgs, settings: Settings): EmbedConfig {
  const given = flag(args, "embed");
  const parsed = parseEmbedSpec(given ?? embedSpecFromSettings(settings.search.embedding));
  if (!parsed.ok) throw new UsageError(given === undefined ? `The config's search.embedding: ${parsed.error.message}` : parsed.error.message);
  return parsed.config;
}

/** `--model SPEC`, else the settings' model. */
export function readModelConfig(args: ParsedArgs, settings: Settings): ModelConfig {
  const spec = flag(args, "model");
  if (!spec) return modelConfigFromSettings(settings.model);
  const parsed = parseModelSpec(spec);
  if (!parsed.ok) throw new UsageError(parsed.error.message);
  return parsed.config;
}

function embedSpecFromSettings(e: Settings["search"]["embedding"]): string {
  if (e.kind === "none") return "none";
  return `${e.kind}${e.model ? `:${e.model}` : ""}${e.baseUrl ? `@${e.baseUrl}` : ""}`;
}

export interface DialChoice {
  level: DialLevel;
  embed: EmbedConfig;
  model: ModelConfig;
}

export interface OpenDialOptions {
  /** Recorded in the query log ("cli", "research", "compare"…). */
  surface: string;
  /** false: the dial logs nothing (research logs its query itself; replays must not log themselves). */
  log: boolean;
  /** The embedding and chat clients' Http (tests bring a recording one); default: fetch. */
  http?: Http;
  env: Record<string, string | undefined>;
  /** Times each search (latency in the log and the output); the system clock unless given. */
  clock?: Clock;
  /**
   * true: a chat model the settings name that cannot be made (its key not in the environment) leaves
   * level 4 to run as level 3, `rerankProblem` saying why, rather than stop the command. The plugin's
   * data.json as --config remembers the dial at level 4 and keeps the key in secret storage: every
   * search stopped with a usage error. A model given with --model that cannot be made stays one.
   */
  rerankOptional?: boolean;
}

export interface OpenedDial {
  search: VaultSearch;
  /** The vault's query log (enabled or not by settings.search.queryLog). */
  queryLog: QueryLog;
  embedder: EmbeddingModel | null;
  /** The vectors as loaded (null at level 1, or without an embedding model). */
  vectors: VectorLoad | null;
  /** Level 4's chat model (null below level 4, or without one). */
  rerankModel: RerankModel | null;
  /** Why the settings' chat model could not be made for level 4 (`rerankOptional`), in words; null when it could, or none was named. */
  rerankProblem: string | null;
}

/** The dial over an opened vault; a level that needs nothing more than words builds no client. */
export async function openDial(opened: OpenedVault, choice: DialChoice, options: OpenDialOptions): Promise<OpenedDial> {
  const http = options.http ?? createFetchHttp();
  const secrets = envSecrets(options.env);
  const needsVectors = choice.level >= 2;
  let embedder: EmbeddingModel | null = null;
  if (needsVectors && choice.embed.kind !== "none") {
    const secret = embedSecretNameFor(choice.embed);
    const apiKey = secret ? await secrets.get(secret) : null;
    embedder = createEmbeddingModel(choice.embed, { http, apiKey, requestsPerSecond: opened.settings.search.embedding.requestsPerSecond });
  }
  const vectors = embedder ? await loadVectors(new FileVectorCache(opened.cache.folder), embedder.name) : null;
  const chat = choice.level === 4 ? await chatModelFor(choice.model, http, secrets, opened.settings) : { model: null, problem: null };
  if (chat.problem !== null && !options.rerankOptional) throw new UsageError(chat.problem);
  const rerankModel = chat.model;
  // Every key of the environment, not only those this command reads: a query may hold any of them.
  const scrubber = secretScrubber(envSecretValues(options.env));
  const queryLog = openQueryLog(opened.cache.folder, opened.settings, { scrubber: () => scrubber });
  const search = new VaultSearch({
    index: opened.index,
    notes: opened.store,
    vectors: vectors?.store ?? null,
    embedder,
    rerankModel,
    log: options.log ? queryLog : null,
    surface: options.surface,
    scrubber: () => scrubber,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return { search, queryLog, embedder, vectors, rerankModel, rerankProblem: chat.problem };
}

/** Level 4's chat model, or why it cannot be made (a key not set), in words. */
async function chatModelFor(config: ModelConfig, http: Http, secrets: ReturnType<typeof envSecrets>, settings: Settings): Promise<{ model: RerankModel | null; problem: string | null }> {
  const secretName = secretNameFor(config);
  const apiKey = secretName ? await secrets.get(secretName) : null;
  const created = createChatModel(config, { http, apiKey, timeoutMs: settings.model.timeoutMs });
  if (!created.ok) return { model: null, problem: `${created.error.message} Set ${secretEnvNames[secretName ?? "openai"]}.` };
  return { model: created.model, problem: null };
}

/** "level 3 (multi-field)", as it goes inside a sentence. */
export function levelWords(level: DialLevel): string {
  return `level ${level} (${DIAL_LEVEL_NAMES[level].toLowerCase()})`;
}

/** A notice as a person and `--json` read it: what the dial says, and what loading the vectors found. */
export interface SaidNotice {
  kind: string;
  message: string;
}

/**
 * What loading the vectors found (thrown away, damaged, unreadable), or null. Vectors that are there
 * and cannot be read are left as they are, and `embed` refuses to send a note over them: telling the
 * user to run it sent them to a command that then refused.
 */
export function vectorLoadNotice(vectors: VectorLoad | null): SaidNotice | null {
  const reset = vectors?.reset;
  if (!reset) return null;
  const advice = reset.kind === "unreadable" ? "" : " Run vault-research embed.";
  return { kind: "vectors_reset", message: `${vectorResetWords(reset)}${advice}` };
}

/**
 * A search's notices as a person and `--json` read them: what loading the vectors found first, then
 * the dial's. Where the dial can only guess, the command's words stand instead: vectors that could not
 * be read leave the store empty, and the dial says there are none yet and to embed first; a chat model
 * the settings name without its key leaves none, and the dial says none is set.
 */
export function shownNotices(notices: readonly DialNotice[], dial: Pick<OpenedDial, "vectors" | "rerankProblem">): SaidNotice[] {
  const loaded = vectorLoadNotice(dial.vectors);
  const unreadable = dial.vectors?.reset?.kind === "unreadable";
  const shown = notices.flatMap((n): SaidNotice[] => {
    if (n.kind !== "level_unavailable") return [{ kind: n.kind, message: n.message }];
    if (n.reason === "no_vectors" && unreadable) return [];
    if (n.reason === "no_chat_model" && dial.rerankProblem !== null) return [{ kind: n.kind, message: joinSentences(`The chat model cannot rerank: ${dial.rerankProblem}`, "Level 3's order stands (no reranking).") }];
    return [{ kind: n.kind, message: n.message }];
  });
  return loaded ? [loaded, ...shown] : shown;
}

/** The notices a person reads, one line each. */
export function noticeLines(notices: readonly Pick<DialNotice, "message">[]): string[] {
  return notices.map((n) => `note: ${n.message}`);
}
