// The replay folder and its log as a script meets them: the log VAULT_RESEARCH_REPLAY_LOG names is
// checked before the run, and a line that cannot be written is said as the log's failure.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadReplayDirectory, maxReplayFileBytes, ReplayDirectoryError, replayFolderShown, replayHttpFromDirectory, replayLogWriter } from "../../src/cli/replay-dir";
import { UsageError } from "../../src/cli/args";
import { runCli } from "../../src/cli/run";
import { searchSessionFor, webAccess } from "../../src/cli/web-access";
import { websearchCommand } from "../../src/cli/websearch-command";
import { defaultSettings } from "../../src/settings";

const ROOT = path.resolve(__dirname, "../..");
const DEMO_REPLAY = path.join(ROOT, "fixtures/replay/brave-demo");
let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-replay-dir-"));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe("the replay log", () => {
  it("set without a replay folder is a usage error: the run would reach the network and leave the log empty", () => {
    // The network is a fake here: the test reaches no service either way.
    const network = { request: () => Promise.reject(new Error("no network in tests")) };
    const env = { VAULT_RESEARCH_REPLAY_LOG: path.join(tmp, "log.jsonl") };
    expect(() => webAccess(undefined, { env, cwd: tmp }, network)).toThrow(UsageError);
    expect(() => webAccess(undefined, { env, cwd: tmp }, network)).toThrow(/VAULT_RESEARCH_REPLAY_LOG is set, but no replay folder is given/);
    // With a folder, the log is what it is for.
    expect(webAccess(DEMO_REPLAY, { env, cwd: tmp }, network).replayDir).toBe(DEMO_REPLAY);
  });

  it("is created before the first request, so an empty log means nothing was asked", () => {
    const log = path.join(tmp, "log.jsonl");
    replayHttpFromDirectory(DEMO_REPLAY, { VAULT_RESEARCH_REPLAY_LOG: log });
    expect(readFileSync(log, "utf8")).toBe("");
  });

  it("that cannot be written is refused at the start, naming the file and the variable", () => {
    const log = path.join(tmp, "no such folder", "log.jsonl");
    const error = (() => {
      try {
        replayHttpFromDirectory(DEMO_REPLAY, { VAULT_RESEARCH_REPLAY_LOG: log });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ReplayDirectoryError);
    expect((error as ReplayDirectoryError).message).toBe(`The replay log ${log} (VAULT_RESEARCH_REPLAY_LOG) cannot be written (ENOENT).`);
  });

  it("that cannot be written makes research a usage error, not every source 'unreachable' and exit 0", async () => {
    let out = "";
    let err = "";
    const log = path.join(tmp, "no such folder", "log.jsonl");
    const code = await runCli(
      ["research", "What changed in the latest Automerge release?", "--vault", path.join(ROOT, "examples/vault"), "--cache-dir", path.join(tmp, "cache"), "--external-search", "always", "--replay", DEMO_REPLAY, "--json"],
      { out: (t) => (out += t), err: (t) => (err += t), env: { VAULT_RESEARCH_REPLAY_LOG: log }, cwd: tmp },
    );
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err).toContain(`The replay log ${log} (VAULT_RESEARCH_REPLAY_LOG) cannot be written (ENOENT).`);
    expect(err).not.toContain("Could not reach");
  });

  it("a line that cannot be written later is said as the log's failure", () => {
    const folder = path.join(tmp, "a folder");
    mkdirSync(folder);
    const write = replayLogWriter(folder);
    expect(() => write({ method: "GET", url: "https://a.example/", headers: {}, matched: true })).toThrow(`the replay log ${folder} could not be written (EISDIR)`);
  });
});

describe("VAULT_RESEARCH_REPLAY", () => {
  // The network is a fake here: the test reaches no service either way.
  const network = { request: () => Promise.reject(new Error("no network in tests")) };

  it("set but empty is a usage error, as --replay \"\" is: `VAULT_RESEARCH_REPLAY=$DIR` with DIR unset must not mean the live web", () => {
    for (const value of ["", "  "]) {
      const env = { VAULT_RESEARCH_REPLAY: value };
      expect(() => webAccess(undefined, { env, cwd: tmp }, network)).toThrow(UsageError);
      expect(() => webAccess(undefined, { env, cwd: tmp }, network)).toThrow(/VAULT_RESEARCH_REPLAY is set but empty/);
    }
    // --replay DIR is the one given, whatever the variable holds; unset, the network is the network.
    expect(webAccess(DEMO_REPLAY, { env: { VAULT_RESEARCH_REPLAY: "" }, cwd: tmp }, network).replayDir).toBe(DEMO_REPLAY);
    expect(webAccess(undefined, { env: {}, cwd: tmp }, network).http).toBe(network);
  });

  it("set but empty stops websearch before any source is asked", async () => {
    let out = "";
    let err = "";
    const asked: string[] = [];
    const http = { request: (req: { url: string }) => (asked.push(req.url), network.request()) };
    const options = { query: "crdt", providers: ["wikipedia" as const], freshness: "any" as const, count: 5, settings: defaultSettings(), json: false };
    const code = await websearchCommand(options, { out: (t) => (out += t), err: (t) => (err += t), env: { VAULT_RESEARCH_REPLAY: "" }, cwd: tmp, http });
    expect(code).toBe(2);
    expect(asked).toEqual([]);
    expect(out).toBe("");
    expect(err).toContain("VAULT_RESEARCH_REPLAY is set but empty");
  });
});

