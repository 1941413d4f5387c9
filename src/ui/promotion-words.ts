// What a promoted note holds, in the words the panel's card and the promotion notice share: said
// only when it is not the page itself, and then with why ("the site answered 403").
import type { ExtractStatus, PageProblem, PageProblemKind } from "../notes/extract-status";

const PROBLEM_WORDS: Record<PageProblemKind, (problem: PageProblem) => string> = {
  http_error: (p) => (p.kind === "http_error" ? `the site answered ${p.status}` : "the site answered with an error"),
  timeout: () => "the page took too long to load",
  too_large: () => "the page is too large to read",
  network: () => "the page could not be reached",
  not_html: () => "the address is not a web page",
  no_readable_text: () => "the page has no text to read",
  extract_failed: () => "the page's text could not be read",
  // Nothing was asked of the site: the recordings a replay answers from (the demo's) hold no copy of it.
  replay_miss: () => "the recorded samples hold no copy of the page",
  redirect_loop: () => "the page kept redirecting",
  redirected: (p) => (p.kind !== "redirected" ? "the address leads to another page" : `the address now leads to ${REDIRECT_PLACES[p.to]}`),
};

/** Where an old result's address leads now, instead of its page. */
const REDIRECT_PLACES: Record<Extract<PageProblem, { kind: "redirected" }>["to"], string> = {
  sign_in_page: "a sign-in page",
  front_page: "the site's front page",
  not_found_page: "a \"not found\" page",
};

/** "with the provider's excerpt only: the site answered 403.", or "" when the note holds the page. */
export function savedWords(status: ExtractStatus, hasExcerpt = true): string {
  switch (status.kind) {
    case "extracted":
      return "";
    case "pdf_stub":
      // A PDF's note keeps the excerpt when the provider sent one (`hasProviderExcerpt`), else only the link.
      return hasExcerpt ? "with the link and the provider's excerpt only: PDFs are not read." : "with the link only: PDFs are not read.";
    case "fallback_snippet":
      return `with the provider's excerpt only: ${PROBLEM_WORDS[status.reason.kind](status.reason)}.`;
    case "link_only":
      return `with the link only: ${PROBLEM_WORDS[status.reason.kind](status.reason)}.`;
  }
}
