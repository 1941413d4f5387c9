import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractStatusText, PAGE_PROBLEM_KINDS, parseExtractStatus, type ExtractStatus, type PageProblem } from "../../src/notes/extract-status";

const pageProblem: fc.Arbitrary<PageProblem> = fc.oneof(
  fc.integer({ min: 100, max: 599 }).map((status): PageProblem => ({ kind: "http_error", status })),
  fc.constantFrom(...PAGE_PROBLEM_KINDS.filter((k) => k !== "http_error")).map((kind) => ({ kind }) as PageProblem),
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

  it("reads back as the status it was written from", () => {
    fc.assert(
      fc.property(extractStatus, (status) => {
        expect(parseExtractStatus(extractStatusText(status))).toEqual(status);
      }),
    );
  });

  it("reads text this version never writes as nothing, not as a guess", () => {
    for (const text of ["", "fallback_snippet", "fallback_snippet:", "fallback_snippet:http_error", "link_only:gone", "Extracted", "pdf_stub:x"]) {
      expect(parseExtractStatus(text), text).toBeNull();
    }
  });
});
