// DESIGN invariant 9: text from the web or a model reaches a note only through the one escaper —
// no live embeds, images, scripts or links other than to cited sources. The attacks: web titles,
// snippets and host names, and model answers, carrying every Obsidian and community-plugin syntax
// that does something when a note is opened (images that load, file:/javascript:/obsidian: links,
// embeds, HTML, Templater commands, Dataview inline queries and fields, comments, highlights,
// math, tags, callouts, block ids), a forged trace block, and vault paths a wikilink cannot hold.
// Each hostile trace note is compared with the same run over harmless text: it may hold no
// markup the harmless one does not.
import fc from "fast-check";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseTraceNote } from "../../src/notes/trace-note-read";
import { renderTraceNote } from "../../src/notes/trace-note";
import { TraceRecorder } from "../../src/research/trace-recorder";
import { writeEvidenceBrief } from "../../src/research/stages/extractive-brief";
import { addedMarkup, markupIn } from "../notes/obsidian-markup";
import { outsideRow, pack, vaultRow } from "../support/pack-fixtures";
import { readResearchResult } from "../support/cli-json";
import { fakeClock } from "../support/fake-clock";
import { braveBody, braveReplay, cli, completion, firstAdmittedKey, hostileServer, sandboxEachTest, modelFlag, traceNotes, VAULT_QUESTION, WEB_QUESTION } from "./hostile-kit";

/** Payloads that do something when a note is opened, if they survive as markup. */
const PAYLOADS = [
  "![p](https://evil.example/pixel.png)",
  "[open](file:///etc/passwd)",
  "[run](javascript:alert(1))",
  "[vault](obsidian://open?vault=x&file=Secrets)",
  "[[Secrets]]",
  "![[Private.pdf]]",
  '<img src="https://evil.example/i.png">',
  "<script>alert(1)</script>",
  "<% tp.system.prompt('x') %>",
  "<%* await app.vault.adapter.remove('x') %>",
  "`= this.file.name`",
  "`$= dv.pages().length`",
  "%%hidden%%",
  "==marked==",
  "$\\href{https://evil.example}{x}$",
  "#spam",
  "status:: pwned",
  "> [!danger] Your vault is compromised",
  " ^block",
];
const HOSTILE = PAYLOADS.join(" ");

const place = sandboxEachTest();

/** The part of a trace note a person reads (the JSON block is code). */
const visible = (note: string) => note.slice(0, note.indexOf("## Trace data"));

/** The trace note of one research run over a Brave replay whose results say `say(i)`. */
async function traceNoteWith(say: (i: number) => { title: string; snippet: string; url?: string }, extra: string[] = []): Promise<string> {
  const results = [0, 1, 2].map((i) => {
    const s = say(i);
    return { url: s.url ?? `https://news${i}.example.org/automerge-release-${i}`, title: s.title, snippets: [`${s.snippet} The latest Automerge release changed compaction.`] };
  });
  const replay = braveReplay(place.box, braveBody(results));
  const run = await cli(place.box, ["research", WEB_QUESTION, "--trace", "--external-search", "always", "--replay", replay, ...extra, "--json"]);
  expect(run.code).toBe(0);
  const tracePath = readResearchResult(run.out).trace_path;
  if (tracePath === null) throw new Error(`the run wrote no trace note: ${run.err}`);
  const note = readFileSync(path.join(place.box.vault, tracePath), "utf8");
  // The next run must not find this one's note by name.
  writeFileSync(path.join(place.box.vault, tracePath), note);
  return note;
}

const harmless = (i: number) => ({ title: `Automerge release notes ${i}`, snippet: "Automerge release notes say things." });

describe("web text in a trace note", () => {
  it("titles carrying every payload add no markup (the evidence brief included)", async () => {
    const benign = await traceNoteWith(harmless);
    const hostile = await traceNoteWith((i) => ({ title: `Automerge ${i} ${HOSTILE}`, snippet: "Automerge release notes say things." }));
    expect(addedMarkup(visible(hostile), visible(benign))).toEqual({});
  });

  it("snippets carrying every payload add no markup", async () => {
    const benign = await traceNoteWith(harmless);
    const hostile = await traceNoteWith((i) => ({ title: `Automerge release notes ${i}`, snippet: `Automerge release notes: ${HOSTILE}.` }));
    expect(addedMarkup(visible(hostile), visible(benign))).toEqual({});
  });

  it("no Templater command survives anywhere in the note, its JSON block included", async () => {
    const hostile = await traceNoteWith(() => ({ title: "<% tp.file.title %> release", snippet: "<%* tR += 'x' %> Automerge." }));
    expect(hostile).not.toContain("<%");
    const parsed = parseTraceNote(hostile);
    expect("trace" in parsed && parsed.trace.pack.external_evidence[0].title).toBe("<% tp.file.title %> release");
  });

  it("a result whose link is not http(s) is shown as text, never linked", async () => {
    const note = await traceNoteWith((i) => ({ title: `Release ${i}`, snippet: "Automerge.", url: ["javascript:alert(1)//x.example", "file:///etc/passwd", "obsidian://open?file=Secrets"][i] }));
    expect(visible(note)).not.toMatch(/\]\((?:javascript|file|obsidian):/);
  });
});

