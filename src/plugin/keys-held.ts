// Every key the plugin holds in secret storage, read now: what the plugin keeps out of everything it
// writes or shows — a research run's trace, its note and progress, the query log, a promoted note.
// One list for all of them, so no output can miss a key another one scrubs.
import type { SecretName, Secrets } from "../ports";
import type { Settings } from "../settings";
import { isCredential } from "../text/secret-scrub";

/** Every secret the plugin may hold, by name: a Record, so a name added to SecretName cannot be missed here. */
const SECRET_NAMES = Object.keys({ brave: 0, exa: 0, openai: 0, anthropic: 0, github: 0, tavily: 0, searxng: 0 } satisfies Record<SecretName, 0>) as SecretName[];

/** Secret storage, which may also read a secret by its id (the embedding server's key has no SecretName). */
export type HeldSecrets = Secrets & { byId?(id: string): Promise<string | null> };

/** The keys secret storage holds now (placeholders such as `ollama`, and secrets that cannot be read, skipped). */
export async function keysHeld(secrets: HeldSecrets, settings: Settings): Promise<string[]> {
  const named = SECRET_NAMES.map((name) => secrets.get(name).catch(() => null));
  const embedding = secrets.byId ? secrets.byId(settings.search.embedding.secretId).catch(() => null) : Promise.resolve(null);
  const held = await Promise.all([...named, embedding]);
  return held.filter(isCredential);
}
