import { describe, expect, it } from "vitest";
import { envSecretValues } from "../../src/cli/env-secrets";
import { terminalJson, terminalOutput, terminalText, visibleName } from "../../src/cli/terminal-text";

const ESC = "\u001b";

describe("terminalText", () => {
  it("removes CSI sequences whole: colours, clear screen, cursor moves", () => {
    expect(terminalText(`${ESC}[2J${ESC}[H${ESC}[31mred${ESC}[0m title`)).toBe("red title");
  });

  it("removes OSC 52 (clipboard write) and OSC 0 (window title), payload and all, with either terminator", () => {
    expect(terminalText(`a${ESC}]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007b`)).toBe("ab");
    expect(terminalText(`a${ESC}]0;pwned${ESC}\\b`)).toBe("ab");
  });

  it("keeps the text of an OSC 8 link but not its hidden target", () => {
    expect(terminalText(`${ESC}]8;;https://evil.example/${ESC}\\Automerge docs${ESC}]8;;${ESC}\\`)).toBe("Automerge docs");
  });

  it("removes DCS, APC, PM and SOS strings, two-character escapes and an unterminated string", () => {
    expect(terminalText(`a${ESC}P+q544e${ESC}\\b${ESC}_x${ESC}\\c${ESC}^y${ESC}\\d${ESC}Xz${ESC}\\e`)).toBe("abcde");
    expect(terminalText(`a${ESC}cb${ESC}(Bc${ESC}7d`)).toBe("abcd");
    expect(terminalText(`title${ESC}]52;c;AAAA`)).toBe("title");
  });

  it("removes 8-bit controls, bidi overrides, backspaces and lone carriage returns, keeping lines and tabs", () => {
    expect(terminalText("a\u009b31mb\u009d0;x\u0007c")).toBe("a31mb0;xc");
    expect(terminalText("invoice\u202Efdp.exe")).toBe("invoicefdp.exe");
    expect(terminalText("Outside vault\rVault evidence\b\b")).toBe("Outside vaultVault evidence");
    expect(terminalText("one\r\ntwo\n\tthree")).toBe("one\ntwo\n\tthree");
  });
});

describe("visibleName", () => {
  it("writes a name's control and bidi characters visibly, so it can neither fake a line nor pass for another name", () => {
    expect(terminalText(visibleName("new\nline.md"))).toBe("new\\nline.md");
    expect(terminalText(visibleName("evil\u001b[31mred\u001b[0m.md"))).toBe("evil\\x1bred\\x1b.md");
    // An escape's payload goes with it, as terminalText drops it: no clipboard write left as text.
    expect(terminalText(visibleName("a\u001b]52;c;AAAA\u0007b.md"))).toBe("a\\x1bb.md");
    expect(terminalText(visibleName("a\u202eb\u0085.md"))).toBe("a\\u202eb\\x85.md");
    expect(visibleName("café 😀 日本.md")).toBe("café 😀 日本.md");
  });
});

describe("terminalJson", () => {
  it("is JSON that parses back to the same data, with no byte a terminal acts on", () => {
    const value = { title: `${ESC}]52;c;AAAA\u0007 \u009b2J \u202Etxt \u2028 é` };
    const text = terminalJson(value);
    expect(JSON.parse(text)).toEqual(value);
    expect(text).not.toMatch(new RegExp(String.raw`[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2028]`));
  });
});

describe("terminalOutput", () => {
  it("sanitises and scrubs both streams", () => {
    let out = "";
    let err = "";
    const io = terminalOutput({ out: (t: string) => (out += t), err: (t: string) => (err += t) }, ["sk-live-0123456789"]);
    io.out(`${ESC}[2Jkey sk-live-0123456789\n`);
    io.err(`refused ${encodeURIComponent("sk-live-0123456789")}\n`);
    expect(out).toBe("key [redacted]\n");
    expect(err).toBe("refused [redacted]\n");
  });
});

describe("the secrets the CLI scrubs", () => {
  it("are the keys set in the environment, but not a placeholder a local server takes", () => {
    expect(envSecretValues({ OPENAI_API_KEY: "ollama", BRAVE_SEARCH_API_KEY: "BSA-0123456789abcdef", GITHUB_TOKEN: " " })).toEqual(["BSA-0123456789abcdef"]);
  });
});
