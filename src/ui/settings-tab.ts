// The settings tab: what leaves the device (said first, in plain words), external search and its
// providers, the model that writes answers, and the notes and index. API keys are chosen with
// Obsidian's SecretComponent, so data.json only ever holds the *id* of a secret.
import { debounce, PluginSettingTab, requireApiVersion, SecretComponent, Setting, type App, type ButtonComponent, type Plugin, type SettingDefinitionItem } from "obsidian";
import { DIAL_LEVEL_NAMES, DIAL_LEVELS, type DialLevel } from "../index/dial/dial-types";
import { addressWithoutPassword, externalModes, providerNames, settingsSchema, vaultFolder, whySourcesFolderHidden, type ExternalMode, type ProviderName, type Settings } from "../settings";
import { FREE_SOURCES } from "../provider-names";
import type { SecretName } from "../ports";
import { providerChoiceName } from "../evidence/labels";
import { providersWhenAllowed } from "../websearch/source-access";
import { FRESHNESS_LABELS, MODE_LABELS } from "./composer";
import { secretIsSet } from "./secret-presence";

/** What the tab needs from the plugin. */
export interface SettingsHost {
  readonly settings: Settings;
  saveSettings(): Promise<void>;
  /** Re-applies index settings; `rebuild` when words must be re-analysed (e.g. stemming changed). */
  applyIndexSettings(options: { rebuild: boolean }): Promise<void>;
  rebuildIndex(): Promise<void>;
  /** One tiny call to the configured model; a sentence back (never the key). */
  testModelConnection(): Promise<{ ok: boolean; message: string }>;
  /** What the embedding settings mean now (the plugin's reading of them, so the tab and the job agree). */
  embeddingChoice(): EmbeddingChoiceView;
  /** Empties the search query log; a sentence back. */
  clearQueryLog(): Promise<string>;
}

/**
 * The embedding backend as the tab shows it: none, one that cannot be used as set (and why), or one
 * with what it would send and whether the user agreed (`consentKey` is what agreeing stores).
 */
export type EmbeddingChoiceView =
  | { kind: "off" }
  | { kind: "unusable"; message: string }
  | { kind: "chosen"; consentKey: string; disclosure: string; consented: boolean };

/** What the schema says about a value it refused. */
type SettingsIssue = NonNullable<ReturnType<typeof settingsSchema.safeParse>["error"]>["issues"][number];

/**
 * What a change must pass besides the schema: `words` says a refused value in the field's terms
 * (default: the schema's message); `refuse` says why valid settings still will not do together.
 */
interface ChangeCheck {
  words?: (issue: SettingsIssue) => string;
  refuse?: (checked: Settings) => string | null;
}

/** Timeouts are stored in ms and typed in seconds. */
const MS_PER_SECOND = 1000;

const EXCLUDED_FOLDERS_DESC = "Notes in these folders are never indexed. Separate folders with commas. The trace folder is always excluded.";

/**
 * Splits user input on commas and new lines into vault folders, spelled as settings store them
 * (settings.ts `vaultFolder`). A folder that climbs out of the vault is kept, for the schema to refuse.
 */
export function parseFolderList(input: string): string[] {
  const folders = input
    .split(/[,\n]/)
    .map(vaultFolder)
    .filter((f) => f.length > 0);
  return [...new Set(folders)];
}

/** The privacy note, paragraph by paragraph. */
export const PRIVACY_NOTE = [
  "Your notes stay on this device. Indexing, searching and the evidence brief all run here.",
  "Web search is off until you turn it on below, and even then it runs only for questions where you allow it. When it runs, short queries made from your question — never text from your notes — go to the sources you chose that fit the question.",
  "The free sources need no key: Wikipedia (wikipedia.org), Hacker News (hn.algolia.com), arXiv (export.arxiv.org), GitHub (api.github.com, with your token if you set one), Stack Exchange (api.stackexchange.com) and PubMed (eutils.ncbi.nlm.nih.gov). Brave (api.search.brave.com), Exa (api.exa.ai) and Tavily (api.tavily.com) receive your API key with each query. SearXNG goes only to the instance you name.",
  "If you choose a model, your question and the evidence picked for the answer (excerpts of your notes, and web text when the web was used) go to that model's server: your own computer for Ollama or LM Studio, the company's servers for OpenAI or Anthropic. At search level 4 the top results' excerpts go to it too.",
  "If you choose an embedding server under Search and agree to what it receives, the text of every note and your search queries at level 2 or above go to that server. Nothing is embedded before you agree, and changing the server asks again.",
  "Web results are never written into your vault unless you add them. Trace notes, if you keep them, record each run in the trace folder.",
  "API keys are kept in Obsidian's secret storage, not in this plugin's settings file.",
];

const MODEL_KINDS: Record<Settings["model"]["kind"], string> = {
  none: "None (evidence brief)",
  openai: "OpenAI-compatible",
  anthropic: "Anthropic",
};

const EMBEDDING_KINDS: Record<Settings["search"]["embedding"]["kind"], string> = {
  none: "None (words only)",
  ollama: "Ollama",
  openai: "OpenAI-compatible",
};

const LEVEL_WORDS: Record<DialLevel, string> = {
  1: "words only",
  2: "+ meaning (embeddings)",
  3: "+ each section's meaning",
  4: "+ the chat model reorders",
};

const PROVIDER_DESCRIPTIONS: Record<ProviderName, string> = {
  brave: "Brave's LLM context: page extracts made for answering (falls back to web search). Needs a key.",
  "brave-web": "Brave's web search: titles and short descriptions. Needs a key.",
  exa: "Exa: neural web search with highlights. Needs a key.",
  wikipedia: "Wikipedia: definitions and background. Free.",
  hackernews: "Hacker News: discussions and what people think. Free.",
  arxiv: "arXiv: papers in science and computing. Free.",
  github: "GitHub: repositories for questions about code. Free; a token raises its limit.",
  stackexchange: "Stack Exchange: questions and answers about code and errors. Free.",
  pubmed: "PubMed: papers in medicine and biology. Free.",
  searxng: "SearXNG: your own metasearch instance, for every question.",
  tavily: "Tavily: web search made for answering, with scores. Needs a key.",
};

