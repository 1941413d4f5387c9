// The dial's services for one plugin session, on their own: what they do when the settings change
// while they are still acting on an earlier change. (Wired end to end: main-search-dial.test.ts.)
import { describe, expect, it, vi } from "vitest";
import type { RerankModel } from "../../src/index/dial/rerank";
import { VaultIndex } from "../../src/index/vault-index";
import type { Http, NoteStore } from "../../src/ports";
import { SearchDialServices } from "../../src/plugin/search-dial-services";
import { defaultSettings } from "../../src/settings";
import { MemoryQueryLogFile } from "../index/query-log/memory-query-log-file";
import { fakeClock } from "../support/fake-clock";

const noNotes: NoteStore = {
  list: async () => [],
  read: async () => "",
  stat: async () => null,
} as unknown as NoteStore;

const noHttp: Http = {
  request: async () => {
    throw new Error("no request is expected");
  },
};

function model(name: string): RerankModel {
  return { name, complete: async () => ({ text: '{"order": [1]}' }) };
}

function services(chatModel: () => Promise<RerankModel | null>) {
  const settings = defaultSettings();
  const index = new VaultIndex();
  const built = new SearchDialServices({
    queryLogFile: new MemoryQueryLogFile(),
    vectorCache: { read: async () => null, write: async () => undefined, names: async () => [], remove: async () => undefined, clear: async () => undefined },
    notes: noNotes,
    http: noHttp,
    clock: fakeClock(),
    settings: () => settings,
    saveSettings: async () => undefined,
    secret: async () => null,
    keysHeld: async () => [],
    index: () => index,
    indexReady: async () => undefined,
    chatModel,
    notify: () => undefined,
    onEmbeddingProgress: () => undefined,
    yieldToUi: async () => undefined,
  });
  return { built, settings };
}

describe("SearchDialServices", () => {
  it("reranks with the chat model the settings name now, when an earlier one was still being made as they changed", async () => {
    let finishFirst!: (model: RerankModel) => void;
    const asked: string[] = [];
    const { built, settings } = services(() => {
      asked.push(settings.model.kind);
      // The first is slow to make (its key read from secret storage); the second, none, is at once.
      return asked.length === 1 ? new Promise((resolve) => (finishFirst = resolve)) : Promise.resolve(null);
    });
    const configured = vi.spyOn(built.dial, "configure");
    settings.model = { ...settings.model, kind: "openai", model: "gpt-cloud" };
    const starting = built.start();
    await vi.waitFor(() => expect(asked).toHaveLength(1));
    // The user turns the chat model off before the first is made.
    settings.model = { ...settings.model, kind: "none" };
    await built.settingsChanged();
    finishFirst(model("openai:gpt-cloud"));
    await starting;
    const reranker = configured.mock.calls.filter(([change]) => "rerankModel" in change).at(-1)?.[0].rerankModel;
    expect(reranker).toBeNull();
  });
});
