// Builds the workbench: the real plugin (panel, modals, settings tab) over the stand-in `obsidian`
// module, the sample vault and recorded web exchanges, as a static page in dist/workbench/.
// Usage: node workbench/build.mjs  (npm run workbench)
import esbuild from "esbuild";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { workerBundle } from "../scripts/worker-bundle.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "dist/workbench");

function filesUnder(dir, base = dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name.startsWith(".") ? [] : filesUnder(full, base);
    return [[path.relative(base, full).split(path.sep).join("/"), readFileSync(full, "utf8")]];
  });
}

const readJson = (p) => JSON.parse(readFileSync(path.join(root, p), "utf8"));
const jsonFilesIn = (dir) =>
  readdirSync(path.join(root, dir))
    .filter((name) => name.endsWith(".json"))
    .sort()
    .flatMap((name) => readJson(`${dir}/${name}`));
const data = {
  vault: Object.fromEntries(filesUnder(path.join(root, "examples/vault")).filter(([p]) => p.endsWith(".md"))),
  replay: {
    "brave-demo": [readJson("fixtures/replay/brave-demo/llm-context.json"), readJson("fixtures/replay/brave-demo/web-search.json")].flat(),
    // The pages behind some of those results, for "Add to vault".
    "brave-demo-pages": jsonFilesIn("fixtures/replay/brave-demo-pages"),
    "rate-limited": readJson("fixtures/websearch/brave-web/rate-limited-with-retry-after.json"),
  },
};

const dataPlugin = {
  name: "workbench-data",
  setup(build) {
    build.onResolve({ filter: /^workbench:data$/ }, (args) => ({ path: args.path, namespace: "workbench-data" }));
    build.onLoad({ filter: /.*/, namespace: "workbench-data" }, () => ({ contents: JSON.stringify(data), loader: "json" }));
  },
};

mkdirSync(out, { recursive: true });
await esbuild.build({
  entryPoints: [path.join(root, "workbench/main.ts")],
  outfile: path.join(out, "workbench.js"),
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  sourcemap: "inline",
  alias: { obsidian: path.join(root, "test/stubs/obsidian.ts") },
  // Node's built-ins are for the desktop app's page fetches, which a browser page never loads.
  external: ["node:*"],
  // The Web Worker's code, as main.js carries it (the vault's language is learned there).
  define: { __VAULT_RESEARCH_WEB_WORKER__: JSON.stringify(await workerBundle("browser")) },
  plugins: [dataPlugin],
  logLevel: "warning",
});
writeFileSync(
  path.join(out, "workbench.css"),
  readFileSync(path.join(root, "workbench/obsidian-base.css"), "utf8") + "\n" + readFileSync(path.join(root, "styles.css"), "utf8"),
);
writeFileSync(
  path.join(out, "index.html"),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Vault Research workbench</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="workbench.css">
</head>
<body class="theme-light">
<script src="workbench.js"></script>
</body>
</html>
`,
);
console.log(`Workbench built: ${path.relative(root, path.join(out, "index.html"))}`);
