import { describe, expect, it } from "vitest";
import { answerAsMarkdown } from "../../src/ui/answer-markdown";
import { renderTraceNote } from "../../src/notes/trace-note";
import type { ResearchResult, ResearchTrace } from "../../src/research/types";
import { outsideRow, pack, vaultRow } from "../support/pack-fixtures";
import { traceWith } from "../support/promote-fixtures";

const note = vaultRow("Concepts/CRDT.md", "CRDT", [{ heading: "Merging", text: "CRDTs merge without a server." }]);
const page = outsideRow("brave", "https://automerge.org/blog/automerge-3/", "Automerge 3.0 [beta]", "Lower memory.");

function result(text: string, verified = true): Pick<ResearchResult, "answer" | "pack" | "citations"> {
  return { pack: pack("q", [note], [page]), answer: { text, kind: "model", verified, model: "m" } };
}

describe("the answer as copied or inserted", () => {
  it("turns citations into links and lists the sources, outside ones with their label", () => {
    const md = answerAsMarkdown(result(`Merging works offline [${note.source_key}]. Memory dropped [${page.source_key}].`));
    expect(md).toBe(
      [
        "Merging works offline ([[Concepts/CRDT#Merging|CRDT]]). Memory dropped ([Automerge 3.0 \\[beta\\]](https://automerge.org/blog/automerge-3/)).",
        "",
        "Sources:",
        "- [[Concepts/CRDT#Merging|CRDT]]",
        "- [Automerge 3.0 \\[beta\\]](https://automerge.org/blog/automerge-3/) — Outside vault · Brave · ephemeral",
        "",
      ].join("\n"),
    );
    expect(md).not.toMatch(/src:|ext:/);
  });

  it("reads a citation written in capitals as the citation verification passed it as", () => {
    const md = answerAsMarkdown(result(`Merging works offline [${note.source_key.toUpperCase()}].`));
    expect(md).toContain("([[Concepts/CRDT#Merging|CRDT]])");
    expect(md).toContain("Sources:\n- [[Concepts/CRDT#Merging|CRDT]]");
    expect(md).not.toMatch(/src:/i);
  });

  it("says so when the answer is unverified", () => {
    expect(answerAsMarkdown(result(`Claim [${note.source_key}].`, false))).toMatch(/^\*Unverified answer/);
  });

  it("keeps links and embeds the model wrote inert in the note", () => {
    const md = answerAsMarkdown(result(`![x](https://evil.example/p.png) [y](https://evil.example) [[Z]] [${note.source_key}]`));
    expect(md).toContain("!\\[x\\](https://evil.example/p.png)");
    expect(md).toContain("\\[\\[Z\\]\\]");
    expect(md).toContain("([[Concepts/CRDT#Merging|CRDT]])");
  });
});

describe("the copied answer of a run whose web answers were replayed (the demo, --replay)", () => {
  const folder = "fixtures/replay/brave-demo";
  const both = `Merging works offline [${note.source_key}]. Memory dropped [${page.source_key}].`;

  /** The run as the panel holds it: its result and its trace, replayed from `replayedFrom` when given, with `queries` sent. */
  function run(text: string, replayedFrom?: string, queries = ["automerge memory"]): ResearchResult {
    const answer = { text, kind: "model" as const, verified: true, model: "m" };
    const trace: ResearchTrace = {
      ...traceWith("q", [page]),
      pack: pack("q", [note], [page]),
      queries_sent: queries,
      answer,
      ...(replayedFrom !== undefined ? { replayed_from: replayedFrom } : {}),
    };
    return { pack: trace.pack, answer, stop_reason: "enough_evidence", trace };
  }

  it("says first, in the notes' words, that its outside-vault sources are recorded samples, not a live search", () => {
    expect(answerAsMarkdown(run(both, folder))).toBe(
      [
        "> [!note] Recorded sample responses, not a live search: the outside-vault sources below were replayed from recordings in fixtures/replay/brave-demo.",
        "",
        "Merging works offline ([[Concepts/CRDT#Merging|CRDT]]). Memory dropped ([Automerge 3.0 \\[beta\\]](https://automerge.org/blog/automerge-3/)).",
        "",
        "Sources:",
        "- [[Concepts/CRDT#Merging|CRDT]]",
        "- [Automerge 3.0 \\[beta\\]](https://automerge.org/blog/automerge-3/) — Outside vault · Brave · ephemeral",
        "",
      ].join("\n"),
    );
  });

  it("copies a live run's answer as before: no word of samples", () => {
    const live = answerAsMarkdown(run(both));
    expect(live).toBe(answerAsMarkdown(result(both)));
    expect(live).not.toMatch(/sample|recording/i);
  });

  it("says nothing of samples when the answer cites only the vault", () => {
    expect(answerAsMarkdown(run(`Merging works offline [${note.source_key}].`, folder))).not.toMatch(/sample|recording/i);
  });

  it("puts the unverified mark first, then the sample line", () => {
    const copied = answerAsMarkdown({ ...run(both, folder), answer: { text: both, kind: "model", verified: false, model: "m" } });
    expect(copied).toMatch(/^\*Unverified answer[^\n]*\n\n> \[!note\] Recorded sample responses, not a live search: /);
  });

  it("keeps a folder's brackets and line breaks from forming a link in the note it is pasted into", () => {
    const copied = answerAsMarkdown(run(both, "replays/[[Secret]]\n<% tp.file %>"));
    const line = copied.split("\n")[0];
    expect(line).toMatch(/^> \[!note\] Recorded sample responses/);
    expect(line).not.toContain("[[");
    expect(line).not.toContain("<%");
  });

  it("marks a sample exactly when the run's trace note does (a replayed run that asked the web nothing has no samples)", () => {
    const cases = [run(both, folder), run(both, folder, []), run(both), run(both, undefined, [])];
    const marked = cases.map((r) => /Recorded sample responses/.test(answerAsMarkdown(r)));
    expect(marked).toEqual(cases.map((r) => /^sample: true$/m.test(renderTraceNote(r.trace))));
    expect(marked).toEqual([true, false, false, false]);
  });
});
