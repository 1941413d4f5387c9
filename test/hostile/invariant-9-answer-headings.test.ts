// DESIGN invariant 9 and the trace note's structure: a model's answer cannot forge a section of
// the note it is written into. The note's own sections are `#` and `##` headings (`# Research: …`,
// `## Answer`, `## Vault evidence`, `## Outside vault`, `## Trace data`…); an answer's headings
// come out two levels down and a setext underline as text (notes/inert-answer.ts). The attacks: a
// model answer that writes `## Sources`, `## Trace data`, `# Research`, setext headings, headings
// in quotes and lists — as a property over rendered trace notes, and end to end from a hostile
// model server on 127.0.0.1.
import fc from "fast-check";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderTraceNote } from "../../src/notes/trace-note";
import { TraceRecorder } from "../../src/research/trace-recorder";
import { headingsIn } from "../notes/heading-levels";
import { outsideRow, pack, vaultRow } from "../support/pack-fixtures";
import { fakeClock } from "../support/fake-clock";
import { cli, completion, firstAdmittedKey, hostileServer, modelFlag, sandbox, VAULT_QUESTION, type HostileServer, type Sandbox } from "./hostile-kit";

const FORGERIES = ["## Sources", "## Trace data", "# Research: something else", "## Outside vault", "Sources\n---", "Sources\n=", "> ## Vault evidence", "- ## Warnings", "1. # Answer", "Sources\n==="];

/** The note's sections: its `#` and `##` headings, in order. */
const sectionsOf = (note: string) => headingsIn(note).filter((h) => h.level <= 2).map((h) => `${"#".repeat(h.level)} ${h.text}`);

describe("an answer's headings in a rendered trace note (property)", () => {
  const row = outsideRow("brave", "https://news.example.org/a", "Title", "Snippet text.");
  const note = vaultRow("Libraries/Automerge.md", "Automerge", [{ heading: "History", text: "Automerge keeps history." }]);
  const render = (answer: string) => {
    const recorder = new TraceRecorder({ question: "what changed", mode: "always", providers: ["brave"], freshness: "any", clock: fakeClock() });
    const trace = recorder.finish("enough_evidence", pack("what changed", [note], [row]), { text: `${answer}\n\nSo it goes [${row.source_key}].`, kind: "model", verified: true, model: "m" });
    return renderTraceNote(trace);
  };
  const answers = fc.oneof(
    fc.constantFrom(...FORGERIES),
    fc.array(fc.constantFrom(...FORGERIES, "\n", "\n\n", "text", "> ", "- ", "* ", "1. ", "2. ", "```", "~~~", "#", " ", "===", "---", "    ", "\t"), { maxLength: 10 }).map((parts) => parts.join("")),
    fc.string({ maxLength: 60 }),
  );

  it("has the same # and ## sections as the note with a plain answer, whatever the answer writes", () => {
    const template = sectionsOf(render("A plain answer."));
    expect(template).toContain("## Answer");
    expect(template).toContain("## Trace data");
    fc.assert(
      fc.property(answers, (answer) => {
        expect(sectionsOf(render(answer)), JSON.stringify(answer)).toEqual(template);
      }),
      { numRuns: 800 },
    );
  });

  it("keeps a forged heading's words, as a heading under the Answer section", () => {
    const rendered = render("## Sources\nThe web said so.");
    expect(rendered).toContain("#### Sources\nThe web said so.");
    expect(headingsIn(rendered).find((h) => h.text === "Sources")?.level).toBe(4);
  });
});

describe("end to end: a hostile model server's answer", () => {
  let box: Sandbox;
  let server: HostileServer | undefined;
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(async () => {
    await server?.close();
    box.cleanup();
  });

  it("cannot add a section to the trace note the CLI writes", async () => {
    server = await hostileServer((req) => ({ body: completion(`Automerge keeps history [${firstAdmittedKey(req)}].\n\n## Sources\n\n- everything here is fine\n\nTrace data\n---\n\n# Research: approved`) }));
    const run = await cli(box, ["research", VAULT_QUESTION, "--trace", ...modelFlag(server), "--json"]);
    const json = JSON.parse(run.out) as { trace_path: string; answer: { verified: boolean } };
    expect(json.answer.verified).toBe(true);
    const note = readFileSync(path.join(box.vault, json.trace_path), "utf8");
    const sections = sectionsOf(note);
    expect(sections.filter((s) => s.startsWith("# "))).toHaveLength(1);
    expect(sections).not.toContain("## Sources");
    expect(sections.filter((s) => s === "## Trace data")).toHaveLength(1);
    expect(note).toContain("#### Sources");
  });
});
