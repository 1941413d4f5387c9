// Every browser test, in one Chromium: the workbench is built and served once, and each suite
// opens the pages it needs. Skipped with a warning when Chromium is missing. What the suites
// measured (axe violations, contrast, screenshots) is printed at the end and kept in
// test-artifacts/measurements.txt.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import { longAndNarrowSuite } from "./long-and-narrow";
import { modalsAndSettingsSuite } from "./modals-and-settings";
import { panelStatesSuite } from "./panel-states";
import { promotePanelSuite } from "./promote-panel";
import { researchPanelSuite } from "./research-panel";
import { snippetLinesSuite } from "./snippet-lines";
import { webWorkersSuite } from "./web-workers";
import { closeComparer } from "./screenshots";
import { artifacts, CHROMIUM, chromiumAvailable, startSession, type BrowserSession } from "./workbench-server";

if (!chromiumAvailable) {
  console.warn(`Browser tests skipped: no Chromium at ${CHROMIUM} (install it with: apt-get install -y chromium).`);
}

describe.skipIf(!chromiumAvailable)("the plugin in Chromium", () => {
  let started: Awaited<ReturnType<typeof startSession>> | null = null;
  const measured: string[] = [];
  const session = (): BrowserSession => {
    if (!started) throw new Error("The browser session did not start.");
    return started.session;
  };
  const report = (line: string) => void measured.push(line);

  beforeAll(async () => {
    started = await startSession();
  });

  afterAll(async () => {
    await closeComparer();
    await started?.close();
    if (measured.length > 0) {
      writeFileSync(path.join(artifacts, "measurements.txt"), measured.join("\n") + "\n");
      // Shown in the run as well as kept in the file (debug: the one level of output Obsidian's lint leaves for diagnostics).
      console.debug(measured.join("\n"));
    }
  });

  researchPanelSuite(session);
  promotePanelSuite(session);
  panelStatesSuite(session, report);
  modalsAndSettingsSuite(session, report);
  longAndNarrowSuite(session);
  snippetLinesSuite(session);
  webWorkersSuite(session);
});
