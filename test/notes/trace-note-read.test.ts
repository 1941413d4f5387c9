// Reading a trace note back, whatever its answer quotes: the trace is the last block, the label
// rewritten is the last one above it, and only a note whose properties say the plugin wrote it
// is ever rewritten.
import { describe, expect, it } from "vitest";
import { renderTraceNote } from "../../src/notes/trace-note";
import { isWrittenTraceNote, parseTraceNote, recordPromotion } from "../../src/notes/trace-note-read";
import { traceBlock } from "../../src/notes/trace-note-json";
import { TraceRecorder } from "../../src/research/trace-recorder";
import { fakeClock } from "../support/fake-clock";
import { outsideRow, pack, vaultRow as vaultRowOf } from "../support/pack-fixtures";
import type { VaultRow } from "../../src/evidence/research-pack";
import type { ResearchTrace } from "../../src/evidence/trace-types";

const row = outsideRow("brave", "https://automerge.org/blog/automerge-3/", "Automerge 3", "Lower memory.");
const vaultRow = vaultRowOf("Notes/Automerge.md", "Automerge", [{ heading: "Memory", text: "Automerge 2 used more memory." }]);
const forgedBlock = '```json vault-research-trace\n{"schema":"research_trace.v1","run_id":"forged"}\n```';
const forgedLabel = `**Outside vault · Brave · ephemeral** · \`${row.source_key}\` forged`;

function note(answerText = `Automerge 3 uses less memory [${row.source_key}].`): string {
  const recorder = new TraceRecorder({ question: "what changed", mode: "always", providers: ["brave"], freshness: "any", clock: fakeClock() });
  const trace = recorder.finish("enough_evidence", pack("what changed", [], [row]), { text: answerText, kind: "model", verified: true, model: "m" });
  return renderTraceNote(trace);
}

/** The kind and message of what a reading or a recording refused, or "accepted". */
function refusal(result: object): string {
  return "error" in result ? `${(result.error as { kind: string }).kind}: ${(result.error as { message: string }).message}` : "accepted";
}

const promotion = { source_key: row.source_key, note_path: "Research/Sources/Automerge 3.md", at: "2026-12-01T09:00:00.000Z" };

describe("a trace note quoting a forged block and label above its own", () => {
  // What an answer could hold if the answer's rule ever let it through: the reader must not care.
  const forged = note().replace("## Answer\n", `## Answer\n\n${forgedLabel}\n\n${forgedBlock}\n`);

  it("reads the last trace block, the one the plugin wrote", () => {
    const parsed = parseTraceNote(forged);
    expect("trace" in parsed && parsed.trace.run_id).not.toBe("forged");
  });

  it("records a promotion in the real block and the real label line, leaving the quoted ones", () => {
    const result = recordPromotion(forged, promotion);
    if (!("markdown" in result)) throw new Error(result.error.message);
    expect(result.markdown).toContain(forgedLabel);
    expect(result.markdown).toContain(forgedBlock);
    expect(result.markdown).toContain(`**Outside vault · Brave · promoted** · \`${row.source_key}\` · saved as`);
    const parsed = parseTraceNote(result.markdown);
    expect("trace" in parsed && parsed.trace.promotions).toEqual([promotion]);
  });
});

describe("an answer whose code quotes a block opener", () => {
  // Inside a `~~~` fence a line of backticks is the answer's code: the answer's rule keeps it, and
  // no closer follows it before the plugin's own block. Read as the start of a block, it swallowed
  // the real opener and the note said its trace block was not valid JSON: nothing could be promoted.
  const quoting = note(`A trace block looks like this:\n\n~~~\n\`\`\`json vault-research-trace\n~~~\n\nSee [${row.source_key}].`);

  it("is written with the quoted opener, and still reads back as its own trace", () => {
    expect(quoting).toContain("~~~\n```json vault-research-trace\n~~~");
    const parsed = parseTraceNote(quoting);
    expect("trace" in parsed && parsed.trace.pack.external_evidence.map((r) => r.source_key)).toEqual([row.source_key]);
  });

  it("takes a promotion, recorded in the plugin's block", () => {
    const result = recordPromotion(quoting, promotion);
    if (!("markdown" in result)) throw new Error(result.error.message);
    const parsed = parseTraceNote(result.markdown);
    expect("trace" in parsed && parsed.trace.promotions).toEqual([promotion]);
  });

  it("does not start a block after a line separator (U+2028), which no editor breaks a line at", () => {
    const json = JSON.stringify((parseTraceNote(quoting) as { trace: unknown }).trace);
    expect(parseTraceNote(`x\u2028\`\`\`json vault-research-trace\n${json}\n\`\`\``)).toMatchObject({ error: { kind: "no_trace_block" } });
  });
});

