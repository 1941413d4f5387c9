// Help is made from the command table: every flag a command takes is listed, one line each, with
// words from the one flag table — none missing, none invented.
import { describe, expect, it } from "vitest";
import { commandHelpText, FLAG_HELP, overviewHelpText } from "../../src/cli/command-help";
import { COMMANDS } from "../../src/cli/run";

describe("command help", () => {
  it("has words for every flag of every command", () => {
    const missing = Object.entries(COMMANDS).flatMap(([name, c]) => Object.entries(c.flags).filter(([flag, spec]) => !spec.about && !FLAG_HELP[flag]).map(([flag]) => `${name} --${flag}`));
    expect(missing).toEqual([]);
  });

  it("lists each flag of a command on a line of its own, and nothing else as a flag", () => {
    for (const [name, command] of Object.entries(COMMANDS)) {
      const text = commandHelpText(name, command);
      const listed = text.split("\n").filter((l) => /^ {2}--/.test(l)).map((l) => l.trim().split(/\s/)[0].slice(2));
      expect(listed, name).toEqual(Object.keys(command.flags));
      expect(text.startsWith(`Usage: vault-research ${command.usage}\n`), name).toBe(true);
    }
  });

  it("each usage line names every flag its command takes but the common ones, or says [options]", () => {
    const common = new Set(["vault", "config", "cache-dir", "json", "quiet", "no-color", "help"]);
    const unnamed = Object.entries(COMMANDS)
      .filter(([, c]) => !c.usage.includes("[options]"))
      .flatMap(([name, c]) => Object.keys(c.flags).filter((flag) => !common.has(flag) && !c.usage.includes(`--${flag}`)).map((flag) => `${name} --${flag}`));
    expect(unnamed).toEqual([]);
  });

  it("names each command's JSON schema on its --json line", () => {
    expect(commandHelpText("search", COMMANDS.search)).toMatch(/^ {2}--json +print one vault_search\.v1 object instead of text$/m);
    expect(commandHelpText("research", COMMANDS.research)).toContain("print one research_result.v1 object");
  });

  it("the overview shows every command's usage and what it does", () => {
    const text = overviewHelpText(COMMANDS);
    for (const [name, c] of Object.entries(COMMANDS)) {
      expect(text).toContain(`  vault-research ${c.usage}\n`);
      expect(text).toContain(`  ${name.padEnd(10)} ${c.about}\n`);
    }
    expect(text).toContain('A question or query of - (or none, with a pipe) is read from standard input.');
  });
});
