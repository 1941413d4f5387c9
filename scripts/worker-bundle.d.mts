// Types for worker-bundle.mjs (the tests that start real workers import it).
export function workerBundle(platform: "node" | "browser", options?: { minify?: boolean }): Promise<string>;
