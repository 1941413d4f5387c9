// The settings tab: what leaves the device (said first, in plain words), external search and its
// providers, the model that writes answers, and the notes and index. API keys are chosen with
// Obsidian's SecretComponent, so data.json only ever holds the *id* of a secret.
import { debounce, PluginSettingTab, SecretComponent, Setting, type App, type Plugin } from "obsidian";
import { DIAL_LEVEL_NAMES, DIAL_LEVELS, type DialLevel } from "../index/dial/dial-types";
import { externalModes, providerNames, settingsSchema, type ExternalMode, type ProviderName, type Settings } from "../settings";
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

/** Splits user input on commas and new lines into vault-relative folder paths. */
export function parseFolderList(input: string): string[] {
  const folders = input
    .split(/[,\n]/)
    .map((f) => f.trim().replace(/^\/+|\/+$/g, ""))
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

export class VaultResearchSettingTab extends PluginSettingTab {
  /** Set when allowing web search switched the free set on, so the tab can say why. */
  private freeSetAdded = false;
  /** Where the embedding consent is drawn (redrawn on its own when the server changes). */
  private consentEl: HTMLElement | null = null;
  // Typing a folder name must not re-index on every keystroke.
  private readonly applyExclusions = debounce(() => void this.host.applyIndexSettings({ rebuild: false }), 1200, true);

  constructor(
    app: App,
    plugin: Plugin,
    private readonly host: SettingsHost,
  ) {
    super(app, plugin);
  }

  override display(): void {
    const { containerEl } = this;
    containerEl.empty();
    containerEl.addClass("vault-research-settings");
    this.displayPrivacy(containerEl);
    this.displayExternal(containerEl);
    this.displayProviders(containerEl);
    this.displayModel(containerEl);
    this.displaySearch(containerEl);
    this.displayNotesAndIndex(containerEl);
    nameControls(containerEl);
  }

  override hide(): void {
    this.applyExclusions.run();
    super.hide();
  }

  /**
   * Changes settings only if the result is valid (the same zod schema as data.json), so a typo
   * never reaches the file. Returns the problem, or null when saved.
   */
  private async applyChange(change: (s: Settings) => void): Promise<string | null> {
    const draft = structuredClone(this.host.settings);
    change(draft);
    const checked = settingsSchema.safeParse(draft);
    if (!checked.success) return checked.error.issues[0]?.message ?? "Not a valid value.";
    change(this.host.settings);
    await this.host.saveSettings();
    return null;
  }

  private displayPrivacy(el: HTMLElement): void {
    new Setting(el).setName("What leaves this device").setHeading();
    const note = el.createDiv({ cls: "vault-research-privacy" });
    for (const paragraph of PRIVACY_NOTE) note.createEl("p", { text: paragraph });
  }

  private displayExternal(el: HTMLElement): void {
    const external = this.host.settings.external;
    new Setting(el).setName("External search").setHeading();

    new Setting(el)
      .setName("Allow web search")
      .setDesc("While off, nothing is ever sent to a search provider. When on, each question still chooses whether to use the web.")
      .addToggle((toggle) =>
        toggle.setValue(external.enabled).onChange(async (value) => {
          // With no key and no instance, the free set is what web search can use: switch it on, and say so.
          const allowed = value ? providersWhenAllowed(this.host.settings, (name) => this.hasSecret(name)) : undefined;
          await this.applyChange((s) => {
            s.external.enabled = value;
            if (allowed) s.external.providers = allowed.providers;
          });
          this.freeSetAdded = allowed?.added === true;
          if (this.freeSetAdded) this.display();
        }),
      );

    new Setting(el)
      .setName("Default for new questions")
      .setDesc("Where the panel's external web choice starts. If vault is weak: search only when your notes have little on the question.")
      .addDropdown((dropdown) => {
        for (const mode of externalModes) dropdown.addOption(mode, MODE_LABELS[mode]);
        dropdown.setValue(external.defaultMode).onChange(async (value) => {
          await this.applyChange((s) => (s.external.defaultMode = value as ExternalMode));
        });
      });

    new Setting(el)
      .setName("Freshness")
      .setDesc("How recent web results should be, by default.")
      .addDropdown((dropdown) => {
        for (const [value, label] of Object.entries(FRESHNESS_LABELS)) dropdown.addOption(value, label);
        if (!(external.freshness in FRESHNESS_LABELS)) dropdown.addOption(external.freshness, external.freshness.replace("to", " to "));
        dropdown.setValue(external.freshness).onChange(async (value) => {
          await this.applyChange((s) => (s.external.freshness = value));
        });
      });

    this.numberSetting(el, "Web results per question", "How many pages to use, at most 10.", external.count, (s, n) => (s.external.count = n));
    this.numberSetting(el, "Web text budget", "Tokens of web text the answer may read.", external.tokenBudget, (s, n) => (s.external.tokenBudget = n));
    this.numberSetting(el, "Web search timeout (seconds)", "After this, the answer uses what your vault has.", external.timeoutMs / 1000, (s, n) => (s.external.timeoutMs = Math.round(n * 1000)));
    this.displayPageReading(el);
  }

  private displayPageReading(el: HTMLElement): void {
    const external = this.host.settings.external;
    new Setting(el)
      .setName("Pages to read per question")
      .setDesc("The top web results that came with only a snippet are fetched and read, and their best passages go to the answer. Off reads none.")
      .addDropdown((dropdown) => {
        for (let n = 0; n <= 5; n++) dropdown.addOption(String(n), n === 0 ? "Off" : String(n));
        dropdown.setValue(String(external.readPages)).onChange(async (value) => {
          await this.applyChange((s) => (s.external.readPages = Number(value)));
        });
      });
    new Setting(el)
      .setName("Summarize pages read")
      .setDesc("Ask the model for a short summary of each page read, shown beside its passages (never instead of them). Needs a model.")
      .addToggle((toggle) =>
        toggle.setValue(external.summarizePages).onChange(async (value) => {
          await this.applyChange((s) => (s.external.summarizePages = value));
        }),
      );
  }

  private hasSecret(name: SecretName): boolean {
    return secretIsSet(this.app, this.host.settings, name);
  }

  private displayFreeSet(el: HTMLElement): void {
    const enabled = this.host.settings.external.providers;
    const on = FREE_SOURCES.every((p) => enabled.includes(p));
    const desc = `${FREE_SET_WORDS}: no key needed. Each question goes only to the sources that fit it.`;
    new Setting(el)
      .setName("Free sources")
      .setDesc(this.freeSetAdded ? `${desc} Switched on because no API key is set.` : desc)
      .addToggle((toggle) =>
        toggle.setValue(on).onChange(async (value) => {
          await this.applyChange((s) => {
            const others = s.external.providers.filter((p) => !(FREE_SOURCES as readonly ProviderName[]).includes(p));
            s.external.providers = value ? [...others, ...FREE_SOURCES] : others;
          });
          this.freeSetAdded = false;
          this.display();
        }),
      );
  }

  private displayProviders(el: HTMLElement): void {
    new Setting(el).setName("Search providers").setHeading();
    this.displayFreeSet(el);
    this.displayProviderToggles(el);
    this.displayBraveOptions(el);
    this.displayExaOptions(el);
    this.displaySourceOptions(el);
  }

  /** One toggle per provider, the enabled ones first in the order they are asked. */
  private displayProviderToggles(el: HTMLElement): void {
    const enabled = this.host.settings.external.providers;
    const ordered = [...enabled, ...providerNames.filter((p) => !enabled.includes(p))];
    for (const provider of ordered) {
      const on = enabled.includes(provider);
      const position = enabled.indexOf(provider);
      const setting = new Setting(el)
        .setName(providerChoiceName(provider))
        .setDesc(PROVIDER_DESCRIPTIONS[provider])
        .addToggle((toggle) =>
          toggle.setValue(on).onChange(async (value) => {
            await this.applyChange((s) => {
              s.external.providers = value ? [...s.external.providers.filter((p) => p !== provider), provider] : s.external.providers.filter((p) => p !== provider);
            });
            this.display();
          }),
        );
      if (on && position > 0) {
        setting.addExtraButton((button) =>
          button
            .setIcon("arrow-up")
            .setTooltip("Ask this provider earlier")
            .onClick(async () => {
              await this.applyChange((s) => {
                const list = s.external.providers;
                [list[position - 1], list[position]] = [list[position], list[position - 1]];
              });
              this.display();
            }),
        );
      }
    }
  }

  private displayBraveOptions(el: HTMLElement): void {
    const brave = this.host.settings.external.brave;
    new Setting(el).setName("Brave").setHeading();
    this.secretSetting(el, "Brave API key", "Used by Brave and Brave Web. Get one at brave.com/search/api.", brave.secretId, (s, id) => (s.external.brave.secretId = id));
    this.textSetting(el, "Brave base URL", "Change only to go through a proxy.", brave.baseUrl, (s, v) => (s.external.brave.baseUrl = v));
    this.textSetting(el, "Country", "Two-letter country code, or ALL.", brave.country, (s, v) => (s.external.brave.country = v.toUpperCase()));
    this.textSetting(el, "Search language", "For example en, de or pt-br.", brave.searchLang, (s, v) => (s.external.brave.searchLang = v));
    new Setting(el).setName("Safe search").addDropdown((dropdown) =>
      dropdown
        .addOptions({ off: "Off", moderate: "Moderate", strict: "Strict" })
        .setValue(brave.safesearch)
        .onChange(async (value) => {
          await this.applyChange((s) => (s.external.brave.safesearch = value as Settings["external"]["brave"]["safesearch"]));
        }),
    );
  }

  private displayExaOptions(el: HTMLElement): void {
    const exa = this.host.settings.external.exa;
    new Setting(el).setName("Exa").setHeading();
    this.secretSetting(el, "Exa API key", "Get one at exa.ai.", exa.secretId, (s, id) => (s.external.exa.secretId = id));
    this.textSetting(el, "Exa base URL", "Change only to go through a proxy.", exa.baseUrl, (s, v) => (s.external.exa.baseUrl = v));
    new Setting(el)
      .setName("Search type")
      .addDropdown((dropdown) =>
        dropdown
          .addOptions({ auto: "Auto", fast: "Fast", instant: "Instant", neural: "Neural", keyword: "Keyword" })
          .setValue(exa.searchType)
          .onChange(async (value) => {
            await this.applyChange((s) => (s.external.exa.searchType = value as Settings["external"]["exa"]["searchType"]));
          }),
      );
    new Setting(el)
      .setName("Include page text")
      .setDesc("Ask Exa for page text as well as highlights. Longer answers to read, more to send to the model.")
      .addToggle((toggle) =>
        toggle.setValue(exa.includeText).onChange(async (value) => {
          await this.applyChange((s) => (s.external.exa.includeText = value));
        }),
      );
    this.numberSetting(el, "Page text length", "Characters of page text per result, when page text is included.", exa.maxTextCharacters, (s, n) => (s.external.exa.maxTextCharacters = n));
  }

  /** Options of the free sources, SearXNG and Tavily. */
  private displaySourceOptions(el: HTMLElement): void {
    const external = this.host.settings.external;
    new Setting(el).setName("Wikipedia, GitHub and more").setHeading();
    this.textSetting(el, "Wikipedia language", "Which Wikipedia to search: en, de, fr, simple…", external.wikipedia.language, (s, v) => (s.external.wikipedia.language = v.toLowerCase()));
    this.textSetting(el, "Stack Exchange site", "Which site to search: stackoverflow, superuser, math…", external.stackexchange.site, (s, v) => (s.external.stackexchange.site = v.toLowerCase()));
    this.secretSetting(el, "GitHub token", "Optional: raises GitHub's search limit from 10 to 30 a minute. Needs no permissions.", external.github.secretId, (s, id) => (s.external.github.secretId = id));

    new Setting(el).setName("SearXNG").setHeading();
    this.textSetting(
      el,
      "SearXNG instance",
      "Address of your instance, for example http://localhost:8888. Its settings.yml must list json under search formats.",
      external.searxng.baseUrl,
      (s, v) => (s.external.searxng.baseUrl = v.replace(/\/+$/, "")),
    );

    new Setting(el).setName("Tavily").setHeading();
    this.secretSetting(el, "Tavily API key", "Get one at tavily.com.", external.tavily.secretId, (s, id) => (s.external.tavily.secretId = id));
    new Setting(el)
      .setName("Tavily search depth")
      .setDesc("Advanced reads pages more closely and costs two credits a search.")
      .addDropdown((dropdown) =>
        dropdown
          .addOptions({ basic: "Basic", advanced: "Advanced" })
          .setValue(external.tavily.searchDepth)
          .onChange(async (value) => {
            await this.applyChange((s) => (s.external.tavily.searchDepth = value as Settings["external"]["tavily"]["searchDepth"]));
          }),
      );
  }

  private displayModel(el: HTMLElement): void {
    const model = this.host.settings.model;
    new Setting(el).setName("Model for answers").setHeading();
    new Setting(el)
      .setName("Model")
      .setDesc("Without a model, answers are evidence briefs: the most relevant sentences of your notes, each cited. OpenAI-compatible covers Ollama, LM Studio, llama.cpp and OpenAI.")
      .addDropdown((dropdown) =>
        dropdown
          .addOptions(MODEL_KINDS)
          .setValue(model.kind)
          .onChange(async (value) => {
            await this.applyChange((s) => (s.model.kind = value as Settings["model"]["kind"]));
            this.display();
          }),
      );
    if (model.kind === "none") return;
    if (model.kind === "openai") {
      this.textSetting(el, "Base URL", "Ollama: http://localhost:11434/v1 · LM Studio: http://localhost:1234/v1 · OpenAI: https://api.openai.com/v1", model.baseUrl, (s, v) => (s.model.baseUrl = v));
    }
    this.textSetting(el, "Model name", model.kind === "openai" ? "For example llama3.1:8b or gpt-4o-mini." : "For example claude-sonnet-4-5.", model.model, (s, v) => (s.model.model = v.trim()));
    this.secretSetting(
      el,
      "Model API key",
      model.kind === "openai" ? "Optional: Ollama and LM Studio need none." : "Required for Anthropic.",
      model.secretId,
      (s, id) => (s.model.secretId = id),
    );
    this.numberSetting(el, "Model timeout (seconds)", "How long to wait for an answer.", model.timeoutMs / 1000, (s, n) => (s.model.timeoutMs = Math.round(n * 1000)));
    new Setting(el)
      .setName("Let the model check the vault's evidence")
      .setDesc(
        "Before deciding whether your notes answer the question, the model reads the excerpts found and may rewrite the question up to three times to search your notes again (never the web). Two more calls a question; how well it judges depends on the model.",
      )
      .addToggle((toggle) =>
        toggle.setValue(model.checkVaultEvidence).onChange(async (value) => {
          await this.applyChange((s) => (s.model.checkVaultEvidence = value));
        }),
      );
    const test = new Setting(el).setName("Test connection").setDesc("Sends one tiny request to the model.");
    test.addButton((button) =>
      button.setButtonText("Test").onClick(async () => {
        button.setDisabled(true);
        test.setDesc("Testing…");
        try {
          const outcome = await this.host.testModelConnection();
          test.setDesc(outcome.message);
          test.descEl.toggleClass("vault-research-test-failed", !outcome.ok);
          test.descEl.toggleClass("vault-research-test-passed", outcome.ok);
        } finally {
          button.setDisabled(false);
        }
      }),
    );
  }

  private displaySearch(el: HTMLElement): void {
    const search = this.host.settings.search;
    new Setting(el).setName("Search").setHeading();
    this.levelSetting(el, "Search level in the search modal", "Where the search modal's dial starts; it remembers where you leave it.", search.searchLevel, (s, level) => (s.search.searchLevel = level));
    this.levelSetting(el, "Search level for research", "How hard a research run searches your vault; the panel's dial remembers where you leave it.", search.researchLevel, (s, level) => (s.search.researchLevel = level));
    new Setting(el)
      .setName("Show scores")
      .setDesc("Show each result's scores: per way of matching, and how the model's reordering moved it.")
      .addToggle((toggle) =>
        toggle.setValue(search.showScores).onChange(async (value) => {
          await this.applyChange((s) => (s.search.showScores = value));
        }),
      );
    this.displayEmbedding(el);
    this.displayQueryLog(el);
  }

  private levelSetting(el: HTMLElement, name: string, desc: string, value: DialLevel, apply: (s: Settings, level: DialLevel) => void): void {
    new Setting(el)
      .setName(name)
      .setDesc(desc)
      .addDropdown((dropdown) => {
        for (const level of DIAL_LEVELS) dropdown.addOption(String(level), `${level} · ${DIAL_LEVEL_NAMES[level]}: ${LEVEL_WORDS[level]}`);
        dropdown.setValue(String(value)).onChange(async (chosen) => {
          await this.applyChange((s) => apply(s, Number(chosen) as DialLevel));
        });
      });
  }

  private displayEmbedding(el: HTMLElement): void {
    const embedding = this.host.settings.search.embedding;
    new Setting(el)
      .setName("Embedding server")
      .setDesc("Levels 2 and 3 find notes by meaning with an embedding model. None keeps search to words, on this device.")
      .addDropdown((dropdown) =>
        dropdown
          .addOptions(EMBEDDING_KINDS)
          .setValue(embedding.kind)
          .onChange(async (value) => {
            await this.applyChange((s) => (s.search.embedding.kind = value as Settings["search"]["embedding"]["kind"]));
            this.display();
          }),
      );
    if (embedding.kind === "none") return;
    const ollama = embedding.kind === "ollama";
    // Saved when the field is left, not per keystroke: each model name or address typed halfway would start (or stop) embedding.
    this.committedTextSetting(el, "Embedding model", ollama ? "Empty: nomic-embed-text." : "For example nomic-embed-text or text-embedding-3-small.", embedding.model, ollama ? "nomic-embed-text" : "", (s, v) => (s.search.embedding.model = v));
    this.committedTextSetting(
      el,
      "Embedding server address",
      ollama ? "Empty: this computer's Ollama (http://localhost:11434)." : "Empty: http://localhost:11434/v1. LM Studio: http://localhost:1234/v1 · OpenAI: https://api.openai.com/v1",
      embedding.baseUrl,
      ollama ? "http://localhost:11434" : "http://localhost:11434/v1",
      (s, v) => (s.search.embedding.baseUrl = v.replace(/\/+$/, "")),
    );
    if (!ollama) this.secretSetting(el, "Embedding API key", "Optional: local servers need none.", embedding.secretId, (s, id) => (s.search.embedding.secretId = id));
    this.numberSetting(el, "Embedding requests per second", "At most this many requests a second while embedding the vault (0.1 to 50).", embedding.requestsPerSecond, (s, n) => (s.search.embedding.requestsPerSecond = n));
    this.displayConsent(el);
  }

  /** What the server would receive, and the button that agrees to it; nothing is embedded before. */
  private displayConsent(el: HTMLElement): void {
    this.consentEl = el.createDiv({ cls: "vault-research-embedding-consent" });
    this.renderConsent();
  }

  /** Redrawn alone when the model or address changes, so focus stays in the field the user moved to. */
  private renderConsent(): void {
    const el = this.consentEl;
    if (!el) return;
    el.empty();
    const choice = this.host.embeddingChoice();
    if (choice.kind === "off") return;
    const setting = new Setting(el).setName("Send notes to the embedding server");
    if (choice.kind === "unusable") {
      setting.setDesc(`${choice.message} Nothing is embedded until then.`);
      return;
    }
    if (choice.consented) {
      setting.setDesc(`Agreed. ${choice.disclosure}`);
      setting.addButton((button) =>
        button.setButtonText("Stop embedding").onClick(async () => {
          await this.applyChange((s) => (s.search.embedding.consentedTo = ""));
          this.renderConsent();
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
          await this.applyChange((s) => (s.search.embedding.consentedTo = choice.consentKey));
          this.renderConsent();
        }),
    );
  }

  private displayQueryLog(el: HTMLElement): void {
    new Setting(el)
      .setName("Keep a search query log")
      .setDesc("Each search and research question, its level, the results in order and the one you opened, in this plugin's own folder: never in your vault, never sent anywhere. It shows what each level does for you.")
      .addToggle((toggle) =>
        toggle.setValue(this.host.settings.search.queryLog).onChange(async (value) => {
          await this.applyChange((s) => (s.search.queryLog = value));
        }),
      );
    const clear = new Setting(el).setName("Clear the search query log").setDesc("Deletes every line logged so far.");
    clear.addButton((button) =>
      button.setButtonText("Clear").onClick(async () => {
        button.setDisabled(true);
        try {
          clear.setDesc(await this.host.clearQueryLog());
        } finally {
          button.setDisabled(false);
        }
      }),
    );
  }

  private displayNotesAndIndex(el: HTMLElement): void {
    const settings = this.host.settings;
    new Setting(el).setName("Notes").setHeading();
    new Setting(el)
      .setName("Write trace notes")
      .setDesc("A note per run explaining what was searched, what was found and what was sent. Trace notes are never indexed.")
      .addToggle((toggle) =>
        toggle.setValue(settings.notes.writeTraceNotes).onChange(async (value) => {
          await this.applyChange((s) => (s.notes.writeTraceNotes = value));
        }),
      );
    this.textSetting(el, "Trace folder", "Where trace notes go.", settings.notes.traceFolder, (s, v) => (s.notes.traceFolder = parseFolderList(v)[0] ?? ""), () =>
      this.applyExclusions(),
    );
    this.textSetting(el, "Sources folder", "Where web pages you add to the vault go.", settings.notes.sourcesFolder, (s, v) => (s.notes.sourcesFolder = parseFolderList(v)[0] ?? ""));

    new Setting(el).setName("Index").setHeading();
    new Setting(el)
      .setName("Excluded folders")
      .setDesc("Notes in these folders are never indexed. Separate folders with commas. The trace folder is always excluded.")
      .addText((text) =>
        text
          .setPlaceholder("Archive")
          .setValue(settings.index.excludedFolders.join(", "))
          .onChange(async (value) => {
            settings.index.excludedFolders = parseFolderList(value);
            await this.host.saveSettings();
            this.applyExclusions();
          }),
      );

    new Setting(el)
      .setName("Match word forms")
      .setDesc("Find notes that say “running” when you search for “run” (English). Changing this rebuilds the index.")
      .addToggle((toggle) =>
        toggle.setValue(settings.index.stemming).onChange(async (value) => {
          settings.index.stemming = value;
          await this.host.saveSettings();
          await this.host.applyIndexSettings({ rebuild: true });
        }),
      );

    new Setting(el)
      .setName("Learn this vault's language")
      .setDesc(
        "Also find notes that say the same thing in other words, from which words your notes use alike. Learned on this device from your notes after a full build (seconds on a large vault); nothing is sent anywhere. Changing this rebuilds the index.",
      )
      .addToggle((toggle) =>
        toggle.setValue(settings.index.vaultLanguage).onChange(async (value) => {
          settings.index.vaultLanguage = value;
          await this.host.saveSettings();
          await this.host.applyIndexSettings({ rebuild: true });
        }),
      );

    new Setting(el)
      .setName("Rebuild index")
      .setDesc("Reads every note again. Use it if search results look out of date.")
      .addButton((button) =>
        button.setButtonText("Rebuild").onClick(async () => {
          button.setDisabled(true);
          try {
            await this.host.rebuildIndex();
          } finally {
            button.setDisabled(false);
          }
        }),
      );
  }

  /** A text field saved only when valid; a problem is shown under the field. */
  private textSetting(el: HTMLElement, name: string, desc: string, value: string, apply: (s: Settings, value: string) => void, after?: () => void): Setting {
    const setting = new Setting(el).setName(name).setDesc(desc);
    setting.addText((text) =>
      text.setValue(value).onChange(async (input) => {
        const problem = await this.applyChange((s) => apply(s, input.trim()));
        showProblem(setting, text.inputEl, desc, problem);
        if (!problem) after?.();
      }),
    );
    return setting;
  }

  /** A text field saved when it is left (or Enter is pressed), only when valid. */
  private committedTextSetting(el: HTMLElement, name: string, desc: string, value: string, placeholder: string, apply: (s: Settings, value: string) => void): void {
    const setting = new Setting(el).setName(name).setDesc(desc);
    setting.addText((text) => {
      text.setPlaceholder(placeholder).setValue(value);
      text.inputEl.addEventListener("change", () => {
        void this.applyChange((s) => apply(s, text.getValue().trim())).then((problem) => {
          showProblem(setting, text.inputEl, desc, problem);
          // The consent line below says what the new server would receive.
          if (!problem) this.renderConsent();
        });
      });
    });
  }

  private numberSetting(el: HTMLElement, name: string, desc: string, value: number, apply: (s: Settings, n: number) => void): Setting {
    const setting = new Setting(el).setName(name).setDesc(desc);
    setting.addText((text) => {
      text.inputEl.type = "number";
      text.setValue(String(value)).onChange(async (input) => {
        const n = Number(input);
        const problem = input.trim() === "" || !Number.isFinite(n) ? "Enter a number." : await this.applyChange((s) => apply(s, n));
        showProblem(setting, text.inputEl, desc, problem);
      });
    });
    return setting;
  }

  private secretSetting(el: HTMLElement, name: string, desc: string, secretId: string, apply: (s: Settings, id: string) => void): Setting {
    return new Setting(el)
      .setName(name)
      .setDesc(`${desc} Stored in Obsidian's secret storage.`)
      .addComponent((control) =>
        new SecretComponent(this.app, control).setValue(secretId).onChange(async (id) => {
          await this.applyChange((s) => apply(s, id));
        }),
      );
  }
}

/**
 * Gives every field, toggle and list the name of its setting, so a screen reader says "Trace
 * folder, edit text" rather than "edit text". A setting with two fields (a secret's list and its
 * new-key field) names the second after the first.
 */
export function nameControls(root: HTMLElement): void {
  for (const item of Array.from(root.querySelectorAll<HTMLElement>(".setting-item"))) {
    const name = item.querySelector(".setting-item-name")?.textContent?.trim();
    if (!name) continue;
    const controls = Array.from(item.querySelectorAll<HTMLElement>(".setting-item-control input, .setting-item-control select, .setting-item-control textarea"));
    controls.forEach((control, i) => {
      if (control.hasAttribute("aria-label") || control.hasAttribute("aria-labelledby")) return;
      control.setAttr("aria-label", i === 0 ? name : `${name}: ${control.getAttribute("placeholder") || `field ${i + 1}`}`);
    });
  }
}

function showProblem(setting: Setting, input: HTMLElement, desc: string, problem: string | null): void {
  input.toggleClass("vault-research-invalid", problem !== null);
  input.setAttr("aria-invalid", problem !== null);
  setting.setDesc(problem ? `${desc} ${problem}` : desc);
}
