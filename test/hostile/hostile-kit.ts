// What the hostile-input suite attacks with: a copy of the sample vault in a temporary folder (to
// be bent into hostile layouts), the CLI run in-process over it, hostile servers on 127.0.0.1 (a
// model server, a provider), replay folders of hostile provider bodies, and a search of every
// output — stdout, stderr, JSON, every file in the vault, the cache and the replay log — for a
// string that must not be there. Nothing here reaches a live service.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { runCli } from "../../src/cli/run";

export const ROOT = path.resolve(__dirname, "../..");
export const SAMPLE_VAULT = path.join(ROOT, "examples/vault");
/** A question the sample vault answers well: no web search is needed for it. */
export const VAULT_QUESTION = "why did we choose Automerge over Yjs";
/** A question the sample vault is weak on, so `on-weak` looks outside. */
export const WEB_QUESTION = "What changed in the latest Automerge release?";

/** Keys distinctive enough that finding one anywhere is proof of a leak. */
export const KEYS = {
  OPENAI_API_KEY: "lmk-hostile-model-Zq81Lm4Tx29Vb7Nc",
  ANTHROPIC_API_KEY: "sk-ant-hostile-Pp47Gh12Rk58Ws3D",
  BRAVE_SEARCH_API_KEY: "BSA-hostile-brave-Jv62Qe93Ly05",
  EXA_API_KEY: "exa-hostile-Kd27Mz81Fo46Tq",
  GITHUB_TOKEN: "ghp_hostileToken0123456789abcdefABCD",
  TAVILY_API_KEY: "tvly-hostile-Xc39Bn72Hs15",
} as const;

export interface Sandbox {
  dir: string;
  vault: string;
  cache: string;
  /** A folder beside the vault: what must stay untouched by anything the vault links to. */
  outside: string;
  /** Writes a file relative to the sandbox (folders made). */
  write(relative: string, content: string): string;
  cleanup(): void;
}