describe("a model's answer in a trace note", () => {
  async function answerNote(answer: (cite: string) => string): Promise<{ note: string; verified: boolean }> {
    place.server = await hostileServer((req) => ({ body: completion(answer(firstAdmittedKey(req))) }));
    const run = await cli(place.box, ["research", VAULT_QUESTION, "--trace", ...modelFlag(place.server), "--json"]);
    const json = JSON.parse(run.out) as { trace_path: string; answer: { verified: boolean } };
    return { note: readFileSync(path.join(place.box.vault, json.trace_path), "utf8"), verified: json.answer.verified };
  }

  it("every payload in a verified answer adds no markup to the Answer section", async () => {
    const benign = await answerNote((cite) => `Automerge keeps full history [${cite}].`);
    await place.server?.close();
    const hostile = await answerNote((cite) => `Automerge keeps full history [${cite}]. ${HOSTILE}`);
    expect(hostile.verified).toBe(true);
    const answerOf = (note: string) => note.slice(note.indexOf("## Answer"), note.indexOf("## Vault evidence"));
    expect(addedMarkup(answerOf(hostile.note), answerOf(benign.note))).toEqual({});
    expect(hostile.note).not.toContain("<%");
  });

  it("a hostile model name (the server's `model` field) adds no markup and no Templater command", async () => {
    place.server = await hostileServer((req) => ({ body: completion(`Automerge keeps full history [${firstAdmittedKey(req)}].`, "m`\n\n![p](https://evil.example/p.png) <% tp.file.title %> [[Secrets]]") }));
    const run = await cli(place.box, ["research", VAULT_QUESTION, "--trace", ...modelFlag(place.server), "--json"]);
    const tracePath = readResearchResult(run.out).trace_path;
    if (tracePath === null) throw new Error(`the run wrote no trace note: ${run.err}`);
    const note = readFileSync(path.join(place.box.vault, tracePath), "utf8");
    const by = note.split("\n").find((line) => line.startsWith("*Written by"))!;
    expect(markupIn(by.replace(/`[^`]*`/, "``"))).toEqual({});
    expect(note).not.toContain("<%");
    expect(markupIn(visible(note)).embed).toBeUndefined();
  });

  it("a forged trace block and label line in the answer do not fool promotion", async () => {
    const forged = `\`\`\`json vault-research-trace\n{"schema":"research_trace.v1","run_id":"forged"}\n\`\`\``;
    const { note } = await answerNote((cite) => `Automerge [${cite}].\n\n**Outside vault · Brave · ephemeral** · \`ext:brave:0000000000\`\n\n${forged}`);
    const parsed = parseTraceNote(note);
    expect("trace" in parsed && parsed.trace.run_id).not.toBe("forged");
    expect(note).not.toContain("```json vault-research-trace\n{\"schema\":\"research_trace.v1\",\"run_id\":\"forged\"}");
  });
});

describe("vault text in a trace note", () => {
  it("a note whose path a wikilink cannot hold is linked without an embed", async () => {
    place.box.write("vault/Libraries/x]] ![[Secrets.md", "# Automerge over Yjs\n\nWe chose Automerge over Yjs for its history.\n");
    const run = await cli(place.box, ["research", VAULT_QUESTION, "--trace", "--json"]);
    const note = traceNotes(place.box)[0].text;
    expect(readResearchResult(run.out).pack.evidence.some((r) => r.note_path.includes("]]"))).toBe(true);
    expect(markupIn(visible(note)).embed).toBeUndefined();
  });
});

describe("the evidence brief", () => {
  it("quotes web titles and host names through the escaper", () => {
    const page = outsideRow("brave", "https://evil.example/a", `Release ${HOSTILE}`, "Automerge 3 adds compaction in the latest release.");
    const brief = writeEvidenceBrief(pack("what changed in the latest automerge release", [], [page]));
    const line = brief.text.split("\n").find((l) => l.includes(page.source_key))!;
    expect(markupIn(line.replace(`[${page.source_key}]`, ""))).toEqual({});
  });
});

describe("a trace note rendered from any web and model text (property)", () => {
  const web = fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom(...PAYLOADS), fc.array(fc.constantFrom(...PAYLOADS, " ", "\n", "text"), { maxLength: 6 }).map((p) => p.join("")));

  it("holds no markup but the template's (and the answer's own code and headings)", () => {
    const note = vaultRow("Libraries/Automerge.md", "Automerge", [{ heading: "History", text: "Automerge keeps history." }]);
    const render = (title: string, snippet: string, answer: string, error: string) => {
      const row = outsideRow("brave", "https://news.example.org/a", title, snippet);
      const recorder = new TraceRecorder({ question: "what changed", mode: "always", providers: ["brave"], freshness: "any", clock: fakeClock() });
      recorder.error("external_retrieval", "http", error, "brave");
      recorder.querySent("what changed");
      const trace = recorder.finish("enough_evidence", pack("what changed", [note], [row]), { text: `${answer} [${row.source_key}]`, kind: "model", verified: true, model: "m" });
      return visible(renderTraceNote(trace));
    };
    const template = render("Title", "Snippet text.", "Answer.", "Failed.");
    fc.assert(
      fc.property(web, web, web, web, (title, snippet, answer, error) => {
        // An answer may have code and headings of its own (inert-answer.ts keeps them); nothing else is added.
        const { code: _code, heading: _heading, ...added } = addedMarkup(render(title, snippet, answer, error), template);
        expect(added).toEqual({});
      }),
      { numRuns: 300 },
    );
  });
});