describe("the replay folder's files", () => {
  it("a file of 200,000 small exchanges is read, not a stack overflow that names no file", () => {
    const one = JSON.stringify({ method: "GET", url: "https://a.example/x", body: { ok: true } });
    writeFileSync(path.join(tmp, "many.json"), `[${Array(200_000).fill(one).join(",")}]`);
    expect(loadReplayDirectory(tmp)).toHaveLength(200_000);
  });

  it("a file larger than a replay file may hold is refused by name before it is read", () => {
    const huge = path.join(tmp, "huge.json");
    writeFileSync(huge, "");
    truncateSync(huge, maxReplayFileBytes + 1); // sparse: nothing is written to the disk
    const refused = (() => {
      try {
        loadReplayDirectory(tmp);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(ReplayDirectoryError);
    expect((refused as ReplayDirectoryError).message).toBe("Replay file huge.json is larger than the 64 MB a replay file may hold (67,108,865 bytes).");
  });
});

describe("the search session a run is given", () => {
  it("paces Brave's second call on the network, and not for recordings, which reach no service", () => {
    const clock = { now: () => 0, sleep: async () => undefined };
    const live = searchSessionFor(webAccess(undefined, { env: {}, cwd: tmp }, { request: async () => { throw new Error("no network in tests"); } }), clock);
    const replayed = searchSessionFor(webAccess(DEMO_REPLAY, { env: {}, cwd: tmp }), clock);
    for (const session of [live, replayed]) expect(session.governor.reserve("brave", 10_000)).toEqual({ ok: true, waitMs: 0 });
    expect(live.governor.reserve("brave", 10_000)).toEqual({ ok: true, waitMs: 1000 });
    expect(replayed.governor.reserve("brave", 10_000)).toEqual({ ok: true, waitMs: 0 });
  });
});

describe("the replay folder as notes name it", () => {
  it("is as typed when relative, and its last part when absolute: no note tells where it is on this machine", () => {
    const cwd = path.join(tmp, "home/you");
    const shown = (given: string) => replayFolderShown(given, path.resolve(cwd, given));
    expect(shown("recordings/combined")).toBe("recordings/combined");
    expect(shown(path.join(tmp, "home/you/recordings/combined"))).toBe("combined"); // `~/recordings/combined`, expanded
    expect(shown(`${path.join(tmp, "home/you/recordings/combined")}${path.sep}`)).toBe("combined");
    // `.` and `..` name nothing: the folder they are is named by its last part.
    expect(shown(".")).toBe("you");
    expect(shown("recordings/..")).toBe("you");
    expect(shown("..")).toBe("home");
    // A path that climbs out of where it was typed is a place on the machine: its last part only.
    expect(shown("../../alice/recordings/combined")).toBe("combined");
    expect(shown("recordings/../../../bob/recs")).toBe("recs");
    expect(shown("./recordings/../combined")).toBe("./recordings/../combined");
  });

  it("is the same from webAccess, for the notes, while output keeps the folder as given", () => {
    const web = webAccess(DEMO_REPLAY, { env: {}, cwd: tmp });
    expect(web.replayDir).toBe(DEMO_REPLAY);
    expect(web.replayShown).toBe("brave-demo");
    const below = path.join(tmp, "work");
    cpSync(DEMO_REPLAY, path.join(below, "recordings/brave-demo"), { recursive: true });
    expect(webAccess(path.join("recordings", "brave-demo"), { env: {}, cwd: below }).replayShown).toBe(path.join("recordings", "brave-demo"));
    // Typed from a folder beside it, the path told where the fixtures lie on this machine.
    expect(webAccess(path.relative(tmp, DEMO_REPLAY), { env: {}, cwd: tmp }).replayShown).toBe("brave-demo");
  });
});
