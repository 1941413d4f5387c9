import { describe, expect, it, vi } from "vitest";
import type { SecretStorage as ObsidianSecretStorage } from "obsidian";
import { SecretStorage as StandInSecretStorage } from "../stubs/obsidian";

const SecretStorage = StandInSecretStorage as unknown as new () => ObsidianSecretStorage;
import { defaultSettings } from "../../src/settings";
import { SecretStorageSecrets } from "../../src/plugin/secret-storage-secrets";
import { keysHeld } from "../../src/plugin/keys-held";
import { secretScrubber } from "../../src/text/secret-scrub";

describe("secret storage secrets", () => {
  it("reads each key under the secret id named in settings", async () => {
    const storage = new SecretStorage();
    storage.setSecret("my-brave", "brave-key");
    storage.setSecret("my-model", "model-key");
    const settings = defaultSettings();
    settings.external.brave.secretId = "my-brave";
    settings.model.secretId = "my-model";
    const secrets = new SecretStorageSecrets(storage, () => settings);
    expect(await secrets.get("brave")).toBe("brave-key");
    expect(await secrets.get("openai")).toBe("model-key");
    expect(await secrets.get("anthropic")).toBe("model-key");
    expect(await secrets.get("exa")).toBeNull();
  });

  it("follows a changed secret id without being rebuilt", async () => {
    const storage = new SecretStorage();
    storage.setSecret("second", "k2");
    const settings = defaultSettings();
    const secrets = new SecretStorageSecrets(storage, () => settings);
    expect(await secrets.get("exa")).toBeNull();
    settings.external.exa.secretId = "second";
    expect(await secrets.get("exa")).toBe("k2");
  });

  it("answers null for blank secrets, blank ids and apps without secret storage", async () => {
    const storage = new SecretStorage();
    storage.setSecret("vault-research-brave", "   ");
    expect(await new SecretStorageSecrets(storage, defaultSettings).get("brave")).toBeNull();
    const blankId = defaultSettings();
    blankId.external.brave.secretId = "";
    expect(await new SecretStorageSecrets(storage, () => blankId).get("brave")).toBeNull();
    expect(await new SecretStorageSecrets(undefined, defaultSettings).get("brave")).toBeNull();
  });

  it("gives a key pasted with a line break, spaces or quotes around it without them, so it is sent and scrubbed as the key it is", async () => {
    const storage = new SecretStorage();
    storage.setSecret("vault-research-brave", "  BSA-pasted-0123456789\r\n");
    storage.setSecret("vault-research-embedding", "\tsk-embed-0123456789\n");
    storage.setSecret("vault-research-exa", '"exa-quoted-0123456789"\n');
    const settings = defaultSettings();
    const secrets = new SecretStorageSecrets(storage, () => settings);
    expect(await secrets.get("brave")).toBe("BSA-pasted-0123456789");
    expect(await secrets.byId("vault-research-embedding")).toBe("sk-embed-0123456789");
    expect(await secrets.get("exa")).toBe("exa-quoted-0123456789");
    // What a run keeps out of all it writes: a provider's echo of the key itself is caught.
    const scrub = secretScrubber(await keysHeld(secrets, settings));
    expect(scrub.text("the key BSA-pasted-0123456789 was refused")).toBe("the key [redacted] was refused");
  });

  it("gives a SearXNG password exactly as stored: its spaces and quotes are its own", async () => {
    const storage = new SecretStorage();
    storage.setSecret("vault-research-searxng", " 'two words' ");
    storage.setSecret("vault-research-brave", " 'BSA-pasted-0123456789' ");
    const secrets = new SecretStorageSecrets(storage, () => defaultSettings());
    expect(await secrets.get("searxng")).toBe(" 'two words' ");
    expect(await secrets.get("brave")).toBe("BSA-pasted-0123456789");
  });

  it("names the secret but never its value when storage fails", async () => {
    const storage = new SecretStorage();
    vi.spyOn(storage, "getSecret").mockImplementation(() => {
      throw new Error("keychain locked: sk-live-123");
    });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(await new SecretStorageSecrets(storage, defaultSettings).get("brave")).toBeNull();
    const logged = warn.mock.calls.flat().join(" ");
    expect(logged).toContain("vault-research-brave");
    expect(logged).not.toContain("sk-live-123");
    warn.mockRestore();
  });
});
