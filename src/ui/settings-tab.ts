// The settings tab for what exists so far: which notes the index covers and how it matches words.
// Research and outside-vault settings join it with the research issue.
import { debounce, PluginSettingTab, Setting, type App, type Plugin } from "obsidian";
import type { Settings } from "../settings";

/** What the tab needs from the plugin. */
export interface SettingsHost {
  readonly settings: Settings;
  saveSettings(): Promise<void>;
  /** Re-applies index settings; `rebuild` when words must be re-analysed (e.g. stemming changed). */
  applyIndexSettings(options: { rebuild: boolean }): Promise<void>;
  rebuildIndex(): Promise<void>;
}

/** Splits user input on commas and new lines into vault-relative folder paths. */
export function parseFolderList(input: string): string[] {
  const folders = input
    .split(/[,\n]/)
    .map((f) => f.trim().replace(/^\/+|\/+$/g, ""))
    .filter((f) => f.length > 0);
  return [...new Set(folders)];
}

export class VaultResearchSettingTab extends PluginSettingTab {
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
    const settings = this.host.settings;

    new Setting(containerEl).setName("Index").setHeading();

    new Setting(containerEl)
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

    new Setting(containerEl)
      .setName("Match word forms")
      .setDesc("Find notes that say “running” when you search for “run” (English). Changing this rebuilds the index.")
      .addToggle((toggle) =>
        toggle.setValue(settings.index.stemming).onChange(async (value) => {
          settings.index.stemming = value;
          await this.host.saveSettings();
          await this.host.applyIndexSettings({ rebuild: true });
        }),
      );

    new Setting(containerEl)
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

  override hide(): void {
    this.applyExclusions.run();
    super.hide();
  }
}
