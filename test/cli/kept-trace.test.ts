// Kept traces live in the cache folder, never in the vault: one kept there would be read back as a note.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keepTrace, keptTraceFolder, placeOnDisk } from "../../src/cli/kept-trace";
import { traceWith } from "../support/promote-fixtures";

let tmp: string;
let vault: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-kept-"));
  vault = path.join(tmp, "vault");
  mkdirSync(vault);
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe("the kept traces' folder", () => {
  it("is in the cache folder when that is outside the vault, even one whose name starts alike", () => {
    expect(keptTraceFolder(path.join(tmp, "cache"), vault).startsWith(path.join(tmp, "cache", "traces"))).toBe(true);
    expect(() => keptTraceFolder(`${vault}-cache`, vault)).not.toThrow();
  });

  it("is refused inside the vault, as written, through a link, or not made yet", () => {
    symlinkSync(vault, path.join(tmp, "link"));
    for (const cache of [vault, path.join(vault, "cache"), path.join(tmp, "link", "not", "yet")]) {
      expect(() => keptTraceFolder(cache, vault), cache).toThrow(/inside the vault/);
    }
  });
});

describe("placeOnDisk", () => {
  it("tells the folder itself, below it and elsewhere apart, links followed", () => {
    symlinkSync(vault, path.join(tmp, "link"));
    expect(placeOnDisk(vault, path.join(tmp, "link"))).toBe("same");
    expect(placeOnDisk(vault, path.join(tmp, "link", "a", "b"))).toBe("inside");
    expect(placeOnDisk(vault, path.join(tmp, "..vault"))).toBe("outside");
    expect(placeOnDisk(vault, path.join(vault, "..", "other"))).toBe("outside");
  });

  it("tells a place below a hidden folder or node_modules of the vault, where no note is read", () => {
    expect(placeOnDisk(vault, path.join(vault, ".cache", "vault-research"))).toBe("hidden");
    expect(placeOnDisk(vault, path.join(vault, "Notes", "node_modules", "x"))).toBe("hidden");
    expect(placeOnDisk(vault, path.join(vault, "Notes", "a.b"))).toBe("inside");
    expect(() => keptTraceFolder(path.join(vault, ".cache", "vault-research"), vault)).not.toThrow();
  });
});

describe("keeping a trace", () => {
  it("leaves no temporary file behind when the rename into place fails", async () => {
    const folder = path.join(tmp, "traces");
    const trace = traceWith("what changed?", []);
    // A folder (not empty) where the trace goes: the rename of the written temporary file over it fails.
    mkdirSync(path.join(folder, `${trace.run_id}.md`), { recursive: true });
    writeFileSync(path.join(folder, `${trace.run_id}.md`, "someone else's.md"), "kept");
    await expect(keepTrace(folder, trace)).rejects.toThrow();
    expect(readdirSync(folder)).toEqual([`${trace.run_id}.md`]);
    expect(readdirSync(path.join(folder, `${trace.run_id}.md`))).toEqual(["someone else's.md"]);
  });
});
