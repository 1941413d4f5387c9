import { describe, expect, it } from "vitest";
import { maxRetryAfterMs, retryAfterHeaderMs } from "../../src/text/retry-after";

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

  // 400 nines read as a number are Infinity: an embedding run said "about Infinity h NaN min".
  it("believes a wait of a day at most, however long the header's, in seconds or as a date", () => {
    expect(maxRetryAfterMs).toBe(86_400_000);
    expect(retryAfterHeaderMs("9".repeat(400), NOW)).toBe(maxRetryAfterMs);
    expect(retryAfterHeaderMs("99999999999", NOW)).toBe(maxRetryAfterMs);
    expect(retryAfterHeaderMs("Tue, 01 Jan 2999 00:00:00 GMT", NOW)).toBe(maxRetryAfterMs);
    expect(retryAfterHeaderMs("86400", NOW)).toBe(maxRetryAfterMs);
    expect(retryAfterHeaderMs("86399", NOW)).toBe(86_399_000);
  });
});
