// The MCP server's tools over one vault. Each description says exactly when the network is used:
// read_note never; vault_search only above level 1, to the models the server was given (its
// openWorldHint says so then); research_pack's web search only when the call sets
// allow_external_search: true AND the server was started with --allow-external; promote_result
// (offered only with --allow-writes) fetches the page only with --allow-external too. Results are
// the CLI's JSON objects (vault_search.v1, research_result.v1, promote_result.v1), outside rows
// with their labels; research_pack's adds one optional field of its own, external_search: whether
// the call asked for the web, and why it was refused when it was. A call that fails says so
// (isError) in a plain sentence first. Text an agent sends on to a model, the web or the query log
// (vault_search's query and tags, research_pack's question) that is, or holds, an API key the
// environment does not hold is refused as research refuses it (key-in-question.ts). A call the
// agent cancels (or a client that goes) stops its run: no further request leaves for it, and no
// trace is kept for it (the SDK sends a cancelled call no answer, so no one could name its file).
// vault_search echoes its tags as the filter applied; a blank query or question is a bad argument,
// as the CLI's; research_pack reports its stages as progress to a call that gives a progressToken.
// Calls take turns (call-turns.ts): a few searches and reads at once, fewer runs, each kind in the
// order they came, so a slow run never holds a search; a call cancelled before its turn does nothing.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { providerChoiceName } from "../../evidence/labels";
import type { ProviderName } from "../../provider-names";
import { keyInQuestion, QuestionRefused } from "../../research/key-in-question";
import { runResearch } from "../../research/run";
import type { ProgressEvent, ResearchResult } from "../../research/types";
import { webOutcomeOfTrace, webOutcomeSentence } from "../../notes/web-outcome";
import type { OutsideVaultRow } from "../../evidence/research-pack";
import { normalizeFilters } from "../../index/dial/dial-filters";
import type { DialResponse } from "../../index/dial/dial-types";
import type { VaultSearch } from "../../index/dial/vault-search";
import type { VectorLoad } from "../../index/embeddings/vector-file";
import { HttpFailure, type Clock, type Http } from "../../ports";
import type { SearchSession } from "../../websearch/search-providers";
import { nodePageReader } from "../dom-parser";
import { promoteResultJson, promoteResultSchema } from "../json/promote-result-json";
import { researchResultJson, researchResultSchema } from "../json/research-result-json";
import { dialSearchJson, vaultSearchSchema } from "../json/vault-search-json";
import { keepTrace, keptTraceFolder } from "../kept-trace";
import type { OpenedVault } from "../open-vault";
import { askedOf, locateTrace, promoteDeps, promoteLocated } from "../promote-command";
import { chooseProviders } from "../provider-choice";
import type { WebAccess } from "../web-access";
import { CallCancelled, CallTurns } from "./call-turns";
import { shownNotices } from "../search-dial";
import { readVaultNote } from "./read-vault-note";
import type { VaultWatcher } from "./vault-watcher";

export interface VaultToolsContext {
  opened: OpenedVault;
  /**
   * Every key of the environment: a research run knows them from its start (its kept trace never
   * holds one typed into a question), and a page that echoes one never gets it into a promoted
   * note. (The transport scrubs all output too.)
   */
  knownSecrets: readonly string[];
  watcher: VaultWatcher;
  web: WebAccess;
  cacheDir: string;
  clock: Clock;
  searchSession: SearchSession;
  /** The search dial over the warm index, with the embedding and chat models the server was given (--embed, --model). */
  dial: VaultSearch;
  /**
   * The vectors as the server loaded them (openDial's `vectors`): what that found leads vault_search's
   * notices, as it does the CLI's search. Vectors that could not be read left the store empty, and the
   * dial alone sent the agent to embed, which refuses over them.
   */
  vectors?: VectorLoad | null;
  /** What levels 2–4 send where (embeddingDisclosure), or null when the server has no embedding model. */
  embedding: string | null;
  /** What level 4 sends to the chat model and where, or null when the server has none (no --model). */
  rerank?: string | null;
  allowExternal: boolean;
  allowWrites: boolean;
}

/** What the SDK hands a tool with its arguments: the call's signal, its _meta, a way to notify the client. */
type ToolCallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

