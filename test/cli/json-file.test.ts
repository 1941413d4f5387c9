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

  it("says a file is empty rather than that its JSON ends early", () => {
    expect(readJsonFile(write("empty.json", ""))).toEqual({ ok: false, why: "is empty" });
    expect(readJsonFile(write("blank.json", "  \n\t\n"))).toEqual({ ok: false, why: "is empty" });
  });

  it("says a file is not valid JSON, with the parser's words", () => {
    const read = readJsonFile(write("bad.json", '{"a": 1,}'));
    expect(read.ok).toBe(false);
    expect(!read.ok && read.why).toMatch(/^is not valid JSON \(.+\)$/);
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
