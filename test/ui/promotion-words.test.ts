// @vitest-environment happy-dom
// What a promoted note holds, in words, for a page whose site kept redirecting. Obsidian's
// requestUrl on mobile follows a page's redirects itself and gives up on a loop; the card and the
// notice said "with the provider's excerpt only: the page could not be reached." of a site that had
// answered every time.
import { afterEach, describe, expect, it } from "vitest";
import { setRequestUrlHandler } from "../stubs/obsidian";
import { RequestUrlHttp } from "../../src/plugin/request-url-http";
import { fetchAndReadPage } from "../../src/promote/page-extract";
import { savedWords } from "../../src/ui/promotion-words";

afterEach(() => setRequestUrlHandler(null));

describe("savedWords", () => {
  it("a page whose site kept redirecting says so, never that the page could not be reached", async () => {
    setRequestUrlHandler(() => {
      throw new Error("net::ERR_TOO_MANY_REDIRECTS");
    });
    const outcome = await fetchAndReadPage("https://blog.example.com/post", new RequestUrlHttp(), async () => {
      throw new Error("a page that never came is never read");
    });
    expect(outcome.kind).toBe("unusable");
    if (outcome.kind !== "unusable") return;
    expect(savedWords({ kind: "fallback_snippet", reason: outcome.problem })).toBe("with the provider's excerpt only: the page kept redirecting.");
    expect(savedWords({ kind: "link_only", reason: outcome.problem })).toBe("with the link only: the page kept redirecting.");
  });

  // A replay asks nothing of the site: "could not be reached" read as if the site were down.
  it("a page a replay's recordings do not hold says so, never that the page could not be reached", () => {
    expect(savedWords({ kind: "fallback_snippet", reason: { kind: "replay_miss" } })).toBe("with the provider's excerpt only: the recorded samples hold no copy of the page.");
  });

  it("a page that could not be reached still says so", () => {
    expect(savedWords({ kind: "link_only", reason: { kind: "network" } })).toBe("with the link only: the page could not be reached.");
  });
});
