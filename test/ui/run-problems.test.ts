// @vitest-environment happy-dom
// What went wrong, in the panel's words: chosen by the error's kind, never a provider's hint for
// the command line, another source suggested only when there is one, and each with its button.
import { describe, expect, it } from "vitest";
import "../stubs/obsidian";
import { problemOfFailure, problemsOf, renderProblems, type ProblemContext } from "../../src/ui/run-problems";
import type { PackWarning } from "../../src/evidence/research-pack";
import type { ResearchTrace } from "../../src/research/types";
import { pack, vaultRow } from "../support/pack-fixtures";

const note = vaultRow("Concepts/CRDT.md", "CRDT", [{ heading: "", text: "CRDTs merge." }]);
const oneSource: ProblemContext = { enabledProviders: 1, hasKey: () => false };

function run(errors: ResearchTrace["errors"], warnings: PackWarning[] = []) {
  const p = { ...pack("q", [note]), warnings };
  return { pack: p, trace: { errors } as ResearchTrace };
}

describe("run problems", () => {
  it("a missing key names the provider, offers Open settings, and drops the provider's command-line hint", () => {
    const [problem] = problemsOf(
      run([{ stage: "external_retrieval", kind: "auth", provider: "brave", message: "No Brave API key is set. Add one in Vault Research settings (CLI: set BRAVE_SEARCH_API_KEY)." }]),
      oneSource,
    );
    expect(problem).toMatchObject({ severity: "error", kind: "auth", message: "No Brave API key is set.", action: "open_settings" });
    expect(JSON.stringify(problem)).not.toMatch(/CLI|BRAVE_SEARCH_API_KEY/);
  });

  it("a key that is set but refused reads as refused", () => {
    const [problem] = problemsOf(run([{ stage: "external_retrieval", kind: "auth", provider: "exa", message: "Exa rejected the key (401)." }]), { enabledProviders: 1, hasKey: () => true });
    expect(problem.message).toBe("Exa did not accept the API key.");
  });

  it("a rate limit offers Retry, and another source only when another is enabled", () => {
    const limited = run([{ stage: "external_retrieval", kind: "rate_limited", provider: "brave", message: "Brave rate limit reached; try again in 3 s." }]);
    const [alone] = problemsOf(limited, oneSource);
    expect(alone).toMatchObject({ message: "Brave: Brave rate limit reached; try again in 3 s.", action: "retry" });
    expect(alone.hint).not.toMatch(/another/);
    expect(problemsOf(limited, { enabledProviders: 3, hasKey: () => true })[0].hint).toMatch(/another source/);
  });

  it("says a provider failure once, though the pack's warning repeats it, and leaves cancel and timeout to the stop sentence", () => {
    const problems = problemsOf(
      run(
        [
          { stage: "external_retrieval", kind: "network", provider: "brave", message: "Could not reach Brave: offline" },
          { stage: "external_retrieval", kind: "network", provider: "brave", message: "Could not reach Brave: offline" },
        ],
        [
          { kind: "provider_network", message: "Brave failed (network): Could not reach Brave: offline. Vault results are kept." },
          { kind: "cancelled", message: "The run was cancelled." },
          { kind: "timeout", message: "The run took longer than 90 s." },
        ],
      ),
      oneSource,
    );
    expect(problems.map((p) => p.message)).toEqual(["Brave: Could not reach Brave: offline"]);
  });

  it("a model that could not answer says the brief stands in, and a run that failed offers Retry", () => {
    const [model] = problemsOf(run([{ stage: "synthesize", kind: "network", message: "Could not reach Ollama: connect ECONNREFUSED" }], [{ kind: "synthesis_unavailable", message: "The model could not answer (…)." }]), oneSource);
    // A server that is not running is started, then asked again: Retry, and Open settings for a wrong base URL.
    expect(model).toMatchObject({ message: "Could not reach the model's server. The evidence brief is shown instead.", action: "retry", orAction: "open_settings" });
    expect(problemOfFailure(Object.assign(new Error("index exploded"), { kind: "bug" }))).toMatchObject({ kind: "bug", message: "The research run failed: index exploded", action: "retry" });
  });

  it("a model server that is overloaded or still loading says so in its own words and offers Retry, not a check of the base URL", () => {
    for (const said of ["Anthropic is unavailable or overloaded (HTTP 529): Overloaded", "Ollama is unavailable or overloaded (HTTP 503): model is loading"]) {
      const [problem] = problemsOf(run([{ stage: "synthesize", kind: "unavailable", message: said }]), oneSource);
      expect(problem).toMatchObject({ severity: "error", kind: "unavailable", message: `${said}. The evidence brief is shown instead.`, action: "retry" });
      expect(problem.hint).toMatch(/retry in a moment/);
      expect(problem.hint).not.toMatch(/running|base URL/);
    }
  });

  it("a model server without that model offers Open settings, where its name is changed, not only a Retry that fails the same way", () => {
    for (const said of [
      "The model server at http://localhost:11434 does not have that model (HTTP 404): model 'llama9' not found",
      "The model server at https://api.openai.com does not have that model (HTTP 404): The model `gpt-9` does not exist or you do not have access to it.",
    ]) {
      const [problem] = problemsOf(run([{ stage: "synthesize", kind: "unavailable", message: said }]), oneSource);
      expect(problem.message).toBe(`${said.replace(/\.$/, "")}. The evidence brief is shown instead.`);
      expect([problem.action, problem.orAction]).toContain("open_settings");
      expect(problem.hint).toMatch(/no such model.*Model for answers in settings/);
    }
  });

  it("a model server's error says what the server said, and offers settings beside Retry: a 400 answers the same every time", () => {
    const said = "The model server at http://localhost:1234 answered HTTP 400: This model's maximum context length is 4096 tokens";
    const [problem] = problemsOf(run([{ stage: "synthesize", kind: "http", message: said }]), oneSource);
    expect(problem.message).toBe(`${said}. The evidence brief is shown instead.`);
    expect([problem.action, problem.orAction]).toEqual(["retry", "open_settings"]);
  });

  it("a model server's message that ends in a stop before a closing quote or bracket gets no second stop (it read 'said \"done.\". The evidence brief…')", () => {
    for (const said of ['The model server at http://localhost:1234 answered HTTP 500: it said "out of memory."', "The model server at http://localhost:1234 answered HTTP 500 (see its log.)"]) {
      const [problem] = problemsOf(run([{ stage: "synthesize", kind: "http", message: said }]), oneSource);
      expect(problem.message).toBe(`${said} The evidence brief is shown instead.`);
    }
  });

  it("a model failure whose reason says what fixes it offers that one button, in the server's own words", () => {
    const cases: [string, string, "retry" | "open_settings", RegExp][] = [
      ["model_not_found", "The model server at http://localhost:11434 does not have that model (HTTP 404): model 'llama9' not found", "open_settings", /model's name.*ollama pull/],
      ["wrong_address", "The model server at http://localhost:11434 answered HTTP 404: 404 page not found. The base URL http://localhost:11434 has no path", "open_settings", /base URL/],
      ["busy", "Ollama is unavailable or overloaded (HTTP 503): model is loading", "retry", /busy or still loading/],
      ["request_refused", "The model server at http://localhost:1234 answered HTTP 400: This model's maximum context length is 4096 tokens", "open_settings", /refused the same way/],
      ["server_error", "Anthropic answered HTTP 500: Internal server error", "retry", /retry in a moment/],
    ];
    for (const [kind, said, action, hint] of cases) {
      const [problem] = problemsOf(run([{ stage: "synthesize", kind, message: said }]), oneSource);
      expect(problem, kind).toMatchObject({ kind, message: `${said.replace(/\.$/, "")}. The evidence brief is shown instead.`, action });
      expect(problem.orAction, kind).toBeUndefined();
      expect(problem.hint, kind).toMatch(hint);
    }
  });

  it("a model account with no quota left says so, and offers settings, not a Retry no wait would fix", () => {
    const [problem] = problemsOf(run([{ stage: "synthesize", kind: "quota_exhausted", message: "The model server at https://api.openai.com says the account has no quota left (HTTP 429): You exceeded your current quota" }]), oneSource);
    expect(problem).toMatchObject({ message: "The model's account has no quota left. The evidence brief is shown instead.", action: "open_settings" });
    expect(problem.orAction).toBeUndefined();
    expect(problem.hint).not.toMatch(/retry|wait/i);
  });

  it("a model server that wants a key when none is set says none is set, not that the key was refused", () => {
    const refused = run([{ stage: "synthesize", kind: "auth", message: "The model server at https://api.openai.com refused the API key (HTTP 401): You didn't provide an API key." }]);
    expect(problemsOf(refused, { ...oneSource, hasModelKey: false })[0]).toMatchObject({ message: "The model's server wants an API key, and none is set. The evidence brief is shown instead.", action: "open_settings" });
    expect(problemsOf(refused, { ...oneSource, hasModelKey: true })[0].message).toMatch(/^The model did not accept its API key\./);
  });

  it("SearXNG's login is a user name and password, never an API key", () => {
    const login = run([{ stage: "external_retrieval", kind: "auth", provider: "searxng", message: "SearXNG at https://search.example asks for a user name and password (HTTP 401). (CLI: SEARXNG_PASSWORD)." }]);
    const [none] = problemsOf(login, { enabledProviders: 1, hasKey: () => false });
    expect(none).toMatchObject({ message: "SearXNG asks for a user name and password.", action: "open_settings" });
    expect(none.hint).toMatch(/https:\/\/name@.*SearXNG password/);
    expect(problemsOf(login, { enabledProviders: 1, hasKey: () => true })[0].message).toBe("SearXNG did not accept the user name and password.");
    expect(JSON.stringify(none)).not.toMatch(/API key|CLI/);
  });

  it("a SearXNG instance that serves no JSON says to change the instance, and offers no settings that cannot fix it", () => {
    const said = "SearXNG at https://search.example does not answer in JSON (HTTP 403): JSON output is turned off on this instance. Add `json` to `search: formats:` in its settings.yml and restart it.";
    const off = run([{ stage: "external_retrieval", kind: "unsupported", provider: "searxng", message: said }]);
    const [problem] = problemsOf(off, { ...oneSource, hasSearxngAddress: true });
    expect(problem).toMatchObject({ message: `SearXNG: ${said}`, action: "retry" });
    expect(problem.orAction).toBeUndefined();
    const noAddress = run([{ stage: "external_retrieval", kind: "unsupported", provider: "searxng", message: "No SearXNG instance is set. Add its address in Vault Research settings (CLI: external.searxng.baseUrl in --config)." }]);
    expect(problemsOf(noAddress, { ...oneSource, hasSearxngAddress: false })[0]).toMatchObject({ message: "SearXNG is not set up for this search.", action: "open_settings" });
  });

  it("a run out of time at one of its stages offers Retry", () => {
    const [problem] = problemsOf(run([{ stage: "local_retrieval", kind: "timeout", message: "The local retrieval stage took longer than 20 s." }]), oneSource);
    expect(problem).toMatchObject({ message: "The local retrieval stage took longer than 20 s.", action: "retry" });
  });

  it("a question refused for being an API key offers Open settings, not a Retry that is refused again, and no command-line words", () => {
    const refused = Object.assign(new Error("The question looks like an API key, or holds one, so the run did not start. A key goes in settings (the CLI: its environment variable)."), { kind: "question_is_a_key" });
    const problem = problemOfFailure(refused);
    expect(problem).toMatchObject({ kind: "question_is_a_key", action: "open_settings" });
    expect(problem.orAction).toBeUndefined();
    expect(JSON.stringify(problem)).not.toMatch(/CLI|environment/);
  });

  it("a model cut off at its length limit and a search that was bounded are warnings worth knowing", () => {
    const problems = problemsOf(
      run([], [
        { kind: "answer_cut", message: "The model's answer stopped at its length limit (1024 tokens)." },
        { kind: "search_clamped", message: "“site:github.com” left out for GitHub: they search for words, not with search operators" },
      ]),
      oneSource,
    );
    expect(problems).toEqual([
      { severity: "warning", kind: "answer_cut", message: "The model stopped at its length limit before finishing the answer.", hint: "Ask about one part of the question at a time." },
      { severity: "warning", kind: "search_clamped", message: "“site:github.com” left out for GitHub: they search for words, not with search operators" },
    ]);
  });

  it("renders one button per kind of action, and each does what it says", () => {
    const el = document.body.createDiv();
    const clicked: string[] = [];
    renderProblems(
      el,
      [
        { severity: "error", kind: "timeout", message: "Brave did not answer in time.", action: "retry" },
        { severity: "error", kind: "timeout", message: "Exa did not answer in time.", action: "retry" },
        { severity: "error", kind: "auth", message: "No Exa API key is set.", action: "open_settings" },
      ],
      { retry: () => void clicked.push("retry"), openSettings: () => void clicked.push("settings") },
    );
    const buttons = [...el.querySelectorAll<HTMLButtonElement>(".vault-research-problem-action")];
    expect(buttons.map((b) => b.textContent)).toEqual(["Retry", "Open settings"]);
    buttons.forEach((b) => b.click());
    expect(clicked).toEqual(["retry", "settings"]);
  });

  it("renders both buttons of a problem that offers two", () => {
    const el = document.body.createDiv();
    const clicked: string[] = [];
    renderProblems(el, [{ severity: "error", kind: "unavailable", message: "No model llama9.", action: "retry", orAction: "open_settings" }], {
      retry: () => void clicked.push("retry"),
      openSettings: () => void clicked.push("settings"),
    });
    const buttons = [...el.querySelectorAll<HTMLButtonElement>(".vault-research-problem-action")];
    expect(buttons.map((b) => b.textContent)).toEqual(["Retry", "Open settings"]);
    buttons.forEach((b) => b.click());
    expect(clicked).toEqual(["retry", "settings"]);
  });

  // A key the run holds is scrubbed from its errors before they get here; a key it does not hold,
  // echoed by a server in its error, reached the problem box as it was, while the status line and
  // the live region said the error was not repeated.
  it("shows no sentence holding what looks like an API key the run does not know, and keeps what to do", () => {
    const key = "sk-proj-4fT9xQ2mZ8vL1cB7nR3wK6yH0";
    const failed = problemOfFailure(new Error(`the server refused ${key}`));
    const [modelFailed, warned] = problemsOf(
      run([{ stage: "synthesize", kind: "http", message: `The model server at http://localhost:1234 said (HTTP 500): bad key Bearer ${key.slice(3)}` }], [
        { kind: "provider_warning", message: `SearXNG: unknown engine token ghp_${key.slice(8)}` },
      ]),
      oneSource,
    );
    const el = document.body.createDiv();
    renderProblems(el, [failed, modelFailed, warned], { retry: () => undefined, openSettings: () => undefined });
    expect([...el.querySelectorAll(".vault-research-problem-message")].map((m) => m.textContent)).toEqual([
      "This error holds what looks like an API key, so it is not repeated here.",
      "This error holds what looks like an API key, so it is not repeated here.",
      "This warning holds what looks like an API key, so it is not repeated here.",
    ]);
    expect(el.textContent).not.toContain(key.slice(8));
    expect([...el.querySelectorAll(".vault-research-problem-action")].map((b) => b.textContent)).toEqual(["Retry", "Open settings"]);
    expect(el.querySelector(".vault-research-problem-hint")?.textContent).toMatch(/^Retry in a moment; if it answers the same again, check the base URL/);
  });

  it("shows a sentence that only mentions an API key, or holds a word like one that is no key, as it is", () => {
    const el = document.body.createDiv();
    const sentences = ["The model did not accept its API key.", "GitHub: no results for sk-learn and BSA rules."];
    renderProblems(el, sentences.map((message) => ({ severity: "error" as const, kind: "http", message })), { retry: () => undefined, openSettings: () => undefined });
    expect([...el.querySelectorAll(".vault-research-problem-message")].map((m) => m.textContent)).toEqual(sentences);
  });
});
