// The web-search flags research and eval share: each refusal names the flag and what it takes,
// and repeats what was given, unless what was given is an API key pasted into the wrong flag.
import { describe, expect, it } from "vitest";
import { parseArgs, UsageError } from "../../src/cli/args";
import { readExternalFlags, RESEARCH_FLAGS } from "../../src/cli/command-flags";
import { defaultSettings } from "../../src/settings";

function refusal(argv: string[]): string {
  try {
    readExternalFlags(parseArgs(argv, RESEARCH_FLAGS), defaultSettings());
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as UsageError).message;
  }
  throw new Error("expected a usage error");
}

const KEY = "tvly-pasted0123456789abcdef";

describe("readExternalFlags", () => {
  it("repeats a wrong value, so the user sees what was read", () => {
    expect(refusal(["--external-search", "sometimes"])).toBe('--external-search must be one of never, on-weak, always (got "sometimes").');
    expect(refusal(["--external-provider", "bing"])).toMatch(/^Unknown provider "bing"\. Providers: brave,/);
    expect(refusal(["--external-freshness", "yesterday"])).toBe('--external-freshness must be any, pd, pw, pm, py or YYYY-MM-DDtoYYYY-MM-DD (got "yesterday").');
  });

  it("never repeats a key given where a mode, a source or a freshness goes", () => {
    for (const flag of ["--external-search", "--external-provider", "--external-freshness"]) {
      const message = refusal([flag, KEY]);
      expect(message, flag).not.toContain("tvly-");
      expect(message, flag).toContain("a value that looks like an API key");
    }
  });
});
