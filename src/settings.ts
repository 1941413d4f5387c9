// Settings: one zod schema for the plugin's data.json and the CLI's --config file. Every field
// has a default, so a partial, old or broken file still yields usable settings; what could not
// be used is reported, never silently dropped on the floor. API keys are NOT settings: they
// live in Obsidian's secret storage (CLI: environment variables).
import * as z from "zod";
import { providerNames, type ProviderName } from "./provider-names";
import type { SecretName } from "./ports";
import { decodedUrlPart } from "./text/urls";
import { isCredential } from "./text/secret-scrub";

export const SETTINGS_VERSION = 1;

/**
 * A key as it was pasted (into secret storage, or an environment variable from a `.env` file that
 * kept its quotes): the spaces, line break and one pair of quotes around it dropped; null when
 * nothing is left. Sent padded, the key is refused; and every scrubber, looking for the padded
 * form, would miss the key itself wherever a server echoed it. No service's key holds a quote.
 */
export function keyAsPasted(value: string | null | undefined): string | null {
  const trimmed = value?.trim() ?? "";
  const quoted = /^(["'“‘])(.*)(["'”’])$/s.exec(trimmed);
  const key = quoted && QUOTE_PAIRS[quoted[1]] === quoted[3] ? quoted[2].trim() : trimmed;
  return key === "" ? null : key;
}

const QUOTE_PAIRS: Record<string, string> = { '"': '"', "'": "'", "“": "”", "‘": "’" };

/**
 * A secret as it is read from secret storage or the environment: an API key as pasted (above); a
 * password (SearXNG's login) exactly as stored, for spaces and quotes may be part of it — the move
 * of an earlier version's address kept it so, and a trimmed one is another password.
 */
export function secretAsRead(name: SecretName, stored: string | null | undefined): string | null {
  if (name === "searxng") return stored === null || stored === undefined || stored === "" ? null : stored;
  return keyAsPasted(stored);
}

export const externalModes = ["never", "on-weak", "always"] as const;
export type ExternalMode = (typeof externalModes)[number];

export { providerNames, type ProviderName };

/** What a freshness may be, in a message's words. */
const FRESHNESS_CHOICES = "any, pd, pw, pm, py or YYYY-MM-DDtoYYYY-MM-DD";

/**
 * `any`, Brave's `pd|pw|pm|py`, or a `YYYY-MM-DDtoYYYY-MM-DD` range of real days, the first not after
 * the second. One issue for one wrong value: checked as three rules, "yesterday" broke all three and
 * a config's reader was told it needed real days and its first day first.
 */
export const freshnessSchema = z.union(
  [
    z.enum(["any", "pd", "pw", "pm", "py"]),
    z.string().superRefine((text, ctx) => {
      const why = rangeProblem(text);
      if (why) ctx.addIssue({ code: "custom", message: `expected ${why}` });
    }),
  ],
  { error: `expected ${FRESHNESS_CHOICES}` },
);

/**
 * Why `text` is no freshness, in words for a flag's or a file's error: a range of the right shape is
 * told what is wrong with its days rather than shown the shape it already has.
 */
export function freshnessProblem(text: string): string {
  const why = rangeProblem(text);
  if (why === null || why === FRESHNESS_CHOICES) return `must be ${FRESHNESS_CHOICES}`;
  if (why.startsWith("real days")) return "must name real days (2025-13-45 is none)";
  return "must give the first day first: the first is after the second";
}

/** What is wrong with `text` as a range of days (the choices, when it has not a range's shape), or null. */
function rangeProblem(text: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2}$/.test(text)) return FRESHNESS_CHOICES;
  const [from, to] = text.split("to");
  if (!isCalendarDay(from) || !isCalendarDay(to)) return "real days (2025-13-45 is none)";
  return from <= to ? null : "the first day not after the second";
}

/** `YYYY-MM-DD` naming a day that exists (no month 13, no February 30). */
function isCalendarDay(day: string): boolean {
  const [year, month, date] = day.split("-").map(Number);
  const parsed = new Date(Date.UTC(year, month - 1, date));
  return parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === date;
}
export type Freshness = z.infer<typeof freshnessSchema>;

/** An http(s) address: `javascript:`, `file:` and the rest are never a server to call. */
const httpUrlSchema = z.url({ protocol: /^https?$/, error: "expected an http(s) address" });

/** Said of an address that may be left empty (`""`) when it is neither (zod's own words: "Invalid input"). */
const EMPTY_OR_ADDRESS = 'expected an http(s) address, or "" for none';

/** Why a value was refused as, or for holding, what looks like an API key (the issue's `params.keyRefused`). */
type KeyRefusal = "address_login" | "address_key" | "model_name" | "secret_id";

