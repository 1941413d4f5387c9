// Opens Obsidian's settings at this plugin's tab, for a problem's "Open settings" button. The app
// has no public call for it; `app.setting` is what it uses itself, so it is checked before use and
// the user is told where to go when it is not there.
import { Notice, type App } from "obsidian";

/** manifest.json's `id`, which is also the id of the plugin's settings tab. */
export const PLUGIN_ID = "vault-research";

interface SettingsWindow {
  open(): void;
  openTabById(id: string): unknown;
}

function settingsWindow(app: App): SettingsWindow | null {
  const setting = (app as unknown as { setting?: Partial<SettingsWindow> }).setting;
  return typeof setting?.open === "function" && typeof setting.openTabById === "function" ? (setting as SettingsWindow) : null;
}

export function openPluginSettings(app: App): void {
  const setting = settingsWindow(app);
  if (!setting) {
    new Notice("Open settings and choose Vault Research.");
    return;
  }
  setting.open();
  setting.openTabById(PLUGIN_ID);
}
