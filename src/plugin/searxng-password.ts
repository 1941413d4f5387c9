// A SearXNG password never stays in data.json, which sync, backups and shared vaults carry: an
// address saved by an earlier version with `user:password@` has its password moved into secret
// storage (under the settings' `searxng.secretId`) and the address keeps only the user name.
import type { SecretStorage } from "obsidian";
import type { Settings } from "../settings";
import { addressWithoutPassword, defaultSettings } from "../settings";

/**
 * Moves the password out of the SearXNG address into secret storage. True when the settings
 * changed (the caller saves them); false when there was no password, or no secret storage to hold
 * it (the address is then left as it is: the instance must keep working). An id secret storage
 * refuses (it takes lowercase letters, digits and dashes; a hand-edited data.json may hold another)
 * could never have held the password: it goes under the default id, which the settings then name.
 */
export function moveSearxngPassword(settings: Settings, storage: SecretStorage | undefined): boolean {
  const searxng = settings.external.searxng;
  const split = addressWithoutPassword(searxng.baseUrl);
  if (!split || !storage) return false;
  try {
    storage.setSecret(searxng.secretId, split.password);
  } catch (refused) {
    const fallback = defaultSettings().external.searxng.secretId;
    if (searxng.secretId === fallback) throw refused;
    storage.setSecret(fallback, split.password);
    searxng.secretId = fallback;
  }
  searxng.baseUrl = split.address;
  return true;
}

/**
 * data.json as it was read, with only the SearXNG address replaced by `moved.baseUrl` (its password
 * moved out) and the secret's id by the one now holding it. Written when loading found values it
 * could not use: the password leaves the file at once, and those values stay in it, as the user
 * wrote them, to be fixed. Anything that holds no SearXNG address is returned as it is.
 */
export function storedWithSearxngAddress(stored: unknown, moved: Pick<Settings["external"]["searxng"], "baseUrl" | "secretId">): unknown {
  const searxng = recordAt(stored, ["external", "searxng"]);
  if (!searxng || typeof searxng.baseUrl !== "string") return stored;
  const copy = structuredClone(stored) as Record<string, Record<string, Record<string, unknown>>>;
  copy.external.searxng.baseUrl = moved.baseUrl;
  // Read back from the file next time, an id secret storage refused would find no password.
  if (Object.hasOwn(searxng, "secretId")) copy.external.searxng.secretId = moved.secretId;
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
