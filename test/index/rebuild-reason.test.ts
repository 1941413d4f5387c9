// The words a rebuild reason is shown in (CLI `index`, the JSON report): pinned, because scripts read them.
import { describe, expect, it } from "vitest";
import { describeRebuildReason, type RebuildReason } from "../../src/index/rebuild-reason";

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
  ];

  it.each(cases)("says %j as %s", (reason, words) => {
    expect(describeRebuildReason(reason)).toBe(words);
  });
});
