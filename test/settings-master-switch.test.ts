// The plugin's side of the master switch: a data.json that writes `external.enabled` as anything
// but a boolean (`"false"`, by hand) is read as off, and the panel's turn then never asks the web.
import { describe, expect, it } from "vitest";
import { loadSettings } from "../src/settings";
import { withinSettings } from "../src/ui/composer";

describe("external.enabled written as something other than true or false", () => {
  it.each([["false"], ["true"], [1], [null], [["on"]]])("%j is off, and the warning says the web stays off", (written) => {
    const { settings, problems } = loadSettings({ external: { enabled: written, providers: ["brave"] } });
    expect(settings.external.enabled).toBe(false);
    expect(problems).toEqual(["external.enabled: expected true or false (web search stays off); the default is used."]);
    // A turn the panel sends with the web asked for always: the settings turn it to never.
    expect(withinSettings({ mode: "always", providers: ["brave"], freshness: "any" }, settings).mode).toBe("never");
  });
});