/** The free set as people read it: "Wikipedia, Hacker News, arXiv, GitHub and Stack Exchange". */
const FREE_SET_WORDS = `${FREE_SOURCES.slice(0, -1).map(providerChoiceName).join(", ")} and ${providerChoiceName(FREE_SOURCES[FREE_SOURCES.length - 1])}`;

/**
 * One row of the tab as Obsidian's settings search knows it (name, description, other words for
 * it) and as it is drawn. The same rows make both ways of showing the tab: Obsidian 1.13's own
 * (`getSettingDefinitions`, whose search finds every row on show) and `display()` before 1.13.
 */
interface Row {
  /** Stable while the tab is open: how a drawn row is found again to be filled anew. */
  readonly key: string;
  readonly name: string;
  readonly desc?: string;
  readonly aliases?: string[];
  /** Drawn only while this says so (asked again after every change). */
  readonly shown?: () => boolean;
  /** Adds the row's controls, reading the settings as they are now. */
  fill(setting: Setting): void;
}

interface Section {
  readonly heading: string;
  readonly rows: Row[];
}

// Its own members are #private: a name of ours must never stand in for one of the app's own,
// which a subclass's method of the same name would override.
export class VaultResearchSettingTab extends PluginSettingTab {
  /** Set when allowing web search switched the free set on, so the tab can say why. */
  #freeSetAdded = false;
  /** Which way the tab was last drawn: by Obsidian from the definitions (1.13+), or by `display()`. */
  #drawnBy: "definitions" | "display" = "definitions";
  /**
   * The rows on screen by key (a row the app draws in two places at once is both), so one row
   * (the embedding consent) can be filled again alone.
   */
  readonly #drawn = new Map<string, Set<Setting>>();
  // Typing a folder name must not re-index on every keystroke.
  readonly #applyExclusions = debounce(() => void this.#host.applyIndexSettings({ rebuild: false }), 1200, true);

  readonly #host: SettingsHost;

  constructor(app: App, plugin: Plugin, host: SettingsHost) {
    super(app, plugin);
    this.#host = host;
    this.containerEl.addClass("vault-research-settings");
  }

