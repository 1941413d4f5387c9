import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { canonicalizeUrl, displayDomain, distinctByCanonicalUrl, isLesserAddress, MAX_URL_CHARS, samePageKey } from "../../src/websearch/canonical-url";
import { wikipediaPageUrl } from "../../src/websearch/providers/wikipedia";

const tracking = fc.constantFrom("utm_source", "utm_medium", "UTM_Campaign", "fbclid", "gclid", "ref", "mc_eid", "msclkid");
const keyChars = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789".split(""));
const meaningfulKey = fc
  .string({ unit: keyChars, minLength: 1, maxLength: 8 })
  .filter((k) => !/^(utm_|pk_|mtm_)/.test(k) && !["ref", "fbclid", "gclid", "spm", "igshid", "yclid", "dclid", "referrer"].includes(k));
const value = fc.string({ unit: keyChars, minLength: 0, maxLength: 8 });

describe("canonicalizeUrl", () => {
  it("spells the same page the same way", () => {
    expect(canonicalizeUrl("HTTPS://Automerge.ORG:443/docs/hello/?utm_source=x#intro")).toBe("https://automerge.org/docs/hello");
    expect(canonicalizeUrl("https://automerge.org/docs/hello/")).toBe(canonicalizeUrl("https://automerge.org/docs/hello"));
    expect(canonicalizeUrl("http://example.com:80")).toBe("http://example.com/");
    expect(canonicalizeUrl("https://example.com./a%7eb/%2f")).toBe("https://example.com/a~b/%2F");
  });

  it("spells punctuation in a path one way, escaped or not, so Wikipedia's address and a clipped one are one page", () => {
    const fromWikipedia = canonicalizeUrl(wikipediaPageUrl("https://en.wikipedia.org", "Washington,_D.C."));
    expect(fromWikipedia).toBe("https://en.wikipedia.org/wiki/Washington,_D.C.");
    expect(canonicalizeUrl("https://en.wikipedia.org/wiki/Schr%C3%B6dinger%27s_cat")).toBe(canonicalizeUrl("https://en.wikipedia.org/wiki/Schrödinger's_cat"));
    expect(canonicalizeUrl("https://x.example/a%21%28b%29%2A%2B%40%3D%26%24%3A")).toBe("https://x.example/a!(b)*+@=&$:");
    // What would change the address stays escaped: a slash, a question mark, a hash, a percent, a path parameter, and anything in the query.
    expect(canonicalizeUrl("https://x.example/a%2Fb%3Fc%23d%25e%3Bf?q=a%26b%2Cc")).toBe("https://x.example/a%2Fb%3Fc%23d%25e%3Bf?q=a%26b%2Cc");
  });

  it("keeps meaningful query strings and orders them by name", () => {
    expect(canonicalizeUrl("https://www.youtube.com/watch?v=abc&fbclid=1")).toBe("https://www.youtube.com/watch?v=abc");
    expect(canonicalizeUrl("https://x.org/s?q=crdt&page=2")).toBe("https://x.org/s?page=2&q=crdt");
    expect(canonicalizeUrl("https://x.org/s?referral=yes")).toBe("https://x.org/s?referral=yes");
  });

  it("escapes brackets, so a page's address cannot write a [[link]] into a source note's property", () => {
    expect(canonicalizeUrl("https://x.example/[[Secret]]?q[]=1")).toBe("https://x.example/%5B%5BSecret%5D%5D?q%5B%5D=1");
    expect(canonicalizeUrl("https://x.example/%5b%5bSecret%5d%5d?q%5B%5D=1")).toBe(canonicalizeUrl("https://x.example/[[Secret]]?q[]=1"));
  });

  it("rejects what is not an http(s) URL", () => {
    for (const bad of ["", "not a url", "mailto:a@b.c", "javascript:alert(1)", "ftp://x.org/file", "/relative/path"]) {
      expect(canonicalizeUrl(bad)).toBeNull();
    }
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        const once = canonicalizeUrl(url);
        if (once === null) return;
        expect(canonicalizeUrl(once)).toBe(once);
      }),
    );
  });

  it("ignores tracking parameters, fragments, trailing slashes, default ports and host case", () => {
    fc.assert(
      fc.property(
        fc.webUrl({ withQueryParameters: false, withFragments: false }),
        fc.array(fc.tuple(meaningfulKey, value), { maxLength: 3 }),
        fc.array(fc.tuple(tracking, value), { minLength: 1, maxLength: 3 }),
        fc.string({ unit: keyChars, maxLength: 6 }),
        (base, kept, dropped, fragment) => {
          const url = new URL(base);
          for (const [k, v] of kept) url.searchParams.append(k, v);
          const clean = canonicalizeUrl(url.toString());
          expect(clean).not.toBeNull();

          const noisy = new URL(url.toString());
          for (const [k, v] of dropped) noisy.searchParams.append(k, v);
          noisy.hash = fragment;
          noisy.hostname = noisy.hostname.toUpperCase();
          if (!noisy.port) noisy.port = noisy.protocol === "https:" ? "443" : "80";
          if (!noisy.pathname.endsWith("/")) noisy.pathname += "/";
          expect(canonicalizeUrl(noisy.toString())).toBe(clean);
        },
      ),
    );
  });

  it("never leaves a tracking parameter or fragment and keeps every meaningful parameter", () => {
    fc.assert(
      fc.property(
        fc.webUrl({ withQueryParameters: false, withFragments: false }),
        fc.array(fc.tuple(fc.oneof(meaningfulKey, tracking), value), { maxLength: 5 }),
        (base, params) => {
          const url = new URL(base);
          for (const [k, v] of params) url.searchParams.append(k, v);
          url.hash = "section";
          const canonical = canonicalizeUrl(url.toString());
          expect(canonical).not.toBeNull();
          const parsed = new URL(canonical!);
          expect(parsed.hash).toBe("");
          const keys = [...parsed.searchParams.keys()];
          expect(keys.some((k) => /^utm_|^(fbclid|gclid|ref|mc_eid|msclkid)$/i.test(k))).toBe(false);
          const expected = params.filter(([k]) => !/^utm_|^(fbclid|gclid|ref|mc_eid|msclkid)$/i.test(k));
          expect(keys.length).toBe(expected.length);
          for (const [k, v] of expected) expect(parsed.searchParams.getAll(k)).toContain(v);
        },
      ),
    );
  });

  it("tells different pages apart", () => {
    fc.assert(
      fc.property(fc.webUrl(), meaningfulKey, value, value, (base, key, a, b) => {
        fc.pre(a !== b);
        const one = new URL(base);
        one.search = "";
        one.hash = "";
        const two = new URL(one.toString());
        one.searchParams.set(key, a);
        two.searchParams.set(key, b);
        expect(canonicalizeUrl(one.toString())).not.toBe(canonicalizeUrl(two.toString()));
      }),
    );
  });
});

