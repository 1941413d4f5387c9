import { describe, expect, it } from "vitest";
import { answerAsMarkdown } from "../../src/ui/answer-markdown";
import type { ResearchResult } from "../../src/research/types";
import { outsideRow, pack, vaultRow } from "../support/pack-fixtures";

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
