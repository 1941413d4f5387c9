// A stop during the second local pass — while a stand-in chat server on 127.0.0.1 holds the rewrites
// call open, or while the link graph is read: the run ends as cancelled, the stage says stopped, and
// the trace says the lever was stopped — not that the model failed — with nothing the stop cut short counted.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { VaultLinks } from "../../../src/index/links/vault-links";
import type { ProgressEvent, ResearchResult } from "../../../src/research/types";
import { MemoryNoteStore } from "../../support/memory-note-store";
import { sampleVaultHarness, type Harness } from "../../support/research-harness";
import { startStandInChatServer, type StandInChatServer } from "./stand-in-chat-server";

const WEAK_QUESTION = "Is Yjs faster than Automerge for large text documents?";

let server: StandInChatServer;
let h: Harness;

beforeEach(async () => {
  server = await startStandInChatServer();
  h = await sampleVaultHarness({ model: server.model });
});
afterEach(() => server.close());

/** The best note for the question links to the one holding its missing part. */
const linkedVault = () =>
  new MemoryNoteStore({
    "Backup routine.md": "# Backup routine\n\nEvery night the backup script copies the photo library to the external disk.\n\nThe schedule is kept in [[Cron schedule]].\n",
    "Cron schedule.md": "# Cron schedule\n\nThe crontab entry runs at 02:00 nightly; edit it with crontab -e.\n",
  });
const LINKED_QUESTION = "which crontab entry runs the photo backup script";

const leverEvents = (r: ResearchResult, lever: string) => r.trace.events.filter((e) => e.type === "local_retrieval" && e.data?.lever === lever).map((e) => e.data!);

describe("Stop during the question's rewrites", () => {
  it("ends the run as cancelled during the local retrieval stage, the stage stopped and the lever stopped, not failed", async () => {
    const controller = new AbortController();
    server.answers.rewrites = { hang: true, onCall: () => controller.abort() };
    const result = await h.run({ question: WEAK_QUESTION, writeTrace: false }, { modelLevers: true, signal: controller.signal });

    expect(result.stop_reason).toBe("cancelled");
    expect(result.pack.warnings.find((w) => w.kind === "cancelled")?.message).toBe("The run was cancelled during the local retrieval stage.");
    // The lever was stopped: no failure of the model's, in the lever's event or the run's errors.
    expect(leverEvents(result, "question_rewrite")).toEqual([{ lever: "question_rewrite", status: "stopped" }]);
    expect(result.trace.errors).toEqual([]);
    // The rewrites' stage ended stopped, in its trace event and on the panel, and said nothing of rewrites.
    const stageEnds = result.trace.events.filter((e) => e.type === "local_retrieval" && e.data?.ms !== undefined).map((e) => e.data!);
    expect(stageEnds.at(-1)).toMatchObject({ stopped: "cancelled" });
    const last = h.progress.filter((p) => p.stage === "local_retrieval").at(-1);
    expect(last).toMatchObject({ status: "stopped", detail: "The run was cancelled during the local retrieval stage." });
    expect(h.progress.some((p) => /rewrites/i.test(p.detail) && p.status !== "started")).toBe(false);
    // Nothing after it ran: not the related pass, not the judge.
    expect(server.seen.map((s) => s.kind)).toEqual(["rewrites"]);
    expect(result.trace.events.some((e) => e.type === "judge")).toBe(false);
  });
});

describe("Stop during the related expansion", () => {
  it("ends the run as cancelled during the local retrieval stage, and the trace says the lever was stopped", async () => {
    const linked = await sampleVaultHarness({ store: linkedVault() });
    const controller = new AbortController();
    // The first use of the graph reads every note; this one is stopped as it reads, and never finishes.
    class StoppedLinks extends VaultLinks {
      override sync(): ReturnType<VaultLinks["sync"]> {
        controller.abort();
        return new Promise(() => {});
      }
    }
    const result = await linked.run({ question: LINKED_QUESTION, writeTrace: false }, { links: new StoppedLinks(), signal: controller.signal });

    expect(result.stop_reason).toBe("cancelled");
    expect(result.pack.warnings.find((w) => w.kind === "cancelled")?.message).toBe("The run was cancelled during the local retrieval stage.");
    expect(leverEvents(result, "related_expansion")).toEqual([{ lever: "related_expansion", status: "stopped" }]);
    expect(result.trace.errors).toEqual([]);
  });

  it("a run stopped before the lever began says nothing of it", async () => {
    const linked = await sampleVaultHarness({ store: linkedVault() });
    const controller = new AbortController();
    // Stop pressed as the first search ends, before the second pass starts.
    const onProgress = (e: ProgressEvent): void => {
      if (e.stage === "local_retrieval" && e.status === "done") controller.abort();
    };
    const result = await linked.run({ question: LINKED_QUESTION, writeTrace: false }, { links: new VaultLinks(), signal: controller.signal, onProgress });

    expect(result.stop_reason).toBe("cancelled");
    expect(result.pack.warnings.find((w) => w.kind === "cancelled")?.message).toBe("The run was cancelled after the local retrieval stage.");
    expect(leverEvents(result, "related_expansion")).toEqual([]);
  });
});

