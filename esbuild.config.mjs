// Builds three bundles: the Obsidian plugin (main.js, CommonJS, `obsidian` external),
// the Node CLI (dist/cli.cjs and its parts in dist/cli/), and the benchmark and evaluation scripts
// (dist/*.cjs).
import esbuild from "esbuild";
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { workerBundle } from "./scripts/worker-bundle.mjs";

const production = process.argv[2] === "production";
// What a worker runs (the vault's language is learned there), carried by each bundle as a string.
// In watch mode it is bundled once, at start: a change to the learning code needs a restart.
const [nodeWorker, webWorker] = await Promise.all([workerBundle("node"), workerBundle("browser", { minify: production })]);
const NODE_WORKER = { __VAULT_RESEARCH_NODE_WORKER__: JSON.stringify(nodeWorker) };
const common = { bundle: true, logLevel: production ? "warning" : "info", sourcemap: production ? false : "inline", target: "es2022", treeShaking: true };

// The CLI is split at its lazily loaded commands: a `search` or `--version` compiles only the parts
// it runs, not the MCP SDK, Defuddle, linkedom and the research run (6 MB as one file; compiling it
// was a fifth of a warm `search`). Splitting needs ES modules, so dist/cli.cjs, the bin, is a
// two-line CommonJS file that imports the entry; each part gets a `require` for the CommonJS
// packages bundled into it. Names stay readable (not minified): a stack trace names our functions.
const CLI_PARTS = "dist/cli";
const CLI_BIN = "dist/cli.cjs";
const CLI_BIN_TEXT = '#!/usr/bin/env node\n// The vault-research command; its code is in cli/ (split so each command loads only what it runs).\nimport("./cli/main.mjs");\n';

// A CommonJS package loaded with import() becomes a part of its own, and a split part exports such
// a module only as its default: `const { Defuddle } = await import("defuddle/node")` would find
// nothing. Each one is reached through a small ES module that names its exports.
const COMMONJS_LOADED_LATER = { "defuddle/node": ["Defuddle"] };
const namedCommonJsExports = {
  name: "named-commonjs-exports",
  setup(build) {
    const wanted = new RegExp(`^(${Object.keys(COMMONJS_LOADED_LATER).join("|")})$`);
    build.onResolve({ filter: wanted }, (args) => (args.namespace === "named-exports" ? undefined : { path: args.path, namespace: "named-exports" }));
    build.onLoad({ filter: /.*/, namespace: "named-exports" }, (args) => ({
      contents: `export { ${COMMONJS_LOADED_LATER[args.path].join(", ")} } from ${JSON.stringify(args.path)};`,
      resolveDir: process.cwd(),
    }));
  },
};

const cli = {
  ...common,
  entryPoints: { main: "src/cli/main.ts" },
  outdir: CLI_PARTS,
  format: "esm",
  splitting: true,
  outExtension: { ".js": ".mjs" },
  chunkNames: "part-[hash]",
  platform: "node",
  target: "node20",
  metafile: true,
  plugins: [namedCommonJsExports],
  define: NODE_WORKER,
  banner: { js: 'import { createRequire as createRequireOfPart } from "node:module";\nconst require = createRequireOfPart(import.meta.url);' },
};
const builds = [
  {
    ...common,
    entryPoints: ["src/main.ts"],
    outfile: "main.js",
    format: "cjs",
    platform: "browser",
    // Mobile parses every byte at start-up; the release bundle is minified (the CLI stays readable).
    minify: production,
    // Node's built-ins are there only in the desktop app, where page fetches load them (plugin/desktop-pages.ts).
    external: ["obsidian", "electron", "@codemirror/*", "@lezer/*", "node:*"],
    define: { __VAULT_RESEARCH_WEB_WORKER__: JSON.stringify(webWorker) },
  },
  cli,
];
// Benchmarks and retrieval evaluations (npm run bench / eval:search / eval:judge).
for (const name of ["bench", "bench-embeddings", "eval-search", "eval-judge"]) {
  if (existsSync(`bench/${name}.ts`)) {
    builds.push({ ...common, entryPoints: [`bench/${name}.ts`], outfile: `dist/${name}.cjs`, format: "cjs", platform: "node", target: "node20", define: NODE_WORKER });
  }
}

function writeCliBin() {
  mkdirSync(path.dirname(CLI_BIN), { recursive: true });
  writeFileSync(CLI_BIN, CLI_BIN_TEXT);
  chmodSync(CLI_BIN, 0o755);
}

/** The bin, and no parts left over from an earlier build (only files this build did not write go). */
function finishCli(result) {
  writeCliBin();
  const written = new Set(Object.keys(result.metafile?.outputs ?? {}).map((file) => path.resolve(file)));
  if (written.size === 0) return;
  for (const name of readdirSync(CLI_PARTS)) {
    const file = path.resolve(CLI_PARTS, name);
    if (!written.has(file)) rmSync(file, { force: true });
  }
}

if (production) {
  // The CLI is finished as soon as its own build is, whatever the other bundles do.
  await Promise.all(builds.map((b) => esbuild.build(b).then((result) => b === cli && finishCli(result))));
} else {
  writeCliBin();
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
}
