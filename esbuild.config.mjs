// Builds three bundles: the Obsidian plugin (main.js, CommonJS, `obsidian` external),
// the Node CLI (dist/cli.cjs), and the benchmark and evaluation scripts (dist/*.cjs).
import esbuild from "esbuild";
import { chmodSync, existsSync } from "node:fs";

const production = process.argv[2] === "production";
const common = { bundle: true, logLevel: production ? "warning" : "info", sourcemap: production ? false : "inline", target: "es2022", treeShaking: true };

const builds = [
  {
    ...common,
    entryPoints: ["src/main.ts"],
    outfile: "main.js",
    format: "cjs",
    platform: "browser",
    // Mobile parses every byte at start-up; the release bundle is minified (the CLI stays readable).
    minify: production,
    external: ["obsidian", "electron", "@codemirror/*", "@lezer/*"],
  },
  {
    ...common,
    entryPoints: ["src/cli/main.ts"],
    outfile: "dist/cli.cjs",
    format: "cjs",
    platform: "node",
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
  },
];
// Benchmarks and retrieval evaluations (npm run bench / eval:search / eval:judge).
for (const name of ["bench", "bench-embeddings", "eval-search", "eval-judge"]) {
  if (existsSync(`bench/${name}.ts`)) {
    builds.push({ ...common, entryPoints: [`bench/${name}.ts`], outfile: `dist/${name}.cjs`, format: "cjs", platform: "node", target: "node20" });
  }
}

if (production) {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  chmodSync("dist/cli.cjs", 0o755);
} else {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
}