/** Where the surface reading the settings takes its keys from: the plugin's secret storage, the CLI's environment. */
export type KeysReadFrom = "secret_storage" | "environment";

/**
 * A key refusal in words, saying where keys go for the surface that reads the settings: the
 * plugin's data.json and the CLI's --config share the rules, not the place keys are kept.
 */
function keyRefusalWords(refusal: KeyRefusal, from: KeysReadFrom, secretIdExample = "vault-research-brave"): string {
  const place = from === "secret_storage" ? "secret storage" : "its environment variable";
  switch (refusal) {
    case "address_login":
      return `expected an address without a user name or password (a key goes in ${place}, not in the address)`;
    case "address_key":
      return `expected an address without an API key in it (a key goes in ${place}, not in the address)`;
    case "model_name":
      return `looks like an API key, not a model name: a key goes in ${from === "secret_storage" ? "its API key field (secret storage)" : place}`;
    case "secret_id":
      return from === "secret_storage"
        ? `looks like an API key, not the name of a secret: the key goes in secret storage as a secret's value, under a name such as ${secretIdExample}`
        : "looks like an API key, not the name of a secret (which only the plugin uses): the CLI reads a key from its environment variable";
  }
}

/** Refuses a value for a key's look, in the plugin's words; `loadSettings` words it for the CLI. */
function refuseAsKey(ctx: z.core.$RefinementCtx, refusal: KeyRefusal, secretIdExample?: string): void {
  ctx.addIssue({ code: "custom", message: keyRefusalWords(refusal, "secret_storage", secretIdExample), params: { keyRefused: refusal } });
}

/**
 * The address of an API the client adds its paths to (`…/chat/completions`). Nothing may follow the
 * path: a `?query` or `#fragment` would have the path added after it. And no user name or password:
 * a key there would sit in data.json (keys belong in secret storage), and Node's fetch names the
 * whole address, password and all, in its error. Nor a space or a word shaped like a key (`…/v1 sk-…`):
 * the URL reader keeps them as path, sent and named in traces. The messages never repeat the address.
 */
