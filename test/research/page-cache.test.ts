import { describe, expect, it } from "vitest";
import { PageCache, type ExtractedPage } from "../../src/research/page-cache";
import { fakeClock } from "../support/fake-clock";

const page = (url: string): ExtractedPage => ({ url, kind: "html", title: "", author: "", published: "", text: `text of ${url}`, bytes: 10, charset: "utf-8", warnings: [] });

describe("PageCache", () => {
  it("answers a follow-up within 30 minutes, and not after", () => {
    const clock = fakeClock();
    const cache = new PageCache(clock);
    cache.set("https://a.example/", page("https://a.example/"));
    clock.advance(29 * 60_000);
    expect(cache.get("https://a.example/")?.text).toBe("text of https://a.example/");
    clock.advance(2 * 60_000);
    expect(cache.get("https://a.example/")).toBeNull();
    expect(cache.size).toBe(0);
    expect({ hits: cache.hits, misses: cache.misses }).toEqual({ hits: 1, misses: 1 });
  });

  it("does not keep a page fresh for as long as the clock was set back: its age is unknown, so it is read again", () => {
    const clock = fakeClock();
    const cache = new PageCache(clock);
    cache.set("https://a.example/", page("https://a.example/"));
    // The clock is put back a day (it ran ahead, or the user changed it).
    clock.set(clock.now() - 24 * 60 * 60_000);
    expect(cache.get("https://a.example/")).toBeNull();
    expect(cache.size).toBe(0);
  });

  it("drops the least recently used page past its bound", () => {
    const cache = new PageCache(fakeClock(), { maxPages: 2 });
    cache.set("a", page("a"));
    cache.set("b", page("b"));
    cache.get("a");
    cache.set("c", page("c"));
    expect(cache.get("b")).toBeNull();
    expect(cache.get("a")).not.toBeNull();
    expect(cache.get("c")).not.toBeNull();
    expect(cache.size).toBe(2);
  });

  it("keeps one entry per page: setting it again refreshes its age", () => {
    const clock = fakeClock();
    const cache = new PageCache(clock, { ttlMs: 1000 });
    cache.set("a", page("a"));
    clock.advance(900);
    cache.set("a", { ...page("a"), text: "newer" });
    clock.advance(900);
    expect(cache.get("a")?.text).toBe("newer");
    expect(cache.size).toBe(1);
  });
});
