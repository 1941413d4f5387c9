// A stand-in OpenAI-compatible chat server on 127.0.0.1 for the judge's model levers: each test
// says how it answers (a text, or hang until the test ends), per kind of request (the question's
// rewrites or the verdict check, told apart by the system prompt), and every request is kept.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createFetchHttp } from "../../../src/cli/fetch-http";
import type { ChatModel } from "../../../src/llm/chat-model";
import { openAiCompatibleModel } from "../../../src/llm/openai-compatible";

export type StandInAnswer = { text: string } | { hang: true; onCall?: () => void };

export interface ChatRequestSeen {
  kind: "rewrites" | "check" | "other";
  system: string;
  user: string;
  body: Record<string, unknown>;
}

export interface StandInChatServer {
  model: ChatModel;
  seen: ChatRequestSeen[];
  answers: Partial<Record<ChatRequestSeen["kind"], StandInAnswer>>;
  close(): Promise<void>;
}

export async function startStandInChatServer(): Promise<StandInChatServer> {
  const seen: ChatRequestSeen[] = [];
  const answers: StandInChatServer["answers"] = {};
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const body = JSON.parse(raw || "{}") as Record<string, unknown>;
      const messages = (body.messages ?? []) as { role: string; content: string }[];
      const system = messages.find((m) => m.role === "system")?.content ?? "";
      const user = messages.filter((m) => m.role === "user").map((m) => m.content).join("\n");
      const kind = system.includes("Rewrite the question") ? "rewrites" : system.includes("You check whether excerpts") ? "check" : "other";
      seen.push({ kind, system, user, body });
      const answer = answers[kind];
      if (!answer) {
        res.statusCode = 500;
        res.end(JSON.stringify({ error: { message: `no answer scripted for a ${kind} request` } }));
        return;
      }
      if ("hang" in answer) {
        hanging.push(res);
        answer.onCall?.();
        return;
      }
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ model: body.model, choices: [{ message: { role: "assistant", content: answer.text } }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const model = openAiCompatibleModel({ http: createFetchHttp(), baseUrl: `http://127.0.0.1:${port}/v1`, model: "stand-in" });
  return {
    model,
    seen,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.close(() => resolve());
        // Keep-alive sockets of aborted requests would hold the close for seconds.
        server.closeAllConnections();
      }),
  };
}
