// What Brave's LLM Context and Web Search endpoints share: how a request is sent and Brave's error
// envelope. Brave answers a bad
// key with HTTP 422 SUBSCRIPTION_TOKEN_INVALID (not 401) and an endpoint outside the plan with
// OPTION_NOT_IN_PLAN, so the code matters more than the status.
import * as z from "zod";
import type { HttpResponse } from "../../ports";
import {
  aside,
  describeStatus,
  failWith,
  kindForStatus,
  rateLimitedMessage,
  retryAfterMs,
  saidWithCode,
  tryJson,
  type ProviderCall,
} from "../provider-http";
import type { ResolvedSearchRequest } from "../request-limits";
import type { ProviderName } from "../types";

/**
 * A GET to one of Brave's endpoints: the base URL from settings (a proxy may stand in), the key in
 * `X-Subscription-Token`, freshness when asked for, and one quota for both endpoints.
 */
export function braveGet(
  as: { provider: ProviderName; label: string },
  baseUrl: string,
  endpoint: string,
  params: URLSearchParams,
  request: Pick<ResolvedSearchRequest, "freshness" | "timeoutMs">,
  key: string,
): ProviderCall {
  if (request.freshness !== "any") params.set("freshness", request.freshness);
  return {
    provider: as.provider,
    label: as.label,
    method: "GET",
    url: `${baseUrl.replace(/\/+$/, "")}/res/v1/${endpoint}?${params.toString()}`,
    headers: { Accept: "application/json", "X-Subscription-Token": key },
    timeoutMs: request.timeoutMs,
    secret: key,
    quota: "brave",
  };
}
import type { ProviderError } from "../types";

const braveErrorSchema = z.object({
  error: z.object({
    code: z.string().optional(),
    detail: z.string().optional(),
    status: z.number().optional(),
    meta: z
      .object({
        errors: z.array(z.object({ msg: z.string().optional(), loc: z.array(z.union([z.string(), z.number()])).optional() })).optional(),
      })
      .loose()
      .optional(),
  }),
});

export function braveError(call: ProviderCall, response: HttpResponse, now: number): ProviderError {
  const parsed = braveErrorSchema.safeParse(tryJson(response.text));
  const error = parsed.success ? parsed.data.error : undefined;
  const code = error?.code ?? "";
  const status = response.status;
  const wait = retryAfterMs(response.headers, now);
  const extra = { status, ...(wait !== undefined && status === 429 ? { retryAfterMs: wait } : {}) };

  if (code === "SUBSCRIPTION_TOKEN_INVALID" || status === 401) {
    return failWith(call, "auth", `${call.label} rejected the API key${aside(code)}. Check the key in Vault Research settings.`, extra);
  }
  if (status === 429 || code === "RATE_LIMITED") {
    return failWith(call, "rate_limited", rateLimitedMessage(call.label, wait), extra);
  }
  if (/NOT_IN_PLAN|NOT_SUBSCRIBED|NOT_ALLOWED/.test(code)) {
    return failWith(call, "plan", `${call.label}: this endpoint or option is not in the key's plan${aside(code)}.`, extra);
  }
  let detail = error?.detail;
  const first = error?.meta?.errors?.[0];
  if (detail && first?.msg) detail = `${detail} — ${first.loc ? `${first.loc.join(".")}: ` : ""}${first.msg}`;
  if (detail) detail = saidWithCode(detail, code);
  // An envelope in a success (braveErrorInAnswer) with no status of its own: Brave turned the search away.
  const refused = status >= 200 && status < 300 ? { reason: "refused" as const } : {};
  return failWith(call, kindForStatus(status), describeStatus(call, response, detail), { ...extra, ...refused });
}

/**
 * Brave's error envelope sent as a success (a proxy in front of Brave, which the base URL allows,
 * may answer so), read as the error it is, under the status it names when it names one. Brave Web
 * Search, whose every block is optional, read it as an answer with no results: the run said Brave
 * "answered with nothing to add" of a key refused. Undefined for an answer that is no envelope.
 */
export function braveErrorInAnswer(call: ProviderCall, response: HttpResponse, now: number): ProviderError | undefined {
  const body = tryJson(response.text);
  const parsed = braveErrorSchema.safeParse(body);
  const typed = typeof body === "object" && body !== null && (body as { type?: unknown }).type === "ErrorResponse";
  if (!parsed.success && !typed) return undefined;
  const said = parsed.success ? parsed.data.error.status : undefined;
  const status = said !== undefined && said >= 400 && said < 600 ? said : response.status;
  return braveError(call, { ...response, status }, now);
}
