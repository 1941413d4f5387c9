// Which sections of a matched note are shown and what their snippets look like: the section with
// the most distinct matched words wins, a heading match counts, and every highlight points at a
// matched word inside the snippet.
import { describe, expect, it } from "vitest";
import { parseNote } from "../../src/index/markdown";
import { buildSectionHits, SNIPPET_CHARS, snippetAround } from "../../src/index/section-hits";
import { ShownNotes } from "../../src/index/shown-notes";
import { createAnalyzer, wordSpans } from "../../src/index/tokenize";

const analyzer = createAnalyzer({ stemming: true });

/** docTerms as the index hands them over: analysed note term → the query word it matched. */
function docTermsFor(...queryWords: string[]): Map<string, string> {
  return new Map(queryWords.map((w) => [analyzer.normalizeTerm(w), w]));
}

function spansOf(text: string, word: string) {
  return wordSpans(text).filter((s) => s.word.toLowerCase() === word);
}

const filler = (n: number, word = "lorem") => Array.from({ length: n }, () => word).join(" ");

describe("snippetAround", () => {
  it("returns short text whole with highlights on the words", () => {
    const text = "Sync the vault with the relay.";
    const { snippet, highlights } = snippetAround(text, spansOf(text, "relay"));
    expect(snippet).toBe(text);
    expect(highlights.map(([s, e]) => snippet.slice(s, e))).toEqual(["relay"]);
  });

  it("cuts long text around the densest cluster of matches, marking both cuts", () => {
    const text = `${filler(60)} alpha ${filler(60)} beta gamma beta gamma ${filler(60)}`;
    const spans = [...spansOf(text, "alpha"), ...spansOf(text, "beta"), ...spansOf(text, "gamma")].sort((a, b) => a.start - b.start);
    const { snippet, highlights } = snippetAround(text, spans);
    expect(snippet.startsWith("…")).toBe(true);
    expect(snippet.endsWith("…")).toBe(true);
    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_CHARS + 2);
    expect(snippet).toContain("beta gamma beta gamma");
    const marked = highlights.map(([s, e]) => snippet.slice(s, e));
    expect(marked).toEqual(["beta", "gamma", "beta", "gamma"]);
  });

  it("prefers the window showing more distinct words to one repeating a word, and then the one with more matches", () => {
    const marked = (text: string, ...words: string[]) => {
      const spans = wordSpans(text).filter((s) => words.includes(s.word));
      const { snippet, highlights } = snippetAround(text, spans);
      return highlights.map(([s, e]) => snippet.slice(s, e));
    };
    const repeats = `${filler(10)}. alpha alpha alpha alpha alpha. ${filler(60)}. Then alpha and beta. ${filler(60)}`;
    expect(marked(repeats, "alpha", "beta")).toEqual(["alpha", "beta"]);
    // Spans that do not say their word count each as a word: the most matches win, as before.
    const unnamed = wordSpans(repeats).filter((s) => s.word === "alpha" || s.word === "beta").map(({ start, end }) => ({ start, end }));
    const old = snippetAround(repeats, unnamed);
    expect(old.highlights.map(([s, e]) => old.snippet.slice(s, e))).toEqual(Array(5).fill("alpha"));
    const ties = `alpha beta ${filler(60)}. Then alpha, beta, alpha and beta. ${filler(60)}`;
    expect(marked(ties, "alpha", "beta")).toEqual(["alpha", "beta", "alpha", "beta"]);
  });

  it("keeps highlights on the words when runs of whitespace are collapsed", () => {
    const text = `Intro\n\n\n   line   with    spaces\tand the   word   target   here.`;
    const { snippet, highlights } = snippetAround(text, spansOf(text, "target"));
    expect(snippet).not.toMatch(/\s\s/);
    expect(highlights.map(([s, e]) => snippet.slice(s, e))).toEqual(["target"]);
  });

  it("keeps a blank line as one line break where a shown note's blocks end, and other runs of whitespace as a space", () => {
    const text = "`RELAY_PORT=8787 node dist/relay.js`\n\nDesign review:\n  sync relay. " + filler(60);
    const { snippet, highlights } = snippetAround(text, spansOf(text, "relay").slice(1));
    // The window starts where the match's block does, not inside the code block before it.
    expect(snippet.startsWith("…\nDesign review: sync relay. lorem")).toBe(true);
    const short = snippetAround("`node dist/relay.js`\n\nDesign review:\n  sync relay.", []).snippet;
    expect(short).toBe("`node dist/relay.js`\nDesign review: sync relay.");
    expect(highlights.map(([s, e]) => snippet.slice(s, e))).toEqual(["relay"]);
    expect(snippet.indexOf("relay.")).toBe(highlights[0][0]);
  });

  it("keeps highlights right when leading whitespace is trimmed", () => {
    const text = "   \n  leading space then match";
    const { snippet, highlights } = snippetAround(text, spansOf(text, "match"));
    expect(snippet.startsWith("leading")).toBe(true);
    expect(highlights.map(([s, e]) => snippet.slice(s, e))).toEqual(["match"]);
  });

  it("never cuts an emoji or a rare CJK character in half where text without spaces is cut", () => {
    const halfCharacter = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    for (let kana = 1; kana < 8; kana++) {
      for (let shift = 0; shift < 3; shift++) {
        const text = `${`${"あ".repeat(kana)}🔁`.repeat(100)}${"x".repeat(shift)}予定${`${"あ".repeat(kana)}📅`.repeat(100)}`;
        const at = text.indexOf("予定");
        const { snippet, highlights } = snippetAround(text, [{ start: at, end: at + 2 }]);
        expect(snippet).not.toMatch(halfCharacter);
        expect(highlights.map(([s, e]) => snippet.slice(s, e))).toEqual(["予定"]);
      }
    }
  });
});

