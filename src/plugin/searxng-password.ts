// A SearXNG password never stays in data.json, which sync, backups and shared vaults carry: an
// address saved by an earlier version with `user:password@` has its password moved into secret
// storage (under the settings' `searxng.secretId`) and the address keeps only the user name.
import type { SecretStorage } from "obsidian";
import type { Settings } from "../settings";
import { addressWithoutPassword } from "../settings";

/**
 * Moves the password out of the SearXNG address into secret storage. True when the settings
 * changed (the caller saves them); false when there was no password, or no secret storage to hold
 * it (the address is then left as it is: the instance must keep working).
 */
export function moveSearxngPassword(settings: Settings, storage: SecretStorage | undefined): boolean {
  const split = addressWithoutPassword(settings.external.searxng.baseUrl);
  if (!split || !storage) return false;
  storage.setSecret(settings.external.searxng.secretId, split.password);
  settings.external.searxng.baseUrl = split.address;
  return true;
}
