// `vault-research mcp --vault DIR [--allow-external] [--allow-writes]`: a Model Context Protocol
// server over stdio (the official TypeScript SDK). The vault is indexed once, kept warm and current
// by watching the folder, and answered from memory; the cache is saved when the index changed.
// stdout carries only the protocol: everything for a person goes to stderr, and so does whatever a
// library prints there (protocol-stdout.ts); each line in is read once, and one that is not JSON-RPC
// is answered with its error, not dropped (protocol-stdin.ts, stdio-transport.ts); a tools/call the
// SDK cannot read is answered as invalid params in a sentence (malformed-tool-calls.ts). Every message
// out loses every key of the environment, in every form (scrubbed-transport.ts). When the client closes
// its end of stdin, what it asked before is answered, for up to ANSWER_GRACE_MS, then the server exits.
// Once the client is connected and the server idle, the index's radix tree is made ahead, in slices.
// --allow-external with a config that switches web search off (external.enabled: false) is a usage
// error, as research --external-search is: the server does not start.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CLI_VERSION as version } from "../version";
import { systemClock, type Clock } from "../../ports";
import { DeadlineMissed, withDeadline } from "../../deadline";
import { errorMessage } from "../../text/error-message";
import { vectorResetWords } from "../../index/embeddings/vector-reset";
import { embeddingDisclosure } from "../../llm/embeddings/embed-spec";
import type { VaultIndex } from "../../index/vault-index";
import { flag, has, UsageError, type ParsedArgs } from "../args";
import type { CommandIo } from "../cli-io";
import { envSecretValues } from "../env-secrets";
import { openVault, readSettings, requireWebSearchAllowed } from "../open-vault";
import { openDial, readEmbedConfig, readModelConfig } from "../search-dial";
import type { ModelConfig } from "../../llm/model-spec";
import { searchSessionFor, webAccess, type WebAccess } from "../web-access";
import { answerMalformedToolCalls } from "./malformed-tool-calls";
import { countOpenRequests, type OpenRequests } from "./open-requests";
import { keepStdoutForProtocol } from "./protocol-stdout";
import { scrubbedTransport } from "./scrubbed-transport";
import { StdioLineTransport } from "./stdio-transport";
import { watchVault } from "./vault-watcher";
import { registerVaultTools } from "./vault-tools";

/** How often a changed index is saved to the cache while the server runs. */
const CACHE_SAVE_MS = 30_000;

/**
 * How long requests already read are given to be answered once the client closed its end of stdin
 * (a web search's stage takes 15 s at most by default); what still runs after it is stopped.
 */
export const ANSWER_GRACE_MS = 30_000;

export async function mcpCommand(args: ParsedArgs, io: CommandIo): Promise<number> {
  // The transport speaks on the process's own stdin and stdout: they are the protocol's channel.
  const stdout = keepStdoutForProtocol((text) => io.err(text));
  const transport = new StdioLineTransport(process.stdin, stdout.stream, (text) => io.err(text));
  try {
    return await serveVault(args, io, transport, { ended: transport.inputEnded });
  } finally {
    await transport.close();
    stdout.restore();
  }
}

export interface ServeOptions {
  /**
   * Settles when the client's end of stdin closed, after its last message was handed on: the server
   * answers what it read (for up to `answerGraceMs`), then closes as if the transport had.
   */
  ended?: Promise<void>;
  /** ANSWER_GRACE_MS unless a test gives less. */
  answerGraceMs?: number;
  /** The web (Http, Secrets, fetch guard) instead of the one --replay or the network gives: tests fake it. */
  web?: WebAccess;
}

