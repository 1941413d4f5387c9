import { describe, expect, it, vi } from "vitest";
import type { SecretStorage as ObsidianSecretStorage } from "obsidian";
import { SecretStorage as StandInSecretStorage } from "../stubs/obsidian";

const SecretStorage = StandInSecretStorage as unknown as new () => ObsidianSecretStorage;
import { defaultSettings } from "../../src/settings";
import { SecretStorageSecrets } from "../../src/plugin/secret-storage-secrets";

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