describe("samePageKey", () => {
  const key = (url: string) => samePageKey(canonicalizeUrl(url)!);

  it("reads an article's AMP copy as the article", () => {
    for (const [page, copy] of [
      ["https://example.com/why-crdts-matter", "https://example.com/why-crdts-matter/amp/"],
      ["https://example.com/2024/05/post", "https://example.com/2024/05/post/amp"],
      ["https://example.com/archives/4821", "https://example.com/archives/4821/amp"],
      ["https://example.com/post", "https://example.com/post?amp"],
      ["https://example.com/post", "https://example.com/post?amp=1"],
      ["https://www.theguardian.com/tech/crdts", "https://amp.theguardian.com/tech/crdts"],
    ]) {
      expect(key(copy), copy).toBe(key(page));
    }
  });

  it("never makes one page of two whose address really ends in amp, or says amp= something", () => {
    for (const [a, b] of [
      // A repository named amp and its owner's page; a package named amp and the registry's list.
      ["https://github.com/acme/amp", "https://github.com/acme"],
      ["https://www.npmjs.com/package/amp", "https://www.npmjs.com/package"],
      // A shop's amplifiers and its guitars.
      ["https://shop.example/guitar/amp", "https://shop.example/guitar"],
      ["https://shop.example/amp", "https://shop.example/"],
      // A calculator asked for two currents.
      ["https://calc.example/ohms?amp=2", "https://calc.example/ohms?amp=10"],
      ["https://example.com/amp/story", "https://example.com/story"],
    ]) {
      expect(key(a), `${a} ${b}`).not.toBe(key(b));
    }
  });
});

describe("isLesserAddress", () => {
  it("ranks an AMP copy, a mobile edition and plain http below the page's own https address", () => {
    for (const [lesser, better] of [
      ["https://amp.theguardian.com/tech/crdts", "https://www.theguardian.com/tech/crdts"],
      ["https://example-com.cdn.ampproject.org/c/s/example.com/post", "https://example.com/post"],
      ["https://example.com/why-crdts-matter/amp", "https://example.com/why-crdts-matter"],
      ["https://example.com/post?amp=1", "https://example.com/post"],
      ["https://en.m.wikipedia.org/wiki/CRDT", "https://en.wikipedia.org/wiki/CRDT"],
      ["http://example.com/post", "https://example.com/post"],
    ]) {
      expect(isLesserAddress(canonicalizeUrl(lesser)!, canonicalizeUrl(better)!), lesser).toBe(true);
      expect(isLesserAddress(canonicalizeUrl(better)!, canonicalizeUrl(lesser)!), better).toBe(false);
    }
  });

  it("ranks an address with click tracking below the same one without, even though their canonical forms are one", () => {
    expect(isLesserAddress("https://example.com/post?utm_source=x", "https://example.com/post")).toBe(true);
    expect(isLesserAddress("https://example.com/post?id=3&fbclid=IwAR0", "https://example.com/post?id=3")).toBe(true);
    expect(isLesserAddress("https://example.com/post", "https://example.com/post?utm_source=x")).toBe(false);
    expect(isLesserAddress("https://example.com/post?id=3", "https://example.com/post?id=3&utm_medium=y")).toBe(false);
  });

  it("is no reason to change between two equal addresses", () => {
    expect(isLesserAddress("https://www.example.com/post", "https://example.com/post")).toBe(false);
    expect(isLesserAddress("https://example.com/post", "https://www.example.com/post")).toBe(false);
  });
});

describe("displayDomain", () => {
  it("shows the host without www", () => {
    expect(displayDomain("https://www.Automerge.org/blog")).toBe("automerge.org");
    expect(displayDomain("nonsense")).toBe("");
  });
});

describe("distinctByCanonicalUrl", () => {
  it("skips an address longer than a browser takes, says so, and keeps the rest", () => {
    const long = `https://x.example/${"a".repeat(MAX_URL_CHARS)}`;
    const warnings: string[] = [];
    const kept = distinctByCanonicalUrl(["https://x.example/one", long, `https://x.example/${"b".repeat(MAX_URL_CHARS - 18)}`], (u) => u, 10, warnings);
    expect(kept.map((k) => k.url.length)).toEqual([21, MAX_URL_CHARS]);
    expect(warnings).toEqual(["1 result with an unusable URL skipped"]);
  });
});
