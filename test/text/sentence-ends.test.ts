// Where sentences end: the index's snippets start at one, and the evidence brief quotes them whole.
import { describe, expect, it } from "vitest";
import { asSentence, endsAsSentence, ENDS_WITH_STOP, joinSentences, sentenceStarts, sentencesIn } from "../../src/text/sentence-ends";

describe("sentencesIn", () => {
  it("ends a sentence at a stop before a space and a capital, a figure or a quotation mark", () => {
    expect(sentencesIn('It works. 3 notes did. "Yes," he said! Why? (Maybe.) Fine.')).toEqual(["It works.", "3 notes did.", '"Yes," he said!', "Why?", "(Maybe.)", "Fine."]);
  });

  it("ends one after the quotation marks and brackets that close on its stop", () => {
    expect(sentencesIn('The sign said "Keep out." Dogs bark. See (the index.) Then go.')).toEqual(['The sign said "Keep out."', "Dogs bark.", "See (the index.)", "Then go."]);
  });

  it("ends none at an abbreviation's or an initial's dot, nor before a small letter", () => {
    expect(sentencesIn("A plugin, e.g. Dataview, by J. R. R. Tolkien. Open config.json. then more")).toEqual(["A plugin, e.g. Dataview, by J. R. R. Tolkien.", "Open config.json. then more"]);
  });

  it("reads scripts without capitals or spaces: Arabic, Chinese, Hindi, Thai", () => {
    expect(sentencesIn("التخمير عملية قديمة. الطقس كان جميلا؟ نعم")).toEqual(["التخمير عملية قديمة.", "الطقس كان جميلا؟", "نعم"]);
    expect(sentencesIn("酵头要喂。每天一次！好")).toEqual(["酵头要喂。", "每天一次！", "好"]);
    expect(sentencesIn("किण्वन पुरानी प्रक्रिया। आज मौसम अच्छा")).toEqual(["किण्वन पुरानी प्रक्रिया।", "आज मौसम अच्छा"]);
    expect(sentencesIn("การหมักเป็นกระบวนการเก่าแก่ วันนี้อากาศดี")).toEqual(["การหมักเป็นกระบวนการเก่าแก่", "วันนี้อากาศดี"]);
  });

  it("gives no empty sentence, and the text whole when nothing ends in it", () => {
    expect(sentencesIn("")).toEqual([]);
    expect(sentencesIn("一句。")).toEqual(["一句。"]);
    expect(sentencesIn("no stop here")).toEqual(["no stop here"]);
  });
});

describe("sentenceStarts", () => {
  it("gives where each sentence after the first starts, in order", () => {
    const text = "One. Two。Three";
    expect(sentenceStarts(text)).toEqual([text.indexOf("Two"), text.indexOf("Three")]);
  });
});

describe("ENDS_WITH_STOP", () => {
  it("knows a block that ends as a sentence does, in any of the rule's scripts", () => {
    for (const block of ["Done.", 'He said "done."', "完成。", "पूरा।", "Really?)"]) expect(ENDS_WITH_STOP.test(block), block).toBe(true);
    for (const block of ["Garlic cures colds", "These are myths:", "cut here…"]) expect(ENDS_WITH_STOP.test(block), block).toBe(false);
  });
});

describe("endsAsSentence", () => {
  it("holds for a stop, one before closing quotation marks or brackets, and a cut (…), not for a colon, comma or bare quote", () => {
    for (const ended of ['He said "done."', "(see above.)", "Is it down?", "完成。", "cut here…"]) expect(endsAsSentence(ended), ended).toBe(true);
    for (const open of ["These are myths:", "one,", 'He said "done"', "(HTTP 403)"]) expect(endsAsSentence(open), open).toBe(false);
  });
});

describe("asSentence and joinSentences", () => {
  it("end a text that ends no sentence with a full stop, and leave one that does as it is", () => {
    expect(asSentence("Hacker News answered HTTP 503: Service Unavailable")).toBe("Hacker News answered HTTP 503: Service Unavailable.");
    for (const ended of ["Brave did not answer within 5 s.", "Is the key right?", 'Brave said "Quota exceeded."', "Stop!", "完成。", "The page was cut…"]) expect(asSentence(ended), ended).toBe(ended);
    // A closing quotation mark or bracket with no stop before it ends nothing.
    expect(asSentence('Brave said "Quota exceeded"')).toBe('Brave said "Quota exceeded".');
    expect(asSentence("Exa refused the request (HTTP 403)")).toBe("Exa refused the request (HTTP 403).");
  });

  it("put a full stop in place of a colon, semicolon or comma left at the end, and trim white space", () => {
    expect(asSentence("Brave answered HTTP 502: ")).toBe("Brave answered HTTP 502.");
    expect(asSentence("  one; ")).toBe("one.");
    expect(asSentence(" \n")).toBe("");
  });

  it("join sentences with one space, each ended, leaving out empty ones", () => {
    expect(joinSentences("Hacker News failed (http): Hacker News answered HTTP 503: Service Unavailable", "Vault results are kept.")).toBe(
      "Hacker News failed (http): Hacker News answered HTTP 503: Service Unavailable. Vault results are kept.",
    );
    expect(joinSentences("Is it down?", "", "Vault results are kept")).toBe("Is it down? Vault results are kept.");
    expect(joinSentences("", " ")).toBe("");
  });
});