const apiBaseUrlSchema = httpUrlSchema.superRefine((address, ctx) => {
  const url = URL.canParse(address) ? new URL(address) : null;
  if (!url) return; // already refused as no http(s) address
  if (url.username !== "" || url.password !== "") {
    refuseAsKey(ctx, "address_login");
  } else if (url.search !== "" || url.hash !== "" || /[?#]/.test(address)) {
    ctx.addIssue({ code: "custom", message: "expected an address without ?query or #fragment (paths are added after it)" });
  } else if (holdsKeyShapedWord(address)) {
    refuseAsKey(ctx, "address_key");
  } else if (/\s/.test(address.trim())) {
    // The URL reader takes `…/v1 sk-…` as a path with `%20` in it: whatever followed the space is sent.
    ctx.addIssue({ code: "custom", message: "expected an address without spaces" });
  }
});

/**
 * How the keys of the services this plugin calls begin (OpenAI, Anthropic, DeepSeek and OpenRouter
 * `sk-`, Tavily, GitHub, Groq, xAI, Google, Brave, Hugging Face). A short name may begin so too
 * (xAI's own models are `xai-org/grok-1`): whether a model's name is a key is `holdsKeyShapedWord`'s.
 * Hugging Face's tokens are `hf_` and letters to the word's end: `hf_hub_download_retry` and
 * `hf_llama3_8b_instruct_gguf`, with a second underscore, are a library's and a model's names.
 */
const KEY_PREFIX = /^\s*(sk-|tvly-|ghp_|github_pat_|gsk_|xai-|hf_(?=[A-Za-z0-9]+(?![\w-]))|AIza|BSA)/;

/**
 * Whether a text begins as the API keys of known services do (`sk-`, `tvly-`, `ghp_`…): enough to
 * keep a value out of a message, never enough to refuse it as a name.
 */
export function looksLikeApiKey(text: string): boolean {
  return KEY_PREFIX.test(text);
}

/**
 * Whether a word of `text` (split where a key never holds a character) begins as a key does and is
 * 20 characters or more: `llama sk-proj-…`, `…/v1/sk-proj-…`. The keys above are 30 and more; a
 * shorter word is a name (`xai-org` in `hf.co/xai-org/…`). The rule that model names and API
 * addresses — settings and `--model`/`--embed` specs alike (llm/model-at-base-url.ts) — are held to.
 */
export function holdsKeyShapedWord(text: string): boolean {
  return text.split(/[^A-Za-z0-9_-]+/).some((word) => word.length >= 20 && looksLikeApiKey(word));
}

/**
 * Whether a word of a model's name is a UUID, the shape of Exa's keys: no model is named so. (An
 * address may hold one, a tenant's id in its path, so this is no rule of `holdsKeyShapedWord`.)
 */
function holdsUuid(name: string): boolean {
  return name.split(/[^A-Za-z0-9-]+/).some((word) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(word));
}

/**
 * Why a text is no model's name, or null: a key, or a key among its words (`llama sk-proj-…`), or
 * a space inside it. No model's id holds a space (`llama3.1:8b`, `meta-llama/llama-3.1-8b-instruct`,
 * `hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M`); spaces around it are trimmed where it is used.
 * A key there would be sent in every request and written into every trace as the model's name, never
 * scrubbed: it is no key the plugin holds. Shared with the spec reader (llm/model-at-base-url.ts).
 */
export function modelNameProblem(name: string): "key" | "space" | null {
  // By the words' length, not the prefix alone: `xai-org/grok-1` is xAI's model, `xai-` and 80 letters its key.
  if (holdsKeyShape(name)) return "key";
  return /\s/.test(name.trim()) ? "space" : null;
}

/**
 * Whether a text is, or holds, what looks like an API key: a word shaped like a known service's key
 * (`holdsKeyShapedWord`), or a UUID, as Exa's keys are. The rule for names the settings keep in
 * data.json — a model's, a secret's id — which a key pasted there must never reach.
 */
export function holdsKeyShape(text: string): boolean {
  return holdsKeyShapedWord(text) || holdsUuid(text);
}

/**
 * The id of a secret in Obsidian's secret storage (`defaultId` unless set), which data.json keeps:
 * never a key. Secret storage takes any id of lowercase letters, digits and dashes, an Exa key (a
 * UUID) among them, so a key pasted where the secret's name goes would be saved in the file that
 * sync and backups carry.
 */
function secretIdSchema(defaultId: string) {
  return z
    .string()
    .superRefine((id, ctx) => {
      if (secretIdIsKey(id)) refuseAsKey(ctx, "secret_id", defaultId);
    })
    .default(defaultId);
}

/**
 * Whether a secret's id is a key: a UUID (Exa's keys), or a key-shaped word in an id secret storage
 * would not take (capitals, `_`: every other service's keys have them). An id of lowercase letters,
 * digits and dashes is a name the user chose, long as it may be (`xai-api-key-for-research`).
 */
function secretIdIsKey(id: string): boolean {
  return holdsUuid(id) || (holdsKeyShapedWord(id) && !/^[a-z0-9-]+$/.test(id.trim()));
}

/** A model's name (see `modelNameProblem`); the messages never repeat it. */
const modelNameSchema = z.string().superRefine((name, ctx) => {
  const problem = modelNameProblem(name);
  if (problem === "key") refuseAsKey(ctx, "model_name");
  else if (problem === "space") ctx.addIssue({ code: "custom", message: "expected a model name without spaces (e.g. llama3.1:8b)" });
});

const braveSchema = z.object({
  /** Base URL of the Brave Search API (change it to go through a proxy). */
  baseUrl: apiBaseUrlSchema.default("https://api.search.brave.com"),
  /** Two-letter country code or `ALL`. */
  country: z.string().min(2).max(3).default("US"),
  /** Search language, e.g. `en`, `de`, `pt-br`. */
  searchLang: z.string().min(2).max(10).default("en"),
  safesearch: z.enum(["off", "moderate", "strict"]).default("moderate"),
  /** Id of the secret in Obsidian's secret storage holding the key. */
  secretId: secretIdSchema("vault-research-brave"),
});

const exaSchema = z.object({
  baseUrl: apiBaseUrlSchema.default("https://api.exa.ai"),
  /** Ask Exa for page text too (not only highlights). */
  includeText: z.boolean().default(false),
  /** Characters of page text per result when `includeText` is on. */
  maxTextCharacters: z.number().int().min(200).max(20_000).default(3000),
  searchType: z.enum(["auto", "fast", "instant", "neural", "keyword"]).default("auto"),
  secretId: secretIdSchema("vault-research-exa"),
});

/** Wikipedia's REST search; the language picks the wiki (`en` → en.wikipedia.org). */
const wikipediaSchema = z.object({
  language: z
    .string()
    .regex(/^[a-z][a-z0-9-]{1,15}$/, "expected a Wikipedia language code such as en, de or zh-yue")
    .default("en"),
});

const stackExchangeSchema = z.object({
  /** The Stack Exchange site to search, by its API name: `stackoverflow`, `superuser`, `math`… */
  site: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,40}$/, "expected a Stack Exchange site name such as stackoverflow")
    .default("stackoverflow"),
});

const githubSchema = z.object({
  /** Id of the (optional) token in secret storage; with one, GitHub allows 30 searches a minute instead of 10. */
  secretId: secretIdSchema("vault-research-github"),
});

