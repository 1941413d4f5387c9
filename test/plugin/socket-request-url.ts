// A request handler for the stand-in requestUrl that goes over a real socket with node:http (the
// happy-dom environment's own fetch never reaches a server on 127.0.0.1), so the plugin's Http
// adapter and a real client meet a stand-in server the way the app's requestUrl would.
import { request as httpRequest } from "node:http";
import type { RequestUrlParam, StandInResponse } from "../stubs/obsidian";

export function socketRequest(param: RequestUrlParam): Promise<StandInResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(param.url, { method: param.method ?? "GET", headers: param.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === "string") headers[name] = value;
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString("utf8") });
      });
    });
    req.on("error", reject);
    if (typeof param.body === "string") req.write(param.body);
    req.end();
  });
}
