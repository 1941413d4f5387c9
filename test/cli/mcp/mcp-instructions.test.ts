// What the server tells a client about itself at the handshake (its instructions, which clients put
// before the model): whether anything leaves the machine must agree with what the tools do. A server
// given an embedding model (--embed) sends vault_search's queries above level 1 to it — to another
// company's computer, for an OpenAI-compatible API — and said "This server never uses the network."
// In-process, over the SDK's in-memory transport; nothing is sent anywhere (no call is made).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseArgs } from "../../../src/cli/args";
import { serveVault } from "../../../src/cli/mcp/mcp-command";
import { COMMANDS } from "../../../src/cli/run";
import { terminalOutput } from "../../../src/cli/terminal-text";

let tmp: string | undefined;
const stops: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
});

/** The instructions and the stderr of a server started with `flags` over a one-note vault, and its client. */
async function handshake(flags: string[]): Promise<{ instructions: string; stderr: string; client: Client }> {
  tmp ??= mkdtempSync(path.join(os.tmpdir(), "vr-mcp-instructions-"));
  const vault = path.join(tmp, "vault");
  mkdirSync(vault, { recursive: true });
  writeFileSync(path.join(vault, "Soup.md"), "# Soup\n\nLeek soup.\n");
  let stderr = "";
  const io = terminalOutput({ out: () => undefined, err: (text) => void (stderr += text), env: { HOME: tmp, OPENAI_API_KEY: "sk-instructions-test-0123456789abcdef" }, cwd: tmp }, []);
  const args = parseArgs(["--vault", vault, "--cache-dir", path.join(tmp, "cache"), ...flags], COMMANDS.mcp.flags);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const served = serveVault(args, io, serverSide);
  const client = new Client({ name: "instructions", version: "1.0.0" });
  await client.connect(clientSide);
  stops.push(async () => {
    await client.close();
    await served;
  });
  return { instructions: client.getInstructions() ?? "", stderr, client };
}

describe("vault-research mcp, what it says of the network at the handshake", () => {
  it("a server with no model and no --allow-external says it never uses the network", async () => {
    const { instructions, stderr } = await handshake([]);
    expect(instructions).toContain("This server never uses the network.");
    expect(stderr).toContain("local only");
  });

  it("a server given an embedding model does not say it never uses the network, and says what vault_search sends where", async () => {
    const { instructions, stderr } = await handshake(["--embed", "openai:text-embedding-3-small@https://api.openai.com/v1"]);
    expect(instructions).not.toContain("never uses the network");
    expect(instructions).toContain("vault_search above level 1 uses this server's models: ");
    expect(instructions).toContain("every search query at level 2 or above");
    expect(instructions).toContain("to https://api.openai.com (text-embedding-3-small). That address is another computer: the text leaves this device.");
    expect(instructions).toContain("No web source is asked and no page fetched, whatever a call asks.");
    expect(stderr).not.toContain("local only");
  });

  it("a server given a chat model too says level 4 sends excerpts of notes to it", async () => {
    const { instructions } = await handshake(["--embed", "openai:text-embedding-3-small@https://api.openai.com/v1", "--model", "openai:gpt-4o-mini@https://api.openai.com/v1"]);
    expect(instructions).toContain("Level 4 also sends the query and the excerpts of its top 10 notes to the chat model gpt-4o-mini at https://api.openai.com/v1.");
  });

  // A question about the current state is judged weak whatever the notes hold (notes may be out of
  // date), so the web is searched for it: the description said only "when the vault's evidence is weak".
  it("research_pack's description says a question about the current state goes to the web, whatever the vault holds", async () => {
    const { client } = await handshake(["--allow-external"]);
    const { tools } = await client.listTools();
    const research = tools.find((t) => t.name === "research_pack")!;
    expect(research.description).toContain('as it always is for a question about the current state ("latest", "today", "as of now", the current year)');
    expect(JSON.stringify(research.inputSchema.properties?.allow_external_search)).toContain("or the question asks about the current state");
  });

  it("a server with --allow-external and --allow-writes says promote_result fetches the page it saves", async () => {
    const { instructions } = await handshake(["--allow-external", "--allow-writes"]);
    expect(instructions).toContain("only for a research_pack call that sets allow_external_search: true");
    expect(instructions).toContain("promote_result fetches the page of the outside result it saves");
  });
});