const searxngSchema = z.object({
  /** The user's SearXNG instance, e.g. `http://localhost:8888`; empty until set. It must allow `format=json`. */
  baseUrl: z.union([z.literal(""), httpUrlSchema], { error: EMPTY_OR_ADDRESS }).default(""),
  /**
   * Id of the password in secret storage, for an instance behind a login: the user name is written in
   * the address (`https://alice@search.example`), the password never is in the plugin's data.json.
   */
  secretId: secretIdSchema("vault-research-searxng"),
});

const tavilySchema = z.object({
  /** `basic` costs one credit a search, `advanced` two and reads pages more closely. */
  searchDepth: z.enum(["basic", "advanced"]).default("basic"),
  secretId: secretIdSchema("vault-research-tavily"),
});

const modelSchema = z.object({
  /** `none` writes an extractive evidence brief; the others call a chat model. */
  kind: z.enum(["none", "openai", "anthropic"]).default("none"),
  /** OpenAI-compatible base URL; Ollama's by default. */
  baseUrl: apiBaseUrlSchema.default("http://localhost:11434/v1"),
  model: modelNameSchema.default(""),
  secretId: secretIdSchema("vault-research-model"),
  timeoutMs: z.number().int().min(1000).max(600_000).default(120_000),
  /**
   * Let the model check the vault's verdict (is the evidence enough?) and rewrite the question up to
   * three times for the vault search: two more calls a run. Off by default: its quality with a real
   * model has not been measured.
   */
  checkVaultEvidence: z.boolean().default(false),
});

/**
 * The parts of a vault folder as the note writer (notes/file-names.ts `notePathIn`) reads them:
 * `\\` and `/` both separate, each part is trimmed, empty and `.` parts are dropped. `..` parts are
 * kept, for the caller to refuse. A leading `/` is the vault's top, as in Obsidian's own paths.
 */
export function folderParts(folder: string): string[] {
  return folder
    .split(/[\\/]/)
    .map((part) => part.trim())
    .filter((part) => part !== "" && part !== ".");
}

/**
 * The parts of a folder the vault can hold, `..` dropped: what a writer uses (a refused setting never
 * gets this far; a folder from elsewhere still cannot climb out) and what the index excludes.
 */
export function folderPartsInside(folder: string): string[] {
  return folderParts(folder).filter((part) => part !== "..");
}

/** `Research/Traces` from `./Research\\Traces/`: the one spelling every reader of a folder setting compares. */
export function vaultFolder(folder: string): string {
  return folderParts(folder).join("/");
}

/** Why `folder` names no folder inside the vault (`..`, a drive or network path), or null when it does. */
export function whyNotVaultFolder(folder: string): string | null {
  const quoted = quote(folder);
  if (/^[a-z]:/i.test(folder.trim()) || /^[\\/]{2}/.test(folder.trim())) return `${quoted} is a path on this computer, not a folder of the vault`;
  if (folderParts(folder).includes("..")) return `${quoted} climbs out of the vault ("..")`;
  return null;
}

/** A value in a message, quoted; controls shown as `?` so a warning cannot move a terminal's cursor. */
function quote(value: string): string {
  return `"${value.replace(/\p{Cc}/gu, "?")}"`;
}

/**
 * A folder of the vault, stored in the writer's spelling; one that could leave the vault is refused.
 * `topRefused`: why the vault's top will not do for this folder (null: it will).
 */
function vaultFolderSchema(topRefused: string | null) {
  return z
    .string()
    .superRefine((folder, ctx) => {
      const why = whyNotVaultFolder(folder) ?? (topRefused && vaultFolder(folder) === "" ? `${quote(folder)} ${topRefused}` : null);
      if (why) ctx.addIssue({ code: "custom", message: why });
    })
    .transform(vaultFolder);
}

/**
 * Why the sources folder will not do beside this trace folder, or null when it will. The trace
 * folder is never indexed, so pages added to the vault inside it would never be found: promotion
 * would not make them the vault's evidence. Asked where a folder is typed (the settings tab); not a
 * rule of the schema, since putting back a default at load would move the trace folder and let
 * the trace notes already written be searched as notes.
 */
export function whySourcesFolderHidden(notes: { traceFolder: string; sourcesFolder: string }): string | null {
  const traces = folderPartsInside(notes.traceFolder);
  const sources = folderPartsInside(notes.sourcesFolder);
  if (traces.length === 0 || sources.length < traces.length || !traces.every((part, i) => part === sources[i])) return null;
  return `The sources folder ${quote(vaultFolder(notes.sourcesFolder))} would be inside the trace folder ${quote(vaultFolder(notes.traceFolder))}, which is never searched: pages you add to the vault would not be found.`;
}

