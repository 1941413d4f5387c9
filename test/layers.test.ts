// The layer rule from DESIGN.md: the core layers run anywhere (Obsidian desktop and mobile, Node,
// a browser), so they import neither Obsidian nor Node, and never reach up into the adapters.
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");
const src = path.join(root, "src");
const CORE_LAYERS = ["evidence", "research", "notes", "promote", "eval", "index", "websearch", "llm", "text"];
const UPPER_LAYERS = ["plugin", "ui", "cli"];
const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, m.split("/")[0]]));

interface Violation {
  file: string;
  specifier: string;
  reason: string;
}

function sourceFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|js|mjs|cjs)$/.test(e.name) ? [full] : [];
  });
}

/** Every module a file names: imports, re-exports, dynamic imports, require() calls. */
export function importsOf(text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  const found = info.importedFiles.map((f) => f.fileName);
  // Belt and braces for require() calls written in ways preProcessFile does not see.
  for (const m of text.matchAll(/\brequire\s*\(\s*["'`]([^"'`]+)["'`]\s*\)/g)) found.push(m[1]);
  return [...new Set(found)];
}

export function layerViolations(file: string, text: string): Violation[] {
  const rel = path.relative(root, file);
  const violations: Violation[] = [];
  for (const specifier of importsOf(text)) {
    if (specifier === "obsidian" || specifier.startsWith("obsidian/")) {
      violations.push({ file: rel, specifier, reason: "imports obsidian" });
    } else if (specifier.startsWith("node:") || NODE_BUILTINS.has(specifier) || NODE_BUILTINS.has(specifier.split("/")[0])) {
      violations.push({ file: rel, specifier, reason: "imports a Node built-in" });
    } else if (specifier.startsWith(".")) {
      const target = path.relative(src, path.resolve(path.dirname(file), specifier));
      const top = target.split(path.sep)[0];
      if (UPPER_LAYERS.includes(top) || /^main(\.ts)?$/.test(target)) {
        violations.push({ file: rel, specifier, reason: `reaches up into src/${top}` });
      }
    }
  }
  return violations;
}

describe("layers", () => {
  const files = CORE_LAYERS.flatMap((layer) => sourceFiles(path.join(src, layer)));

  it("finds the core layers' files to check", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it("core, index, websearch and llm import neither obsidian nor Node, nor the plugin, UI or CLI", () => {
    const violations = files.flatMap((f) => layerViolations(f, readFileSync(f, "utf8")));
    expect(violations).toEqual([]);
  });

  it("the check itself catches each kind of violation", () => {
    const file = path.join(src, "research", "example.ts");
    const text = [
      'import { Notice } from "obsidian";',
      'import { readFile } from "node:fs/promises";',
      'import path from "path";',
      'export { x } from "../plugin/obsidian-note-store";',
      'const ui = await import("../ui/search-modal");',
      'const fs = require("fs");',
      'import type { Settings } from "../settings";',
      'import MiniSearch from "minisearch";',
    ].join("\n");
    expect(layerViolations(file, text).map((v) => v.specifier)).toEqual([
      "obsidian",
      "node:fs/promises",
      "path",
      "../plugin/obsidian-note-store",
      "../ui/search-modal",
      "fs",
    ]);
  });
});
