// The model's check of the vault's evidence is the user's choice: `model.checkVaultEvidence` in
// the config (the plugin's settings toggle) turns on issue 10's model levers for `research`. Off
// (the default), the model writes the answer and nothing else; on, it is also asked to rewrite the
// question for the vault search and to check the verdict, and the result says the model decided.
// In-process against a stand-in chat server on 127.0.0.1; no real model runs here.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ResearchResultJson } from "../../src/cli/json/research-result-json";
import { runCli, type CliIo } from "../../src/cli/run";
import { MODEL_CHECK_SYSTEM } from "../../src/research/stages/model-verdict";
import { REWRITE_SYSTEM } from "../../src/research/stages/question-rewrites";
import { readResearchResult } from "../support/cli-json";
import { startStandInServer, type StandInServer } from "../llm/embeddings/stand-in-embedding-server";
import { stringContaining } from "../support/typed-matchers";

let server: StandInServer;
let tmp: string;

beforeAll(async () => {
  server = await startStandInServer({ dimensions: 16 });
});
afterAll(() => server.close());

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-model-check-"));
  mkdirSync(path.join(tmp, "vault"));
  writeFileSync(path.join(tmp, "vault", "Backups.md"), "# Backups\n\nThe laptop is backed up every night to the NAS with restic.\n");
  server.chatCalls.length = 0;
  server.script.chatAnswer = (prompt) =>
    prompt.includes("VAULT_EXCERPTS")
      ? JSON.stringify({ verdict: "enough_evidence", reason: "Backups says restic backs the laptop up nightly to the NAS.", missing: [] })
      : JSON.stringify({ rewrites: ["restic nightly backup"] });
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

async function research(config: unknown): Promise<{ code: number; json: ResearchResultJson }> {
  writeFileSync(path.join(tmp, "config.json"), JSON.stringify(config));
  let out = "";
  const io: CliIo = { out: (t) => (out += t), err: () => {}, env: {}, cwd: tmp };
  const code = await runCli(
    ["research", "Where does the laptop's backup go?", "--vault", path.join(tmp, "vault"), "--cache-dir", path.join(tmp, "cache"), "--config", path.join(tmp, "config.json"), "--model", `openai:stand-in@${server.base}/v1`, "--retrieval-only", "--json"],
    io,
  );
  return { code, json: readResearchResult(out) };
}

const systemsAsked = () => server.chatCalls.map((c) => c.body.messages.find((m) => m.role === "system")?.content ?? "");

describe("research: model.checkVaultEvidence", () => {
  it("is off by default: the model is not asked to rewrite or check", async () => {
    const { code } = await research({});
    expect(code).toBe(0);
    expect(systemsAsked()).not.toContain(MODEL_CHECK_SYSTEM);
    expect(systemsAsked()).not.toContain(REWRITE_SYSTEM);
  });

  it("on, the model rewrites the question for the vault and checks the verdict, once each", async () => {
    const { code, json } = await research({ model: { checkVaultEvidence: true } });
    expect(code).toBe(0);
    expect(systemsAsked().filter((s) => s === MODEL_CHECK_SYSTEM)).toHaveLength(1);
    expect(systemsAsked().filter((s) => s === REWRITE_SYSTEM).length).toBeLessThanOrEqual(1);
    expect(json.pack.judge).toMatchObject({ verdict: "enough_evidence", reason: stringContaining("restic backs the laptop up nightly") });
  });
});
