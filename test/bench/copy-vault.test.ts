// The bench's larger vaults are renamed copies of the vault it measures, kept for the next run:
// never another vault's copies.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renamedCopies } from "../../bench/copy-vault";

function vault(root: string, name: string, notes: Record<string, string>): string {
  const dir = path.join(root, name);
  for (const [file, text] of Object.entries(notes)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

describe("renamed copies for the bench's larger sizes", () => {
  it("copies the vault asked for, then renamed copies of it, and keeps them for the next run of the same vault", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "vr-copies-"));
    const a = vault(root, "a", { "x.md": "alpha", "sub/y.md": "beta" });
    const dir = renamedCopies(a, 5, root);
    const notes = (d: string) => readdirSync(d, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md")).sort();
    expect(notes(dir)).toEqual(["copy-1/sub/y 1.md", "copy-1/x 1.md", "copy-2/sub/y 2.md", "sub/y.md", "x.md"]);
    writeFileSync(path.join(dir, "kept.md"), "a mark of the first run");
    expect(renamedCopies(a, 5, root)).toBe(dir);
    expect(readFileSync(path.join(dir, "kept.md"), "utf8")).toBe("a mark of the first run");
  });

  it("makes them again from another vault, where it reused the last vault's copies (--vault measured the wrong notes)", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "vr-copies-"));
    const a = vault(root, "a", { "x.md": "alpha" });
    const b = vault(root, "b", { "z.md": "gamma" });
    renamedCopies(a, 3, root);
    const dir = renamedCopies(b, 3, root);
    expect(readFileSync(path.join(dir, "z.md"), "utf8")).toBe("gamma");
    expect(readdirSync(dir)).not.toContain("x.md");
  });
});