/** A temporary copy of the sample vault (or an empty vault with `files`), a cache folder and an outside folder. */
export function sandbox(files?: Record<string, string>): Sandbox {
  const dir = mkdtempSync(path.join(os.tmpdir(), "vr-hostile-"));
  const vault = path.join(dir, "vault");
  if (files) {
    mkdirSync(vault);
    for (const [name, text] of Object.entries(files)) writeIn(vault, name, text);
  } else {
    cpSync(SAMPLE_VAULT, vault, { recursive: true });
  }
  const outside = path.join(dir, "outside");
  mkdirSync(outside);
  return {
    dir,
    vault,
    cache: path.join(dir, "cache"),
    outside,
    write: (relative, content) => writeIn(dir, relative, content),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function writeIn(base: string, relative: string, content: string): string {
  const file = path.join(base, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** `vault-research <argv> --vault <vault> --cache-dir <cache>`, in-process, with only `env` set. */
export async function cli(box: Sandbox, argv: string[], env: Record<string, string> = {}): Promise<CliRun> {
  let out = "";
  let err = "";
  const code = await runCli([...argv, "--vault", box.vault, "--cache-dir", box.cache], {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    env: { HOME: box.dir, ...env },
    cwd: box.dir,
  });
  return { code, out, err };
}

/** The same without --vault and --cache-dir (websearch takes neither). */
export async function bareCli(box: Sandbox, argv: string[], env: Record<string, string> = {}): Promise<CliRun> {
  let out = "";
  let err = "";
  const code = await runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t), env: { HOME: box.dir, ...env }, cwd: box.dir });
  return { code, out, err };
}

/** Every text file under `dir`, with its path, for leak searches. */
export function filesUnder(dir: string): { file: string; text: string }[] {
  if (!existsSync(dir)) return [];
  const out: { file: string; text: string }[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const st = statSync(full, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) out.push(...filesUnder(full));
    else if (st.isFile()) out.push({ file: full, text: readFileSync(full, "utf8") });
  }
  return out;
}

/** Markdown files of the vault's trace folder. */
export function traceNotes(box: Sandbox, folder = "Research/Traces"): { file: string; text: string }[] {
  return filesUnder(path.join(box.vault, folder)).filter((f) => f.file.endsWith(".md"));
}

/** Where `needle` shows up: each output named, empty when it is nowhere. */
export function whereFound(needle: string, outputs: Record<string, string>): string[] {
  return Object.entries(outputs)
    .filter(([, text]) => text.includes(needle))
    .map(([name]) => name);
}

/** Every output of a run: its streams, and every file in the sandbox (vault, cache, logs). */
export function everyOutput(box: Sandbox, run: CliRun): Record<string, string> {
  const outputs: Record<string, string> = { stdout: run.out, stderr: run.err };
  for (const f of filesUnder(box.dir)) {
    if (["replay", "pages"].some((attack) => f.file.startsWith(path.join(box.dir, attack)))) continue; // the attack itself
    outputs[path.relative(box.dir, f.file)] = f.text;
  }
  return outputs;
}

// ── hostile servers ──────────────────────────────────────────────────────────────────────────

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** What a test of this folder works in: its own sandbox, and the hostile server it may start. */
export interface TestPlace {
  readonly box: Sandbox;
  server: HostileServer | undefined;
}

/** A fresh sandbox before each test; after it, the server the test started is closed and the sandbox removed. */
export function sandboxEachTest(): TestPlace {
  let box: Sandbox | undefined;
  const place: TestPlace = {
    get box(): Sandbox {
      if (!box) throw new Error("sandboxEachTest: the sandbox exists only inside a test");
      return box;
    },
    server: undefined,
  };
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(async () => {
    await place.server?.close();
    place.server = undefined;
    box?.cleanup();
    box = undefined;
  });
  return place;
}

export interface HostileServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export type Answer = (req: SeenRequest) => { status?: number; headers?: Record<string, string>; body: string | object };

/** An HTTP server on 127.0.0.1 that answers every request with `answer(request)`. */
export async function hostileServer(answer: Answer): Promise<HostileServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const seen: SeenRequest = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body };
      requests.push(seen);
      const reply = answer(seen);
      const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, { "content-type": typeof reply.body === "string" ? "text/plain" : "application/json", ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The first source key the synthesis prompt admitted: what a hostile model cites to pass verification. */
export function firstAdmittedKey(req: SeenRequest): string {
  let user = "";
  try {
    const body = JSON.parse(req.body) as { messages?: { role: string; content: string }[] };
    user = body.messages?.find((m) => m.role === "user")?.content ?? "";
  } catch {
    user = req.body;
  }
  // Each admitted row starts a line with its key in brackets (the system prompt's example does not).
  return /^\[((?:src:[0-9a-f]{10}|ext:[a-z0-9-]+:[0-9a-f]{10}))\]/m.exec(user)?.[1] ?? "src:0000000000";
}

/** An OpenAI-compatible chat completion. */
export function completion(text: string, model = "hostile-model"): object {
  return { id: "x", object: "chat.completion", model, choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] };
}

/** `--model` for a model server on 127.0.0.1. */
export function modelFlag(server: HostileServer): string[] {
  return ["--model", `openai:hostile-model@${server.url}/v1`];
}

// ── hostile provider bodies ─────────────────────────────────────────────────────────────────

export interface BraveResult {
  url: string;
  title: string;
  snippets: string[];
}

/** A Brave LLM Context body with these results. */
export function braveBody(results: BraveResult[]): object {
  return { grounding: { generic: results } };
}

/** A replay folder in the sandbox answering Brave LLM Context with `body` (and `status`). */
export function braveReplay(box: Sandbox, body: object | string, status = 200): string {
  const dir = path.join(box.dir, "replay");
  mkdirSync(dir, { recursive: true });
  const exchange = { method: "GET", url: "https://api.search.brave.com/res/v1/llm/context", status, headers: { "content-type": "application/json" }, body };
  writeFileSync(path.join(dir, "brave.json"), JSON.stringify(exchange));
  return dir;
}

/** A settings file in the sandbox; returns its path. */
export function config(box: Sandbox, settings: object, name = "config.json"): string {
  return box.write(name, JSON.stringify(settings));
}
