// What a source note holds of its page, as a closed union, and its one spelling in the note's
// `extract_status` property (`extracted`, `pdf_stub`, `fallback_snippet:http_403`,
// `link_only:no_readable_text`…). Written by `extractStatusText`, read back by
// `parseExtractStatus`; nothing else builds or parses the text.

/** Why a page gave no text of its own. */
export const PAGE_PROBLEM_KINDS = ["http_error", "timeout", "too_large", "network", "not_html", "no_readable_text", "extract_failed", "replay_miss"] as const;
export type PageProblemKind = (typeof PAGE_PROBLEM_KINDS)[number];

/** A page problem; an HTTP error names its status. */
export type PageProblem = { kind: "http_error"; status: number } | { kind: Exclude<PageProblemKind, "http_error"> };

export type ExtractStatus =
  /** The page's text, extracted and sanitised. */
  | { kind: "extracted" }
  /** A PDF: the note keeps the link and the provider's excerpt. */
  | { kind: "pdf_stub" }
  /** The page gave no text; the provider's excerpt stands in for it. */
  | { kind: "fallback_snippet"; reason: PageProblem }
  /** The page gave no text and the provider no excerpt: only the link is kept. */
  | { kind: "link_only"; reason: PageProblem };

/** `http_403`, `timeout`, …: the problem as the property spells it. */
export function pageProblemText(problem: PageProblem): string {
  return problem.kind === "http_error" ? `http_${problem.status}` : problem.kind;
}

/** The `extract_status` property's value. */
export function extractStatusText(status: ExtractStatus): string {
  switch (status.kind) {
    case "extracted":
    case "pdf_stub":
      return status.kind;
    case "fallback_snippet":
    case "link_only":
      return `${status.kind}:${pageProblemText(status.reason)}`;
  }
}

/** An `extract_status` property's value read back; null for text this version never writes. */
export function parseExtractStatus(text: string): ExtractStatus | null {
  const value = text.trim();
  if (value === "extracted" || value === "pdf_stub") return { kind: value };
  const match = /^(fallback_snippet|link_only):([a-z_0-9]+)$/.exec(value);
  if (!match) return null;
  const reason = parsePageProblem(match[2]);
  if (reason === null) return null;
  return match[1] === "fallback_snippet" ? { kind: "fallback_snippet", reason } : { kind: "link_only", reason };
}

function parsePageProblem(text: string): PageProblem | null {
  const http = /^http_(\d{3})$/.exec(text);
  if (http) return { kind: "http_error", status: Number(http[1]) };
  const kind = PAGE_PROBLEM_KINDS.find((k) => k === text && k !== "http_error");
  return kind === undefined || kind === "http_error" ? null : { kind };
}
