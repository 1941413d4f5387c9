// Source keys: the short, stable names by which answers cite evidence. `src:` keys name vault
// notes (hash of the vault path), `ext:<provider>:` keys name outside-vault results (hash of the
// canonical URL, under the first provider that found it). Keys are what verification checks, so
// their shape is strict.
import { shortHash } from "./hash";

export const SOURCE_KEY_HASH_LENGTH = 10;

const NOTE_KEY = /^src:([0-9a-f]{10})$/;
const OUTSIDE_KEY = /^ext:([a-z0-9][a-z0-9-]*):([0-9a-f]{10})$/;
const PROVIDER_NAME = /^[a-z0-9][a-z0-9-]*$/;

export type ParsedSourceKey =
  | { origin: "vault"; hash: string }
  | { origin: "outside_vault"; provider: string; hash: string };

/**
 * Key of a vault note. The path is NFC-normalised first because macOS hands out decomposed file
 * names: the same note must get the same key whichever device indexed it. But on Linux `café.md`
 * spelled composed and decomposed are two files, and they must not share a key (a citation would
 * open the wrong one). Given the vault's paths, the key of the NFC form goes to one of them — the
 * one spelled in NFC, else the first in code-unit order — and each other spelling is keyed by its
 * own bytes. Every key a vault without such twins had stays as it was.
 */
export function noteSourceKey(path: string, vaultPaths: Iterable<string> = []): string {
  const nfc = path.normalize("NFC");
  if (path !== nfc && ownedByAnother(path, nfc, vaultPaths)) return `src:${shortHash(path, SOURCE_KEY_HASH_LENGTH)}`;
  return `src:${shortHash(nfc, SOURCE_KEY_HASH_LENGTH)}`;
}

/** Whether another spelling of the same name holds the NFC key: the NFC one, or one that sorts first. */
function ownedByAnother(path: string, nfc: string, vaultPaths: Iterable<string>): boolean {
  for (const other of vaultPaths) {
    if (other === path || other.normalize("NFC") !== nfc) continue;
    if (other === nfc || other < path) return true;
  }
  return false;
}

/** Key of an outside-vault result. Pass the canonical URL (websearch canonicalises it). */
export function outsideSourceKey(provider: string, canonicalUrl: string): string {
  if (!PROVIDER_NAME.test(provider)) {
    throw new RangeError(`Provider name "${provider}" cannot be part of a source key (use lower-case letters, digits and -)`);
  }
  return `ext:${provider}:${shortHash(canonicalUrl, SOURCE_KEY_HASH_LENGTH)}`;
}

export function isSourceKey(text: string): boolean {
  return NOTE_KEY.test(text) || OUTSIDE_KEY.test(text);
}

/** The parts of a well-formed key, or null for anything else. */
export function parseSourceKey(text: string): ParsedSourceKey | null {
  const note = NOTE_KEY.exec(text);
  if (note) return { origin: "vault", hash: note[1] };
  const outside = OUTSIDE_KEY.exec(text);
  if (outside) return { origin: "outside_vault", provider: outside[1], hash: outside[2] };
  return null;
}
