// Secrets over Obsidian's secret storage. Settings hold only the *ids* of secrets, never the keys,
// so data.json can be shared or synced without leaking anything.
import type { SecretStorage } from "obsidian";
import type { SecretName, Secrets } from "../ports";
import { keyAsPasted, secretAsRead, secretIdFor, type Settings } from "../settings";

export class SecretStorageSecrets implements Secrets {
  /** `settings` is read on every call, so changing a secret id takes effect at once. */
  constructor(
    private readonly storage: SecretStorage | undefined,
    private readonly settings: () => Settings,
  ) {}

  async get(name: SecretName): Promise<string | null> {
    return this.read(secretIdFor(name, this.settings()), (stored) => secretAsRead(name, stored));
  }

  /** A secret named by its id in the settings (the embedding server's key has its own). */
  async byId(id: string): Promise<string | null> {
    return this.read(id, keyAsPasted);
  }

  private async read(id: string, asRead: (stored: string | null) => string | null): Promise<string | null> {
    if (!this.storage || id.trim() === "") return null;
    try {
      return asRead(this.storage.getSecret(id));
    } catch {
      // Say which secret, never what it holds.
      console.warn(`Vault Research: could not read the secret "${id}" from secret storage.`);
      return null;
    }
  }
}