type ToolResult = { content: { type: "text"; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

function jsonResult(value: Record<string, unknown>, lead?: string): ToolResult {
  return { content: [...(lead ? [{ type: "text" as const, text: lead }] : []), { type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

function refusal(message: string): ToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/**
 * The failed call for text that is, or holds, an API key: the environment's own keys are scrubbed
 * (the dial, the query log, the run), but another service's, pasted by mistake, could not be, and
 * would reach the embedding and chat models, the web sources and the query log. The key is not repeated.
 */
function refusedIfKey(texts: readonly string[], knownSecrets: readonly string[]): ToolResult | null {
  return texts.some((text) => keyInQuestion(text, knownSecrets)) ? refusal(new QuestionRefused().message) : null;
}

/** The web when the server may not use it: every request fails at once, and nothing is sent. */
const NO_NETWORK: Http = {
  request: async (req) => {
    throw new HttpFailure("network", `This MCP server was started without --allow-external; the request to ${new URL(req.url).origin} was not sent.`);
  },
};

/**
 * The latest vault_search answers, so a read_note of one of their results is logged as the agent
 * opening it (the query log's click-through; query replay scores levels by the notes opened).
 */
const RECENT_SEARCHES = 10;
type RecentSearches = DialResponse[];

/**
 * Searches and reads that run at once: work on the one thread, interleaved, so more at once only
 * makes each answer later. Runs (research_pack, promote_result) have turns of their own, fewer: they
 * wait on the web for seconds, and a search must not wait behind them.
 */
export const LOOKUPS_AT_ONCE = 4;
export const RUNS_AT_ONCE = 2;

interface Turns {
  lookups: CallTurns;
  runs: CallTurns;
}

export function registerVaultTools(server: McpServer, ctx: VaultToolsContext): void {
  const recent: RecentSearches = [];
  const turns: Turns = { lookups: new CallTurns(LOOKUPS_AT_ONCE), runs: new CallTurns(RUNS_AT_ONCE) };
  registerVaultSearch(server, ctx, recent, turns.lookups);
  registerResearchPack(server, ctx, turns.runs);
  registerReadNote(server, ctx, recent, turns.lookups);
  if (ctx.allowWrites) registerPromoteResult(server, ctx, turns.runs);
}

/** Settles the index for a call, unless the call was cancelled meanwhile (a settle may wait on a long batch). */
async function settledFor(ctx: VaultToolsContext, signal: AbortSignal): Promise<void> {
  await ctx.watcher.settle();
  if (signal.aborted) throw new CallCancelled();
}

function registerVaultSearch(server: McpServer, ctx: VaultToolsContext, recent: RecentSearches, turns: CallTurns): void {
  server.registerTool(
    "vault_search",
    {
      title: "Search the vault",
      description: vaultSearchDescription(ctx),
      inputSchema: {
        query: notBlank("query").describe("Words to look for; \"quoted phrases\" must appear as written."),
        level: z
          .number()
          .int()
          .min(1)
          .max(4)
          .default(1)
          .describe("The search dial: 1 lexical; 2 hybrid and 3 multi-field need the server's embedding model and the vault's vectors, 4 rerank also its chat model; a level that cannot run runs lower and says so (ran_level, notices)."),
        limit: z.number().int().min(1).max(50).default(10),
        // Bounded as the query log bounds them: no note holds 50 tags of 200 characters that all must match.
        // A tag that names none ("#", "", spaces) is refused as any bad argument is: the dial drops it,
        // and the call searched every note while the reply echoed it as a filter. The SDK adds " at tags[N]".
        tags: z
          .array(z.string().max(200).refine(namesATag, "a tag needs a name (\"#\", nothing or spaces alone name none): give one or remove the tag"))
          .max(50)
          .default([])
          .describe("Only notes with every one of these tags (a leading # and case do not matter: the reply's tags are the filter as applied); at most 50, each up to 200 characters."),
      },
      outputSchema: vaultSearchSchema,
      // Levels 2–4 send the query (level 4 note excerpts too) to the server's models, which may be
      // another company's: a client that trusts a closed-world tool more must not be told this one is.
      annotations: { readOnlyHint: true, openWorldHint: ctx.embedding !== null || Boolean(ctx.rerank) },
    },
    ({ query, level, limit, tags }, { signal }) => turns.run(signal, async () => {
      // Tags are logged with the query; level 1 embeds nothing, but logs it.
      const keyRefused = refusedIfKey([query, ...tags], ctx.knownSecrets);
      if (keyRefused) return keyRefused;
      await settledFor(ctx, signal);
      // Echoed as the filter the dial applies (dial-filters.ts): "##CRDT", " crdt/ " and "crdt" all
      // name #crdt, once; echoed as typed, an agent read a filter that was never applied.
      const wanted = normalizeFilters({ tags }).tags;
      const answer = await ctx.dial.search({ query, level: level as 1 | 2 | 3 | 4, limit, filters: { tags: wanted }, signal });
      recent.unshift(answer);
      recent.length = Math.min(recent.length, RECENT_SEARCHES);
      // The query as it was read: a pasted megabyte is not handed back (a notice says it was cut).
      const notices = shownNotices(answer.notices, { vectors: ctx.vectors ?? null, rerankProblem: null });
      const json = { ...dialSearchJson({ query, limit, tags: wanted }, answer), notices };
      return jsonResult(json, notices.length > 0 ? notices.map((n) => n.message).join("\n") : undefined);
    }),
  );
}

/**
 * Text with something besides spaces in it, as the CLI's search and research ask for: a blank
 * question ran as one, reported Brave as asked though Brave refused the empty query unsent, and
 * found nothing. A pattern, so the tool list says it too.
 */
function notBlank(what: "query" | "question"): z.ZodString {
  return z.string().regex(/\S/, `the ${what} is blank: give it words`);
}

/** Whether the dial reads `tag` as a tag: the one rule of how tags are spelled (dial-filters.ts) leaves something of it. */
function namesATag(tag: string): boolean {
  return normalizeFilters({ tags: [tag] }).tags.length > 0;
}

function vaultSearchDescription(ctx: VaultToolsContext): string {
  const network = ctx.embedding
    ? `Level 1 never uses the network: it reads only the index on this machine, kept current as notes change. Levels 2–4 embed the query: ${ctx.embedding} ${ctx.rerank ? `${ctx.rerank} ` : ""}`
    : "Never uses the network: it reads only the index on this machine, kept current as notes change. ";
  return (
    `Search over the notes of the vault at ${ctx.opened.root}. ${network}` +
    "Returns the best notes first (vault_search.v1): path, title, score (what the order follows: a fused score when this vault's own language or a level above 1 took part), matched sections with highlight offsets, why each matched (with the words' own rank and score when fused), and above level 1 how each lane ranked it (dial)."
  );
}

function researchDescription(ctx: VaultToolsContext): string {
  const web = ctx.allowExternal
    ? `This server was started with --allow-external: when a call sets allow_external_search: true and the vault's evidence is weak — as it always is for a question about the current state ("latest", "today", "as of now", the current year), which notes may be out of date on —, the question alone (never note text) is sent to the configured web sources, and up to ${ctx.opened.settings.external.readPages} of their result pages may be fetched from their sites.`
    : "This server was started without --allow-external, so it never uses the network, whatever the call asks.";
  return (
    "The research pack for a question (research_result.v1, retrieval only: evidence, no written answer): vault rows in pack.evidence, " +
    "outside-vault rows apart in pack.external_evidence, each labelled 'Outside vault · <source> · ephemeral', and the judge's verdict. " +
    `Local-only unless the call sets allow_external_search: true AND the server allows it. ${web} providers_asked lists every source that was sent the query ([] when nothing left the machine); external_search says whether the call asked for the web and, when it was refused, why.`
  );
}

function registerResearchPack(server: McpServer, ctx: VaultToolsContext, turns: CallTurns): void {
  server.registerTool(
    "research_pack",
    {
      title: "Research pack for a question",
      description: researchDescription(ctx),
      inputSchema: {
        question: notBlank("question"),
        allow_external_search: z.boolean().default(false).describe("Let this call search the web when the vault's evidence is weak, or the question asks about the current state (\"latest\", \"today\"…) (needs a server started with --allow-external)."),
      },
      outputSchema: researchPackResultSchema,
      annotations: { readOnlyHint: true, openWorldHint: ctx.allowExternal },
    },
    ({ question, allow_external_search }, extra) => turns.run(extra.signal, async () => {
      const { signal } = extra;
      // The run refuses it too (as a thrown error); refused here, it is refused before anything is looked up.
      const keyRefused = refusedIfKey([question], ctx.knownSecrets);
      if (keyRefused) return keyRefused;
      await settledFor(ctx, signal);
      const external = allow_external_search && ctx.allowExternal;
      const { opened, web } = ctx;
      const choice: { providers: ProviderName[]; note?: string } = external ? await chooseProviders([], opened.settings, web.secrets) : { providers: [] };
      const http = external ? web.http : NO_NETWORK;
      const result = await runResearch(
        { question, mode: external ? "on-weak" : "never", providers: choice.providers, retrievalOnly: true, writeTrace: false },
        { index: opened.index, store: opened.store, http, secrets: web.secrets, knownSecrets: ctx.knownSecrets, clock: ctx.clock, settings: opened.settings, model: null, searchSession: ctx.searchSession, readPage: nodePageReader, fetchGuard: web.fetchGuard, signal, onProgress: progressReporter(extra), ...(web.replayDir ? { replayedFrom: web.replayShown } : {}) },
      );
      const traceFile = signal.aborted ? undefined : await keepTrace(keptTraceFolder(ctx.cacheDir, opened.root), result.trace).catch(() => undefined);
      const externalSearch = externalSearchOf(allow_external_search, ctx.allowExternal);
      const json: ResearchPackResult = { ...researchResultJson(result, traceFile ? { traceFile } : {}, web.replayDir), external_search: externalSearch };
      return jsonResult(json, researchLead(externalSearch, result, json.providers_asked, json.pack.external_evidence, choice.note));
    }),
  );
}

/**
 * The run's stages as MCP progress, when the call asked for it (a progressToken): a run that
 * searches the web may outlast a client's request timeout (60 s in the SDK's client), and a client
 * that extends it on progress heard nothing, so it gave up on a run still going. The text is the
 * stage's own sentence, every key already taken out of it (stage-runner.ts), and out of all output
 * again at the transport. Nothing is sent for a call the client cancelled.
 */
function progressReporter(extra: ToolCallExtra): ((event: ProgressEvent) => void) | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let step = 0;
  return (event) => {
    if (extra.signal.aborted) return;
    step += 1;
    void extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: step, message: progressMessage(event) } }).catch(() => undefined);
  };
}

/** The stage's sentence, naming its source when it does not ("could not be reached" said which of them). */
function progressMessage(event: ProgressEvent): string {
  if (!event.provider) return event.detail;
  const source = providerChoiceName(event.provider);
  return event.detail.includes(source) ? event.detail : `${source}: ${event.detail}`;
}

/**
 * research_pack's object: research_result.v1, whose optional external_search only this server sets.
 * Its other fields cannot tell a web search refused from one not asked for (providers_asked is [] and
 * the recall note says "mode: never" for both); the first text does, but an agent may read only this.
 */
const researchPackResultSchema = researchResultSchema;
type ResearchPackResult = z.infer<typeof researchPackResultSchema>;
type ExternalSearchAsked = NonNullable<ResearchPackResult["external_search"]>;

const REFUSED_WITHOUT_ALLOW_EXTERNAL = "External search was asked for, but this server was started without --allow-external: nothing left the machine.";

function externalSearchOf(asked: boolean, allowed: boolean): ExternalSearchAsked {
  return { asked, refused: asked && !allowed ? { kind: "server_without_allow_external", message: REFUSED_WITHOUT_ALLOW_EXTERNAL } : null };
}

/**
 * The lines before the JSON: what happened with the web, and the labels of the outside rows. A call
 * the server let search says how the search went in the sentence the trace note and the recall note
 * say (notes/web-outcome.ts), then the sources asked. The lead had words of its own: "the vault's
 * evidence sufficed: no web source was asked" for a run that ran out of time before its search too,
 * and only "Web sources asked: Brave." for a search in which Brave failed.
 * `providersNote`: why the free sources stood in for the configured ones (no key), said as the CLI
 * says it when they were asked: an agent whose config names Brave saw Wikipedia asked, and no why.
 */
function researchLead(external: ExternalSearchAsked, result: ResearchResult, providersAsked: string[], rows: OutsideVaultRow[], providersNote?: string): string {
  const asked = `Web sources asked: ${providersAsked.map((p) => providerChoiceName(p as ProviderName)).join(", ")}.${providersNote ? ` ${providersNote}` : ""}`;
  const web = !external.asked
    ? ["Local only: external search was not asked for; nothing left the machine."]
    : external.refused
      ? [external.refused.message]
      : [webOutcomeSentence(webOutcomeOfTrace({ ...result.trace, pack: result.pack })), ...(providersAsked.length > 0 ? [asked] : [])];
  const labels = rows.map((r) => `[${r.source_key}] ${r.label}: ${r.title}`);
  return [...web, ...(labels.length > 0 ? ["Outside vault rows:", ...labels] : [])].join("\n");
}

function registerReadNote(server: McpServer, ctx: VaultToolsContext, recent: RecentSearches, turns: CallTurns): void {
  server.registerTool(
    "read_note",
    {
      title: "Read a note",
      description:
        "The markdown of one note of the vault, by its vault-relative path (as vault_search returns it). Never uses the network; paths outside the vault, also through links, are refused. " +
        "Reads only what vault_search can show, and this vault's trace notes: hidden names and folders the settings leave out of search are refused. " +
        "A failed call (isError) begins with its kind: outside_vault, not_a_note, not_found (naming the note's right spelling when only the case differs), left_out, too_large or unreadable.",
      inputSchema: { path: z.string().min(1).describe("Vault-relative path, e.g. Libraries/Automerge.md") },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ path }, { signal }) => turns.run(signal, async () => {
      const read = await readVaultNote(ctx.opened.root, path, ctx.opened.index.paths(), ctx.opened.settings.index.excludedFolders);
      if (!read.ok) return refusal(`${read.error.kind}: ${read.error.message}`);
      const from = recent.find((r) => r.results.some((x) => x.path === read.path));
      if (from) await ctx.dial.recordClick(from, read.path);
      return { content: [{ type: "text" as const, text: read.text }] };
    }),
  );
}

function registerPromoteResult(server: McpServer, ctx: VaultToolsContext, turns: CallTurns): void {
  server.registerTool(
    "promote_result",
    {
      title: "Save an outside result as a source note",
      description:
        "Writes one new source note into the vault from an outside-vault row of a research trace (research_pack's trace_file, or a trace note) — never over an existing file. " +
        "When nothing is written the call fails (isError): 'Not promoted (<kind>): <why>', then the promote_result.v1 object. " +
        (ctx.allowExternal
          ? "Fetches the row's page from its site (the network) to keep its text; falls back to the provider's excerpt."
          : "This server was started without --allow-external, so the page is not fetched: the note keeps the provider's excerpt."),
      inputSchema: {
        // Bounded: a refusal names what was asked, and an agent's megabytes would come back whole.
        trace: z.string().min(1).max(4096).describe("research_pack's trace_file, a run id, or a trace note's vault path"),
        source_key: z.string().max(200).describe("ext:<provider>:<10 hex digits>"),
      },
      outputSchema: promoteResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: ctx.allowExternal },
    },
    ({ trace, source_key }, { signal }) => turns.run(signal, async () => {
      const { opened, web } = ctx;
      // An agent reaches only this vault's trace notes and the traces its runs kept, nothing else on disk.
      const located = locateTrace({ trace, sourceKey: source_key, vault: opened.root }, opened.root, opened.root, ctx.cacheDir, "kept_folder");
      if ("usage" in located) return refusal(located.usage);
      const http = ctx.allowExternal ? web.http : NO_NETWORK;
      const deps = { ...promoteDeps(opened.store, opened.index, http, opened.settings, ctx.allowExternal && !web.replayDir, ctx.knownSecrets, ctx.clock, web.replayShown), signal };
      const result = await promoteLocated(deps, located, source_key);
      const json = promoteResultJson(result, { ...askedOf(located, source_key), replayDir: web.replayDir });
      // Nothing was written: the agent is told so as a failed call, the reason first, the object after.
      return json.status === "failed" ? { ...jsonResult(json, `Not promoted (${json.error?.kind ?? "failed"}): ${json.message}`), isError: true } : jsonResult(json);
    }),
  );
}