describe("a trace note as other tools leave it", () => {
  const promoted = (markdown: string) => {
    const result = recordPromotion(markdown, promotion);
    if (!("markdown" in result)) throw new Error(result.error.message);
    const parsed = parseTraceNote(result.markdown);
    return "trace" in parsed ? parsed.trace.promotions : parsed.error.kind;
  };
  /** The note with its trace block's fences rewritten, and every line of the block indented by `indent`. */
  const refenced = (text: string, opener: string, closer: string, indent = "") => {
    const at = text.lastIndexOf("```json vault-research-trace");
    const block = text.slice(at).trimEnd().replace("```json vault-research-trace", opener).replace(/```$/, closer);
    return `${text.slice(0, at)}${block.split("\n").map((l) => indent + l).join("\n")}\n`;
  };

  // A formatter (markdownlint's code fence style, a linter plugin) or another editor may rewrite a
  // fence; the block reads the same to a person, and was "no trace block" to the plugin.
  it("reads a block whose fences were rewritten: tildes, longer runs, indented, spaces before json", () => {
    const text = note();
    for (const rewritten of [
      refenced(text, "~~~json vault-research-trace", "~~~"),
      refenced(text, "````json vault-research-trace", "`````"),
      refenced(text, "```  json vault-research-trace", "```", "   "),
      refenced(text, "~~~~ json vault-research-trace ", "~~~~ \t"),
    ]) {
      expect(parseTraceNote(rewritten), rewritten.slice(-80)).toHaveProperty("trace");
      expect(promoted(rewritten)).toEqual([promotion]);
    }
  });

  it("does not read a block a fence could not close, nor code indented four spaces", () => {
    const text = note();
    expect(parseTraceNote(refenced(text, "~~~json vault-research-trace", "```"))).toMatchObject({ error: { kind: "no_trace_block" } });
    expect(parseTraceNote(refenced(text, "````json vault-research-trace", "```"))).toMatchObject({ error: { kind: "no_trace_block" } });
    expect(parseTraceNote(refenced(text, "```json vault-research-trace", "```", "    "))).toMatchObject({ error: { kind: "no_trace_block" } });
  });

  // Windows editors and some sync tools save a byte order mark first; the index ignores it, and the
  // note's properties still say the plugin wrote it. Refused, the user was told they did not.
  it("records a promotion in a note saved with a byte order mark, CRLF lines or spaces after its ---", () => {
    const text = note();
    expect(promoted(`\uFEFF${text}`)).toEqual([promotion]);
    expect(promoted(`\uFEFF${text.replace(/\n/g, "\r\n")}`)).toEqual([promotion]);
    expect(promoted(text.replace(/^---\n/, "--- \n"))).toEqual([promotion]);
  });

  // An editor may rewrite the type the plugin wrote, and the index still knows the note for a trace
  // (index/trace-marks.ts): Obsidian writes `type` as a list where it is a list property in the
  // vault. Such a note was refused ("its type property is not research-trace"), and no promotion
  // from it was ever recorded.
  it("records a promotion in a note whose type an editor rewrote, leaving its properties as the user has them", () => {
    const text = note();
    const runId = (parseTraceNote(text) as { trace: ResearchTrace }).trace.run_id;
    const properties = (markdown: string) => markdown.slice(0, markdown.indexOf("# Research"));
    for (const rewritten of [
      text.replace("type: research-trace", "type: research-trace # written by Vault Research"),
      text.replace("type: research-trace", "type:\n  - research-trace"),
      text.replace("type: research-trace", "type:\n- reading\n- research-trace").replace(/\n/g, "\r\n"),
      text.replace("type: research-trace", "type: [research-trace]"),
      text.replace(/^---\n[\s\S]*?\n---\n/, `---\n{type: [research-trace], run_id: "${runId}"}\n---\n`),
      // YAML's end of document closes the properties too, as the index reads them.
      text.replace("\n---\n", "\n...\n"),
    ]) {
      const result = recordPromotion(rewritten, promotion);
      if (!("markdown" in result)) throw new Error(`${properties(rewritten)}: ${result.error.message}`);
      expect(properties(result.markdown)).toBe(properties(rewritten));
      const parsed = parseTraceNote(result.markdown);
      expect("trace" in parsed && parsed.trace.promotions).toEqual([promotion]);
      expect("trace" in parsed && isWrittenTraceNote(result.markdown, parsed.trace)).toBe(true);
    }
  });

  it("still leaves a note whose type, in a list or with a comment, is something else", () => {
    const text = note();
    for (const type of ["type:\n  - journal", "type: [journal, research]", "type: research-trace-notes # research-trace", "type:\n  - research-trace-notes", "type: []"]) {
      expect(refusal(recordPromotion(text.replace("type: research-trace", type), promotion)), type).toBe(
        "not_a_written_trace: its type property is not research-trace, so it was left as it is",
      );
    }
    expect(refusal(recordPromotion(text.replace("type: research-trace", "type:\n  - research-trace").replace(/^run_id: .*$/m, "run_id: other"), promotion))).toBe(
      "not_a_written_trace: its run_id property is not the run id in its trace block, so it was left as it is",
    );
  });

  it("says which property is wrong when it leaves a note as it is", () => {
    const text = note();
    const refusal = (markdown: string) => {
      const result = recordPromotion(markdown, promotion);
      return "error" in result ? result.error : null;
    };
    expect(refusal(`My notes.\n\n${text}`)).toMatchObject({ kind: "not_a_written_trace" });
    expect(refusal(`My notes.\n\n${text}`)?.message).toMatch(/^it has no properties at its top/);
    expect(refusal(text.replace("type: research-trace", "type: journal"))?.message).toBe("its type property is not research-trace, so it was left as it is");
    expect(refusal(text.replace(/^run_id: .*$/m, "run_id: sk-typed-by-someone"))?.message).toBe("its run_id property is not the run id in its trace block, so it was left as it is");
    expect(refusal(text.replace("tags:", "tags: [\ntags:"))?.message).toBe("its properties could not be read (they are not valid YAML), so it was left as it is");
  });
});

