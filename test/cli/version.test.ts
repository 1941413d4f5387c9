import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { CLI_VERSION } from "../../src/cli/version";

it("the CLI reports package.json's version", () => {
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, "../../package.json"), "utf8")) as { version: string };
  expect(CLI_VERSION).toBe(pkg.version);
});
