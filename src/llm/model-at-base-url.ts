// The `MODEL[@BASE_URL]` part of a `--model` or `--embed` spec. Model names hold `:` (Ollama's tags,
// `llama3.1:8b`) and may hold `@` (LM Studio's quantisations, `qwen2.5-7b-instruct@q4_k_m`), so a base
// URL is recognised only by `@http://` or `@https://`; the name before it is taken as written. With no
// URL, an @ is the name's own only when a quantisation tag follows it (`QUANTISATION_TAG`); anything
// else there is an address written without its scheme (`m@gpu-box`, `m@localhost:1234`,
// `m@192.168.1.5:1234/v1`, `m@//host`) or a key, refused. One reading for both specs; each words the
// problems with its own help line.
import { holdsKeyShapedWord, modelNameProblem } from "../settings";
import { httpUrl } from "../text/urls";
import { valueShown } from "../text/value-shown";

export type ModelAtBaseUrl =
  | { ok: true; model: string; baseUrl: string }
  | { ok: false; problem: "no_model" | "at_without_url" | "credentials" | "query" }
  /** No model's name: a key, a key among its words, or (`why: "space"`) a space inside it. */
  | { ok: false; problem: "key_as_model"; why: "key" | "space" }
  /** No address a client may be given: no http(s) URL, or one holding a space or a key-shaped word. */
  | { ok: false; problem: "bad_url"; baseUrl: string };

/**
 * What LM Studio writes after a model's @ to name one of its quantisations, case aside: llama.cpp's
 * `q4_k_m`, `q8_0`, `iq2_xxs`, `tq1_0`; `f16`, `f32`, `fp16`, `bf16`, `fp8`, `mxfp4`; MLX's `4bit`,
 * `8bit`, `mlx-4bit`, `4bit-dwq`, `mlx`; the formats `gguf`, `awq`, `gptq`. None holds a dot, a colon,
 * a slash or `localhost`, as an address does; a bare host's name (`gpu-box`) is refused for being no tag.
 * A tag this misses still works before an address: `m@ud-q4_k_xl@http://localhost:1234/v1`.
 */
const QUANTISATION_TAG = /^(?:[it]?q\d[_a-z0-9]*|b?fp?(?:16|32)|(?:mx|nv)?fp[48]|(?:mlx-)?\d{1,2}bit(?:-dwq)?|mlx|gguf|awq|gptq)$/i;

/** `llama3.1:8b@http://localhost:1234/v1/` → model `llama3.1:8b`, base `http://localhost:1234/v1`. */
export function readModelAtBaseUrl(rest: string, defaults: { baseUrl: string; model?: string }): ModelAtBaseUrl {
  const at = rest.search(/@https?:\/\//i);
  const model = (at < 0 ? rest : rest.slice(0, at)).trim() || (defaults.model ?? "");
  const baseUrl = at < 0 ? defaults.baseUrl : rest.slice(at + 1).trim();
  // `@q4_k_m` alone is a quantisation with no model before it: "must be a URL or a tag" was said of a tag.
  if (model === "" || (at < 0 && model.startsWith("@") && QUANTISATION_TAG.test(model.slice(1)))) return { ok: false, problem: "no_model" };
  const strayAt = at < 0 && holdsStrayAt(model);
  // As settings refuse them (settings.ts `modelNameProblem`). A key, or a key as one of its words
  // (`llama sk-…`), is sent as the model's name in every request and written into every trace:
  // refused, never repeated. A key after an @ that starts no address is the next line's to say.
  const modelProblem = modelNameProblem(strayAt ? model.split("@")[0] : model);
  if (modelProblem === "key") return { ok: false, problem: "key_as_model", why: "key" };
  if (strayAt) return { ok: false, problem: "at_without_url" };
  if (modelProblem === "space") return { ok: false, problem: "key_as_model", why: "space" };
  const url = httpUrl(baseUrl);
  if (!url) return { ok: false, problem: "bad_url", baseUrl };
  // Node's fetch refuses such an address and names it whole, password and all, in its error.
  if (url.username !== "" || url.password !== "") return { ok: false, problem: "credentials" };
  // As settings refuse it (settings.ts): the client adds its paths after it (`…/v1?key=…/chat/completions`),
  // and what follows `?` is often a key, which the places that name the server would print.
  if (url.search !== "" || url.hash !== "" || /[?#]/.test(baseUrl)) return { ok: false, problem: "query" };
  // `…/v1 sk-…` or `…/v1/sk-…`: the URL reader keeps it as a path (the space as `%20`), the client
  // would send it, and the trace would name it as the server. No real address holds a space.
  if (holdsKeyShapedWord(baseUrl) || /\s/.test(baseUrl)) return { ok: false, problem: "bad_url", baseUrl };
  return { ok: true, model, baseUrl: baseUrl.replace(/\/+$/, "") };
}

/** Whether a name given with no address holds an @ that starts no quantisation tag (`m@gpu-box`, `@q4_k_m`). */
function holdsStrayAt(model: string): boolean {
  const at = model.indexOf("@");
  return at >= 0 && (at === 0 || !QUANTISATION_TAG.test(model.slice(at + 1)));
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
      return `${shownFirst(spec)}: the part after @ must be an http:// or https:// URL, or a quantisation tag (as in qwen2.5-7b-instruct@q4_k_m).`;
    case "bad_url":
      return `${shownFirst(read.baseUrl)} is not a valid http(s) base URL. ${help}.`;
    case "credentials":
      // The spec is not repeated: it holds a password.
      return "The base URL holds a user name or password; a key goes in its environment variable, never in the address.";
    case "query":
      // Nor here: what follows `?` or `#` may be a key.
      return "The base URL holds a ?query or #fragment; the client adds its paths after the address, and a key goes in its environment variable.";
    case "key_as_model":
      // A key is not repeated; a name with a space is, unless a word of it looks like a key.
      if (read.why === "key") return `The model name looks like an API key, or holds one; a key goes in its environment variable. ${help}.`;
      return `${shownFirst(spec)}: a model's name holds no spaces (e.g. llama3.1:8b). ${help}.`;
  }
}
