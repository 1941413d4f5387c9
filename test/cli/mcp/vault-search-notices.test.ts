// vault_search's notices say what loading the vectors found, in the CLI search's words
// (shownNotices): vectors that could not be read left the dial's store empty, and the tool passed on
// the dial's "no vectors yet… Embed the vault first.", sending the agent to embed, which refuses over them.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import type { DialResponse } from "../../../src/index/dial/dial-types";
import type { VectorLoad } from "../../../src/index/embeddings/vector-file";
import { registerVaultTools, type VaultToolsContext } from "../../../src/cli/mcp/vault-tools";

const NO_VECTORS_YET: DialResponse = {
  query: "automobile",
  level: 2,
  ranLevel: 1,
  results: [],
  notices: [{ kind: "level_unavailable", wanted: 2, ran: 1, reason: "no_vectors", message: "The vault has no vectors from this embedding model yet; level 1 (lexical) ran instead. Embed the vault first." }],
  latencyMs: 0,
  logId: null,
};

const UNREADABLE = { store: null, reset: { kind: "unreadable", detail: "EISDIR: illegal operation on a directory" } } as unknown as VectorLoad;

let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

/** The tools over a context that holds only what vault_search reads: a dial that always answers `answer`. */
async function toolsWith(vectors: VectorLoad | null): Promise<Client> {
  const ctx = {
    opened: { root: "/vault", settings: { external: { readPages: 3 } } },
    knownSecrets: [],
    watcher: { settle: async () => undefined },
    dial: { search: async () => NO_VECTORS_YET },
    embedding: "to http://127.0.0.1 (stand-in)",
    allowExternal: false,
    allowWrites: false,
    vectors,
  } as unknown as VaultToolsContext;
  const server = new McpServer({ name: "vault-research", version: "0" });
  registerVaultTools(server, ctx);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: "test", version: "0" });
  await client.connect(clientSide);
  return client;
}

type Found = { content: { text: string }[]; structuredContent: { notices: { kind: string; message: string }[] } };

describe("vault_search's notices", () => {
  it("vectors that cannot be read are said as such, and send no one to embed", async () => {
    const tools = await toolsWith(UNREADABLE);
    const found = (await tools.callTool({ name: "vault_search", arguments: { query: "automobile", level: 2 } })) as unknown as Found;
    expect(found.structuredContent.notices.map((n) => n.kind)).toEqual(["vectors_reset"]);
    expect(found.content[0].text).toContain("The stored vectors could not be read (");
    expect(JSON.stringify(found)).not.toMatch(/Embed the vault first|Run vault-research embed/);
  });

  it("with the vectors loaded as they were, the dial's notice stands", async () => {
    const tools = await toolsWith(null);
    const found = (await tools.callTool({ name: "vault_search", arguments: { query: "automobile", level: 2 } })) as unknown as Found;
    expect(found.structuredContent.notices).toEqual([{ kind: "level_unavailable", message: NO_VECTORS_YET.notices[0].message }]);
  });
});
