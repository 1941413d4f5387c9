// Everything a research run needs, built from the sample vault with fakes only at the ports:
// the REAL vault index, runner, providers, parsers and trace writer; an in-memory NoteStore, a
// fake clock, recording secrets, a replay Http that logs, and (optionally) a scripted model.
import path from "node:path";
import { runResearch } from "../../src/research/run";
import type { ResearchDeps, ResearchRequest, ResearchResult, ProgressEvent } from "../../src/research/types";
import { VaultIndex } from "../../src/index/vault-index";
import type { ChatModel } from "../../src/llm/chat-model";
import { defaultSettings, type Settings } from "../../src/settings";
import { canonicalizeUrl } from "../../src/websearch/canonical-url";
import type { RecordedExchange } from "../../src/websearch/replay";
import { fakeClock, type FakeClock } from "./fake-clock";
import { recordingSecrets, type RecordingSecrets } from "./fake-secrets";
import { MemoryNoteStore } from "./memory-note-store";
import { recordingHttp, replayFolder, REPO_ROOT, type RecordingHttp, type RecordingHttpOptions } from "./recording-http";

export const SAMPLE_VAULT_DIR = path.join(REPO_ROOT, "examples/vault");

/** The sample vault's own questions (README of examples/): one it answers, one it only partly answers. */
export const ANSWERED_QUESTION = "Why did the team pick Automerge instead of Yjs for the field app?";
export const FRESHNESS_QUESTION = "What changed in the latest Automerge release?";
/** Nothing in the sample vault is about this (checked by a test before relying on it). */
export const UNKNOWN_QUESTION = "How do I descale an espresso machine with citric acid?";

export interface Harness {
  deps: ResearchDeps;
  store: MemoryNoteStore;
  index: VaultIndex;
  http: RecordingHttp;
  secrets: RecordingSecrets;
  clock: FakeClock;
  settings: Settings;
  progress: ProgressEvent[];
  run(request: ResearchRequest, overrides?: Partial<ResearchDeps>): Promise<ResearchResult>;
}

export interface HarnessOptions {
  /** Recorded exchanges the Http answers from (default: the brave-demo replay). */
  exchanges?: RecordedExchange[];
  httpOptions?: RecordingHttpOptions;
  secrets?: RecordingSecrets;
  model?: ChatModel | null;
  store?: MemoryNoteStore;
  clock?: FakeClock;
  /** Changes to the default settings (applied to a fresh copy). */
  settings?: (s: Settings) => void;
}

export async function sampleVaultHarness(options: HarnessOptions = {}): Promise<Harness> {
  const settings = defaultSettings();
  options.settings?.(settings);
  const store = options.store ?? MemoryNoteStore.fromFolder(SAMPLE_VAULT_DIR);
  const clock = options.clock ?? fakeClock();
  // Built the way the plugin and the CLI build it: the trace folder is never indexed.
  const index = new VaultIndex({
    excludedFolders: [...settings.index.excludedFolders, settings.notes.traceFolder],
    stemming: settings.index.stemming,
    canonicalizeUrl,
    clock,
  });
  await index.sync(store, null);
  const http = recordingHttp(options.exchanges ?? replayFolder(), options.httpOptions);
  const secrets = options.secrets ?? recordingSecrets();
  const progress: ProgressEvent[] = [];
  const deps: ResearchDeps = {
    index,
    store,
    http,
    secrets,
    knownSecrets: [],
    clock,
    settings,
    model: options.model ?? null,
    onProgress: (e) => progress.push(e),
  };
  return {
    deps,
    store,
    index,
    http,
    secrets,
    clock,
    settings,
    progress,
    run: (request, overrides = {}) => runResearch(request, { ...deps, ...overrides }),
  };
}

/** Hosts of every request the run made. */
export function hostsAsked(http: RecordingHttp): string[] {
  return http.requests.map((r) => new URL(r.url).host);
}