/** The server over `transport` until it closes (or `ended` settles); tests bring an in-memory one. */
export async function serveVault(args: ParsedArgs, io: CommandIo, transport: Transport, options: ServeOptions = {}): Promise<number> {
  if (args.positionals.length > 0) throw new UsageError(`mcp takes no arguments besides options (got "${args.positionals.join(" ")}").`);
  const web = options.web ?? webAccess(flag(args, "replay"), io);
  const settings = readSettings(args, io);
  // The config's master switch wins over the command line, as for research --external-search: a
  // server that offered the web while the config switches it off sent questions to Brave.
  if (has(args, "allow-external")) requireWebSearchAllowed(settings, "--allow-external");
  // The dial goes as high as the server was given models for: --embed (or the config's embedding)
  // and --model only — the config's chat model is for research, and a key it lacks must not stop the server.
  const choice = { level: 4 as const, embed: readEmbedConfig(args, settings), model: flag(args, "model") ? readModelConfig(args, settings) : { kind: "none" as const } };
  // The vault's language is held from before the start-up sync until the watcher's first listing is in (below).
  const opened = await openVault(args, io, settings, undefined, { holdRelearning: true });
  const clock = io.clock ?? systemClock;
  const dial = await openDial(opened, choice, { surface: "mcp", log: true, env: io.env, clock });
  // Vectors that could not be read are not to be embedded again: embed refuses while they are in the way.
  if (dial.vectors?.reset) io.err(`warning: ${vectorResetWords(dial.vectors.reset)}${dial.vectors.reset.kind === "unreadable" ? "" : " Run vault-research embed, then restart the server."}\n`);
  const watcher = watchVault(opened.root, opened.store, opened.index, { clock, onError: (message) => io.err(`warning: ${message}\n`) });
  // What was edited during a long build sent no event: the first listing brings it in now, and the vault's
  // language is learned once, from all of it, before the first call. Learned before, those edits (a
  // tenth of the vault) had it learned again at the first call's listing. Its failures are said by the watcher.
  try {
    await watcher.settle();
  } finally {
    opened.letRelearn?.();
  }
  await opened.index.languageSettled();
  const reach: ServerReach = {
    allowExternal: has(args, "allow-external"),
    allowWrites: has(args, "allow-writes"),
    embedding: dial.embedder ? embeddingDisclosure(choice.embed) : null,
    rerank: dial.rerankModel && choice.model.kind !== "none" ? rerankDisclosure(choice.model) : null,
  };
  const server = new McpServer({ name: "vault-research", version }, { instructions: serverInstructions(opened.root, reach) });
  const knownSecrets = envSecretValues(io.env);
  registerVaultTools(server, {
    opened,
    knownSecrets,
    watcher,
    web,
    cacheDir: opened.cacheDir,
    clock,
    searchSession: searchSessionFor(web, clock),
    dial: dial.search,
    vectors: dial.vectors,
    ...reach,
  });

  const saveIfChanged = async () => {
    if (!watcher.takeChanged()) return;
    await opened.index.save(opened.cache).catch((error: unknown) => io.err(`warning: the index cache could not be written (${errorMessage(error)}).\n`));
  };
  const saver = setInterval(() => void saveIfChanged(), CACHE_SAVE_MS);
  saver.unref();
  // Counted outside the scrubbing: an answer is matched to its request by the id the request had.
  const open = countOpenRequests(scrubbedTransport(transport, knownSecrets));
  // Wrapped last, so it sees each request once it is counted, and its answer is counted and scrubbed.
  answerMalformedToolCalls(transport);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    void options.ended?.then(() => answerOpenRequests(open, clock, options.answerGraceMs ?? ANSWER_GRACE_MS, io)).then(resolve);
  });
  let serving = true;
  // Once the client has finished its handshake (never before: the server is ready without it).
  server.server.oninitialized = () => void makeRadixTreeWhenIdle(opened.index, open, () => serving).catch((error: unknown) => io.err(`warning: the index's prefix lookups could not be readied ahead (${errorMessage(error)}).\n`));
  await server.connect(transport);
  io.err(`vault-research mcp: serving ${opened.root} (${opened.index.status().notes} notes) over stdio${reachWords(reach)}.\n`);
  await closed;
  serving = false;
  clearInterval(saver);
  watcher.close();
  // A learning of the vault's language under way (much of the vault changed) is stopped: the save
  // below is the last, so what it found would be kept by no one, and its worker thread held the
  // process for as long as it took, its client gone. What was learned before stays, and is saved.
  opened.index.stopLearning();
  await saveIfChanged();
  await server.close().catch(() => undefined);
  return 0;
}

