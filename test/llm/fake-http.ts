// An Http that answers from a script and records what was asked of it.
import type { Http, HttpRequest, HttpResponse } from "../../src/ports";

export interface FakeHttp extends Http {
  requests: HttpRequest[];
  lastBody(): Record<string, unknown>;
}

export function fakeHttp(answer: (req: HttpRequest) => HttpResponse | Promise<HttpResponse>): FakeHttp {
  const requests: HttpRequest[] = [];
  return {
    requests,
    async request(req) {
      requests.push(req);
      return answer(req);
    },
    lastBody() {
      return JSON.parse(requests[requests.length - 1].body ?? "null") as Record<string, unknown>;
    },
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { "content-type": "application/json", ...headers }, text: JSON.stringify(body) };
}
