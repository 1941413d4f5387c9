// A JSON file named on the command line, read in one place (cli/json-file.ts): its value, or what
// is wrong with it in words that follow its name.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readJsonFile } from "../../src/cli/json-file";

describe("readJsonFile", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "vault-research-json-file-"));
  const write = (name: string, text: string) => {
    const file = path.join(tmp, name);
    writeFileSync(file, text);
    return file;
  };

  it("reads a JSON file, one that opens with a byte-order mark too", () => {
    expect(readJsonFile(write("a.json", '{"a": [1, 2]}'))).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(readJsonFile(write("bom.json", '\uFEFF{"mode": "vault_only"}\n'))).toEqual({ ok: true, value: { mode: "vault_only" } });
  });

  it("reads a file Windows PowerShell saved as UTF-16, either byte order", () => {
    const text = '{"notes": {"traceFolder": "Läufe"}}\r\n';
    const le = path.join(tmp, "utf16le.json");
    writeFileSync(le, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]));
    expect(readJsonFile(le)).toEqual({ ok: true, value: { notes: { traceFolder: "Läufe" } } });
    const be = path.join(tmp, "utf16be.json");
    writeFileSync(be, Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()]));
    expect(readJsonFile(be)).toEqual({ ok: true, value: { notes: { traceFolder: "Läufe" } } });
  });

  it("refuses a file that is not UTF-8 (a Windows editor's ANSI), saying where, rather than read its letters as \uFFFD", () => {
    // Read as it was, "Archivé" in Windows-1252 became "Archiv\uFFFD": a folder excluded by a name no folder has, without a word.
    const file = path.join(tmp, "latin1.json");
    writeFileSync(file, Buffer.from('{\n  "index": {"excludedFolders": ["Archiv\u00e9"]}\n}', "latin1"));
    expect(readJsonFile(file)).toEqual({ ok: false, why: "is not UTF-8 text (at line 2, column 40): save it as UTF-8" });
    // A byte that is never UTF-8, on the first line.
    writeFileSync(path.join(tmp, "ff.json"), Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]));
    expect(readJsonFile(path.join(tmp, "ff.json"))).toEqual({ ok: false, why: "is not UTF-8 text (at line 1, column 3): save it as UTF-8" });
    // A letter that is UTF-8, and the replacement character written as such, are read as they are.
    expect(readJsonFile(write("utf8.json", '{"a": "Archivé \uFFFD"}'))).toEqual({ ok: true, value: { a: "Archivé \uFFFD" } });
  });

  it("says a file is empty rather than that its JSON ends early", () => {
    expect(readJsonFile(write("empty.json", ""))).toEqual({ ok: false, why: "is empty" });
    expect(readJsonFile(write("blank.json", "  \n\t\n"))).toEqual({ ok: false, why: "is empty" });
  });

  it("says a file is not valid JSON, where and what is wrong, in its own words", () => {
    expect(readJsonFile(write("bad.json", '{"a": 1,}'))).toEqual({ ok: false, why: "is not valid JSON (a property name in double quotes was expected at line 1, column 9)" });
    expect(readJsonFile(write("two-lines.json", '{\n  "a": 1\n  "b": 2\n}'))).toEqual({ ok: false, why: "is not valid JSON (a comma or a closing brace was expected at line 3, column 3)" });
    expect(readJsonFile(write("short.json", '{"a": [1, 2'))).toEqual({ ok: false, why: "is not valid JSON (it ends before its value is complete, at line 1, column 12)" });
    expect(readJsonFile(write("trailing.json", '{"a": 1} x'))).toEqual({ ok: false, why: "is not valid JSON (more follows the value at line 1, column 10)" });
  });

  it("never quotes the file's text, so a key pasted into it is not printed even in part", () => {
    const key = "BSAsecretKEY1234567890";
    const read = readJsonFile(write("key.json", `{\n  "external": {"brave": {"x": ${key}}}\n}`));
    expect(read).toEqual({ ok: false, why: "is not valid JSON (an unexpected character at line 2, column 31)" });
    for (const bad of [`{"a": 'single'}`, `{"a": tru}`, `{"a": "${key}\u0001"}`, `{"a": "\\q${key}"}`, `{"a": 01${key}}`, `[${key}]`, `${key}`]) {
      const failed = readJsonFile(write("bad-key.json", bad));
      expect(failed.ok).toBe(false);
      expect(!failed.ok && failed.why).toMatch(/^is not valid JSON \([a-z ,]+ at line \d+, column \d+\)$/);
      expect(!failed.ok && failed.why).not.toMatch(/BSA|secret|single|tru\b/i);
    }
  });

  it("gives the path's own refusal for a file that is missing or a folder", () => {
    expect(readJsonFile(path.join(tmp, "none.json"))).toEqual({ ok: false, why: "does not exist" });
    mkdirSync(path.join(tmp, "folder.json"));
    expect(readJsonFile(path.join(tmp, "folder.json"))).toEqual({ ok: false, why: "is a folder, not a file" });
  });

  // A file whose reading fails though it is there; root reads any file whatever its mode, so the
  // kernel's own unreadable file stands in for one (reading /proc/self/mem from its start fails).
  it.skipIf(process.platform !== "linux")("says a file that cannot be read could not be read, not that it is bad JSON", () => {
    expect(readJsonFile("/proc/self/mem")).toEqual({ ok: false, why: "could not be read (EIO)" });
  });
});