/** A dial position: 1 lexical, 2 hybrid (+ embeddings), 3 multi-field (+ section vectors), 4 rerank (+ chat model). */
export const dialLevelSchema = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)], { error: "expected 1, 2, 3 or 4" });

const embeddingSchema = z.object({
  /** `none`: nothing is embedded and the dial stays at level 1. */
  kind: z.enum(["none", "ollama", "openai"]).default("none"),
  /** Empty: the backend's default (Ollama: nomic-embed-text). */
  model: modelNameSchema.default(""),
  /** Empty: the backend's default (Ollama http://localhost:11434, OpenAI-compatible http://localhost:11434/v1). */
  baseUrl: z.union([z.literal(""), apiBaseUrlSchema], { error: EMPTY_OR_ADDRESS }).default(""),
  /** Id of the (optional) key in secret storage, for an OpenAI-compatible server that wants one. */
  secretId: secretIdSchema("vault-research-embedding"),
  /** Requests per second the embedding job may make. */
  requestsPerSecond: z.number().min(0.1).max(50).default(4),
  /**
   * The user has read what leaves the device (the text of every note, to that endpoint) and agreed.
   * Nothing is embedded before; changing the backend or its address asks again. Holds
   * `<kind>@<base URL, defaults filled in>` (`ollama@http://localhost:11434`), as the plugin's
   * embedding-choice.ts makes and compares it; empty: not agreed.
   */
  consentedTo: z.string().default(""),
});

export const settingsSchema = z.object({
  version: z.number().int().default(SETTINGS_VERSION),
  index: z
    .object({
      /** Folders (vault-relative, no leading slash) whose notes are never indexed. */
      excludedFolders: z
        // The vault's top would exclude every note.
        .array(vaultFolderSchema("names no folder of the vault"))
        .transform((folders) => [...new Set(folders)])
        .default([]),
      /** English stemming ("running" finds "run"). */
      stemming: z.boolean().default(true),
      /** Learn which words this vault uses alike, from its own notes, to find notes that say the
       * same thing in other words (index/vault-language/); on this device, after a full build. */
      vaultLanguage: z.boolean().default(true),
    })
    .prefault({}),
  external: z
    .object({
      /**
       * Master switch: while off, nothing ever leaves the device. A value that is not a boolean
       * (`"false"`, written by hand) falls back to off, and the CLI refuses web search for it.
       */
      enabled: z.boolean({ error: "expected true or false (web search stays off)" }).default(false),
      defaultMode: z.enum(externalModes).default("never"),
      /**
       * Enabled providers, in the order they are offered. The settings tab's one "Free sources"
       * toggle adds or removes the free set (provider-names.ts) here, and switches it on when web
       * search is allowed while no API key is set.
       */
      providers: z.array(z.enum(providerNames)).default(["brave"]),
      freshness: freshnessSchema.default("any"),
      /** URLs per run: 5 by default, 10 at most. */
      count: z.number().int().min(1).max(10).default(5),
      tokenBudget: z.number().int().min(1024).max(32_768).default(8192),
      timeoutMs: z.number().int().min(1000).max(120_000).default(15_000),
      /** Each source's own time limit inside `timeoutMs`: a slow source is given up on, the others are kept. */
      sourceTimeoutMs: z.number().int().min(1000).max(120_000).default(8000),
      /**
       * Outside pages read per run (0–5): the top results whose provider sent no page text of its own
       * are fetched, extracted and cut into passages. 0 turns page reading off.
       */
      readPages: z.number().int().min(0).max(5).default(3),
      /** Ask the configured model for a short summary of each page read (beside its passages, never instead). */
      summarizePages: z.boolean().default(false),
      brave: braveSchema.prefault({}),
      exa: exaSchema.prefault({}),
      wikipedia: wikipediaSchema.prefault({}),
      stackexchange: stackExchangeSchema.prefault({}),
      github: githubSchema.prefault({}),
      searxng: searxngSchema.prefault({}),
      tavily: tavilySchema.prefault({}),
    })
    .prefault({}),
  model: modelSchema.prefault({}),
  search: z
    .object({
      /** The dial's position in the search modal, remembered. */
      searchLevel: dialLevelSchema.default(1),
      /** The dial's position for the research panel's local retrieval, remembered. */
      researchLevel: dialLevelSchema.default(1),
      /** Show each result's scores (per lane, and the rerank's move). */
      showScores: z.boolean().default(false),
      embedding: embeddingSchema.prefault({}),
      /** Keep the local query log (IndexedDB in the plugin, the cache folder in the CLI; never the vault, never sent anywhere). */
      queryLog: z.boolean().default(true),
    })
    .prefault({}),
  notes: z
    .object({
      writeTraceNotes: z.boolean().default(true),
      // Not the vault's top: trace notes there could not be kept out of the index.
      traceFolder: vaultFolderSchema("is the vault's top, and trace notes there would be searched as notes").default("Research/Traces"),
      sourcesFolder: vaultFolderSchema(null).default("Research/Sources"),
    })
    .prefault({}),
});

