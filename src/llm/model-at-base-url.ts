// The `MODEL[@BASE_URL]` part of a `--model` or `--embed` spec. Model names may hold `:` and `@`
// (Ollama tags), so a base URL is recognised only by `@http://` or `@https://`. One reading for
// both specs; each words the problems with its own help line.
import { looksLikeApiKey } from "../settings";
import { httpUrl } from "../text/urls";
import { valueShown } from "../text/value-shown";

export type ModelAtBaseUrl =
  | { ok: true; model: string; baseUrl: string }
  | { ok: false; problem: "no_model" | "at_without_url" | "credentials" | "query" | "key_as_model" }
  | { ok: false; problem: "bad_url"; baseUrl: string };

/** `llama3.1:8b@http://localhost:1234/v1/` → model `llama3.1:8b`, base `http://localhost:1234/v1`. */
export function readModelAtBaseUrl(rest: string, defaults: { baseUrl: string; model?: string }): ModelAtBaseUrl {
  const at = rest.search(/@https?:\/\//i);
  const model = (at < 0 ? rest : rest.slice(0, at)).trim() || (defaults.model ?? "");
  const baseUrl = at < 0 ? defaults.baseUrl : rest.slice(at + 1).trim();
  if (model === "") return { ok: false, problem: "no_model" };
  // Sent as the model's name in every request and written into every trace: refused, never repeated.
  if (looksLikeApiKey(model)) return { ok: false, problem: "key_as_model" };
  if (at < 0 && rest.includes("@")) return { ok: false, problem: "at_without_url" };
  const url = httpUrl(baseUrl);
  if (!url) return { ok: false, problem: "bad_url", baseUrl };
  // Node's fetch refuses such an address and names it whole, password and all, in its error.
  if (url.username !== "" || url.password !== "") return { ok: false, problem: "credentials" };
  // As settings refuse it (settings.ts): the client adds its paths after it (`…/v1?key=…/chat/completions`),
  // and what follows `?` is often a key, which the places that name the server would print.
  if (url.search !== "" || url.hash !== "" || /[?#]/.test(baseUrl)) return { ok: false, problem: "query" };
  return { ok: true, model, baseUrl: baseUrl.replace(/\/+$/, "") };
}

/**
 * Whether a word of a spec looks like an API key (`openai:llama@sk-…`, `…/v1?key=sk-…`): the spec
 * begins with its kind, so the key shapes, which are read at the start of a text, are asked of each
 * word, split where a key never holds a character.
 */
function holdsKeyShapedWord(text: string): boolean {
  return text.split(/[^A-Za-z0-9_-]+/).some(looksLikeApiKey);
}

/** A spec or address as the first words of a sentence: quoted, or "A value that looks like an API key". */
function shownFirst(text: string): string {
  const shown = valueShown(text, holdsKeyShapedWord);
  return shown.charAt(0).toUpperCase() + shown.slice(1);
}

/** The problem in words, as both specs say it. A spec or address holding a key is not repeated. */
export function specProblem(spec: string, read: Exclude<ModelAtBaseUrl, { ok: true }>, help: string): string {
  switch (read.problem) {
    case "no_model":
      return `${shownFirst(spec)} names no model. ${help}.`;
    case "at_without_url":
      return `${shownFirst(spec)}: the part after @ must be an http:// or https:// URL.`;
    case "bad_url":
      return `${shownFirst(read.baseUrl)} is not a valid http(s) base URL. ${help}.`;
    case "credentials":
      // The spec is not repeated: it holds a password.
      return "The base URL holds a user name or password; a key goes in its environment variable, never in the address.";
    case "query":
      // Nor here: what follows `?` or `#` may be a key.
      return "The base URL holds a ?query or #fragment; the client adds its paths after the address, and a key goes in its environment variable.";
    case "key_as_model":
      // Nor here: it holds a key.
      return `The model name looks like an API key, not a model; a key goes in its environment variable. ${help}.`;
  }
}