  /** Obsidian 1.13 and later draw the tab from these, and its settings search finds the rows on show. */
  override getSettingDefinitions(): SettingDefinitionItem[] {
    return this.#sections().map((section) => ({
      type: "group",
      heading: section.heading,
      items: section.rows.map((row) => ({
        name: row.name,
        desc: row.desc,
        aliases: row.aliases,
        visible: row.shown ?? true,
        render: (setting: Setting) => {
          this.#drawnBy = "definitions";
          return this.#drawRow(setting, row);
        },
      })),
    }));
  }

  /** Before Obsidian 1.13 (which draws from the definitions instead): the same rows, drawn here. */
  override display(): void {
    this.#drawnBy = "display";
    this.#drawAll();
  }

  override hide(): void {
    this.#applyExclusions.run();
    this.#drawn.clear();
    super.hide();
  }

  #drawAll(): void {
    const { containerEl } = this;
    containerEl.empty();
    containerEl.addClass("vault-research-settings");
    this.#drawn.clear();
    for (const section of this.#sections()) {
      new Setting(containerEl).setName(section.heading).setHeading();
      for (const row of section.rows) if (row.shown?.() ?? true) this.#drawRow(new Setting(containerEl), row);
    }
  }

  /** Fills `setting` as `row` and remembers it; the cleanup is for Obsidian, when it takes the row down. */
  #drawRow(setting: Setting, row: Row): () => void {
    const drawn = this.#drawn.get(row.key) ?? new Set<Setting>();
    this.#drawn.set(row.key, drawn.add(setting));
    fillRow(setting, row);
    return () => void drawn.delete(setting);
  }

  /**
   * After a change that shows or hides rows, or changes what they say (the providers' order).
   * Obsidian 1.13 is asked to draw the definitions again (`update`) and to show and hide rows as
   * they say now (`refreshDomState`); the rows on screen are filled anew first, so they are right
   * even where it keeps a row it already drew.
   */
  #redraw(): void {
    this.#keepingFocus(() => {
      if (requireApiVersion("1.13.0") && this.#drawnBy === "definitions") {
        for (const row of this.#sections().flatMap((s) => s.rows)) if (row.shown?.() ?? true) this.#fillDrawn(row);
        this.update();
        this.refreshDomState();
      } else {
        this.#drawAll();
      }
    });
  }

  /** Fills one row on screen anew, leaving every other where it is; its focused control's successor keeps the focus. */
  #refill(key: string): void {
    const row = this.#sections()
      .flatMap((s) => s.rows)
      .find((r) => r.key === key);
    if (row) this.#keepingFocus(() => this.#fillDrawn(row));
  }

  /**
   * Runs `draw`, which replaces controls, and gives the focus back to the control that had it: the
   * same place in the same row (found by name, so a provider moved up keeps it). Without this a
   * keyboard user lands on the page's top after each choice, and a list moved with the arrow keys
   * (which changes it at each press) is redrawn under them after the first.
   */
  #keepingFocus(draw: () => void): void {
    const place = this.#focusPlace();
    draw();
    if (!place) return;
    // By name first: an app that keeps the rows it drew refills them in place, so the row at the old
    // place may now hold another provider while the one moved up sits elsewhere.
    const setting = this.#drawnNamed(place.name).find((s) => s.settingEl.isConnected) ?? (place.setting.settingEl.isConnected ? place.setting : undefined);
    if (!setting) return;
    const controls = focusableControls(setting);
    controls[Math.min(place.control, controls.length - 1)]?.focus();
  }

  /** The row and which of its controls has the focus, when one of the tab's rows has it. */
  #focusPlace(): { setting: Setting; name: string; control: number } | null {
    const active = this.containerEl.ownerDocument.activeElement;
    if (!active) return null;
    for (const settings of this.#drawn.values()) {
      for (const setting of settings) {
        if (!setting.controlEl.contains(active)) continue;
        const control = focusableControls(setting).findIndex((c) => c === active || c.contains(active));
        return { setting, name: setting.nameEl.textContent ?? "", control: Math.max(control, 0) };
      }
    }
    return null;
  }

  #drawnNamed(name: string): Setting[] {
    const row = this.#sections()
      .flatMap((s) => s.rows)
      .find((r) => r.name === name);
    return row ? [...(this.#drawn.get(row.key) ?? [])] : [];
  }

  #fillDrawn(row: Row): void {
    for (const setting of this.#drawn.get(row.key) ?? []) fillRow(setting, row);
  }

  #sections(): Section[] {
    return [
      { heading: "Privacy", rows: [this.#privacyRow()] },
      { heading: "External search", rows: this.#externalRows() },
      { heading: "Search providers", rows: [this.#freeSetRow(), ...this.#providerRows()] },
      { heading: "Brave", rows: this.#braveRows() },
      { heading: "Exa", rows: this.#exaRows() },
      { heading: "Wikipedia, GitHub and more", rows: this.#sourceRows() },
      { heading: "SearXNG", rows: this.#searxngRows() },
      { heading: "Tavily", rows: this.#tavilyRows() },
      { heading: "Model for answers", rows: this.#modelRows() },
      { heading: "Search", rows: this.#searchRows() },
      { heading: "Notes", rows: this.#notesRows() },
      { heading: "Index", rows: this.#indexRows() },
    ];
  }

  /**
   * Changes settings only if the result is valid (the same zod schema as data.json), so a typo
   * never reaches the file. Returns the problem, or null when saved.
   */
  async #applyChange(change: (s: Settings) => void, check: ChangeCheck = {}): Promise<string | null> {
    const draft = structuredClone(this.#host.settings);
    change(draft);
    const checked = settingsSchema.safeParse(draft);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      return issue ? (check.words ?? ((i) => i.message))(issue) : "Not a valid value.";
    }
    const refused = check.refuse?.(checked.data);
    if (refused) return refused;
    change(this.#host.settings);
    await this.#host.saveSettings();
    return null;
  }

  /** The privacy note, found by search under its own name and the words people look for. */
  #privacyRow(): Row {
    return {
      key: "privacy",
      name: "What leaves this device",
      // What settings search reads; the row shows the whole note (which would match every word).
      desc: "What goes to web search, the model and the embedding server, and what is written into your vault.",
      aliases: ["privacy", "network", "data sent", "remote services"],
      fill: (setting) => {
        setting.setDesc("").setClass("vault-research-privacy-row");
        const note = setting.descEl.createDiv({ cls: "vault-research-privacy" });
        for (const paragraph of PRIVACY_NOTE) note.createEl("p", { text: paragraph });
      },
    };
  }

  #externalRows(): Row[] {
    const external = () => this.#host.settings.external;
    return [
      {
        key: "external.enabled",
        name: "Allow web search",
        desc: "While off, nothing is ever sent to a search provider. When on, each question still chooses whether to use the web.",
        aliases: ["internet", "online"],
        fill: (setting) => {
          setting.addToggle((toggle) =>
            toggle.setValue(external().enabled).onChange(async (value) => {
              // With no key and no instance, the free set is what web search can use: switch it on, and say so.
              const allowed = value ? providersWhenAllowed(this.#host.settings, (name) => this.#hasSecret(name)) : undefined;
              await this.#applyChange((s) => {
                s.external.enabled = value;
                if (allowed) s.external.providers = allowed.providers;
              });
              this.#freeSetAdded = allowed?.added === true;
              if (this.#freeSetAdded) this.#redraw();
            }),
          );
        },
      },
      {
        key: "external.defaultMode",
        name: "Default for new questions",
        desc: "Where the panel's external web choice starts. If vault is weak: search only when your notes have little on the question.",
        fill: (setting) => {
          setting.addDropdown((dropdown) => {
            for (const mode of externalModes) dropdown.addOption(mode, MODE_LABELS[mode]);
            dropdown.setValue(external().defaultMode).onChange(async (value) => {
              await this.#applyChange((s) => (s.external.defaultMode = value as ExternalMode));
            });
          });
        },
      },
      {
        key: "external.freshness",
        name: "Freshness",
        desc: "How recent web results should be, by default.",
        fill: (setting) => {
          setting.addDropdown((dropdown) => {
            const freshness = external().freshness;
            for (const [value, label] of Object.entries(FRESHNESS_LABELS)) dropdown.addOption(value, label);
            if (!(freshness in FRESHNESS_LABELS)) dropdown.addOption(freshness, freshness.replace("to", " to "));
            dropdown.setValue(freshness).onChange(async (value) => {
              await this.#applyChange((s) => (s.external.freshness = value));
            });
          });
        },
      },
      this.#numberRow("external.count", "Web results per question", "How many pages to use, at most 10.", () => external().count, (s, n) => (s.external.count = n)),
      this.#numberRow("external.tokenBudget", "Web text budget", "Tokens of web text the answer may read.", () => external().tokenBudget, (s, n) => (s.external.tokenBudget = n)),
      this.#numberRow("external.timeout", "Web search timeout (seconds)", "After this, the answer uses what your vault has.", () => external().timeoutMs, (s, ms) => (s.external.timeoutMs = ms), MS_PER_SECOND),
      {
        key: "external.readPages",
        name: "Pages to read per question",
        desc: "The top web results that came with only a snippet are fetched and read, and their best passages go to the answer. Off reads none.",
        fill: (setting) => {
          setting.addDropdown((dropdown) => {
            for (let n = 0; n <= 5; n++) dropdown.addOption(String(n), n === 0 ? "Off" : String(n));
            dropdown.setValue(String(external().readPages)).onChange(async (value) => {
              await this.#applyChange((s) => (s.external.readPages = Number(value)));
            });
          });
        },
      },
      this.#toggleRow("external.summarizePages", "Summarize pages read", "Ask the model for a short summary of each page read, shown beside its passages (never instead of them). Needs a model.", () => external().summarizePages, (s, v) => (s.external.summarizePages = v)),
    ];
  }

  #hasSecret(name: SecretName): boolean {
    return secretIsSet(this.app, this.#host.settings, name);
  }

  #freeSetRow(): Row {
    const desc = `${FREE_SET_WORDS}: no key needed. Each question goes only to the sources that fit it.`;
    return {
      key: "providers.free",
      name: "Free sources",
      desc: this.#freeSetAdded ? `${desc} Switched on because no API key is set.` : desc,
      aliases: ["no key", "free"],
      fill: (setting) => {
        setting.addToggle((toggle) =>
          toggle.setValue(FREE_SOURCES.every((p) => this.#host.settings.external.providers.includes(p))).onChange(async (value) => {
            await this.#applyChange((s) => {
              const others = s.external.providers.filter((p) => !(FREE_SOURCES as readonly ProviderName[]).includes(p));
              s.external.providers = value ? [...others, ...FREE_SOURCES] : others;
            });
            this.#freeSetAdded = false;
            this.#redraw();
          }),
        );
      },
    };
  }

  /** One toggle per provider, the enabled ones first in the order they are asked; a row is a place in that order. */
  #providerRows(): Row[] {
    const enabled = this.#host.settings.external.providers;
    const ordered = [...enabled, ...providerNames.filter((p) => !enabled.includes(p))];
    return ordered.map((provider, position) => ({
      key: `providers.${position}`,
      name: providerChoiceName(provider),
      desc: PROVIDER_DESCRIPTIONS[provider],
      aliases: ["search provider", "web search"],
      fill: (setting) => {
        const on = position < enabled.length;
        setting.addToggle((toggle) =>
          toggle.setValue(on).onChange(async (value) => {
            await this.#applyChange((s) => {
              s.external.providers = value ? [...s.external.providers.filter((p) => p !== provider), provider] : s.external.providers.filter((p) => p !== provider);
            });
            this.#redraw();
          }),
        );
        if (!on || position === 0) return;
        setting.addExtraButton((button) =>
          button
            .setIcon("arrow-up")
            .setTooltip("Ask this provider earlier")
            .onClick(async () => {
              await this.#applyChange((s) => {
                const list = s.external.providers;
                [list[position - 1], list[position]] = [list[position], list[position - 1]];
              });
              this.#redraw();
            }),
        );
      },
    }));
  }

  #braveRows(): Row[] {
    const brave = () => this.#host.settings.external.brave;
    return [
      this.#secretRow("brave.key", "Brave API key", "Used by Brave and Brave Web. Get one at brave.com/search/api.", () => brave().secretId, (s, id) => (s.external.brave.secretId = id)),
      this.#textRow("brave.baseUrl", "Brave base URL", "Change only to go through a proxy.", () => brave().baseUrl, (s, v) => (s.external.brave.baseUrl = v)),
      this.#textRow("brave.country", "Country", "Two-letter country code, or ALL.", () => brave().country, (s, v) => (s.external.brave.country = v.toUpperCase())),
      this.#textRow("brave.searchLang", "Search language", "For example en, de or pt-br.", () => brave().searchLang, (s, v) => (s.external.brave.searchLang = v)),
      this.#choiceRow("brave.safesearch", "Safe search", undefined, { off: "Off", moderate: "Moderate", strict: "Strict" }, () => brave().safesearch, (s, v) => (s.external.brave.safesearch = v as Settings["external"]["brave"]["safesearch"])),
    ];
  }

  #exaRows(): Row[] {
    const exa = () => this.#host.settings.external.exa;
    return [
      this.#secretRow("exa.key", "Exa API key", "Get one at exa.ai.", () => exa().secretId, (s, id) => (s.external.exa.secretId = id)),
      this.#textRow("exa.baseUrl", "Exa base URL", "Change only to go through a proxy.", () => exa().baseUrl, (s, v) => (s.external.exa.baseUrl = v)),
      this.#choiceRow(
        "exa.searchType",
        "Search type",
        undefined,
        { auto: "Auto", fast: "Fast", instant: "Instant", neural: "Neural", keyword: "Keyword" },
        () => exa().searchType,
        (s, v) => (s.external.exa.searchType = v as Settings["external"]["exa"]["searchType"]),
      ),
      this.#toggleRow("exa.includeText", "Include page text", "Ask Exa for page text as well as highlights. Longer answers to read, more to send to the model.", () => exa().includeText, (s, v) => (s.external.exa.includeText = v)),
      this.#numberRow("exa.maxTextCharacters", "Page text length", "Characters of page text per result, when page text is included.", () => exa().maxTextCharacters, (s, n) => (s.external.exa.maxTextCharacters = n)),
    ];
  }

  /** Options of the free sources. */
  #sourceRows(): Row[] {
    const external = () => this.#host.settings.external;
    return [
      this.#textRow("wikipedia.language", "Wikipedia language", "Which Wikipedia to search: en, de, fr, simple…", () => external().wikipedia.language, (s, v) => (s.external.wikipedia.language = v.toLowerCase())),
      this.#textRow("stackexchange.site", "Stack Exchange site", "Which site to search: stackoverflow, superuser, math…", () => external().stackexchange.site, (s, v) => (s.external.stackexchange.site = v.toLowerCase())),
      this.#secretRow("github.token", "GitHub token", "Optional: raises GitHub's search limit from 10 to 30 a minute. Needs no permissions.", () => external().github.secretId, (s, id) => (s.external.github.secretId = id)),
    ];
  }

  #searxngRows(): Row[] {
    return [
      this.#textRow(
        "searxng.baseUrl",
        "SearXNG instance",
        "Address of your instance, for example http://localhost:8888. Its settings.yml must list json under search formats. Behind a login, write the user name in the address (https://name@…) and set the password below.",
        () => this.#host.settings.external.searxng.baseUrl,
        (s, v) => (s.external.searxng.baseUrl = v.replace(/\/+$/, "")),
        // The address is saved in data.json, which sync and backups carry: a password never is.
        { refuse: (s) => (addressWithoutPassword(s.external.searxng.baseUrl) ? "No password in the address: it would be saved in the settings file. Keep the user name here (https://name@…) and set the password below." : null) },
      ),
      this.#secretRow("searxng.password", "SearXNG password", "Only for an instance behind a login; the user name goes in the address.", () => this.#host.settings.external.searxng.secretId, (s, id) => (s.external.searxng.secretId = id), ["password", "login", "basic auth", "secret"]),
    ];
  }

  #tavilyRows(): Row[] {
    const tavily = () => this.#host.settings.external.tavily;
    return [
      this.#secretRow("tavily.key", "Tavily API key", "Get one at tavily.com.", () => tavily().secretId, (s, id) => (s.external.tavily.secretId = id)),
      this.#choiceRow(
        "tavily.searchDepth",
        "Tavily search depth",
        "Advanced reads pages more closely and costs two credits a search.",
        { basic: "Basic", advanced: "Advanced" },
        () => tavily().searchDepth,
        (s, v) => (s.external.tavily.searchDepth = v as Settings["external"]["tavily"]["searchDepth"]),
      ),
    ];
  }

  #modelRows(): Row[] {
    const model = () => this.#host.settings.model;
    const chosen = () => model().kind !== "none";
    const openai = model().kind === "openai";
    return [
      {
        key: "model.kind",
        name: "Model",
        desc: "Without a model, answers are evidence briefs: the most relevant sentences of your notes, each cited. OpenAI-compatible covers Ollama, LM Studio, llama.cpp and OpenAI.",
        aliases: ["chat model", "LLM", "Ollama", "OpenAI", "Anthropic"],
        fill: (setting) => {
          setting.addDropdown((dropdown) =>
            dropdown
              .addOptions(MODEL_KINDS)
              .setValue(model().kind)
              .onChange(async (value) => {
                await this.#applyChange((s) => (s.model.kind = value as Settings["model"]["kind"]));
                this.#redraw();
              }),
          );
        },
      },
      {
        ...this.#textRow("model.baseUrl", "Base URL", "Ollama: http://localhost:11434/v1 · LM Studio: http://localhost:1234/v1 · OpenAI: https://api.openai.com/v1", () => model().baseUrl, (s, v) => (s.model.baseUrl = v)),
        shown: () => model().kind === "openai",
      },
      {
        ...this.#textRow("model.model", "Model name", openai ? "For example llama3.1:8b or gpt-4o-mini." : "For example claude-sonnet-4-5.", () => model().model, (s, v) => (s.model.model = v.trim())),
        shown: chosen,
      },
      {
        ...this.#secretRow("model.key", "Model API key", openai ? "Optional: Ollama and LM Studio need none." : "Required for Anthropic.", () => model().secretId, (s, id) => (s.model.secretId = id)),
        shown: chosen,
      },
      {
        ...this.#numberRow("model.timeout", "Model timeout (seconds)", "How long to wait for an answer.", () => model().timeoutMs, (s, ms) => (s.model.timeoutMs = ms), MS_PER_SECOND),
        shown: chosen,
      },
      {
        ...this.#toggleRow(
          "model.checkVaultEvidence",
          "Let the model check the vault's evidence",
          "Before deciding whether your notes answer the question, the model reads the excerpts found and may rewrite the question up to three times to search your notes again (never the web). Two more calls a question; how well it judges depends on the model.",
          () => model().checkVaultEvidence,
          (s, v) => (s.model.checkVaultEvidence = v),
        ),
        shown: chosen,
      },
      {
        key: "model.test",
        name: "Test connection",
        desc: "Sends one tiny request to the model.",
        shown: chosen,
        fill: (setting) => {
          const status = rowStatus(setting);
          setting.addButton((button) =>
            whenPressed(button.setButtonText("Test"), async () => {
              status.removeClass("vault-research-test-failed", "vault-research-test-passed");
              status.setText("Testing…");
              const outcome = await this.#host.testModelConnection();
              status.setText(outcome.message);
              status.addClass(outcome.ok ? "vault-research-test-passed" : "vault-research-test-failed");
            }),
          );
        },
      },
    ];
  }

  #searchRows(): Row[] {
    const search = () => this.#host.settings.search;
    return [
      this.#levelRow("search.searchLevel", "Search level in the search modal", "Where the search modal's dial starts; it remembers where you leave it.", () => search().searchLevel, (s, level) => (s.search.searchLevel = level)),
      this.#levelRow("search.researchLevel", "Search level for research", "How hard a research run searches your vault; the panel's dial remembers where you leave it.", () => search().researchLevel, (s, level) => (s.search.researchLevel = level)),
      this.#toggleRow("search.showScores", "Show scores", "Show each result's scores: per way of matching, and how the model's reordering moved it.", () => search().showScores, (s, v) => (s.search.showScores = v)),
      ...this.#embeddingRows(),
      this.#toggleRow(
        "search.queryLog",
        "Keep a search query log",
        "Each search and research question, its level, the results in order and the one you opened, on this device only: never in your vault's folder, never sent anywhere. It shows what each level does for you.",
        () => search().queryLog,
        (s, v) => (s.search.queryLog = v),
      ),
      {
        key: "search.clearQueryLog",
        name: "Clear the search query log",
        desc: "Deletes every line logged so far.",
        fill: (setting) => {
          const status = rowStatus(setting);
          setting.addButton((button) => whenPressed(button.setButtonText("Clear"), async () => status.setText(await this.#host.clearQueryLog())));
        },
      },
    ];
  }

  #levelRow(key: string, name: string, desc: string, value: () => DialLevel, apply: (s: Settings, level: DialLevel) => void): Row {
    const options = Object.fromEntries(DIAL_LEVELS.map((level) => [String(level), `${level} · ${DIAL_LEVEL_NAMES[level]}: ${LEVEL_WORDS[level]}`]));
    return { ...this.#choiceRow(key, name, desc, options, () => String(value()), (s, chosen) => apply(s, Number(chosen) as DialLevel)), aliases: ["dial", "lexical", "hybrid", "rerank"] };
  }

  #embeddingRows(): Row[] {
    const embedding = () => this.#host.settings.search.embedding;
    const chosen = () => embedding().kind !== "none";
    const ollama = embedding().kind === "ollama";
    return [
      {
        key: "embedding.kind",
        name: "Embedding server",
        desc: "Levels 2 and 3 find notes by meaning with an embedding model. None keeps search to words, on this device.",
        aliases: ["embeddings", "semantic search", "Ollama"],
        fill: (setting) => {
          setting.addDropdown((dropdown) =>
            dropdown
              .addOptions(EMBEDDING_KINDS)
              .setValue(embedding().kind)
              .onChange(async (value) => {
                await this.#applyChange((s) => (s.search.embedding.kind = value as Settings["search"]["embedding"]["kind"]));
                this.#redraw();
              }),
          );
        },
      },
      // Saved when the field is left, not per keystroke: each model name or address typed halfway would start (or stop) embedding.
      {
        ...this.#committedTextRow("embedding.model", "Embedding model", ollama ? "Empty: nomic-embed-text." : "For example nomic-embed-text or text-embedding-3-small.", () => embedding().model, ollama ? "nomic-embed-text" : "", (s, v) => (s.search.embedding.model = v)),
        shown: chosen,
      },
      {
        ...this.#committedTextRow(
          "embedding.baseUrl",
          "Embedding server address",
          ollama ? "Empty: this computer's Ollama (http://localhost:11434)." : "Empty: http://localhost:11434/v1. LM Studio: http://localhost:1234/v1 · OpenAI: https://api.openai.com/v1",
          () => embedding().baseUrl,
          ollama ? "http://localhost:11434" : "http://localhost:11434/v1",
          (s, v) => (s.search.embedding.baseUrl = v.replace(/\/+$/, "")),
        ),
        shown: chosen,
      },
      { ...this.#secretRow("embedding.key", "Embedding API key", "Optional: local servers need none.", () => embedding().secretId, (s, id) => (s.search.embedding.secretId = id)), shown: () => embedding().kind === "openai" },
      {
        ...this.#numberRow("embedding.rate", "Embedding requests per second", "At most this many requests a second while embedding the vault (0.1 to 50).", () => embedding().requestsPerSecond, (s, n) => (s.search.embedding.requestsPerSecond = n)),
        shown: chosen,
      },
      { key: "embedding.consent", name: "Send notes to the embedding server", aliases: ["consent", "agree"], shown: chosen, fill: (setting) => this.#fillConsent(setting) },
    ];
  }

  /** What the server would receive, and the button that agrees to it; nothing is embedded before. */
  #fillConsent(setting: Setting): void {
    setting.setClass("vault-research-embedding-consent");
    const choice = this.#host.embeddingChoice();
    if (choice.kind === "off") return;
    if (choice.kind === "unusable") {
      setting.setDesc(`${choice.message} Nothing is embedded until then.`);
      return;
    }
    if (choice.consented) {
      setting.setDesc(`Agreed. ${choice.disclosure}`);
      setting.addButton((button) =>
        button.setButtonText("Stop embedding").onClick(async () => {
          await this.#applyChange((s) => (s.search.embedding.consentedTo = ""));
          this.#refill("embedding.consent");
        }),
      );
      return;
    }
    setting.setDesc(`${choice.disclosure} Nothing is sent until you agree; changing the server or its address asks again.`);
    setting.addButton((button) =>
      button
        .setButtonText("Agree and embed")
        .setCta()
        .onClick(async () => {
          await this.#applyChange((s) => (s.search.embedding.consentedTo = choice.consentKey));
          this.#refill("embedding.consent");
        }),
    );
  }

  #notesRows(): Row[] {
    const notes = () => this.#host.settings.notes;
    return [
      this.#toggleRow("notes.writeTraceNotes", "Write trace notes", "A note per run explaining what was searched, what was found and what was sent. Trace notes are never indexed.", () => notes().writeTraceNotes, (s, v) => (s.notes.writeTraceNotes = v)),
      this.#textRow(
        "notes.traceFolder",
        "Trace folder",
        "Where trace notes go.",
        () => notes().traceFolder,
        (s, v) => (s.notes.traceFolder = vaultFolder(v)),
        { after: () => this.#applyExclusions(), refuse: (s) => whySourcesFolderHidden(s.notes) },
      ),
      this.#textRow("notes.sourcesFolder", "Sources folder", "Where web pages you add to the vault go.", () => notes().sourcesFolder, (s, v) => (s.notes.sourcesFolder = vaultFolder(v)), {
        refuse: (s) => whySourcesFolderHidden(s.notes),
      }),
    ];
  }

  #indexRows(): Row[] {
    // Read at each use, never kept: the settings object is replaced when data.json changes on disk
    // (Sync), and a change written into the old one would be lost at the save that follows.
    const settings = () => this.#host.settings;
    /** A switch whose change re-analyses every note: saved, then the index rebuilt. */
    const rebuildingToggle = (key: "stemming" | "vaultLanguage", name: string, desc: string): Row => ({
      key: `index.${key}`,
      name,
      desc,
      fill: (setting) => {
        setting.addToggle((toggle) =>
          toggle.setValue(settings().index[key]).onChange(async (value) => {
            settings().index[key] = value;
            await this.#host.saveSettings();
            await this.#host.applyIndexSettings({ rebuild: true });
          }),
        );
      },
    });
    return [
      {
        key: "index.excludedFolders",
        name: "Excluded folders",
        desc: EXCLUDED_FOLDERS_DESC,
        aliases: ["ignore", "exclude"],
        fill: (setting) => {
          const newest = newestInput();
          setting.addText((text) =>
            text
              .setPlaceholder("Archive")
              .setValue(settings().index.excludedFolders.join(", "))
              .onChange(async (value) => {
                const isNewest = newest();
                const problem = await this.#applyChange((s) => (s.index.excludedFolders = parseFolderList(value)));
                if (isNewest()) showProblem(setting, text.inputEl, problem);
                if (!problem) this.#applyExclusions();
              }),
          );
        },
      },
      rebuildingToggle("stemming", "Match word forms", "Find notes that say “running” when you search for “run” (English). Changing this rebuilds the index."),
      rebuildingToggle(
        "vaultLanguage",
        "Learn this vault's language",
        "Also find notes that say the same thing in other words, from which words your notes use alike. Learned on this device from your notes after a full build (seconds on a large vault); nothing is sent anywhere. Changing this rebuilds the index.",
      ),
      {
        key: "index.rebuild",
        name: "Rebuild index",
        desc: "Reads every note again. Use it if search results look out of date.",
        fill: (setting) => {
          setting.addButton((button) => whenPressed(button.setButtonText("Rebuild"), () => this.#host.rebuildIndex()));
        },
      },
    ];
  }

  #toggleRow(key: string, name: string, desc: string, value: () => boolean, apply: (s: Settings, value: boolean) => void): Row {
    return {
      key,
      name,
      desc,
      fill: (setting) => {
        setting.addToggle((toggle) =>
          toggle.setValue(value()).onChange(async (chosen) => {
            await this.#applyChange((s) => apply(s, chosen));
          }),
        );
      },
    };
  }

  #choiceRow(key: string, name: string, desc: string | undefined, options: Record<string, string>, value: () => string, apply: (s: Settings, value: string) => void): Row {
    return {
      key,
      name,
      desc,
      fill: (setting) => {
        setting.addDropdown((dropdown) =>
          dropdown
            .addOptions(options)
            .setValue(value())
            .onChange(async (chosen) => {
              await this.#applyChange((s) => apply(s, chosen));
            }),
        );
      },
    };
  }

  /** A text field saved only when valid; a problem is shown under the field. */
  #textRow(key: string, name: string, desc: string, value: () => string, apply: (s: Settings, value: string) => void, options: { after?: () => void; refuse?: ChangeCheck["refuse"] } = {}): Row {
    const { after, refuse } = options;
    return {
      key,
      name,
      desc,
      fill: (setting) => {
        const newest = newestInput();
        setting.addText((text) =>
          text.setValue(value()).onChange(async (input) => {
            const isNewest = newest();
            const problem = await this.#applyChange((s) => apply(s, input.trim()), { refuse });
            if (isNewest()) showProblem(setting, text.inputEl, problem);
            if (!problem) after?.();
          }),
        );
      },
    };
  }

  /** A text field saved when it is left (or Enter is pressed), only when valid. */
  #committedTextRow(key: string, name: string, desc: string, value: () => string, placeholder: string, apply: (s: Settings, value: string) => void): Row {
    return {
      key,
      name,
      desc,
      fill: (setting) => {
        const newest = newestInput();
        setting.addText((text) => {
          text.setPlaceholder(placeholder).setValue(value());
          text.inputEl.addEventListener("change", () => {
            const isNewest = newest();
            void this.#applyChange((s) => apply(s, text.getValue().trim())).then((problem) => {
              if (isNewest()) showProblem(setting, text.inputEl, problem);
              // The consent line below says what the new server would receive.
              if (!problem) this.#refill("embedding.consent");
            });
          });
        });
      },
    };
  }

  /**
   * A number field. `value` and `apply` speak the settings' unit; the field shows `perUnit` of them
   * as one (1000 for a timeout stored in ms and typed in seconds), and says a refused number's
   * limit in the field's unit: "Enter 120 or less.", never "<=120000".
   */
  #numberRow(key: string, name: string, desc: string, value: () => number, apply: (s: Settings, stored: number) => void, perUnit = 1): Row {
    return {
      key,
      name,
      desc,
      fill: (setting) => {
        const newest = newestInput();
        setting.addText((text) => {
          text.inputEl.type = "number";
          text.setValue(String(value() / perUnit)).onChange(async (input) => {
            const isNewest = newest();
            const n = Number(input);
            const stored = perUnit === 1 ? n : Math.round(n * perUnit);
            const problem =
              input.trim() === "" || !Number.isFinite(n) ? "Enter a number." : await this.#applyChange((s) => apply(s, stored), { words: (issue) => numberProblem(issue, perUnit) });
            if (isNewest()) showProblem(setting, text.inputEl, problem);
          });
        });
      },
    };
  }

  #secretRow(key: string, name: string, desc: string, secretId: () => string, apply: (s: Settings, id: string) => void, aliases = ["API key", "token", "secret"]): Row {
    return {
      key,
      name,
      desc: `${desc} Stored in Obsidian's secret storage.`,
      aliases,
      fill: (setting) => {
        const newest = newestInput();
        setting.addComponent((control) => {
          const picker = new SecretComponent(this.app, control).setValue(secretId());
          return picker.onChange(async (id) => {
            const isNewest = newest();
            const inUse = secretId();
            // The schema refuses a secret's id only for a key's look (settings.ts `secretIdSchema`).
            const problem = await this.#applyChange((s) => apply(s, id), { words: (issue) => (issue.path.at(-1) === "secretId" ? keyAsSecretIdWords(inUse) : issue.message) });
            // The picker shows the refused key as this row's choice until told otherwise: back to the id in use.
            if (problem) picker.setValue(inUse);
            if (isNewest()) sayProblem(setting, problem);
          });
        });
      },
    };
  }
}