export type Settings = z.infer<typeof settingsSchema>;

export function defaultSettings(): Settings {
  return settingsSchema.parse({});
}

export interface SettingsLoad {
  settings: Settings;
  /** Human-readable notes on what was wrong and replaced by a default (empty when all was fine). */
  problems: string[];
  /**
   * Keys this version does not know, kept as they are so the next save writes them back (a newer
   * version's settings): nothing was replaced, so they are no problem for the plugin to warn about
   * at every start; the CLI still names them (a typed config's typo). Absent when there are none.
   */
  unknownKept?: string[];
  /**
   * Where a value was held back for being, or holding, what looks like an API key or password (a
   * field refused for a key's look, or a key that is no setting): named, never shown. Absent when none.
   */
  keysOutOfPlace?: string[];
}

export interface LoadOptions {
  /** Where the reader takes its keys from, as the problems say it: secret storage (the plugin, the default) or the environment (the CLI). */
  keysFrom?: KeysReadFrom;
}

/**
 * Reads settings from whatever was stored. Never throws: fields that fail validation fall back to
 * their defaults one by one (so one bad value does not reset everything), a bad element of a list
 * is left out (the rest of the list kept), and each is reported.
 */
export function loadSettings(raw: unknown, options: LoadOptions = {}): SettingsLoad {
  if (raw === undefined || raw === null) return { settings: defaultSettings(), problems: [] };
  if (typeof raw !== "object" || Array.isArray(raw)) {
    return { settings: defaultSettings(), problems: ["Settings were not an object; defaults are used."] };
  }
  try {
    return repairSettings(raw, options.keysFrom ?? "secret_storage");
  } catch (error) {
    // Nothing above should throw; should something still (an exotic object from a plugin's data), the promise holds.
    return { settings: defaultSettings(), problems: [`Settings could not be read (${error instanceof Error ? error.message : String(error)}); defaults are used.`] };
  }
}

function repairSettings(raw: object, keysFrom: KeysReadFrom): SettingsLoad {
  // zod drops keys it does not know; the promise is that nothing is dropped without a word, and
  // nothing a newer version wrote is dropped at all when it can be kept.
  const unknown = unknownKeys(raw, settingsSchema);
  const kept = unknown.filter(isKeepable);
  const keysRefused: string[] = [];
  const loaded = parsedSettings(raw, unknown.filter((key) => !kept.includes(key)).map((key) => `${pathShown(key.path)}: not a setting; it was ignored.`), { keysFrom, keysRefused });
  for (const { path, value } of kept) keepAt(loaded.settings, path, value);
  // Kept so a save writes a newer version's setting back; one holding a key (`model.apiKey`), which
  // the plugin takes out of its file (plugin/stored-settings.ts), is said as a key: used by no one.
  const keys = kept.filter(({ path, value }) => holdsCredential(path[path.length - 1], value));
  // A key pasted as a name is ignored, never kept (and its value never walked: it may be nested past any walk).
  const keysAsNames = unknown.filter((key) => !kept.includes(key) && key.path.some(looksLikeApiKey));
  const keysOutOfPlace = [...keysRefused, ...[...keys, ...keysAsNames].map((key) => pathShown(key.path))];
  const unknownKept = kept.map((key) => `${pathShown(key.path)}: ${keys.includes(key) ? unusedKeyWords(keysFrom) : "not a setting; kept as it is, unused."}`);
  return { ...loaded, ...(unknownKept.length > 0 ? { unknownKept } : {}), ...(keysOutOfPlace.length > 0 ? { keysOutOfPlace } : {}) };
}

/** Said of a key written under a name that is no setting: never read from there, and where keys are. */
function unusedKeyWords(from: KeysReadFrom): string {
  return `holds what looks like an API key or password, which is never read from settings: it is not used; a key goes in ${from === "secret_storage" ? "secret storage" : "its environment variable"}.`;
}

/** A key's place as a message names it, on one line: a name that is an API key (pasted where a field's name goes) is not repeated. */
function pathShown(path: string[]): string {
  // Controls as `?`, as `quote` shows them: a name holding a line break printed a warning line of its own making.
  return path.map((key) => (looksLikeApiKey(key) ? "(a name that looks like an API key)" : key.replace(/\p{Cc}/gu, "?"))).join(".");
}

