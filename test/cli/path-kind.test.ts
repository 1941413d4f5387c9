// What a path given on the command line is, in the words a refusal uses (cli/path-kind.ts).
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { whyNot } from "../../src/cli/path-kind";

describe("whyNot", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "vault-research-path-kind-"));
  const folder = path.join(tmp, "notes");
  const file = path.join(tmp, "notes.md");
  mkdirSync(folder);
  writeFileSync(file, "# A note\n");

  it("accepts a folder as a folder and a file as a file, through a link too", () => {
    expect(whyNot("folder", folder)).toBeNull();
    expect(whyNot("file", file)).toBeNull();
    const linked = path.join(tmp, "linked");
    symlinkSync(folder, linked);
    expect(whyNot("folder", linked)).toBeNull();
  });

  it("says what is wrong: missing, the other kind, or a path through a file", () => {
    expect(whyNot("folder", path.join(tmp, "none"))).toBe("does not exist");
    expect(whyNot("file", path.join(tmp, "none.json"))).toBe("does not exist");
    expect(whyNot("folder", file)).toBe("is a file, not a folder");
    expect(whyNot("file", folder)).toBe("is a folder, not a file");
    expect(whyNot("folder", path.join(file, "inside"))).toBe("does not exist");
    const dangling = path.join(tmp, "dangling");
    symlinkSync(path.join(tmp, "gone"), dangling);
    expect(whyNot("file", dangling)).toBe("does not exist");
  });
});
