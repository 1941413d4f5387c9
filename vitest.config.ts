import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";

/**
 * The browser files run longest (two to three minutes, most of the run's length), so they start
 * first. Vitest orders by the last run's times when it has them, but a fresh clone (CI) has none
 * and orders by file size, which started the small browser.test.ts last: about 2 minutes more.
 */
class BrowserFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const later = (f: TestSpecification) => (f.moduleId.includes("/test/browser/") ? 0 : 1);
    return [...sorted].sort((a, b) => later(a) - later(b));
  }
}

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
    sequence: { sequencer: BrowserFilesFirst },
    // Vitest's default (one fewer worker than cores) runs the files one at a time on a 2-core
    // machine: 11 minutes here. Much of a test file's time is spent waiting (Chromium, servers
    // on 127.0.0.1, child processes), so three run at once there: 5½ minutes, 1.6 cores busy.
    maxWorkers: Math.max(3, availableParallelism() - 1),
  },
});
