import { describe, expect, it } from "vitest";
import { signalInWords, signalsInWords } from "../../src/websearch/source-signals";

describe("signals in words", () => {
  it("says each signal the way a reader expects", () => {
    expect(signalsInWords([{ kind: "points", value: 1714 }, { kind: "comments", value: 1 }])).toBe("1,714 points · 1 comment");
    expect(signalsInWords([{ kind: "stars", value: 12345 }, { kind: "language", value: "TypeScript" }, { kind: "archived" }])).toBe("12,345 stars · TypeScript · archived");
    expect(signalsInWords([{ kind: "votes", value: -2 }, { kind: "answers", value: 0 }, { kind: "accepted_answer", value: false }])).toBe("score -2 · 0 answers · no accepted answer");
    expect(signalInWords({ kind: "authors", value: ["A", "B", "C", "D"] })).toBe("by A, B, C et al.");
    expect(signalInWords({ kind: "last_push", value: "2025-09-18T10:00:00Z" })).toBe("last push 2025-09-18");
    expect(signalInWords({ kind: "engines", value: ["brave", "qwant"] })).toBe("via brave, qwant");
  });

  it("leaves out empty lists and says nothing for no signals", () => {
    expect(signalsInWords([{ kind: "tags", value: [] }, { kind: "authors", value: [] }, { kind: "category", value: "cs.DC" }])).toBe("cs.DC");
    expect(signalsInWords(undefined)).toBe("");
  });
});
