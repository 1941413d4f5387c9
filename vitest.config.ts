import { defineConfig } from "vitest/config";
import { availableParallelism } from "node:os";
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
    globalSetup: ["test/support/global-setup.ts"],
    // Vitest's default (one fewer worker than cores) runs the files one at a time on a 2-core
    // machine: 11 minutes here. Much of a test file's time is spent waiting (Chromium, servers
    // on 127.0.0.1, child processes), so three run at once there: 5½ minutes, 1.6 cores busy.
    maxWorkers: Math.max(3, availableParallelism() - 1),
  },
});