/**
 * The settings zod reads from what `raw` has for them, each value it refuses replaced, with `problems`
 * said first; a value refused for a key's look is said for the reader (`keysFrom`), and where it was
 * added to `keysRefused`.
 */
function parsedSettings(raw: object, problems: string[], keys: { keysFrom: KeysReadFrom; keysRefused: string[] }): SettingsLoad {
  // Only what the schema knows is copied (as deep as the schema goes): a file nested 100,000 deep
  // under a key that is no setting is named above and never walked.
  const known = knownPart(raw, settingsSchema) as Record<string, unknown>;
  const first = settingsSchema.safeParse(known);
  if (first.success) return { settings: first.data, problems };

  const leftOut = new Map<unknown[], Set<number>>();
  for (const issue of first.error.issues) {
    const path = issue.path.map(String);
    const element = arrayElementAt(known, path);
    if (element) {
      problems.push(`${path.slice(0, element.depth + 1).join(".")}: ${issue.message}; it was left out.`);
      leftOut.set(element.list, (leftOut.get(element.list) ?? new Set()).add(element.index));
    } else {
      const refusal = keyRefusalOf(issue);
      if (refusal) keys.keysRefused.push(path.join("."));
      // The schema's words are secret storage's (the settings tab shows them as they are).
      const words = refusal && keys.keysFrom !== "secret_storage" ? keyRefusalWords(refusal, keys.keysFrom) : issue.message;
      problems.push(`${path.join(".") || "(root)"}: ${words}; the default is used.`);
      deletePath(known, path);
    }
  }
  for (const [list, indexes] of leftOut) {
    const kept = list.filter((_, i) => !indexes.has(i));
    list.splice(0, list.length, ...kept);
  }
  const second = settingsSchema.safeParse(known);
  if (second.success) return { settings: second.data, problems };
  return { settings: defaultSettings(), problems: [...problems, "Settings could not be repaired; defaults are used."] };
}

/** Why zod's issue refused a value for a key's look (`refuseAsKey`), or null for any other issue. */
function keyRefusalOf(issue: z.core.$ZodIssue): KeyRefusal | null {
  const params = issue.code === "custom" ? (issue.params as { keyRefused?: KeyRefusal } | undefined) : undefined;
  return params?.keyRefused ?? null;
}

/** A key of `raw` that `schema` has no field for, where it is and what it holds. */
interface UnknownKey {
  path: string[];
  value: unknown;
}

/** The keys in `raw` that `schema` has no field for, at any depth of nested objects. */
function unknownKeys(raw: unknown, schema: z.core.$ZodType, at: string[] = []): UnknownKey[] {
  const shape = objectShape(schema);
  if (!shape || raw === null || typeof raw !== "object" || Array.isArray(raw)) return [];
  return Object.entries(raw as Record<string, unknown>).flatMap(([key, value]) => {
    const path = [...at, key];
    // Own fields only: `constructor`, `toString` and `__proto__` are found on every object's prototype.
    return Object.hasOwn(shape, key) ? unknownKeys(value, shape[key], path) : [{ path, value }];
  });
}

/**
 * Whether a key this version does not know is carried along, so the next save writes it back: a
 * newer version's setting survives a downgrade and the upgrade after it. Not a key named like an
 * object's own member (`toString: 2` would break every object it sits on), nor a value the save
 * could not write (nested too deep for JSON.stringify), nor one named like an API key.
 */
function isKeepable({ path, value }: UnknownKey): boolean {
  if (path[path.length - 1] in Object.prototype) return false;
  // Kept, a key pasted as a field's name would be saved into data.json, where no key may be: at any
  // depth of the value kept, too (`external.openai: { "sk-…": "" }` was written back whole).
  if (path.some(looksLikeApiKey)) return false;
  try {
    let keyAsName = false;
    JSON.stringify(value, (name: string, inner: unknown) => {
      if (looksLikeApiKey(name)) keyAsName = true;
      return inner;
    });
    return !keyAsName;
  } catch {
    return false;
  }
}

/**
 * A name under which a value is a credential (`apiKey`, `braveApiKey`, `token`, `password`…): not
 * `secretId` (the id of a secret, which the settings hold) nor `tokenBudget` (what it ends with counts).
 */
const CREDENTIAL_NAME = /(?:^key|api[-_]?key|access[-_]?key|secret[-_]?key|private[-_]?key|token|secret|password|passwd|credentials?|authorization|bearer)$/i;

/**
 * A name ending in "token" holds a credential only when its value is one word of a token's letters:
 * a model's stop token (`stopToken: "<|endoftext|>"`) is a setting, not a secret.
 */
const TOKEN_NAME = /token$/i;
const TOKEN_LETTERS = /^[\w.~+/=:-]+$/;

