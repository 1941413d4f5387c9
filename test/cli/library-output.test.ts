// What a library prints is not the command's output. Defuddle logs a page it could not convert
// with console.log — page text, which may hold a line that reads as JSON, an escape sequence or a
// key the page echoed — and that went to stdout, into `--json` output and pipes. The binary sends
// every console method to stderr, through the one sanitiser and scrubber. And what the binary reads
// itself: standard input, bounded.
import { spawnSync } from "node:child_process";
import os from "node:os";
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

describe("a question piped from a source that never ends", () => {
  it("is read to its first megabyte and the command ends (yes | vault-research search never did)", async () => {
    const { spawn } = await import("node:child_process");
    const vault = path.resolve(__dirname, "../../examples/vault");
    const child = spawn(process.execPath, [ensureBuiltCli(), "search", "--vault", vault, "--cache-dir", path.join(os.tmpdir(), `vr-stdin-${process.pid}`), "--json"], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => void (out += text));
    child.stdin.on("error", () => undefined); // the command stops reading: writes then fail, as `yes` is ended by SIGPIPE
    const line = Buffer.from("what did we decide about sync\n".repeat(2_000));
    const feed = (error?: Error | null): void => {
      if (!error && !child.stdin.destroyed && child.exitCode === null) child.stdin.write(line, feed);
    };
    feed();
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    const result = JSON.parse(out) as { query: string; notices: { kind: string }[] };
    // What was searched, as every surface echoes it: the first 2,000 characters (less a cut-off space).
    expect(result.query.length).toBeGreaterThan(1_990);
    expect(result.query.length).toBeLessThanOrEqual(2_000);
    expect(result.notices.map((n) => n.kind)).toContain("query_cut");
  }, 60_000);
});
