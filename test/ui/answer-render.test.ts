// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from "vitest";
import type { App as ObsidianApp } from "obsidian";
import { App, Component, MarkdownRenderer } from "../stubs/obsidian";
import { citationTargets, renderAnswer, type ChipActions } from "../../src/ui/answer-render";
import { inertAnswerMarkdown } from "../../src/notes/inert-answer";
import { outsideRow, pack, vaultRow } from "../support/pack-fixtures";
import { writeEvidenceBrief } from "../../src/research/stages/extractive-brief";
import { answerAsMarkdown } from "../../src/ui/answer-markdown";

const note = vaultRow("Concepts/CRDT.md", "CRDT", [{ heading: "Merging", text: "CRDTs merge without a server." }]);
const page = outsideRow("brave", "https://automerge.org/blog/automerge-3/", "Automerge 3.0", "Lower memory.");
const targets = citationTargets(pack("q", [note], [page]));

async function render(markdown: string) {
  const el = document.createElement("div");
  document.body.appendChild(el);
  const opened: string[] = [];
  const actions: ChipActions = {
    openNote: (t) => void opened.push(`note:${t.path}#${t.heading ?? ""}`),
    openUrl: (t) => void opened.push(`url:${t.url}`),
  };
  const component = new Component();
  await renderAnswer(new App() as unknown as ObsidianApp, markdown, el, targets, actions, component as never);
  return { el, opened };
}

afterEach(() => {
  document.body.empty();
  MarkdownRenderer.calls.length = 0;
});

