import { describe, expect, it } from "vitest";
import { jsonInModelReply } from "../../src/text/model-reply-json";

const ORDER = '{"order": [2, 1]}';

describe("jsonInModelReply", () => {
  it("takes a reply that is JSON as it is, trimmed", () => {
    expect(jsonInModelReply(`  ${ORDER}\n`)).toBe(ORDER);
    expect(jsonInModelReply('[1, "```"]')).toBe('[1, "```"]');
  });

  it("takes the JSON out of the fences models send: ```json, ```, ~~~, on one line or several, with CRLF", () => {
    expect(jsonInModelReply(`\`\`\`json\n${ORDER}\n\`\`\``)).toBe(ORDER);
    expect(jsonInModelReply(`\`\`\`JSON\r\n${ORDER}\r\n\`\`\`\r\n`)).toBe(ORDER);
    expect(jsonInModelReply(`~~~json\n${ORDER}\n~~~`)).toBe(ORDER);
    expect(jsonInModelReply(`\`\`\`\n\n${ORDER}\n\n\`\`\``)).toBe(`\n${ORDER}\n`);
    expect(jsonInModelReply(`\`\`\`json ${ORDER}\`\`\``)).toBe(ORDER);
    expect(jsonInModelReply(`\`\`\`JSON ${ORDER} \`\`\``)).toBe(ORDER);
    expect(jsonInModelReply(`\`\`\`json\n${ORDER}\`\`\``)).toBe(ORDER);
  });

  it("takes a fenced block with a sentence before it or a remark after it", () => {
    expect(jsonInModelReply(`Here is the order:\n\n\`\`\`json\n${ORDER}\n\`\`\`\n\nResult 2 answers the question best.`)).toBe(ORDER);
  });

  // Local models add a line after the JSON they were told to send alone: the check said "not JSON; it starts: {"verdict"…".
  it("reads no array out of prose that opens with a citation's bracket", () => {
    // Read to its first `]`, "[1] The first note…" was the JSON array [1]: the reranker then said the
    // answer was JSON of the wrong shape, of a reply that was prose.
    expect(() => JSON.parse(jsonInModelReply("[1] The first note answers it; [2] does not."))).toThrow();
  });

  it("takes a reply that starts with JSON up to where its value closes, a remark after it left out", () => {
    expect(jsonInModelReply(`${ORDER}\n\nLet me know if you need more.`)).toBe(ORDER);
    expect(jsonInModelReply('{"reason": "a } and a \\" in it", "missing": ["]"]} Hope this helps {')).toBe('{"reason": "a } and a \\" in it", "missing": ["]"]}');
    // An array is taken only whole: "[1] …" is as likely prose citing a source.
    expect(jsonInModelReply("[1, [2]] and more")).toBe("[1, [2]] and more");
    // Never closed, or closed wrongly: the reply as it is, for JSON.parse to refuse.
    expect(jsonInModelReply('{"order": [2, 1] and more')).toBe('{"order": [2, 1] and more');
    expect(jsonInModelReply(`${"[".repeat(100_000)}x`)).toBe(`${"[".repeat(100_000)}x`);
  });

  it("leaves bare JSON in prose as the reply, for JSON.parse to refuse", () => {
    expect(jsonInModelReply(`Here you go: ${ORDER}`)).toBe(`Here you go: ${ORDER}`);
    expect(jsonInModelReply("Result 2 is best.")).toBe("Result 2 is best.");
  });

  it("reads a fence never closed to the end, and hostile replies in one pass", () => {
    expect(jsonInModelReply('```json\n{"order": [2')).toBe('{"order": [2');
    expect(jsonInModelReply(`\`\`\`\n${"\n".repeat(1_000_000)}x`)).toBe(`${"\n".repeat(1_000_000)}x`);
    expect(jsonInModelReply(`${"`".repeat(100_000)}x`)).toBe("");
    expect(jsonInModelReply("`".repeat(100_000))).toBe("");
  });
});
