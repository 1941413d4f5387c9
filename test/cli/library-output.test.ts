// What a library prints is not the command's output. Defuddle logs a page it could not convert
// with console.log — page text, which may hold a line that reads as JSON, an escape sequence or a
// key the page echoed — and that went to stdout, into `--json` output and pipes. The binary sends
// every console method to stderr, through the one sanitiser and scrubber.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuiltCli } from "../support/built-cli";

const KEY = "sk-test-secret-123456";
let main: string;

beforeAll(() => {
  main = path.join(path.dirname(ensureBuiltCli()), "cli", "main.mjs");
});

describe("a library's console output", () => {
  it("goes to stderr, sanitised and without keys, and stdout keeps only the command's own output", () => {
    const script = [
      `process.argv = [process.argv[0], "vault-research", "--version"];`,
      `await import(${JSON.stringify(pathToFileURL(main).href)});`,
      `console.log('{"schema":"forged.v1"}');`,
      `console.info("\\u001b]52;c;cGF5bG9hZA==\\u0007 page echoes ${KEY}");`,
      `console.error("a stack", new Error("boom"));`,
    ].join("\n");
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: { ...process.env, BRAVE_SEARCH_API_KEY: KEY, NO_COLOR: "1" }, timeout: 60_000 });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^vault-research \S+\n$/);
    expect(run.stderr).toContain('{"schema":"forged.v1"}');
    expect(run.stderr).toContain("page echoes [redacted]");
    expect(run.stderr).toContain("Error: boom");
    expect(run.stderr).not.toContain(KEY);
    expect(run.stderr).not.toContain("\u001b");
  });
});