/**
 * Has the index make its radix tree (prefix lookups, terms leaving: 100 ms at 9,000 notes, in one go)
 * before a call needs it, a slice at a time, only while no request is open: between slices, what
 * arrived is read (a macrotask) and answered first, from the term map; the tree is swapped in whole.
 */
async function makeRadixTreeWhenIdle(index: VaultIndex, open: OpenRequests, serving: () => boolean): Promise<void> {
  const idle = async (): Promise<void> => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    await open.allAnswered();
  };
  await idle();
  if (serving()) await index.makeRadixTreeAhead(idle, serving);
}

/** Waits for the requests read before the client's input ended, for `graceMs` at most; says what it gave up on. */
async function answerOpenRequests(open: OpenRequests, clock: Clock, graceMs: number, io: CommandIo): Promise<void> {
  try {
    await withDeadline(open.allAnswered(), { clock, ms: graceMs });
  } catch (error) {
    if (!(error instanceof DeadlineMissed)) throw error;
    const left = open.count();
    io.err(`warning: the client closed its input; ${left} request${left === 1 ? "" : "s"} still unanswered after ${graceMs / 1000} s ${left === 1 ? "was" : "were"} stopped.\n`);
  }
}

/** What the server may reach beyond this machine's index, and whether it may write: from its flags and the models it was given. */
interface ServerReach {
  allowExternal: boolean;
  allowWrites: boolean;
  /** What vault_search above level 1 sends to the embedding model, and where (embeddingDisclosure), or null without one. */
  embedding: string | null;
  /** What level 4 sends to the chat model, and where, or null without one. */
  rerank: string | null;
}

/**
 * The handshake's instructions, which a client puts before its model: what leaves the machine said
 * as the tools' descriptions say it. A server given an embedding model said "never uses the
 * network" while vault_search sent every query above level 1 to it, another company's computer too.
 */
function serverInstructions(root: string, reach: ServerReach): string {
  const models = [reach.embedding, reach.rerank].filter((words): words is string => words !== null);
  const web = reach.allowExternal
    ? `Web search is possible, but only for a research_pack call that sets allow_external_search: true.${reach.allowWrites ? " promote_result fetches the page of the outside result it saves." : ""}`
    : models.length > 0
      ? "No web source is asked and no page fetched, whatever a call asks."
      : "This server never uses the network.";
  return [
    `Tools over the Obsidian-style vault at ${root}. Vault evidence and outside-vault (web) evidence are kept apart; every outside row carries its label.`,
    ...(models.length > 0 ? [`vault_search above level 1 uses this server's models: ${models.join(" ")}`] : []),
    web,
    reach.allowWrites ? "promote_result may write new source notes into the vault." : "Nothing is written into the vault.",
  ].join(" ");
}

/** The start-up line's last words: what leaves the machine and what may be written ("local only" only when nothing leaves). */
function reachWords(reach: ServerReach): string {
  const web = reach.allowExternal ? ", web search allowed" : reach.embedding || reach.rerank ? ", no web search (vault_search's levels 2–4 use the models given)" : ", local only";
  return `${web}${reach.allowWrites ? ", writes allowed" : ""}`;
}

/** What level 4 sends to the chat model, and where: an agent reads it in vault_search's description. */
function rerankDisclosure(model: Exclude<ModelConfig, { kind: "none" }>): string {
  const where = model.kind === "anthropic" ? "Anthropic (api.anthropic.com)" : model.baseUrl;
  return `Level 4 also sends the query and the excerpts of its top 10 notes to the chat model ${model.model} at ${where}.`;
}
