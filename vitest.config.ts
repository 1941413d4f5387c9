import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: {
    // Obsidian cannot run here: tests get a small, faithful stand-in for the module.
    alias: { obsidian: fileURLToPath(new URL("./test/stubs/obsidian.ts", import.meta.url)) },
  },
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
