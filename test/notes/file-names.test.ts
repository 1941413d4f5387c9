import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { freeNotePath, MAX_NAME_BYTES, noteFileName, notePathIn } from "../../src/notes/file-names";
import { wikilink } from "../../src/notes/note-links";
import { MemoryNoteStore } from "../support/promote-fixtures";

const bytes = (text: string) => new TextEncoder().encode(text).byteLength;

describe("noteFileName", () => {
  // As `[\s.]+$`, a title's run of dots before a word was read from each of its dots: 20,000
  // took 0.5 s, and the 1,000,000 here would take some 20 minutes.
  it("trims a page title of 1,000,000 dots between two words in one reading", () => {
    expect(noteFileName({ text: `a${".".repeat(1_000_000)}b`, fallback: "x" })).toBe("a");
    expect(noteFileName({ text: ` . Title. .. `, fallback: "x" })).toBe("Title");
    expect(noteFileName({ text: "...", fallback: ". site.example ." })).toBe("site.example");
  });

  it("counts the prefix in the budget and cuts the text at a word", () => {
    const name = noteFileName({ prefix: "2026-11-30 1412 ", text: "word ".repeat(40), fallback: "x" });
    expect(bytes(name)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(name).toMatch(/^2026-11-30 1412 (word )+word$/);
  });

  it("measures in bytes, so a CJK question leaves room for the suffix and .md", () => {
    const name = noteFileName({ prefix: "2026-11-30 1412 ", text: "日本語".repeat(60), fallback: "x" });
    expect(bytes(`${name} 999.md`)).toBeLessThanOrEqual(255);
    expect(bytes(name)).toBeLessThanOrEqual(MAX_NAME_BYTES);
  });

  it("cleans the fallback as it cleans the text: a provider's domain names no folder", () => {
    expect(noteFileName({ text: "???", fallback: "../../Inbox/Planted" })).toBe("Inbox Planted");
    expect(noteFileName({ text: "", fallback: 'a"b*.example' })).toBe("a b .example");
    expect(noteFileName({ text: "|||", fallback: "///" })).toBe("Untitled");
    expect(notePathIn("Research/Sources", noteFileName({ text: "???", fallback: "../../Inbox/Planted" }))).toBe("Research/Sources/Inbox Planted.md");
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.string({ unit: "binary", maxLength: 200 }), (text, fallback) => {
        const name = noteFileName({ text: text.replace(/[^?|#]/g, ""), fallback });
        expect(name).not.toMatch(/[\\/:*?"<>|#^[\]\p{Cc}\p{Cf}\p{Cs}]/u);
        expect(bytes(name)).toBeLessThanOrEqual(MAX_NAME_BYTES + 7);
      }),
    );
  });

  it("refuses a name that would name a folder, rather than write there", () => {
    for (const name of ["../x", "a/b", "a\\b", "..", ".", " "]) expect(() => notePathIn("Research/Sources", name)).toThrow("is not a note name");
  });

  it("drops invisible formatting characters and spaces out controls", () => {
    expect(noteFileName({ text: "safe\u202Etxt\u200D.exe\tnow", fallback: "x" })).toBe("safetxt.exe now");
  });

  it("never gives a name Windows reads as a device, spaces before the dot and CONIN$ included", () => {
    expect(noteFileName({ text: "CON", fallback: "x" })).toBe("CON (page)");
    expect(noteFileName({ text: "nul .tar.gz", fallback: "x" })).toBe("nul (page) .tar.gz");
    expect(noteFileName({ text: "AUX   . notes", fallback: "x" })).toBe("AUX (page) . notes");
    expect(noteFileName({ text: "COM1.txt", fallback: "x" })).toBe("COM1 (page).txt");
    expect(noteFileName({ text: "conout$", fallback: "x" })).toBe("conout$ (page)");
    expect(noteFileName({ text: "Console", fallback: "x" })).toBe("Console");
    expect(noteFileName({ text: "LPT¹ report", fallback: "x" })).toBe("LPT¹ report");
  });

  // A question about Obsidian's comments ("what does %% do?") named a trace note a wikilink cannot
  // hold: a source note promoted from it had a `trace` property that was no link.
  it("gives a name a wikilink can hold, whatever the text", () => {
    expect(noteFileName({ prefix: "2026-11-30 1412 ", text: "What does %% do in Obsidian, 100%%%?", fallback: "x" })).toBe("2026-11-30 1412 What does % do in Obsidian, 100%");
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."%<[]|#^ a\n.:"), maxLength: 40 }), (text) => {
        expect(wikilink(notePathIn("Research/Traces", noteFileName({ text, fallback: "Untitled" })))).toMatch(/^\[\[Research\/Traces\/[^[\]]+\]\]$/);
      }),
    );
  });

  it("gives a name every OS accepts for any text", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "grapheme", maxLength: 200 }), fc.string({ unit: "binary", maxLength: 120 })), (text) => {
        const name = noteFileName({ text, fallback: "Untitled" });
        expect(name).not.toMatch(/[\\/:*?"<>|#^[\]\p{Cc}\p{Cf}\p{Cs}]/u);
        expect(name).not.toMatch(/^[\s.]|[\s.]$/);
        expect(name.split(".")[0].trimEnd()).not.toMatch(/^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])$/i);
        expect(bytes(name)).toBeLessThanOrEqual(MAX_NAME_BYTES + " (page)".length);
        expect(name.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe("freeNotePath", () => {
  it("numbers the name until it is free", async () => {
    const store = new MemoryNoteStore({ "Research/Sources/A.md": "", "Research/Sources/A 1.md": "" });
    expect(await freeNotePath("Research/Sources/", "A", (p) => store.exists(p))).toBe("Research/Sources/A 2.md");
    expect(await freeNotePath("", "B", (p) => store.exists(p))).toBe("B.md");
  });

  it("says so when every numbered name is taken", async () => {
    expect(await freeNotePath("F", "A", () => true)).toBeNull();
  });

  it("keeps the folder inside the vault: no empty, . or .. parts, / for \\", () => {
    expect(notePathIn("\\Research\\..\\Traces/./", "N")).toBe("Research/Traces/N.md");
  });
});
