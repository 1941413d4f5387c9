// Strict argument parsing: anything the CLI does not understand stops the run with a usage error
// (exit 2), so a scripted evaluation never quietly runs with defaults.
import { describe, expect, it } from "vitest";
import { flag, flagAll, has, intFlag, parseArgs, UsageError, type FlagSpecs } from "../../src/cli/args";

const SPECS: FlagSpecs = {
  vault: { value: true },
  limit: { value: true },
  json: { value: false },
  "external-provider": { value: true, repeat: true },
};

function usageMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).kind).toBe("usage");
    return (error as UsageError).message;
  }
  throw new Error("expected a usage error");
}

describe("parseArgs", () => {
  it("reads positionals, valued flags in both spellings and switches", () => {
    const args = parseArgs(["daily", "notes", "--vault", "v", "--limit=5", "--json"], SPECS);
    expect(args.positionals).toEqual(["daily", "notes"]);
    expect(flag(args, "vault")).toBe("v");
    expect(flag(args, "limit")).toBe("5");
    expect(has(args, "json")).toBe(true);
    expect(has(args, "limit")).toBe(true);
    expect(flag(args, "missing")).toBeUndefined();
  });

  it("suggests the nearest flag for a misspelt one", () => {
    expect(usageMessage(() => parseArgs(["--vaul", "v"], SPECS))).toBe("Unknown option --vaul. Did you mean --vault?");
  });

  it("names an unknown flag without a suggestion when nothing is close", () => {
    expect(usageMessage(() => parseArgs(["--frobnicate"], SPECS))).toBe("Unknown option --frobnicate.");
  });

  it("refuses single-dash options but takes negative numbers as positionals", () => {
    expect(usageMessage(() => parseArgs(["-j"], SPECS))).toMatch(/Unknown option -j\. .*two dashes/);
    expect(parseArgs(["-5"], SPECS).positionals).toEqual(["-5"]);
  });

  it("refuses a flag given twice unless it may repeat", () => {
    expect(usageMessage(() => parseArgs(["--limit", "1", "--limit", "2"], SPECS))).toBe("--limit was given more than once.");
    const args = parseArgs(["--external-provider", "brave", "--external-provider=exa"], SPECS);
    expect(flagAll(args, "external-provider")).toEqual(["brave", "exa"]);
  });

  it("wants a value after a valued flag, not the next flag", () => {
    expect(usageMessage(() => parseArgs(["--vault"], SPECS))).toBe("--vault needs a value.");
    expect(usageMessage(() => parseArgs(["--vault", "--json"], SPECS))).toBe("--vault needs a value.");
  });

  it("refuses an empty value in either spelling, which would otherwise read as no flag at all", () => {
    // `--replay "$DIR"` with DIR unset must not turn a replayed run into a live one.
    for (const argv of [["--vault="], ["--vault", ""], ["--vault", "  "], ["--external-provider", "brave", "--external-provider="]]) {
      expect(usageMessage(() => parseArgs(argv, SPECS)), argv.join(" ")).toMatch(/^--(vault|external-provider) is empty: give it a value, or leave the flag out\.$/);
    }
  });

  it("takes -- after a valued flag as the separator it is, not as the value (`--cache-dir $UNSET -- query` made a folder named --)", () => {
    expect(usageMessage(() => parseArgs(["--vault", "--", "daily"], SPECS))).toBe("--vault needs a value.");
    // A folder that is really called -- can still be named, spelt so it is no separator.
    expect(flag(parseArgs(["--vault=--", "daily"], SPECS), "vault")).toBe("--");
  });

  it("refuses a value on a switch", () => {
    expect(usageMessage(() => parseArgs(["--json=yes"], SPECS))).toBe("--json is a switch and takes no value.");
  });

  it("treats everything after -- as positionals", () => {
    const args = parseArgs(["--json", "--", "--vault", "-x"], SPECS);
    expect(args.positionals).toEqual(["--vault", "-x"]);
    expect(has(args, "vault")).toBe(false);
  });
});