// The evidence brief quotes no sentence a snippet cut at its start (its "never" may be what was cut),
// so a window starts where the match's sentence does when that is near, and says so with "…" on a line of its own.
describe("snippetAround: where the window starts", () => {
  const snippetFor = (text: string, word: string) => {
    const { snippet, highlights } = snippetAround(text, spansOf(text, word));
    expect(highlights.map(([s, e]) => snippet.slice(s, e).toLowerCase())).toContain(word);
    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_CHARS + 3);
    return snippet;
  };

  it("starts at the sentence that holds the first match, not a few words before it", () => {
    const text = `Cast iron lasts for generations. Rinse it with hot water, dry it at once and oil it lightly after each use. You should never put a seasoned cast iron skillet into the dishwasher, whatever its label says. ${filler(60)}`;
    expect(snippetFor(text, "dishwasher").startsWith("…\nYou should never put a seasoned cast iron skillet into the dishwasher,")).toBe(true);
  });

  it("starts at the match when its sentence starts with it", () => {
    const text = `Cast iron lasts for generations. Rinse it with hot water and oil it lightly after each use. Dishwashers strip the seasoning off a skillet in one wash. ${filler(60)}`;
    expect(snippetFor(text, "dishwashers").startsWith("…\nDishwashers strip the seasoning")).toBe(true);
  });

  it("starts at the lead-in a list item hangs on, over the items before it", () => {
    const text = `${"An opening paragraph long enough to be left out. ".repeat(4)}\n\nThese are myths that do not work:\n\nGarlic cures colds\n\nVitamin C prevents flu\n\nCold weather causes colds ${filler(60)}`;
    expect(snippetFor(text, "flu").startsWith("…\nThese are myths that do not work:\nGarlic cures colds\nVitamin C prevents flu")).toBe(true);
  });

  it("marks an item whose list's lead-in is out of reach as cut from it, never as a whole statement", () => {
    const items = [
      "Vitamin C megadoses prevent every cold you might ever catch in a long winter season at home",
      "Chicken soup cures the flu outright if eaten three times a day for a whole week without any break at all",
      "Cold weather itself causes colds directly rather than the viruses that spread more easily indoors in winter",
    ];
    const text = ["These are myths that do not work:", ...items, "Garlic cures colds"].join("\n\n");
    expect(snippetFor(text, "garlic")).toBe("…Garlic cures colds");
    // A list with no lead-in above it: the item is whole.
    expect(snippetFor(text.replace("These are myths that do not work:", "Notes from the clinic."), "garlic")).toBe("…\nGarlic cures colds");
  });

  it("marks a later sentence of an item whose lead-in is out of reach as cut too, and starts at a lead-in within reach", () => {
    const item = `Garlic cures colds. ${filler(40)}. Onions cure the flu`;
    const far = `These are myths that do not work:\n\n${item}`;
    expect(snippetFor(far, "onions").startsWith("…Onions cure the flu")).toBe(true);
    const near = `${filler(60)}.\n\nThese are myths:\n\nGarlic cures colds. Onions cure the flu. ${filler(50)}`;
    expect(snippetFor(near, "onions").startsWith("…\nThese are myths:\nGarlic cures colds. Onions")).toBe(true);
  });

  it("keeps the gap a hidden block leaves (an image after a lead-in) as an empty line, which no lead-in reaches across", () => {
    const text = `${filler(60)}.\n\nNow you get the following shortcode:\n\n\n\nType the name of the page inside the brackets ${filler(40)}`;
    const { snippet, highlights } = snippetAround(text, spansOf(text, "brackets"));
    expect(snippet.startsWith("…\nType the name of the page")).toBe(true);
    expect(highlights.map(([s, e]) => snippet.slice(s, e))).toEqual(["brackets"]);
    const whole = snippetAround(`Now you get the following shortcode:\n\n\n\nType the name inside the brackets.`, []).snippet;
    expect(whole).toBe("Now you get the following shortcode:\n\nType the name inside the brackets.");
    const marked = snippetAround(`${filler(10)}:\n\n\n\nThe brackets ${filler(60)}`, spansOf(`${filler(10)}:\n\n\n\nThe brackets ${filler(60)}`, "brackets"));
    expect(marked.highlights.map(([s, e]) => marked.snippet.slice(s, e))).toEqual(["brackets"]);
  });

  it("takes no abbreviation's or initial's dot for a sentence's end", () => {
    const text = `We compared two plugins, e.g. Dataview and Tasks, and found the index never loses a note when the vault is synced from a phone. ${filler(60)}`;
    expect(snippetFor(text, "synced").startsWith("We compared two plugins, e.g. Dataview")).toBe(true);
    const initials = `${filler(30)}. The trilogy by J. R. R. Tolkien was first printed in three volumes in a small run. ${filler(60)}`;
    expect(snippetFor(initials, "volumes").startsWith("…\nThe trilogy by J. R. R. Tolkien")).toBe(true);
  });

  it("starts where the evidence brief reads a sentence start (text/sentence-ends.ts): after a closing quotation mark, at a Thai space", () => {
    const quoted = `${filler(30)}. The sign said "Keep out." Dogs bark at the gate every night. ${filler(60)}`;
    expect(snippetFor(quoted, "dogs").startsWith("…\nDogs bark at the gate")).toBe(true);
    const weather = "วันนี้อากาศดีมากและเราไปเที่ยวทะเล ";
    const thai = `${weather.repeat(8)}การหมักใช้ทำขนมปังและชีส ${weather.repeat(8)}`;
    expect(snippetFor(thai, "การหมักใช้ทำขนมปังและชีส").startsWith("…\nการหมักใช้ทำขนมปังและชีส")).toBe(true);
  });

  it("starts near the match as before, marked as a cut inside a sentence, when the sentence starts too far back", () => {
    const text = `Start ${filler(80)} match ${filler(60)}`;
    const snippet = snippetFor(text, "match");
    expect(snippet.startsWith("…")).toBe(true);
    expect(snippet.startsWith("…\n")).toBe(false);
    expect(snippet.indexOf("match")).toBeLessThan(SNIPPET_CHARS / 4);
  });
});

