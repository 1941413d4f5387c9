// @vitest-environment happy-dom
// The trace picker's own words: the notice shown while a chosen result is added. (The picker over a
// real trace note, and the notices after, are test/ui/promote-command.test.ts.)
import { describe, expect, it } from "vitest";
import { addingNotice } from "../../src/ui/promote-modal";
import { webRow } from "../support/promote-fixtures";

describe("the notice while a result is added", () => {
  it("isolates a right-to-left title, so the sentence around it keeps its order", () => {
    const row = webRow("brave", "https://example-1.org/a", "כיצד עובד מיזוג ב-CRDT?", null);
    expect(addingNotice({ row })).toBe("Adding \u2068כיצד עובד מיזוג ב-CRDT?\u2069 to the vault…");
  });

  it("shows a title edited to 5 KB, or over lines, as one short line: the notice stays up over a phone's screen while the page is fetched", () => {
    const row = webRow("brave", "https://example.org/long", `${"Conflict free replicated data types ".repeat(140)}\n\nend`, null);
    const notice = addingNotice({ row });
    expect(notice).not.toContain("\n");
    expect(notice.length).toBeLessThan(160);
    expect(notice).toMatch(/^Adding \u2068Conflict free replicated .*…\u2069 to the vault…$/);
  });

  it("names the address when the result has no title", () => {
    const row = webRow("brave", "https://example.org/untitled", "", null);
    expect(addingNotice({ row })).toBe("Adding \u2068https://example.org/untitled\u2069 to the vault…");
  });
});