describe("parseArgs, as people mistype", () => {
  it("names a single-dash word whole and the flag it meant, not its first letter", () => {
    // `-vault v` was refused as "Unknown option -v … e.g. --json": neither what was typed nor what was meant.
    expect(usageMessage(() => parseArgs(["-vault", "v"], SPECS))).toBe("Unknown option -vault. Options are written with two dashes: did you mean --vault?");
    expect(usageMessage(() => parseArgs(["-json"], SPECS))).toBe("Unknown option -json. Options are written with two dashes: did you mean --json?");
    expect(usageMessage(() => parseArgs(["-limit=5"], SPECS))).toBe("Unknown option -limit=5. Options are written with two dashes: did you mean --limit?");
  });

  it("tells a question that starts with a dash to come last, after the options and --", () => {
    // "goes after --: -- "…"", put where the question was, left the options after -- as words of the
    // question, and the run said --vault was missing though it was written.
    const message = usageMessage(() => parseArgs(["-fsanitize flags in gcc"], SPECS));
    expect(message).toBe('Unknown option -fsanitize flags in gcc. Options are written with two dashes, e.g. --json; a question that starts with a dash goes last, after the options and --: … -- "-fsanitize flags in gcc".');
    expect(parseArgs(["--", "-fsanitize flags in gcc", "--vault", "v"], SPECS).positionals).toEqual(["-fsanitize flags in gcc", "--vault", "v"]);
    expect(parseArgs(["--", "-fsanitize flags in gcc"], SPECS).positionals).toEqual(["-fsanitize flags in gcc"]);
  });

  it("suggests a flag whatever its case", () => {
    expect(usageMessage(() => parseArgs(["--JSON"], SPECS))).toBe("Unknown option --JSON. Did you mean --json?");
  });

  it("refuses a flag written with a typographic dash, which an editor's autocorrect makes of two hyphens", () => {
    // Read as words, `—json` joined the question and the flag was silently not given.
    for (const word of ["\u2014json", "\u2013json", "\u2014vault=v", "\u2013-json", "\u2212limit"]) {
      expect(usageMessage(() => parseArgs(["q", word], SPECS)), word).toMatch(/^"[^"]+" is written with a typographic dash: options take two hyphens, --(json|vault|limit)\.$/);
    }
    // After --, or when it names no flag, it is a word like any other.
    expect(parseArgs(["--", "\u2014json"], SPECS).positionals).toEqual(["\u2014json"]);
    expect(parseArgs(["sync", "\u2014", "what", "changed", "\u2014later"], SPECS).positionals).toEqual(["sync", "\u2014", "what", "changed", "\u2014later"]);
  });

  it("knows no flag by the name of an object's own machinery", () => {
    // `--constructor` and `--toString` were looked up on the flag table's prototype, found, and taken as switches.
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"]) {
      expect(usageMessage(() => parseArgs([`--${name}`], SPECS)), name).toMatch(new RegExp(`^Unknown option --${name}\\.`));
    }
  });
});

describe("intFlag", () => {
  const withLimit = (value: string) => parseArgs(["--limit", value], SPECS);

  it("reads a whole number within bounds", () => {
    expect(intFlag(withLimit("7"), "limit", 1, 200)).toBe(7);
    expect(intFlag(parseArgs([], SPECS), "limit", 1, 200)).toBeUndefined();
  });

  it("refuses words, fractions and signs", () => {
    expect(usageMessage(() => intFlag(withLimit("abc"), "limit", 1, 200))).toBe('--limit must be a whole number, not "abc".');
    expect(usageMessage(() => intFlag(withLimit("2.5"), "limit", 1, 200))).toMatch(/whole number/);
    expect(usageMessage(() => intFlag(parseArgs(["--limit=-3"], SPECS), "limit", 1, 200))).toMatch(/whole number/);
  });

  it("never repeats a value that is an API key, pasted into the wrong flag", () => {
    const message = usageMessage(() => intFlag(withLimit("sk-proj-pasted0123456789abcdef"), "limit", 1, 200));
    expect(message).toBe("--limit must be a whole number, not a value that looks like an API key.");
  });

  it("refuses numbers out of range", () => {
    expect(usageMessage(() => intFlag(withLimit("0"), "limit", 1, 200))).toBe("--limit must be between 1 and 200 (got 0).");
    expect(usageMessage(() => intFlag(withLimit("201"), "limit", 1, 200))).toMatch(/between 1 and 200/);
  });
});