describe("buildSectionHits", () => {
  const note = parseNote(
    "Guide.md",
    [
      "# Guide",
      "",
      "Opening words about nothing much.",
      "",
      "## Backups",
      "",
      "Nightly backups go to the offsite disk; restore backups with the restore script.",
      "",
      "## Restore drill",
      "",
      "Once a quarter we practise.",
      "",
      "## Unrelated",
      "",
      "Gardening tips.",
    ].join("\n"),
  );

  it("puts the section with the most distinct matched words first", () => {
    const hits = buildSectionHits(note, docTermsFor("backups", "restore"), analyzer, 3);
    expect(hits.map((h) => h.heading)).toEqual(["Backups", "Restore drill"]);
    expect(hits[0].matchedTerms.sort()).toEqual(["backups", "restore"]);
    expect(hits[0].closeTerms.sort()).toEqual(["backups", "restore"]);
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
  });

  it("counts a word in the heading as found in the section", () => {
    const hits = buildSectionHits(note, docTermsFor("drill"), analyzer, 3);
    expect(hits[0].heading).toBe("Restore drill");
    expect(hits[0].matchedTerms).toEqual(["drill"]);
    expect(hits[0].highlights).toEqual([]);
  });

  it("gives section facts that point back into the note", () => {
    const text = [
      "# Guide",
      "",
      "Opening words.",
      "",
      "## Backups",
      "",
      "Nightly backups.",
    ].join("\n");
    const parsed = parseNote("G.md", text);
    const [hit] = buildSectionHits(parsed, docTermsFor("nightly"), analyzer, 1);
    expect(hit.line).toBe(5);
    expect(hit.headingPath).toEqual(["Guide", "Backups"]);
    expect(text.slice(hit.start, hit.end)).toContain("## Backups\n\nNightly backups.");
  });

  it("falls back to the first section with text when no section holds a match", () => {
    const hits = buildSectionHits(note, docTermsFor("zeppelin"), analyzer, 3);
    expect(hits).toHaveLength(1);
    expect(hits[0].snippet).toContain("Opening words");
  });

  it("gives no more than the asked number of sections", () => {
    expect(buildSectionHits(note, docTermsFor("backups", "restore", "gardening"), analyzer, 2)).toHaveLength(2);
  });

  it("marks the matched characters inside a Chinese run, joining overlapping pairs", () => {
    const zh = parseNote("Zh.md", "# 笔记\n\n我们使用中文搜索引擎查找资料。\n");
    const query = new Map(analyzer.analyzeWord("中文搜索").map((t) => [t, "中文搜索"]));
    const [hit] = buildSectionHits(zh, query, analyzer, 1);
    expect(hit.highlights.map(([s, e]) => hit.snippet.slice(s, e))).toEqual(["中文搜索"]);
    const two = new Map([["引擎", "引擎"], ["我们", "我们"]]);
    const [hit2] = buildSectionHits(zh, two, analyzer, 1);
    expect(hit2.highlights.map(([s, e]) => hit2.snippet.slice(s, e))).toEqual(["我们", "引擎"]);
  });

  it("reads a 1,000,000-character word in which a query word's first letters recur once", () => {
    // A hash or a base64 blob: each "aard" in it walked back to the word's start (hours for this one).
    const note = parseNote("Blob.md", `# Blob\n\nalpha ${"aard".repeat(250_000)}`);
    const [hit] = buildSectionHits(note, docTermsFor("alpha", "aardvark"), analyzer, 1);
    expect(hit.matchedTerms).toEqual(["alpha"]);
    expect(hit.highlights.map(([s, e]) => hit.snippet.slice(s, e))).toEqual(["alpha"]);
  });

  // A tldr page says its command on every example line: the window with the most matches is the
  // one repeating the command, and the word asked about (a flag, a setting) was left out of it.
  it("shows the window holding more of the asked words over one repeating the command", () => {
    const page = [
      "# lumctl",
      "",
      "> Change how bright the screen is and when it dims.",
      "> More information: <https://example.org/man/lumctl.1.html>.",
      "",
      ...[
        ["Show the settings", "lumctl -g"],
        ["Show the battery", "lumctl -g batt"],
        ["Dim now", "lumctl dimnow"],
        ["Brighten a step", "lumctl up"],
        ["Darken a step", "lumctl down"],
        ["Make the screen go dark after a quarter of an hour without any use while it runs on its battery", "sudo lumctl -b dimafter 15"],
        ["Wake the computer up by itself every weekday morning at nine", "sudo lumctl repeat wake MTWRF 09:00:00"],
      ].flatMap(([what, command]) => [`- ${what}:`, "", `\`${command}\``, ""]),
    ].join("\n");
    for (const parsed of [parseNote("lumctl.md", page), new ShownNotes().parse("lumctl.md", page)]) {
      const [hit] = buildSectionHits(parsed, docTermsFor("lumctl", "dimafter"), analyzer, 1);
      const marked = hit.highlights.map(([s, e]) => hit.snippet.slice(s, e));
      expect(marked).toContain("dimafter");
      expect(marked).toContain("lumctl");
    }
  });

  it("names only the words that sit close together as close terms", () => {
    const far = parseNote("Far.md", `# Far\n\nalpha ${filler(80)} omega`);
    const [hit] = buildSectionHits(far, docTermsFor("alpha", "omega"), analyzer, 1);
    expect(hit.matchedTerms.sort()).toEqual(["alpha", "omega"]);
    expect(hit.closeTerms).toHaveLength(1);
  });
});
