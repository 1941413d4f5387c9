import { describe, expect, it } from "vitest";
import { retryAfterHeaderMs } from "../../src/text/retry-after";

const NOW = Date.parse("2026-12-07T10:00:00Z");

describe("retryAfterHeaderMs", () => {
  it("reads delay-seconds and an HTTP date", () => {
    expect(retryAfterHeaderMs("7", NOW)).toBe(7000);
    expect(retryAfterHeaderMs(" 1.5 ", NOW)).toBe(1500);
    expect(retryAfterHeaderMs("Mon, 07 Dec 2026 10:01:00 GMT", NOW)).toBe(60_000);
  });

  it("a date already past is no wait; an absent or unreadable header is none given", () => {
    expect(retryAfterHeaderMs("Mon, 07 Dec 2026 09:00:00 GMT", NOW)).toBe(0);
    for (const header of [undefined, "", "  ", "soon", "-5"]) expect(retryAfterHeaderMs(header, NOW), String(header)).toBeUndefined();
  });
});
