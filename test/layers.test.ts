// The layer rule from DESIGN.md: dependencies point down only. Every folder of src/ (and each file
// at its top) is a layer with the list of layers it may import; the pure layers run anywhere
// (Obsidian desktop and mobile, Node, a browser), so they import neither Obsidian nor Node.
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");
const src = path.join(root, "src");
const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, m.split("/")[0]]));

/** What each layer may import, besides itself. The bottom: ports, settings, provider names, text. */
const BASE = ["ports", "settings", "provider-names", "text", "deadline"];
export const ALLOWED_IMPORTS: Record<string, readonly string[]> = {
  text: [],
  ports: [],
  "provider-names": [],
  settings: ["provider-names", "text", "ports"],
  deadline: ["ports"],
  llm: BASE,
  websearch: BASE,
  index: BASE,
  evidence: [...BASE, "websearch"],
  notes: [...BASE, "evidence", "index"],
  promote: [...BASE, "evidence", "notes", "index", "websearch"],
  research: [...BASE, "evidence", "notes", "promote", "index", "websearch", "llm"],
  eval: [...BASE, "evidence", "research", "index", "websearch"],
  node: [...BASE, "promote"],
  cli: [...BASE, "evidence", "notes", "promote", "research", "eval", "index", "websearch", "llm", "node"],
  plugin: [...BASE, "evidence", "notes", "promote", "research", "index", "websearch", "llm", "node"],
  ui: [...BASE, "evidence", "notes", "promote", "research", "index", "websearch", "llm"],
  main: [...BASE, "evidence", "notes", "promote", "research", "index", "websearch", "llm", "plugin", "ui"],
};
/**
 * Only these may import `obsidian`; only `cli` and `node` may import Node's built-ins. The plugin
 * reaches `node` (Node adapters it shares with the CLI) only by a dynamic import on desktop:
 * a static one would load Node's built-ins where there are none (mobile).
 */
const OBSIDIAN_LAYERS = new Set(["plugin", "ui", "main"]);
const NODE_LAYERS = new Set(["cli", "node"]);
const LOADED_ONLY_ON_DESKTOP: Record<string, string> = { plugin: "node" };

/** Modules a file imports or re-exports statically for their values (not `import type`). */
function staticValueImports(text: string): Set<string> {
  const file = ts.createSourceFile("x.ts", text, ts.ScriptTarget.Latest);
  const found = new Set<string>();
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly && ts.isStringLiteral(statement.moduleSpecifier)) found.add(statement.moduleSpecifier.text);
    if (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) found.add(statement.moduleSpecifier.text);
  }
  return found;
}

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
    return /\.(ts|tsx|js|mjs|cjs)$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [full] : [];
  });
}

/** The layer a path under src/ belongs to: its first folder, or a top-level file's name. */
export function layerOf(relativeToSrc: string): string {
  return relativeToSrc.split(/[\\/]/)[0].replace(/\.(ts|tsx|js|mjs|cjs)$/, "");
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
  const own = layerOf(path.relative(src, file));
  const allowed = ALLOWED_IMPORTS[own];
  if (!allowed) return [{ file: rel, specifier: "", reason: `src/${own} is not a known layer: add it to ALLOWED_IMPORTS` }];
  const violations: Violation[] = [];
  for (const specifier of importsOf(text)) {
    if (specifier === "obsidian" || specifier.startsWith("obsidian/")) {
      if (!OBSIDIAN_LAYERS.has(own)) violations.push({ file: rel, specifier, reason: "imports obsidian" });
    } else if (specifier.startsWith("node:") || NODE_BUILTINS.has(specifier) || NODE_BUILTINS.has(specifier.split("/")[0])) {
      if (!NODE_LAYERS.has(own)) violations.push({ file: rel, specifier, reason: "imports a Node built-in" });
    } else if (specifier.startsWith(".")) {
      const target = path.relative(src, path.resolve(path.dirname(file), specifier));
      if (target.startsWith("..")) {
        violations.push({ file: rel, specifier, reason: "reaches outside src/" });
        continue;
      }
      const layer = layerOf(target);
      if (layer !== own && !allowed.includes(layer)) violations.push({ file: rel, specifier, reason: `src/${own} may not import src/${layer}` });
      else if (LOADED_ONLY_ON_DESKTOP[own] === layer && staticValueImports(text).has(specifier)) {
        violations.push({ file: rel, specifier, reason: `src/${own} may load src/${layer} only with a dynamic import on desktop` });
      }
    }
  }
  return violations;
}

describe("layers", () => {
  const files = sourceFiles(src);

  it("finds every layer's files to check", () => {
    const layers = new Set(files.map((f) => layerOf(path.relative(src, f))));
    for (const layer of ["evidence", "research", "notes", "promote", "eval", "index", "websearch", "llm", "cli", "node", "plugin", "ui", "text"]) {
      expect(layers.has(layer), `no files in src/${layer}`).toBe(true);
    }
  });

  it("every import points down: each layer imports only the layers listed for it", () => {
    const violations = files.flatMap((f) => layerViolations(f, readFileSync(f, "utf8")));
    expect(violations).toEqual([]);
  });

  it("only the CLI imports Node, and only the plugin, the UI and main.ts import obsidian", () => {
    const bad = files.flatMap((f) => layerViolations(f, readFileSync(f, "utf8"))).filter((v) => /imports (obsidian|a Node)/.test(v.reason));
    expect(bad).toEqual([]);
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
      'import { runEval } from "../eval/eval-cases";',
      'import { renderTraceNote } from "../notes/trace-note";',
    ].join("\n");
    expect(layerViolations(file, text).map((v) => v.specifier)).toEqual([
      "obsidian",
      "node:fs/promises",
      "path",
      "../plugin/obsidian-note-store",
      "../ui/search-modal",
      "fs",
      "../eval/eval-cases",
    ]);
  });

  it("the plugin loads the Node adapters only by a dynamic import (Node's built-ins are not on mobile)", () => {
    const file = path.join(src, "plugin", "example.ts");
    expect(layerViolations(file, 'import { pagesOverNode } from "../node/page-request";').map((v) => v.reason)).toEqual([
      "src/plugin may load src/node only with a dynamic import on desktop",
    ]);
    expect(layerViolations(file, 'export { pagesOverNode } from "../node/page-request";')).toHaveLength(1);
    expect(layerViolations(file, 'import type { PinnedDns } from "../node/pinned-dns";\nconst node = await import("../node/page-request");')).toEqual([]);
    expect(layerViolations(file, 'import { readFile } from "node:fs";')).toHaveLength(1);
    expect(layerViolations(path.join(src, "node", "example.ts"), 'import http from "node:http";\nimport { HttpFailure } from "../ports";')).toEqual([]);
  });

  it("pins the edges that matter most: plugin never imports ui, notes never imports research or promote", () => {
    const at = (layer: string) => path.join(src, layer, "example.ts");
    expect(layerViolations(at("plugin"), 'import { x } from "../ui/index-status";')).toHaveLength(1);
    expect(layerViolations(at("notes"), 'import { x } from "../research/types";')).toHaveLength(1);
    expect(layerViolations(at("notes"), 'import { x } from "../promote/promote";')).toHaveLength(1);
    expect(layerViolations(at("evidence"), 'import { x } from "../notes/trace-note";')).toHaveLength(1);
    expect(layerViolations(at("cli"), 'import { readFile } from "node:fs";')).toEqual([]);
    expect(layerViolations(at("ui"), 'import { Notice } from "obsidian";')).toEqual([]);
  });
});
