// `vault-research mcp --vault DIR [--allow-external] [--allow-writes]`: a Model Context Protocol
// server over stdio (the official TypeScript SDK). The vault is indexed once, kept warm and current
// by watching the folder, and answered from memory; the cache is saved when the index changed.
// stdout carries only the protocol: everything for a person goes to stderr, and so does whatever a
// library prints there (protocol-stdout.ts); a line in that is not JSON-RPC is answered with its
// error, not dropped (protocol-stdin.ts). Every message out loses every key of the environment,
// in every form (scrubbed-transport.ts).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CLI_VERSION as version } from "../version";
import { systemClock } from "../../ports";
import { errorMessage } from "../../text/error-message";
import { vectorResetWords } from "../../index/embeddings/vector-reset";
import { embeddingDisclosure } from "../../llm/embeddings/embed-spec";
import { createSearchSession } from "../../websearch/search-providers";
import { flag, has, UsageError, type ParsedArgs } from "../args";
import type { CommandIo } from "../cli-io";
import { envSecretValues } from "../env-secrets";
import { openVault, readSettings } from "../open-vault";
import { openDial, readEmbedConfig, readModelConfig } from "../search-dial";
import type { ModelConfig } from "../../llm/model-spec";
import { webAccess, type WebAccess } from "../web-access";
import { checkedStdin } from "./protocol-stdin";
import { keepStdoutForProtocol } from "./protocol-stdout";
import { scrubbedTransport } from "./scrubbed-transport";
import { watchVault } from "./vault-watcher";
import { registerVaultTools } from "./vault-tools";

/** How often a changed index is saved to the cache while the server runs. */
const CACHE_SAVE_MS = 30_000;

export async function mcpCommand(args: ParsedArgs, io: CommandIo): Promise<number> {
  // The transport speaks on the process's own stdin and stdout: they are the protocol's channel.
  const stdout = keepStdoutForProtocol((text) => io.err(text));
  // Lines that are not JSON-RPC are answered here (the SDK would drop them, or close on a huge one).
  const stdin = checkedStdin(process.stdin, (line) => stdout.stream.write(line), (text) => io.err(text));
  try {
    const transport = new StdioServerTransport(stdin.stream, stdout.stream);
    const ended = new Promise<void>((resolve) => process.stdin.once("end", resolve));
    return await serveVault(args, io, transport, { ended });
  } finally {
    stdin.stop();
    stdout.restore();
  }
}

export interface ServeOptions {
  /** Settles when the client is gone (stdin ended): the server closes as if the transport had. */
  ended?: Promise<void>;
  /** The web (Http, Secrets, fetch guard) instead of the one --replay or the network gives: tests fake it. */
  web?: WebAccess;
}

/** The server over `transport` until it closes (or `ended` settles); tests bring an in-memory one. */
export async function serveVault(args: ParsedArgs, io: CommandIo, transport: Transport, options: ServeOptions = {}): Promise<number> {
  if (args.positionals.length > 0) throw new UsageError(`mcp takes no arguments besides options (got "${args.positionals.join(" ")}").`);
  const web = options.web ?? webAccess(flag(args, "replay"), io);
  const settings = readSettings(args, io);
  // The dial goes as high as the server was given models for: --embed (or the config's embedding)
  // and --model only — the config's chat model is for research, and a key it lacks must not stop the server.
  const choice = { level: 4 as const, embed: readEmbedConfig(args, settings), model: flag(args, "model") ? readModelConfig(args, settings) : { kind: "none" as const } };
  const opened = await openVault(args, io, settings);
  const clock = io.clock ?? systemClock;
  const dial = await openDial(opened, choice, { surface: "mcp", log: true, env: io.env, clock });
  if (dial.vectors?.reset) io.err(`warning: ${vectorResetWords(dial.vectors.reset)} Run vault-research embed, then restart the server.\n`);
  const watcher = watchVault(opened.root, opened.store, opened.index, { clock, onError: (message) => io.err(`warning: ${message}\n`) });
  const server = new McpServer({ name: "vault-research", version }, { instructions: serverInstructions(opened.root, has(args, "allow-external"), has(args, "allow-writes")) });
  const knownSecrets = envSecretValues(io.env);
  registerVaultTools(server, {
    opened,
    knownSecrets,
    watcher,
    web,
    cacheDir: opened.cacheDir,
    clock,
    searchSession: createSearchSession({ clock }),
    dial: dial.search,
    embedding: dial.embedder ? embeddingDisclosure(choice.embed) : null,
    rerank: dial.rerankModel && choice.model.kind !== "none" ? rerankDisclosure(choice.model) : null,
    allowExternal: has(args, "allow-external"),
    allowWrites: has(args, "allow-writes"),
  });

  const saveIfChanged = async () => {
    if (!watcher.takeChanged()) return;
    await opened.index.save(opened.cache).catch((error: unknown) => io.err(`warning: the index cache could not be written (${errorMessage(error)}).\n`));
  };
  const saver = setInterval(() => void saveIfChanged(), CACHE_SAVE_MS);
  saver.unref();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    void options.ended?.then(resolve);
  });
  await server.connect(scrubbedTransport(transport, knownSecrets));
  io.err(`vault-research mcp: serving ${opened.root} (${opened.index.status().notes} notes) over stdio${has(args, "allow-external") ? ", web search allowed" : ", local only"}${has(args, "allow-writes") ? ", writes allowed" : ""}.\n`);
  await closed;
  clearInterval(saver);
  watcher.close();
  await saveIfChanged();
  await server.close().catch(() => undefined);
  return 0;
}

function serverInstructions(root: string, allowExternal: boolean, allowWrites: boolean): string {
  return [
    `Tools over the Obsidian-style vault at ${root}. Vault evidence and outside-vault (web) evidence are kept apart; every outside row carries its label.`,
    allowExternal ? "Web search is possible, but only for a research_pack call that sets allow_external_search: true." : "This server never uses the network.",
    allowWrites ? "promote_result may write new source notes into the vault." : "Nothing is written into the vault.",
  ].join(" ");
}

/** What level 4 sends to the chat model, and where: an agent reads it in vault_search's description. */
function rerankDisclosure(model: Exclude<ModelConfig, { kind: "none" }>): string {
  const where = model.kind === "anthropic" ? "Anthropic (api.anthropic.com)" : model.baseUrl;
  return `Level 4 also sends the query and the excerpts of its top 10 notes to the chat model ${model.model} at ${where}.`;
}
