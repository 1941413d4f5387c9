// A ChatModel at the port whose answers a test writes per call. Each script step sees the request
// (system prompt and messages), so it can cite keys that were really in the prompt, or make some up.
import { ModelError, type ChatModel, type ChatRequest, type ChatResponse } from "../../src/llm/chat-model";

export type ModelStep = string | ((req: ChatRequest) => string | Promise<string>);

export interface ScriptedModel extends ChatModel {
  /** Every request the runner made, in order (messages copied at call time). */
  readonly calls: ChatRequest[];
}

/** Answers call n with `steps[n]`; a call past the script fails the test loudly. */
export function scriptedModel(steps: ModelStep[], name = "scripted:test-model"): ScriptedModel {
  const calls: ChatRequest[] = [];
  return {
    name,
    calls,
    async complete(req: ChatRequest): Promise<ChatResponse> {
      calls.push({ ...req, messages: req.messages.map((m) => ({ ...m })) });
      if (req.signal?.aborted) throw new ModelError("cancelled", "The request was cancelled.");
      const step = steps[calls.length - 1];
      if (step === undefined) throw new Error(`The scripted model was called ${calls.length} times; the script has ${steps.length} steps.`);
      const text = typeof step === "string" ? step : await step(req);
      return { text, model: name };
    },
  };
}

/** A model that never answers until its signal aborts (for cancellation and timeout tests). */
export function stalledModel(onCall?: (req: ChatRequest) => void): ScriptedModel {
  const calls: ChatRequest[] = [];
  return {
    name: "scripted:stalled",
    calls,
    complete(req) {
      calls.push(req);
      onCall?.(req);
      return new Promise((_, reject) => {
        const abort = () => reject(new ModelError("cancelled", "The request was cancelled."));
        if (req.signal?.aborted) abort();
        req.signal?.addEventListener("abort", abort, { once: true });
      });
    },
  };
}

/** The keys `[src:…]` / `[ext:…:…]` listed in a prompt, in order of appearance, each once. */
export function keysInPrompt(req: ChatRequest, origin?: "src" | "ext"): string[] {
  const text = req.messages.map((m) => m.content).join("\n");
  const found = text.match(/\b(?:src:[0-9a-f]{10}|ext:[a-z0-9-]+:[0-9a-f]{10})\b/g) ?? [];
  return [...new Set(found)].filter((k) => origin === undefined || k.startsWith(`${origin}:`));
}
