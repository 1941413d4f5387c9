// Logseq's hiccup as a shown note gives it: the words Logseq renders, and nothing taken for hiccup
// that is prose in brackets.
import { describe, expect, it } from "vitest";
import { readHiccup } from "../../src/index/hiccup";
import { inlineToText, type InlineSink } from "../../src/index/inline-text";

const shown = (line: string) => inlineToText(line, { tags: [], links: [], readingView: true });
const form = (text: string) => readHiccup(text, 0, text.length).form;

describe("Logseq's hiccup in a shown note", () => {
  it("shows an element's strings, none of its attributes or code, and keeps block elements' words apart", () => {
    expect(form('[:div.text-sm "By " [:a {:href "https://unsplash.com/x" :target "_blank"} "Greg Rakozy"]]')?.text).toBe("By Greg Rakozy");
    expect(form('[:a.tag {:href (str "#/page/" tag)} "Open"]')?.text).toBe("Open");
    expect(form('[:div [:h2 "Usage"] [:p "Type " [:kbd "/"] " to start."]]')?.text).toBe("Usage Type `/` to start.");
    expect(form('[:p "She said \\"hi\\"."]')?.text).toBe('She said "hi".');
  });

  it("reads an element that shows an object, or an empty box with a class, as hiccup showing no words", () => {
    const image = '[:img {:src "https://i.imgur.com/iYo6B6S.gif"}]';
    expect(form(image)).toEqual({ end: image.length, text: "" });
    expect(form("[:hr]")?.text).toBe("");
    expect(form("[:div.mb-4]")?.text).toBe("");
    const sink: InlineSink = { tags: [], links: [], readingView: true };
    expect(inlineToText("Before [:hr] after", sink)).toBe("Before  after");
    expect(sink.objects).toBe(1);
  });

  it("leaves prose in brackets as written: no HTML element, an element showing nothing, brackets that do not close in order", () => {
    expect(shown("Mind the [:warning: careful] part.")).toBe("Mind the [:warning: careful] part.");
    expect(shown("We had [:a lot of fun] there.")).toBe("We had [:a lot of fun] there.");
    expect(shown('Broken [:p "text" (] here.')).toBe('Broken [:p "text" (] here.');
    expect(shown('Open [:p "never closed')).toBe('Open [:p "never closed');
    // A markdown link's label that starts like a keyword is still a link.
    expect(shown("See [:tada: Release notes](https://example.com/notes).")).toBe("See :tada: Release notes.");
  });

  it("reads a line of many forms no bracket closes, and one of many forms that do, each once", () => {
    const unclosed = '[:p "x" '.repeat(20_000);
    expect(shown(unclosed)).toBe(unclosed);
    expect(shown('[:b "x"] '.repeat(20_000)).trim()).toBe("x ".repeat(20_000).trim());
  });

  it("reads it only for a shown note: the index reads the words as written", () => {
    expect(inlineToText('By [:a {:href "https://x.dev"} "Ed"]', { tags: [], links: [] })).toBe('By [:a {:href "https://x.dev"} "Ed"]');
  });
});
