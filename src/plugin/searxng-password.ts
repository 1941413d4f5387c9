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

/**
 * data.json as it was read, with only the SearXNG address replaced by `address` (its password moved
 * out). Written when loading found values it could not use: the password leaves the file at once,
 * and those values stay in it, as the user wrote them, to be fixed. Anything that holds no SearXNG
 * address is returned as it is.
 */
export function storedWithSearxngAddress(stored: unknown, address: string): unknown {
  const searxng = recordAt(stored, ["external", "searxng"]);
  if (!searxng || typeof searxng.baseUrl !== "string") return stored;
  const copy = structuredClone(stored) as Record<string, Record<string, Record<string, unknown>>>;
  copy.external.searxng.baseUrl = address;
  return copy;
}

function recordAt(value: unknown, path: string[]): Record<string, unknown> | null {
  let node = value;
  for (const key of path) {
    if (!isRecord(node) || !Object.hasOwn(node, key)) return null;
    node = node[key];
  }
  return isRecord(node) ? node : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
