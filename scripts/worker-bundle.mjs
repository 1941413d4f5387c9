// The code a worker runs (the `Workers` port), bundled on its own and handed back as a string: the
// CLI and main.js each carry theirs (a plugin ships one script, so a Web Worker is started from a
// blob of it). Used by esbuild.config.mjs, the workbench and the tests that start real workers.
import esbuild from "esbuild";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** `node`: a worker thread's script (src/cli/worker-main.ts); `browser`: a Web Worker's (src/plugin/worker-main.ts). */
export async function workerBundle(platform, { minify = false } = {}) {
  const node = platform === "node";
  const result = await esbuild.build({
    entryPoints: [path.join(root, node ? "src/cli/worker-main.ts" : "src/plugin/worker-main.ts")],
    bundle: true,
    write: false,
    format: node ? "cjs" : "iife",
    platform: node ? "node" : "browser",
    target: node ? "node20" : "es2022",
    minify,
    logLevel: "warning",
  });
  return result.outputFiles[0].text;
}