describe("only a trace note the plugin wrote is rewritten", () => {
  it("knows its own notes by their type and run id", () => {
    const text = note();
    const parsed = parseTraceNote(text);
    if (!("trace" in parsed)) throw new Error("no trace");
    expect(isWrittenTraceNote(text, parsed.trace)).toBe(true);
    expect(isWrittenTraceNote(text.replace("type: research-trace", "type: journal"), parsed.trace)).toBe(false);
    expect(isWrittenTraceNote(text.replace(/^run_id: .*$/m, "run_id: other"), parsed.trace)).toBe(false);
    expect(isWrittenTraceNote(text.slice(text.indexOf("# Research")), parsed.trace)).toBe(false);
    expect(isWrittenTraceNote(`---\n: : [\n---\n${text}`, parsed.trace)).toBe(false);
  });

  it("refuses to record a promotion in a note without the trace's properties", () => {
    const text = note();
    const pasted = `# My copy\n\n${text.slice(text.indexOf("# Research"))}`;
    expect(recordPromotion(pasted, promotion)).toMatchObject({ error: { kind: "not_a_written_trace" } });
  });
});

describe("a replayed run's note, as this version writes it and as earlier ones did", () => {
  const folder = "fixtures/replay/brave-demo";
  function replayedTrace() {
    const recorder = new TraceRecorder({ question: "what changed", mode: "always", providers: ["brave"], freshness: "any", clock: fakeClock() });
    recorder.replayedFrom(folder);
    recorder.querySent("what changed");
    return recorder.finish("enough_evidence", pack("what changed", [], [row]), { text: `Automerge 3 uses less memory [${row.source_key}].`, kind: "model", verified: true, model: "m" });
  }
  const answerCallout = /> \[!note\] Recorded sample responses, not a live search\n> The web's answers in this run were replayed from [^\n]*not searched live[^\n]*\n\n/;
  /** The note an earlier version wrote of the same run: no sample properties, its mark only above the outside rows. */
  const earlierNote = (text: string) => text.replace(/^sample: true\n^replayed_from: .*\n/m, "").replace(answerCallout, "");

  it("says it is a sample in its properties and its Answer, where an earlier version's note did not", () => {
    const text = renderTraceNote(replayedTrace());
    expect(text).toMatch(/^sample: true\nreplayed_from: fixtures\/replay\/brave-demo$/m);
    expect(text).toMatch(answerCallout);
    const earlier = earlierNote(text);
    expect(earlier).not.toMatch(/^sample:/m);
    expect(earlier.match(/Recorded sample responses/g)).toHaveLength(1);
  });

  it("reads back the same trace from either, the folder it was replayed from included", () => {
    const trace = replayedTrace();
    const text = renderTraceNote(trace);
    for (const markdown of [text, earlierNote(text)]) {
      const parsed = parseTraceNote(markdown);
      expect(parsed).toEqual({ trace: JSON.parse(JSON.stringify(trace)) as unknown });
      expect("trace" in parsed && parsed.trace.replayed_from).toBe(folder);
      expect("trace" in parsed && isWrittenTraceNote(markdown, parsed.trace)).toBe(true);
    }
  });

  it("records a promotion in either, keeping the note's marks as they were", () => {
    const trace = replayedTrace();
    const text = renderTraceNote(trace);
    expect(recordPromotion(text, promotion)).toEqual({ markdown: renderTraceNote({ ...trace, promotions: [promotion] }) });
    const earlier = recordPromotion(earlierNote(text), promotion);
    expect(earlier).toEqual({ markdown: earlierNote(renderTraceNote({ ...trace, promotions: [promotion] })) });
  });
});