/**
 * Whether `value`, stored under `name` that is no setting, is or holds a credential (a list's
 * objects', under their own names): what no save may write back, and no reader use.
 */
export function holdsCredential(name: string, value: unknown): boolean {
  if (typeof value === "string") {
    // Short texts are no key, whatever they begin with (`locale: "sk-SK"`).
    if (!isCredential(value)) return false;
    if (looksLikeApiKey(value)) return true;
    return CREDENTIAL_NAME.test(name) && (!TOKEN_NAME.test(name) || TOKEN_LETTERS.test(value.trim()));
  }
  if (Array.isArray(value)) return value.some((item) => holdsCredential(name, item));
  return value !== null && typeof value === "object" && Object.entries(value).some(([key, inner]) => looksLikeApiKey(key) || holdsCredential(key, inner));
}

/** Puts `value` at `path` in `settings`, when the object it belongs in is there. */
function keepAt(settings: Settings, path: string[], value: unknown): void {
  let node: unknown = settings;
  for (const key of path.slice(0, -1)) node = node !== null && typeof node === "object" && !Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
  if (node === null || typeof node !== "object" || Array.isArray(node)) return;
  Object.defineProperty(node, path[path.length - 1], { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A copy of the objects and lists of `raw` the schema has fields for (its own keys only), so the
 * repair can change them; anything else is passed as it is, for zod to judge by its type alone.
 */
function knownPart(raw: unknown, schema: z.core.$ZodType): unknown {
  const inner = unwrapped(schema);
  if (Array.isArray(raw)) return inner instanceof z.ZodArray ? [...(raw as unknown[])] : raw;
  const shape = objectShape(schema);
  if (!shape || raw === null || typeof raw !== "object") return raw;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (Object.hasOwn(shape, key)) copy[key] = knownPart(value, shape[key]);
  }
  return copy;
}

/** `schema` seen through `.default()`, `.prefault()` and a transform's input. */
function unwrapped(schema: z.core.$ZodType): z.core.$ZodType {
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault) return unwrapped(schema.unwrap());
  if (schema instanceof z.ZodPipe) return unwrapped(schema.in);
  return schema;
}

/** The fields of an object schema, seen through `.default()` and `.prefault()`; null for anything else. */
function objectShape(schema: z.core.$ZodType): Readonly<Record<string, z.core.$ZodType>> | null {
  const inner = unwrapped(schema);
  return inner instanceof z.ZodObject ? inner.shape : null;
}

/** The list element an issue's path runs through (the first), with the depth of its index in the path; null for none. */
function arrayElementAt(root: Record<string, unknown>, path: string[]): { list: unknown[]; index: number; depth: number } | null {
  let node: unknown = root;
  for (let depth = 0; depth < path.length; depth++) {
    if (Array.isArray(node)) {
      const index = Number(path[depth]);
      return Number.isInteger(index) && index >= 0 && index < node.length ? { list: node, index, depth } : null;
    }
    if (node === null || typeof node !== "object") return null;
    node = (node as Record<string, unknown>)[path[depth]];
  }
  return null;
}

function deletePath(obj: Record<string, unknown>, path: string[]): void {
  if (path.length === 0) return;
  let node: unknown = obj;
  for (const key of path.slice(0, -1)) {
    if (node === null || typeof node !== "object") return;
    node = (node as Record<string, unknown>)[key];
  }
  if (node === null || typeof node !== "object") return;
  delete (node as Record<string, unknown>)[path[path.length - 1]];
}

/** The id in secret storage under which the settings keep the secret `name` (one place for every reader). */
export function secretIdFor(name: SecretName, settings: Settings): string {
  switch (name) {
    case "brave":
      return settings.external.brave.secretId;
    case "exa":
      return settings.external.exa.secretId;
    case "github":
      return settings.external.github.secretId;
    case "tavily":
      return settings.external.tavily.secretId;
    case "searxng":
      return settings.external.searxng.secretId;
    case "openai":
    case "anthropic":
      return settings.model.secretId;
  }
}

/**
 * An address with a password in it (`https://alice:pw@host/`), split into the address with only the
 * user name and the password as typed (`%40` read as `@`); null when it holds no password. Where
 * the plugin keeps a SearXNG login: the password in secret storage, never in data.json.
 */
export function addressWithoutPassword(address: string): { address: string; password: string } | null {
  const url = URL.canParse(address) ? new URL(address) : null;
  if (!url || url.password === "") return null;
  const password = decodedUrlPart(url.password);
  url.password = "";
  // URL adds a `/` after a bare host; the address keeps the ending it was typed with.
  const kept = address.endsWith("/") ? url.href : url.href.replace(/\/$/, "");
  return { address: kept, password };
}