/** Draws `row` into `setting` afresh: its name and words, its controls, and the controls' names. */
function fillRow(setting: Setting, row: Row): void {
  setting.clear();
  setting.setName(row.name).setDesc(row.desc ?? "");
  row.fill(setting);
  nameControls(setting);
  describeControls(setting);
}

/**
 * Gives every field, toggle and list of a row the row's name, so a screen reader says "Trace
 * folder, edit text" rather than "edit text". A row with two fields (a secret's list and its
 * new-key field) names the second after the first.
 */
function nameControls(setting: Setting): void {
  const name = setting.nameEl.textContent?.trim();
  if (!name) return;
  const controls = Array.from(setting.controlEl.querySelectorAll<HTMLElement>("input, select, textarea"));
  controls.forEach((control, i) => {
    if (control.hasAttribute("aria-label") || control.hasAttribute("aria-labelledby")) return;
    control.setAttr("aria-label", i === 0 ? name : `${name}: ${control.getAttribute("placeholder") || `field ${i + 1}`}`);
  });
}

let describedRows = 0;

/**
 * Ties a row's controls to its description and its live line (made now, empty, so what is written
 * there later is read out): a field marked invalid is heard with why, in its own unit.
 */
function describeControls(setting: Setting): void {
  const controls = focusableControls(setting);
  if (controls.length === 0) return;
  rowStatus(setting);
  if (!setting.descEl.id) setting.descEl.id = `vault-research-setting-desc-${++describedRows}`;
  for (const control of controls) if (!control.hasAttribute("aria-describedby")) control.setAttr("aria-describedby", setting.descEl.id);
}

