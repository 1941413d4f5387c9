// Builds the dial bench (bench-page.ts) into dist/workbench/dial-bench/, beside the workbench, so
// the workbench's static server serves it: the sample vault as data, the stand-in `obsidian`
// module, and the workbench's Obsidian CSS (light and dark variables) with the plugin's styles.
import { build } from "esbuild";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { root } from "../workbench-server";

export const BENCH_DIR = "dial-bench";

function notesUnder(dir: string, base = dir): [string, string][] {
  return readdirSync(dir).flatMap((name): [string, string][] => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name.startsWith(".") ? [] : notesUnder(full, base);
    return name.endsWith(".md") ? [[path.relative(base, full).split(path.sep).join("/"), readFileSync(full, "utf8")]] : [];
  });
}

const BENCH_CSS = `
.bench-main { position: absolute; inset: 0 300px 0 0; overflow: auto; background: var(--background-primary); }
.bench-sidebar { position: absolute; inset: 0 0 0 auto; width: 300px; border-left: 1px solid var(--background-modifier-border); background: var(--background-secondary); display: flex; flex-direction: column; }
.bench-sidebar > * { flex: 1 1 auto; min-height: 0; }
.bench-phone .bench-main { display: none; }
.bench-phone .bench-sidebar { width: auto; inset: 0; border: none; }
`;

export async function buildBench(): Promise<void> {
  const out = path.join(root, "dist/workbench", BENCH_DIR);
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [path.join(__dirname, "bench-page.ts")],
    outfile: path.join(out, "bench.js"),
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    alias: { obsidian: path.join(root, "test/stubs/obsidian.ts") },
    define: { BENCH_VAULT: JSON.stringify(Object.fromEntries(notesUnder(path.join(root, "examples/vault")))) },
    logLevel: "warning",
  });
  const css = [readFileSync(path.join(root, "workbench/obsidian-base.css"), "utf8"), readFileSync(path.join(root, "styles.css"), "utf8"), BENCH_CSS].join("\n");
  writeFileSync(path.join(out, "bench.css"), css);
  writeFileSync(
    path.join(out, "index.html"),
    `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>Vault Research dial bench</title>\n<link rel="icon" href="data:,">\n<link rel="stylesheet" href="bench.css">\n</head>\n<body class="theme-light">\n<script src="bench.js"></script>\n</body>\n</html>\n`,
  );
}
