// Replay: an Http that answers from recorded exchanges instead of the network, so the same
// parsers run on recorded bytes (tests, the offline demo, `--replay DIR`). A request is answered
// by a recording of the very same request (method, URL and its parameters) when there is one, else
// by the first exchange whose method and URL origin+path match: the query string is ignored then, so
// any question finds a recording. Nothing here can reach the network.
import * as z from "zod";
import { HttpFailure, type Http, type HttpRequest, type HttpResponse } from "../ports";

export const recordedExchangeSchema = z.object({
  method: z
    .string()
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(["GET", "POST"])),
  url: z.url(),
  status: z.number().int().min(100).max(599).default(200),
  headers: z.record(z.string(), z.string()).default({}),
  /** A JSON value (sent as JSON) or a string (sent as is: HTML pages, truncated JSON…). */
  body: z.unknown().optional(),
});
export type RecordedExchange = z.infer<typeof recordedExchangeSchema>;

/** One exchange or an array of them, as stored in a replay file. */
export const replayFileSchema = z.union([recordedExchangeSchema, z.array(recordedExchangeSchema)]);

/** Reads a replay file's JSON; problems name the exchange and field that were wrong. */
export function parseReplayFile(raw: unknown): { ok: true; exchanges: RecordedExchange[] } | { ok: false; message: string } {
  // Parsed by shape rather than through the union, so a problem names the field, not "invalid input".
  const parsed = Array.isArray(raw) ? z.array(recordedExchangeSchema).safeParse(raw) : recordedExchangeSchema.safeParse(raw);
  if (parsed.success) return { ok: true, exchanges: Array.isArray(parsed.data) ? parsed.data : [parsed.data] };
  const issue = parsed.error.issues[0];
  return { ok: false, message: `${issue.path.join(".") || "(top level)"}: ${issue.message}` };
}

/** What a replayed request looked like, with secrets masked — proof of what would have left. */
export interface ReplayLogEntry {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** JSON request bodies parsed, others as text. */
  body?: unknown;
  /** Whether a recording answered it. */
  matched: boolean;
}

/** Words that make a header or parameter name a credential's: `api_key`, `X-Goog-Api-Key`, `accessToken`, `sig`. */
const SECRET_WORDS = new Set(["key", "apikey", "token", "secret", "password", "passwd", "pwd", "auth", "authorization", "sig", "signature", "credential", "credentials", "jwt", "session", "sessionid", "cookie", "bearer", "keys", "secrets", "passphrase"]);
/** The same run together (`accesstoken`, `xapikey`): a name ending so. `tokens` (a count) and `keywords` do not. */
const SECRET_ENDING = /(key|token|secret|password|signature)$/;

/**
 * Whether a header or query parameter's name says it carries a credential. Judged by its words, not
 * by a letter run anywhere in it: `max_tokens` and `keywords` are what a request asked, and the log
 * must show them, while `auth` and `sig` carry keys though neither spells "key" or "token".
 */
function namesASecret(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.some((w) => SECRET_WORDS.has(w)) || SECRET_ENDING.test(words.at(-1) ?? "");
}

export function maskSecretHeaders(headers: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, namesASecret(name) ? "***" : value]));
}

/** Query parameters that look like credentials are masked too (none of ours carry one, but a proxy might), and so is a user name or password in the URL. */
export function maskSecretParams(url: string): string {
  try {
    const parsed = new URL(url);
    let changed = false;
    for (const name of [...parsed.searchParams.keys()]) {
      if (namesASecret(name)) {
        parsed.searchParams.set(name, "***");
        changed = true;
      }
    }
    if (parsed.username || parsed.password) {
      parsed.username = parsed.username && "***";
      parsed.password = parsed.password && "***";
      changed = true;
    }
    return changed ? parsed.toString() : url;
  } catch {
    return url;
  }
}

function urlKey(url: string): string | null {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return null;
  }
}

/** The URL's parameters, decoded and in order of name: `q=a+b&count=5` and `count=5&q=a%20b` ask the same. */
function paramsKey(url: string): string | null {
  try {
    const params = [...new URL(url).searchParams.entries()].map((pair) => JSON.stringify(pair));
    return params.sort().join("&");
  } catch {
    return null;
  }
}

function toResponse(exchange: RecordedExchange): HttpResponse {
  const text = exchange.body === undefined ? "" : typeof exchange.body === "string" ? exchange.body : JSON.stringify(exchange.body);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(exchange.headers)) headers[name.toLowerCase()] = value;
  if (!headers["content-type"] && typeof exchange.body !== "string" && exchange.body !== undefined) {
    headers["content-type"] = "application/json";
  }
  return { status: exchange.status, headers, text };
}

export interface ReplayOptions {
  /** Called once per request, matched or not, with secret headers masked. */
  onRequest?: (entry: ReplayLogEntry) => void;
  /**
   * Where the recordings came from, for the miss message ("brave-demo"). The message is a source's
   * failure, kept in trace and promoted notes: a name, never the folder's absolute path.
   */
  sourceName?: string;
}

export function createReplayHttp(exchanges: RecordedExchange[], options: ReplayOptions = {}): Http {
  const keyed = exchanges.map((exchange) => ({ exchange, key: urlKey(exchange.url), params: paramsKey(exchange.url) }));
  return {
    async request(req: HttpRequest): Promise<HttpResponse> {
      // Refused before it is logged, as the real adapters refuse it before it is sent: the log is what left.
      if (req.signal?.aborted) throw new HttpFailure("aborted", "The request was cancelled.");
      const key = urlKey(req.url);
      const params = paramsKey(req.url);
      const method = req.method.toUpperCase();
      const samePath = keyed.filter((k) => k.key !== null && k.key === key && k.exchange.method === method);
      // A folder with recordings of several questions answers each with its own, not all with the first.
      const hit = samePath.find((k) => k.params === params) ?? samePath[0];
      options.onRequest?.({
        method,
        url: maskSecretParams(req.url),
        headers: maskSecretHeaders(req.headers),
        ...(req.body !== undefined ? { body: parseBody(req.body) } : {}),
        matched: hit !== undefined,
      });
      if (!hit) {
        const where = options.sourceName ? ` in ${options.sourceName}` : "";
        throw new HttpFailure("replay_miss", `No recorded response${where} for ${method} ${key ?? req.url} (replay never uses the network).`);
      }
      const response = toResponse(hit.exchange);
      if (req.maxBytes !== undefined && new TextEncoder().encode(response.text).length > req.maxBytes) {
        throw new HttpFailure("too_large", `The recorded response for ${key} is larger than ${req.maxBytes} bytes.`);
      }
      return response;
    },
  };
}

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