/**
 * Runs `work` when `button` is pressed, one at a time. While it runs the button says it is busy
 * (`aria-disabled`) and a press does nothing; it is not disabled, which would drop the keyboard's
 * focus to the page's top, where the outcome below it is out of reach.
 */
function whenPressed(button: ButtonComponent, work: () => Promise<unknown>): void {
  let busy = false;
  button.onClick(async () => {
    if (busy) return;
    busy = true;
    button.buttonEl.setAttr("aria-disabled", "true");
    try {
      await work();
    } finally {
      busy = false;
      button.buttonEl.removeAttribute("aria-disabled");
    }
  });
}

/**
 * A line under a row's description for what its button did ("Connected to llama3.1"), in a live
 * region so a screen reader says it: the press itself moves nothing the reader would follow.
 */
function rowStatus(setting: Setting): HTMLElement {
  return setting.descEl.querySelector<HTMLElement>(".vault-research-row-status") ?? setting.descEl.createDiv({ cls: "vault-research-row-status", attr: { role: "status" } });
}

/** What the keyboard reaches in a row, in order: fields, lists, buttons, toggles, icon buttons. */
function focusableControls(setting: Setting): HTMLElement[] {
  return Array.from(setting.controlEl.querySelectorAll<HTMLElement>('input, select, textarea, button, a[href], [tabindex]:not([tabindex="-1"])')).filter(
    (el) => !el.hasAttribute("disabled"),
  );
}

