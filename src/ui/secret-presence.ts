// Whether secret storage holds a key under the id the settings name — asked by the settings tab
// (to switch the free set on) and the panel (a missing key and a refused key read differently).
// Only presence is read here; the key itself never leaves secret storage through this file.
import type { App } from "obsidian";
import type { SecretName } from "../ports";
import { keyAsPasted, secretIdFor, type Settings } from "../settings";

export function secretIsSet(app: App, settings: Settings, name: SecretName): boolean {
  const id = secretIdFor(name, settings);
  try {
    // Read as the plugin reads a key: a secret of only spaces or quotes is none.
    return !!id && keyAsPasted(app.secretStorage?.getSecret(id)) !== null;
  } catch {
    return false;
  }
}
