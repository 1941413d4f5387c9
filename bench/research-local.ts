// The local part of a research run: plan → retrieval → judge → policy → merge → prompt (and the
// extractive brief and citation check, which are cheap). No network, no model, no trace note.
import type { FsNoteStore } from "../src/cli/fs-note-store";
import type { VaultIndex } from "../src/index/vault-index";
import { systemClock, type Http } from "../src/ports";
import { runResearch } from "../src/research/run";
import { defaultSettings } from "../src/settings";
import { percentile, timed } from "./bench-tools";

const noNetwork: Http = { request: () => Promise.reject(new Error("the benchmark never touches the network")) };

/** p50 and p95 over the questions, after a warm-up pass. */
export async function researchLocalMs(index: VaultIndex, store: FsNoteStore, questions: string[]): Promise<{ p50: number; p95: number }> {
  const settings = defaultSettings();
  const run = (question: string) =>
    runResearch({ question, mode: "never", writeTrace: false }, { index, store, http: noNetwork, secrets: { get: () => Promise.resolve(null) }, knownSecrets: [], clock: systemClock, settings, model: null });
  for (const q of questions) await run(q);
  const times: number[] = [];
  for (let rep = 0; rep < 3; rep++) for (const q of questions) times.push((await timed(() => run(q))).ms);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}