/** A number the schema refused, said in the field's unit (`perUnit` stored units make one shown). */
function numberProblem(issue: SettingsIssue, perUnit: number): string {
  if (issue.code === "too_big") return `Enter ${Number(issue.maximum) / perUnit} or less.`;
  if (issue.code === "too_small") return `Enter ${Number(issue.minimum) / perUnit} or more.`;
  if (issue.code === "invalid_type") return "Enter a whole number.";
  return issue.message;
}

/**
 * Tells a field's newest input from older ones: each input saves, and a save that ends after the
 * next input was refused must not clear that refusal (the field would show a value the settings
 * never took, marked as fine). Each call marks an input; what it returns says whether it is still the newest.
 */
function newestInput(): () => () => boolean {
  let inputs = 0;
  return () => {
    const mine = ++inputs;
    return () => mine === inputs;
  };
}

/**
 * What a secret's row says when a key was chosen as the secret's id (an Exa key is an id secret
 * storage takes): never the key, and where it goes instead. `inUse` is the id kept, named as the example.
 */
function keyAsSecretIdWords(inUse: string): string {
  const example = inUse.trim() === "" ? "" : ` such as "${inUse}"`;
  return (
    "That looks like an API key, not a secret's name, so it was not saved: this plugin's settings file keeps only the name. " +
    `Keep the key in secret storage as the value of a secret with a name${example}, and choose that name here. ` +
    "A secret made with the key as its name still holds it in secret storage: remove it there."
  );
}

/**
 * Marks the field and says under it why its value was refused (the good one is kept), in the row's
 * live line, so a screen reader says it as it appears; cleared once the value is good.
 */
function showProblem(setting: Setting, input: HTMLElement, problem: string | null): void {
  input.toggleClass("vault-research-invalid", problem !== null);
  // Spelled out: an empty aria-invalid (what `setAttr(name, true)` may write) means valid.
  input.setAttr("aria-invalid", problem === null ? null : "true");
  sayProblem(setting, problem);
}

/** Says in the row's live line why a value was refused, or clears it (a picker has no field to mark). */
function sayProblem(setting: Setting, problem: string | null): void {
  const status = rowStatus(setting);
  // The same words are not written again: each keystroke would have them read out once more.
  if (status.textContent !== (problem ?? "")) status.setText(problem ?? "");
  status.toggleClass("is-problem", problem !== null);
}
