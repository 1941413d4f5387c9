import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { removeControlChars } from "../../src/text/control-chars";
import { isCredential, REDACTED, scrubSecrets, secretScrubber, hideKey, KEY_HIDDEN } from "../../src/text/secret-scrub";

const KEY = "sk-test-ABCDEFGH12345678";

describe("scrubSecrets", () => {
  it("replaces each secret in strings and object keys at any depth", () => {
    const value = { a: ["s3cr3t-token", { "s3cr3t-token": 1, b: "x s3cr3t-token y" }], n: 5, t: true, z: null };
    expect(scrubSecrets(value, ["s3cr3t-token"])).toEqual({ a: [REDACTED, { [REDACTED]: 1, b: `x ${REDACTED} y` }], n: 5, t: true, z: null });
  });

  it("ignores empty secrets instead of redacting everything", () => {
    expect(scrubSecrets({ a: "text" }, ["", "  "])).toEqual({ a: "text" });
    expect(scrubSecrets({ a: "text" }, [null, undefined])).toEqual({ a: "text" });
  });

  it("leaves a secret under 4 characters alone: it is no key, and hiding it hid every word's letters and field names", () => {
    const answer = { kind: "extractive", text: "x marks the spot" };
    expect(scrubSecrets(answer, ["x"])).toEqual(answer);
    expect(scrubSecrets(answer, ["abc"])).toEqual(answer);
    expect(scrubSecrets({ note: "key abcd here" }, ["abcd"])).toEqual({ note: `key ${REDACTED} here` });
  });

  it("leaves no trace of any secret in any JSON value", () => {
    // Secrets sharing a character with "[redacted]" could be re-formed by the replacement itself;
    // real API keys are long enough that this cannot happen. Under 4 characters a secret is no key (above).
    const secrets = fc.string({ minLength: 4, maxLength: 30 }).filter((s) => s.trim().length >= 4 && ![...s].some((c) => REDACTED.includes(c)));
    fc.assert(
      fc.property(fc.json(), secrets, (json, secret) => {
        const seeded = { json: JSON.parse(json) as unknown, note: `before ${secret} after`, [secret]: secret };
        const scrubbed = JSON.stringify(scrubSecrets(seeded, [secret]));
        // JSON escaping can hide a secret's characters, so compare the parsed strings too.
        const strings: string[] = [];
        // Array indices arrive as keys "0", "1"… — positions, not content — so only object keys count.
        JSON.parse(scrubbed, function (this: unknown, k: string, v: unknown) {
          strings.push(Array.isArray(this) ? "" : k, typeof v === "string" ? v : "");
          return v;
        });
        return strings.every((s) => !s.includes(secret));
      }),
    );
  });
});

