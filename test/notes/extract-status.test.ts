import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractStatusText, PAGE_PROBLEM_KINDS, parseExtractStatus, REDIRECT_TARGETS, type ExtractStatus, type PageProblem, type PageProblemKind } from "../../src/notes/extract-status";

const pageProblem: fc.Arbitrary<PageProblem> = fc.oneof(
  fc.integer({ min: 100, max: 599 }).map((status): PageProblem => ({ kind: "http_error", status })),
  fc.constantFrom(...REDIRECT_TARGETS).map((to): PageProblem => ({ kind: "redirected", to })),
  fc.constantFrom(...PAGE_PROBLEM_KINDS.filter((k): k is Exclude<PageProblemKind, "http_error" | "redirected"> => k !== "http_error" && k !== "redirected")).map((kind): PageProblem => ({ kind })),
);
const extractStatus: fc.Arbitrary<ExtractStatus> = fc.oneof(
  fc.constant<ExtractStatus>({ kind: "extracted" }),
  fc.constant<ExtractStatus>({ kind: "pdf_stub" }),
  pageProblem.map((reason): ExtractStatus => ({ kind: "fallback_snippet", reason })),
  pageProblem.map((reason): ExtractStatus => ({ kind: "link_only", reason })),
);

describe("extract_status", () => {
  it("is spelled in the note as it always was", () => {
    expect(extractStatusText({ kind: "extracted" })).toBe("extracted");
    expect(extractStatusText({ kind: "pdf_stub" })).toBe("pdf_stub");
    expect(extractStatusText({ kind: "fallback_snippet", reason: { kind: "http_error", status: 403 } })).toBe("fallback_snippet:http_403");
    expect(extractStatusText({ kind: "link_only", reason: { kind: "no_readable_text" } })).toBe("link_only:no_readable_text");
  });

  it("names where an address led instead of its page, not an empty page", () => {
    expect(extractStatusText({ kind: "fallback_snippet", reason: { kind: "redirected", to: "sign_in_page" } })).toBe("fallback_snippet:redirected_to_sign_in_page");
    expect(extractStatusText({ kind: "link_only", reason: { kind: "redirected", to: "front_page" } })).toBe("link_only:redirected_to_front_page");
    expect(parseExtractStatus("link_only:redirected_to_not_found_page")).toEqual({ kind: "link_only", reason: { kind: "redirected", to: "not_found_page" } });
  });

  it("names a page whose site kept redirecting, not one that could not be reached", () => {
    expect(extractStatusText({ kind: "link_only", reason: { kind: "redirect_loop" } })).toBe("link_only:redirect_loop");
    expect(parseExtractStatus("fallback_snippet:redirect_loop")).toEqual({ kind: "fallback_snippet", reason: { kind: "redirect_loop" } });
  });

  it("reads back as the status it was written from", () => {
    fc.assert(
      fc.property(extractStatus, (status) => {
        expect(parseExtractStatus(extractStatusText(status))).toEqual(status);
      }),
    );
  });

  it("reads text this version never writes as nothing, not as a guess", () => {
    for (const text of ["", "fallback_snippet", "fallback_snippet:", "fallback_snippet:http_error", "link_only:gone", "Extracted", "pdf_stub:x", "link_only:redirected", "link_only:redirected_to_", "link_only:redirected_to_elsewhere"]) {
      expect(parseExtractStatus(text), text).toBeNull();
    }
  });
});
