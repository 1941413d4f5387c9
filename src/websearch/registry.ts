// Every provider the plugin knows, by name. Settings choose which of them a run may use.
import { createBraveProvider } from "./brave";
import { createBraveWebProvider } from "./brave-web";
import { createExaProvider } from "./exa";
import type { Provider, ProviderName } from "./types";

export type ProviderRegistry = ReadonlyMap<ProviderName, Provider>;

/** Fresh provider instances; keep one registry per session (Brave remembers a missing plan). */
export function createProviderRegistry(): ProviderRegistry {
  const providers = [createBraveProvider(), createBraveWebProvider(), createExaProvider()];
  return new Map(providers.map((p) => [p.name, p]));
}
