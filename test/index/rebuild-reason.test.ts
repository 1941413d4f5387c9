// The words a rebuild reason is shown in (CLI `index`, the JSON report): pinned, because scripts read them.
import { describe, expect, it } from "vitest";
import { describeRebuildReason, meansDamage, type RebuildReason } from "../../src/index/rebuild-reason";

describe("describeRebuildReason", () => {
  const cases: [RebuildReason, string][] = [
    [{ kind: "no_cache" }, "no cache"],
    [{ kind: "asked_for" }, "asked for"],
    [{ kind: "unreadable", detail: "disk on fire" }, "cache could not be read (disk on fire)"],
    [{ kind: "not_an_index" }, "cache is not a Vault Research index"],
    [{ kind: "format_changed", from: "4", to: 5 }, "cache version 4 ≠ 5"],
    [{ kind: "settings_changed" }, "index settings changed"],
    [{ kind: "incomplete" }, "cache is incomplete"],
    [{ kind: "inconsistent" }, "cache is inconsistent"],
    [{ kind: "corrupt", detail: "Unexpected token" }, "cache is corrupt (Unexpected token)"],
    [{ kind: "saved_without_checksums" }, "cache was saved by an earlier version, without checksums"],
  ];

  it.each(cases)("says %j as %s", (reason, words) => {
    expect(describeRebuildReason(reason)).toBe(words);
  });
});

describe("meansDamage", () => {
  it("is true of a cache damaged where it is kept, never of an upgrade, a first start, a settings change or the user's rebuild", () => {
    const damaged: RebuildReason[] = [{ kind: "unreadable", detail: "x" }, { kind: "corrupt", detail: "x" }, { kind: "incomplete" }, { kind: "inconsistent" }, { kind: "not_an_index" }];
    const normal: RebuildReason[] = [{ kind: "no_cache" }, { kind: "asked_for" }, { kind: "format_changed", from: "15", to: 16 }, { kind: "settings_changed" }, { kind: "saved_without_checksums" }];
    expect(damaged.map(meansDamage)).toEqual(damaged.map(() => true));
    expect(normal.map(meansDamage)).toEqual(normal.map(() => false));
  });
});
