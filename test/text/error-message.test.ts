import { describe, expect, it } from "vitest";
import { errorMessage } from "../../src/text/error-message";

describe("errorMessage", () => {
  it("says an Error's message and a thrown string as they are", () => {
    expect(errorMessage(new Error("disk full"))).toBe("disk full");
    expect(errorMessage("timed out")).toBe("timed out");
  });

  it("falls back for values that say nothing", () => {
    expect(errorMessage(new Error(""), "unknown network error")).toBe("unknown network error");
    expect(errorMessage(undefined, "unknown")).toBe("unknown");
    expect(errorMessage(42)).toBe("42");
    expect(errorMessage(new TypeError(""))).toBe("TypeError");
  });
});