describe("a trace note built to be slow", () => {
  // As one pattern, each opener with no closer read the rest of the note: 40,000 took 20 s, and
  // the 200,000 here would take some 8 minutes (a 2,000,000-character note holds 69,000: a minute).
  it("reads a note of 200,000 block openers with no closer once, and still finds the block above them", () => {
    const text = note();
    const parsed = parseTraceNote(`${text}\n${"```json vault-research-trace\n".repeat(200_000)}`);
    expect("trace" in parsed && parsed.trace.run_id).toBe((parseTraceNote(text) as { trace: { run_id: string } }).trace.run_id);
    expect(parseTraceNote("```json vault-research-trace\n".repeat(200_000))).toMatchObject({ error: { kind: "no_trace_block" } });
  });

  it("reads blocks as the single pattern did: CRLF lines, spaces after the fences, an empty block, the last of two", () => {
    const json = JSON.stringify((parseTraceNote(note()) as { trace: unknown }).trace);
    expect(parseTraceNote(`intro\r\n\`\`\`json vault-research-trace \t\r\n${json}\r\n\`\`\`  \r\nafter`)).toHaveProperty("trace");
    expect(parseTraceNote("```json vault-research-trace\n\n```")).toMatchObject({ error: { kind: "invalid_json" } });
    expect(parseTraceNote("```json vault-research-trace\n```")).toMatchObject({ error: { kind: "no_trace_block" } });
    expect(parseTraceNote(`\`\`\`json vault-research-trace\n${json}\n\`\`\`\n\`\`\`json vault-research-trace\n{}\n\`\`\``)).toMatchObject({ error: { kind: "invalid_trace" } });
  });

  it("says where a hand-edited block stops being JSON, without quoting it (a key pasted there is not shown)", () => {
    const said = parseTraceNote("```json vault-research-trace\n{\n  \"schema\": sk-pasted-0123456789\n}\n```");
    expect(said).toEqual({ error: { kind: "invalid_json", message: "The trace block is not valid JSON (an unexpected character at line 2, column 13)." } });
  });
});

describe("a trace block whose fields were edited into another shape", () => {
  /** The note with `fields` added to its trace block, written back as the plugin writes it. */
  function withFields(fields: Record<string, unknown>): string {
    const text = note();
    const trace = (parseTraceNote(text) as { trace: object }).trace;
    const start = text.indexOf("```json vault-research-trace");
    return `${text.slice(0, start)}${traceBlock(JSON.stringify({ ...trace, ...fields }, null, 2))}\n`;
  }

  it("names a replayed_from that is no folder: promotion wrote it into the note's properties and failed with \"text.replace is not a function\"", () => {
    expect(refusal(parseTraceNote(withFields({ replayed_from: 5 })))).toMatch(/^invalid_trace: .*replayed_from/);
    expect(parseTraceNote(withFields({ replayed_from: "fixtures/replay" }))).toHaveProperty("trace");
  });

  it("refuses to record a promotion in a block too big to keep whose truncated or answer is not what a trace holds, and never throws", () => {
    const big = { padding: "x".repeat(70_000) };
    expect(refusal(recordPromotion(withFields({ ...big, truncated: 5 }), promotion))).toMatch(/^invalid_trace: .*truncated/);
    expect(refusal(recordPromotion(withFields({ ...big, answer: "an answer" }), promotion))).toMatch(/^invalid_trace: .*answer/);
    const recorded = recordPromotion(withFields(big), promotion);
    expect("markdown" in recorded && parseTraceNote(recorded.markdown)).toMatchObject({ trace: { promotions: [promotion] } });
  });
});

describe("a trace note another version of the plugin wrote", () => {
  /** The note's trace block with `edit` applied to its data, written back as the plugin writes it. */
  function edited(edit: (trace: ResearchTrace) => void): string {
    const text = note();
    const trace = structuredClone((parseTraceNote(text) as { trace: ResearchTrace }).trace);
    edit(trace);
    return `${text.slice(0, text.indexOf("```json vault-research-trace"))}${traceBlock(JSON.stringify(trace, null, 2))}\n`;
  }

  it("lets its rows be promoted when only what promotion never reads is new: a stop reason, a verdict, a vault row's lane or fusion", () => {
    const newer = edited((t) => {
      const fields = t as unknown as Record<string, unknown>;
      fields.stop_reason = "budget_spent";
      (t.pack.judge as { verdict: string }).verdict = "partial_evidence";
      t.pack.evidence = [{ ...vaultRow, retrieval: { ...vaultRow.retrieval, lanes: [{ name: "graph", status: "stopped" }], fusion: { fused_with: "graph" } } } as unknown as VaultRow];
    });
    expect(refusal(parseTraceNote(newer))).toBe("accepted");
    const recorded = recordPromotion(newer, promotion);
    expect("markdown" in recorded && parseTraceNote(recorded.markdown)).toMatchObject({ trace: { stop_reason: "budget_spent", promotions: [promotion] } });
  });

  it("still refuses an outside row under a vault row's name", () => {
    const forged = edited((t) => {
      t.pack.evidence = [{ ...row, note_path: "Notes/Fake.md", sections: [] } as unknown as VaultRow];
    });
    expect(refusal(parseTraceNote(forged))).toMatch(/^invalid_trace: The trace block is not a research trace: pack\.evidence\.0\./);
  });

  it("says a block of another schema version is another version's, naming it", () => {
    expect(refusal(parseTraceNote(edited((t) => ((t as unknown as Record<string, unknown>).schema = "research_trace.v2"))))).toBe(
      "invalid_trace: The trace block was written by another version of Vault Research (research_trace.v2); this version reads research_trace.v1.",
    );
  });
});

describe("a trace note cut short inside its block (a sync that stopped midway)", () => {
  it("says the block has no end, not that the note has no block", () => {
    const text = note();
    const cut = text.slice(0, text.indexOf('"pack"'));
    expect(refusal(parseTraceNote(cut))).toBe("no_trace_block: The note ends inside its trace block, which no closing fence ends: it may have been cut short (a sync or an edit).");
    expect(refusal(parseTraceNote(text.slice(0, text.indexOf("```json vault-research-trace"))))).toMatch(/^no_trace_block: This note has no /);
  });
});
