import { describe, expect, it } from "vitest";
import { sanitizeExtractedMarkdown } from "../../src/notes/untrusted-markdown";

const clean = (md: string) => sanitizeExtractedMarkdown(md).markdown;

describe("sanitizeExtractedMarkdown", () => {
  it("drops scripts, frames, styles and forms with their content", () => {
    const result = sanitizeExtractedMarkdown("Before\n\n<script>alert(1)</script>\n<iframe src=\"https://x\">\n</iframe>\n<STYLE>p{}</STYLE><form action=x><input name=a></form>\n\nAfter");
    expect(result.markdown).toBe("Before\n\nAfter");
    expect(result.removed.elements).toBe(4);
  });

  it("shows other raw HTML as text, without its event handlers", () => {
    const result = sanitizeExtractedMarkdown('<video controls src="https://x/v.mp4" onplay="steal()"></video> and <img src=x onerror=alert(1)>');
    expect(result.markdown).toBe('&lt;video controls src="https://x/v.mp4">&lt;/video> and &lt;img src=x>');
    expect(result.removed.handlers).toBe(2);
  });

  it("keeps http, https and mailto links and drops every other scheme, keeping the words", () => {
    expect(clean("[a](https://ok.example/x) [b](javascript:alert(1)) [c](obsidian://open?vault=v) [d](mailto:me@example.org) [e](file:///etc/passwd)")).toBe(
      "[a](https://ok.example/x) b c [d](mailto:me@example.org) e",
    );
    expect(clean("![pic](data:image/svg+xml;base64,AAAA) ![ok](https://img.example/p.png)")).toBe("![ok](https://img.example/p.png)");
  });

  it("drops unsafe reference-style link definitions", () => {
    expect(clean("See [x][1].\n\n[1]: javascript:alert(1)\n[2]: https://ok.example")).toBe("See [x][1].\n\n[2]: https://ok.example");
  });

  it("rewrites link targets through the given function (tracking parameters out)", () => {
    const md = sanitizeExtractedMarkdown("[a](https://x.example/p?utm_source=y&id=2)", { rewriteUrl: (u) => u.replace(/utm_source=[^&]*&?/, "") }).markdown;
    expect(md).toBe("[a](https://x.example/p?id=2)");
  });

  it("strips the language of code blocks that plugins would execute, and keeps the code", () => {
    expect(clean("```dataviewjs\ndv.list()\n```")).toBe("```\ndv.list()\n```");
    expect(clean("~~~tasks\nnot done\n~~~")).toBe("~~~\nnot done\n~~~");
    expect(clean("```ts\nconst a = 1;\n```")).toBe("```ts\nconst a = 1;\n```");
  });

  it("leaves HTML inside code blocks alone, as code", () => {
    expect(clean("```html\n<script>alert(1)</script>\n```")).toBe("```html\n<script>alert(1)</script>\n```");
  });

  it("closes a code block the page left open, so it cannot swallow what follows", () => {
    expect(clean("```\nunclosed")).toBe("```\nunclosed\n```");
  });

  it("turns Dataview inline queries into text and keeps other inline code", () => {
    expect(clean("run `= this.file.name` and `$= dv.current()` but `npm i` stays")).toBe("run \\`= this.file.name\\` and \\`\\$= dv.current()\\` but `npm i` stays");
  });

  it("breaks Templater commands everywhere, code included", () => {
    expect(clean("text <% tp.file.title %>")).toBe("text &lt;% tp.file.title %>");
    expect(clean("```\n<% tp.system.prompt() %>\n```")).toBe("```\n< % tp.system.prompt() %>\n```");
  });

  it("keeps wikilinks, embeds, tags and comments from forming", () => {
    expect(clean("see [[Secret]] and ![[Private.md]] #tag %%hidden%% <!-- c -->")).toBe("see \\[\\[Secret]] and !\\[\\[Private.md]] \\#tag \\%\\%hidden\\%\\% &lt;!-- c -->");
  });

  it("keeps headings, lists, emphasis and escaped text as they read; an escaped tag becomes an entity", () => {
    const md = "## Title\n\n- one\n- **two**\n\n1. first\n\nA literal \\<b> tag and a \\#not-tag.";
    expect(clean(md)).toBe(md.replace("\\<b>", "&lt;b>"));
  });

  it("removes bidirectional overrides and control characters", () => {
    expect(clean("safe\u202Etxt.exe\u0007")).toBe("safetxt.exe");
  });
});
