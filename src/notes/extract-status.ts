// What a source note holds of its page, as a closed union, and its one spelling in the note's
// `extract_status` property (`extracted`, `pdf_stub`, `fallback_snippet:http_403`,
// `link_only:no_readable_text`, `fallback_snippet:redirected_to_sign_in_page`, `link_only:redirect_loop`…). Written by
// `extractStatusText`, read back by `parseExtractStatus`; nothing else builds or parses the text.

/**
 * Why a page gave no text of its own. `redirect_loop`: the site answered, each time with a redirect,
 * until the fetch gave up (requestUrl on mobile follows a page's redirects itself); as `network` the
 * note said the page "could not be reached".
 */
export const PAGE_PROBLEM_KINDS = ["http_error", "timeout", "too_large", "network", "not_html", "no_readable_text", "extract_failed", "replay_miss", "redirected", "redirect_loop"] as const;
export type PageProblemKind = (typeof PAGE_PROBLEM_KINDS)[number];

/**
 * Where an address that no longer leads to its page sends a reader instead. That page has text, so
 * calling it `no_readable_text` told the user the page was empty when it was not the page at all.
 */
export const REDIRECT_TARGETS = ["sign_in_page", "front_page", "not_found_page"] as const;
export type RedirectTarget = (typeof REDIRECT_TARGETS)[number];

/** A page problem; an HTTP error names its status, a redirect where it led. */
export type PageProblem =
  | { kind: "http_error"; status: number }
  | { kind: "redirected"; to: RedirectTarget }
  | { kind: Exclude<PageProblemKind, "http_error" | "redirected"> };

export type ExtractStatus =
  /** The page's text, extracted and sanitised. */
  | { kind: "extracted" }
  /** A PDF: the note keeps the link and the provider's excerpt. */
  | { kind: "pdf_stub" }
  /** The page gave no text; the provider's excerpt stands in for it. */
  | { kind: "fallback_snippet"; reason: PageProblem }
  /** The page gave no text and the provider no excerpt: only the link is kept. */
  | { kind: "link_only"; reason: PageProblem };

/** `http_403`, `redirected_to_sign_in_page`, `timeout`, …: the problem as the property spells it. */
export function pageProblemText(problem: PageProblem): string {
  if (problem.kind === "http_error") return `http_${problem.status}`;
  if (problem.kind === "redirected") return `redirected_to_${problem.to}`;
  return problem.kind;
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
  const to = REDIRECT_TARGETS.find((target) => text === `redirected_to_${target}`);
  if (to !== undefined) return { kind: "redirected", to };
  const kind = PAGE_PROBLEM_KINDS.find((k) => k === text);
  return kind === undefined || kind === "http_error" || kind === "redirected" ? null : { kind };
}