describe("the forms a secret can take", () => {
  const scrub = secretScrubber([KEY]);

  it("raw", () => {
    expect(scrub.text(`error: key ${KEY} refused`)).toBe(`error: key ${REDACTED} refused`);
  });

  it("JSON-escaped, wholly or character by character, as a 200 body may carry it", () => {
    const whole = Array.from(KEY, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
    const some = KEY.replace(/[a-z]/g, (c) => `\\u00${c.charCodeAt(0).toString(16).toUpperCase()}`);
    expect(scrub.text(`{"message":"${whole}"}`)).toBe(`{"message":"${REDACTED}"}`);
    expect(scrub.text(`{"message":"${some}"}`)).toBe(`{"message":"${REDACTED}"}`);
    expect(secretScrubber(["a/b-key-123"]).text('"a\\/b-key-123"')).toBe(`"${REDACTED}"`);
  });

  it("percent-encoded, wholly or in part", () => {
    const all = Array.from(new TextEncoder().encode(KEY), (b) => `%${b.toString(16)}`).join("");
    expect(scrub.text(`https://x.example/?k=${all}`)).toBe(`https://x.example/?k=${REDACTED}`);
    expect(scrub.text(`?k=${KEY.replace(/-/g, "%2D")}`)).toBe(`?k=${REDACTED}`);
    const unicode = secretScrubber(["clé-secrète-42"]);
    expect(unicode.text(`?k=${encodeURIComponent("clé-secrète-42")}`)).toBe(`?k=${REDACTED}`);
  });

  it("base64 and base64url, at every alignment (a Basic header holds user:key)", () => {
    for (const before of ["", "u", "us", "user:"]) {
      const encoded = Buffer.from(`${before}${KEY}!`).toString("base64");
      expect(scrub.text(`Basic ${encoded}`)).toContain(REDACTED);
      const url = Buffer.from(`${before}${KEY}!`).toString("base64url");
      expect(scrub.text(url)).toContain(REDACTED);
    }
  });

  it("in another case, as a server that lower- or upper-cases what it echoes sends it back", () => {
    const key = "sk-Live-AbCdEf-123";
    const mixed = secretScrubber([key]);
    expect(mixed.text(`unknown key ${key.toLowerCase()}`)).toBe(`unknown key ${REDACTED}`);
    expect(mixed.text(`UNKNOWN KEY ${key.toUpperCase()}`)).toBe(`UNKNOWN KEY ${REDACTED}`);
    expect(mixed.text(`{"k":"${key.toLowerCase().replace(/[a-z]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)}"}`)).toBe(`{"k":"${REDACTED}"}`);
    expect(mixed.text(`cut ${key.toLowerCase().slice(0, 9)}…`)).toBe(`cut ${REDACTED}…`);
    expect(hideKey(`bad key ${key.toUpperCase()}`, key)).toBe(`bad key ${KEY_HIDDEN}`);
  });

  it("with what a reader never sees between its characters, which an output strips or hides to show the key whole", () => {
    const at = 7;
    const inside = (gap: string) => `key ${KEY.slice(0, at)}${gap}${KEY.slice(at)} echoed`;
    // A terminal is sent no control character (the CLI drops them), and no note or panel shows a zero-width one.
    for (const gap of ["\u0007", "\r", "\u001b[0m", "\u001b[31;1m\u001b[0m", "\u001b]0;title\u0007", "\u001b(B", "\u200b", "\u00ad", "\u2060", "\ufeff", "\u202e", "\ufe0f", "\u{e0041}"]) {
      expect(scrub.text(inside(gap)), JSON.stringify(gap)).toBe(`key ${REDACTED} echoed`);
    }
    // A rendered note shows `sk\-live` as `sk-live`.
    expect(scrub.text(`key ${KEY.replace(/-/g, "\\-")} echoed`)).toBe(`key ${REDACTED} echoed`);
    // What a reader sees as a break keeps two halves apart, as other words do.
    expect(scrub.text(inside(" "))).toBe(inside(" "));
    expect(scrub.text(inside("\n"))).toBe(inside("\n"));
  });

  it("with an ESC before one of its letters, which a note drops alone and a terminal with the letter", () => {
    // A note's escaper takes the ESC only (a short escape goes whole in a terminal alone): `sk-test-A␛BCD…` showed the key whole.
    const echoed = `key ${KEY.slice(0, 9)}\u001b${KEY.slice(9)} echoed`;
    const scrubbed = scrub.text(echoed);
    expect(scrubbed).toBe(`key ${REDACTED} echoed`);
    expect(removeControlChars(scrubbed, true)).not.toContain(KEY);
    expect(removeControlChars(scrubbed, true, { shortEscapes: true })).not.toContain(KEY);
    // A short escape cut off before its final character: a terminal's sanitiser takes its `(` all the same.
    expect(scrub.text(`key ${KEY.slice(0, 9)}\u001b(\u0007${KEY.slice(9)} echoed`)).toBe(`key ${REDACTED} echoed`);
  });

  it("leaves the key to no reader, terminal or note, whatever unseen parts are spliced into it and whatever stands around it", () => {
    const gap = fc.constantFrom("\u0007", "\r", "\u001b", "\u001b[0m", "\u001b]0;title\u0007", "\u001b(B", "\u001b(", "\u200b", "\u00ad", "\ufeff", "\u{e0041}", "\\");
    /** What a reader sees: a terminal (short escapes whole) or a note (the ESC alone); no zero-width character, and markdown escapes read left to right (`\\-` shows `\-`). */
    const readers = (text: string) =>
      [removeControlChars(text, true, { shortEscapes: true }), removeControlChars(text, true)].map((seen) =>
        seen.replace(/[\u00ad\u200b\ufeff]|\udb40[\udc00-\udc7f]/g, "").replace(/\\([!-/:-@[-`{-~])/g, "$1"),
      );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(KEY.length), gap), { maxLength: 4 }), fc.string(), fc.string(), (cuts, before, after) => {
        let spliced = KEY;
        for (const [at, inside] of [...cuts].sort((a, b) => b[0] - a[0])) spliced = `${spliced.slice(0, at)}${inside}${spliced.slice(at)}`;
        return readers(scrub.text(`${before} ${spliced} ${after}`)).every((seen) => !seen.includes(KEY));
      }),
    );
  });

  it("reads a text whose only unseen characters end its lines as Windows does once: CRLF is a line break, not a part to take out", () => {
    const text = Array.from({ length: 200 }, (_, i) => `line ${i} of a note`).join("\r\n");
    const matchAll = vi.spyOn(String.prototype, "matchAll");
    try {
      expect(scrub.text(text)).toBe(text);
      expect(scrub.text(`${KEY.slice(0, 9)}\r\n${KEY.slice(9)}`)).toBe(`${KEY.slice(0, 9)}\r\n${KEY.slice(9)}`);
      // The second reading, over the text as seen, is for texts with something unseen in them.
      expect(matchAll).not.toHaveBeenCalled();
    } finally {
      matchAll.mockRestore();
    }
    expect(scrub.text(`key ${KEY.slice(0, 9)}\r${KEY.slice(9)}`)).toBe(`key ${REDACTED}`);
  });

  it("the start of a secret at the end of a cut string", () => {
    expect(scrub.text(`body … ${KEY.slice(0, 9)}…`)).toBe(`body … ${REDACTED}…`);
    expect(scrub.text(`body ${KEY.slice(0, 4)}…`)).toBe(`body ${KEY.slice(0, 4)}…`);
  });

  it("leaves ordinary text alone", () => {
    const text = "Automerge 3.2 adds compaction [ext:brave:88e76693df]. SGVsbG8gd29ybGQ= %41 \\u0041";
    expect(scrub.text(text)).toBe(text);
    expect(secretScrubber([]).empty).toBe(true);
  });
});

describe("isCredential", () => {
  it("tells a key from a placeholder a local server takes", () => {
    expect(isCredential("sk-proj-0123456789abcdef")).toBe(true);
    for (const placeholder of ["ollama", "lm-studio", "x", "", "   ", null, undefined]) expect(isCredential(placeholder)).toBe(false);
  });
});

describe("hideKey (a web source's key in its own messages and bodies)", () => {
  const key = "BSA-hide-0123456789abcd";
  const escaped = Array.from(key, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");

  it("says [key hidden] where the key was, as provider messages always have", () => {
    expect(hideKey(`upstream rejected token ${key} for https://api.example/?key=${key}`, key)).toBe("upstream rejected token [key hidden] for https://api.example/?key=[key hidden]");
  });

  it("in every form the scrubber knows: JSON-escaped (before parsing), percent-encoded, base64", () => {
    const body = `{"title":"release ${escaped}","url":"https://e.example/?k=${encodeURIComponent(key).replace(/-/g, "%2D")}","auth":"${Buffer.from(`me:${key}`).toString("base64")}"}`;
    const hidden = hideKey(body, key);
    expect((JSON.parse(hidden) as { title: string }).title).toBe(`release ${KEY_HIDDEN}`);
    expect(hidden).not.toContain(Buffer.from(key).toString("base64").slice(2, 20));
    expect(hidden).toContain(`?k=${KEY_HIDDEN}`);
  });

  it("leaves text alone for a key under 4 characters, and a cut-off start of a key goes too", () => {
    expect(hideKey("x marks the spot", "x")).toBe("x marks the spot");
    expect(hideKey(`error … ${key.slice(0, 10)}…`, key)).toBe(`error … ${KEY_HIDDEN}…`);
  });
});
