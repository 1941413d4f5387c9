// Why a sync built the index from scratch instead of loading the saved one. A closed list, so
// callers can act on the kind; the words people see come from `describeRebuildReason` only.

export type RebuildReason =
  /** There was no saved index (first run, or a cache that was cleared). */
  | { kind: "no_cache" }
  /** The user (or a settings change) asked for a rebuild. */
  | { kind: "asked_for" }
  /** The cache port failed to load what it holds. */
  | { kind: "unreadable"; detail: string }
  /** Valid JSON, but not something this plugin wrote. */
  | { kind: "not_an_index" }
  /** Written by a version whose analyser or document shape differs; `from` is the version found, as written. */
  | { kind: "format_changed"; from: string; to: number }
  /** Stemming or the excluded folders changed since the save. */
  | { kind: "settings_changed" }
  /** The note list or the search engine's data is missing. */
  | { kind: "incomplete" }
  /** The note list and the search engine's data disagree about which notes exist. */
  | { kind: "inconsistent" }
  /** Unparseable, or parseable but of the wrong shape. */
  | { kind: "corrupt"; detail: string }
  /** Saved by an earlier version that kept no checksum beside each part (the plugin's IndexedDB cache): an upgrade, as a format change is. */
  | { kind: "saved_without_checksums" };

/** The reason in the words the CLI and the plugin show ("built from scratch (…)"). */
export function describeRebuildReason(reason: RebuildReason): string {
  switch (reason.kind) {
    case "no_cache":
      return "no cache";
    case "asked_for":
      return "asked for";
    case "unreadable":
      return `cache could not be read (${reason.detail})`;
    case "not_an_index":
      return "cache is not a Vault Research index";
    case "format_changed":
      return `cache version ${reason.from} ≠ ${reason.to}`;
    case "settings_changed":
      return "index settings changed";
    case "incomplete":
      return "cache is incomplete";
    case "inconsistent":
      return "cache is inconsistent";
    case "corrupt":
      return `cache is corrupt (${reason.detail})`;
    case "saved_without_checksums":
      return "cache was saved by an earlier version, without checksums";
  }
}

/**
 * Whether the reason means the saved index was damaged where it is kept (not missing, not from
 * another version, not set aside by a settings change or the user): worth telling the user, since
 * only they can see whether the disk or a sync tool is at fault.
 */
export function meansDamage(reason: RebuildReason): boolean {
  switch (reason.kind) {
    case "unreadable":
    case "corrupt":
    case "incomplete":
    case "inconsistent":
    case "not_an_index":
      return true;
    case "no_cache":
    case "asked_for":
    case "format_changed":
    case "settings_changed":
    case "saved_without_checksums":
      return false;
  }
}

/**
 * What an `IndexCache` read rejects with when it refuses a part for a reason it can name (the
 * plugin's checksums): the sync reports that reason, where any other failed read is "unreadable".
 */
export class PartRefused extends Error {
  constructor(
    readonly reason: RebuildReason,
    message: string,
  ) {
    super(message);
    this.name = "PartRefused";
  }
}