describe("answer rendering", () => {
  it("turns citation brackets into chips that open the note at its heading or the web page", async () => {
    const { el, opened } = await render(`CRDTs merge offline [${note.source_key}]. Version 3 uses less memory [${page.source_key}; ${note.source_key}].`);
    const chips = [...el.querySelectorAll<HTMLElement>(".vault-research-chip")];
    expect(chips.map((c) => c.dataset.sourceKey)).toEqual([note.source_key, page.source_key, note.source_key]);
    expect(chips[0].hasClass("vault-research-chip-vault")).toBe(true);
    expect(chips[1].hasClass("vault-research-chip-outside")).toBe(true);
    expect(chips[1].getAttribute("aria-label")).toContain("Outside vault · Brave · ephemeral");
    chips[0].click();
    chips[1].click();
    expect(opened).toEqual(["note:Concepts/CRDT.md#Merging", "url:https://automerge.org/blog/automerge-3/"]);
    expect(el.textContent).not.toContain("[src:");
  });

  it("keeps markdown formatting: emphasis, lists and code", async () => {
    const { el } = await render("**Bold** and *soft*\n\n- one\n- two\n\n```\nlet x = [1];\n```");
    expect(el.querySelector("strong")?.textContent).toBe("Bold");
    expect(el.querySelectorAll("li")).toHaveLength(2);
    expect(el.querySelector("pre code")?.textContent).toBe("let x = [1];");
  });

  it("lets nothing from the answer become a link, an image, an embed or HTML", async () => {
    const hostile = [
      "See [the docs](https://evil.example/steal) and [[Secret note]] and ![[Private.pdf]].",
      "![tracker](https://evil.example/pixel.png?q=question)",
      '<img src="https://evil.example/x.png" onerror="alert(1)"> <a href="https://evil.example">click</a> <script>alert(2)</script>',
      "Autolink <https://evil.example/auto> and bare https://evil.example/bare and #tag.",
      "[ref]: https://evil.example/ref",
      `[${note.source_key}](https://evil.example/disguised)`,
    ].join("\n\n");
    const { el } = await render(hostile);
    expect(el.querySelectorAll("a, img, script, iframe, .internal-embed")).toHaveLength(0);
    // The words are still there to read, as text.
    expect(el.textContent).toContain("the docs");
    expect(el.textContent).toContain("<img src=");
    expect(el.textContent).toContain("https://evil.example/bare");
    // What went to the renderer had the dangerous syntax escaped.
    expect(MarkdownRenderer.calls[0]).not.toMatch(/(^|[^\\])\[the docs\]/);
  });

  it("drops the language of code fences, so no plugin runs model output as code", async () => {
    const neutral = inertAnswerMarkdown("```dataviewjs\ndv.paragraph('hi')\n```\nafter [x](y)");
    expect(neutral.split("\n")[0]).toBe("```");
    expect(neutral).toContain("dv.paragraph('hi')");
    expect(neutral).toContain("after \\[x\\](y)");
    const { el } = await render("```dataviewjs\ndv.paragraph('hi')\n```");
    expect(el.querySelector("code")?.className).toBe("");
  });

  it("leaves citation-looking text inside code alone and marks keys that are not sources", async () => {
    const { el } = await render(`Use \`[${note.source_key}]\` literally. Made up: [src:0000000000].`);
    expect(el.querySelector("code")?.textContent).toBe(`[${note.source_key}]`);
    const unknown = el.querySelector(".vault-research-chip-unknown");
    expect(unknown?.textContent).toBe("src:0000000000");
    expect(unknown?.tagName).toBe("SPAN");
  });

  it("shows a quoted vault sentence's own syntax exactly, as text, and copies it so the note reads the same", async () => {
    const sentence = "Type ![[Internal links#^block-id]] to embed a block, [[Note|alias]] to link with an alias, and ![](https://example.com/a.png) for an image.";
    const syntax = vaultRow("Help/Embeds.md", "Embeds", [{ heading: "Blocks", text: sentence }]);
    const embedPack = pack("how do I embed a block", [syntax]);
    const brief = writeEvidenceBrief(embedPack);
    expect(brief.text).toContain(sentence);

    const el = document.createElement("div");
    await renderAnswer(new App() as unknown as ObsidianApp, brief.text, el, citationTargets(embedPack), { openNote: () => {}, openUrl: () => {} }, new Component() as never);
    expect(el.textContent).toContain(sentence);
    expect(el.querySelectorAll("a, img, .internal-embed")).toHaveLength(0);

    // Pasted into a note, the same words show: the copy escapes the syntax instead of rewriting it.
    const copied = answerAsMarkdown({ pack: embedPack, answer: { text: brief.text, kind: "extractive", verified: true } });
    const pasted = document.createElement("div");
    const owner = new Component();
    await MarkdownRenderer.render(new App(), copied, pasted, "", owner);
    owner.unload();
    expect(pasted.textContent).toContain(sentence);
    expect(pasted.querySelectorAll("img, .internal-embed")).toHaveLength(0);
  });

  it("keeps code in an answer as code, exactly, on screen and in the copy", async () => {
    const text = `Embed with \`![[Note#^id]]\` or \`[[Note|alias]]\` [${note.source_key}].\n\n\`\`\`md\n![](https://example.com/a.png) [[x]]\n\`\`\``;
    const { el } = await render(text);
    expect([...el.querySelectorAll("code")].map((c) => c.textContent)).toEqual(["![[Note#^id]]", "[[Note|alias]]", "![](https://example.com/a.png) [[x]]"]);
    const copied = answerAsMarkdown({ pack: pack("q", [note]), answer: { text, kind: "model", verified: true } });
    expect(copied).toContain("`![[Note#^id]]` or `[[Note|alias]]`");
    expect(copied).toContain("```\n![](https://example.com/a.png) [[x]]\n```");
  });

  it("writes a hostile answer into the trace note just as inert: no image, no plugin code, no tag", () => {
    const inert = inertAnswerMarkdown("![pixel](https://evil.example/p.png) #spam <b>x</b>\n```dataviewjs\ndv.paragraph(1)");
    expect(inert).toBe("!\\[pixel\\](https://evil.example/p.png) \\#spam &lt;b>x&lt;/b>\n```\ndv.paragraph(1)\n```");
  });
});
