// data.json as stored against the settings in use. Whether it spells a value otherwise than the
// settings read from it (a folder written `./AI Traces` that the settings hold as `AI Traces`, a
// folder listed twice): the plugin then saves the settings once, so the file says what is in use.
// Only values the file holds are compared: a setting it leaves out is not written in just to pin
// today's default. And a copy of a file the plugin could not use, kept before anything overwrites it.
// And an API key typed into the file by hand under a name that is no setting (`model.apiKey`): taken
// out of the settings in use, so no save of the plugin's writes it back, and out of the file itself.
import { holdsCredential, holdsKeyShapedWord, loadSettings, looksLikeApiKey, settingsSchema, type Settings } from "../settings";
import { isCredential } from "../text/secret-scrub";

/** True when some value `stored` holds reads differently in `used` (keys `used` lacks are not looked at). */
export function storedSpellsOtherwise(stored: unknown, used: unknown): boolean {
  if (isRecord(stored) && isRecord(used)) {
    return Object.entries(stored).some(([key, value]) => Object.hasOwn(used, key) && storedSpellsOtherwise(value, used[key]));
  }
  // Both came from JSON (data.json) or are about to go there: their JSON says whether they agree.
  return JSON.stringify(stored) !== JSON.stringify(used);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** How many copies of unusable data.json files are kept beside it: `data.unusable.json`, then `-2`, `-3`… */
const COPY_NAMES = 20;

/** The parts of Obsidian's DataAdapter a copy needs (`stat`, to find the oldest copy once every name is taken). */
export interface SettingsFolder {
  exists(path: string): Promise<boolean>;
  read(path: string): Promise<string>;
  write(path: string, data: string): Promise<void>;
  stat?(path: string): Promise<{ mtime: number } | null>;
}

/**
 * Keeps a copy of data.json as it is, beside it, before the settings in use are ever written over
 * it: a file that is not JSON (a sync conflict's `<<<<<<<` lines, a hand edit) or holds values the
 * plugin cannot use would otherwise lose the user's values at the next save. An identical copy
 * already kept is reused, so a restart with the same file makes no second one. Once every name is
 * taken the oldest copy gives way: the file about to be written over is the one whose values are
 * still to be saved (throwing, its copy was never kept, and the save that followed lost it). Returns
 * the copy's path, or null when there is no file to copy.
 */
export async function keepUnusableSettingsFile(folder: SettingsFolder, pluginDir: string): Promise<string | null> {
  const file = `${pluginDir}/data.json`;
  if (!(await folder.exists(file))) return null;
  const text = await folder.read(file);
  let free: string | null = null;
  for (let n = 1; n <= COPY_NAMES; n++) {
    const copy = copyName(pluginDir, n);
    if (!(await folder.exists(copy))) free ??= copy;
    else if ((await folder.read(copy).catch(() => null)) === text) return copy;
  }
  const copy = free ?? (await oldestCopy(folder, pluginDir));
  await folder.write(copy, text);
  return copy;
}

/** The `n`th copy's path: `data.unusable.json`, then `data.unusable-2.json`… */
function copyName(pluginDir: string, n: number): string {
  return `${pluginDir}/data.unusable${n === 1 ? "" : `-${n}`}.json`;
}

/** The copy written longest ago (the first name, when the folder cannot say when each was written). */
async function oldestCopy(folder: SettingsFolder, pluginDir: string): Promise<string> {
  let oldest = { copy: copyName(pluginDir, 1), mtime: Infinity };
  for (let n = 1; n <= COPY_NAMES; n++) {
    const copy = copyName(pluginDir, n);
    const mtime = (await folder.stat?.(copy).catch(() => null))?.mtime ?? Infinity;
    if (mtime < oldest.mtime) oldest = { copy, mtime };
  }
  return oldest.copy;
}

/**
 * Takes out of `settings` every value loading kept under a key that is no setting (loading keeps a
 * newer version's settings, to write them back) and that looks like an API key or password: one
 * pasted into data.json by hand (`model.apiKey: "sk-…"`) is never used (keys are read from secret
 * storage), and written back at every save it would sit in the file, which sync and backups carry,
 * for good. Only that value goes: the settings beside it, in an object a newer version wrote
 * (`external.proxy: { host, login: { password } }`), stay. Returns where each one was
 * (`model.apiKey`), never what it held.
 */
export function takeOutKeysOutOfPlace(settings: Settings): string[] {
  // The settings as the schema knows them: what it drops is what loading kept unknown.
  const known = settingsSchema.safeParse(JSON.parse(JSON.stringify(settings)));
  // Settings loading made always parse; should they not, nothing is told apart, and nothing taken.
  if (!known.success) return [];
  const taken: string[] = [];
  takeOut(settings, known.data, [], taken);
  return taken;
}

/**
 * Walks `used` beside what the schema knows of it (`schemaKnows`; undefined under a key it does not
 * know, where every key is unknown), taking each key-holding value of an unknown key out of it.
 */
function takeOut(used: Record<string, unknown>, schemaKnows: unknown, at: string[], taken: string[], refusedAsKeys: ReadonlySet<string> = new Set()): void {
  for (const [key, value] of Object.entries(used)) {
    const knows = isRecord(schemaKnows) && Object.hasOwn(schemaKnows, key);
    // A key pasted as a name (loading keeps none, but data.json as stored may hold one) is not repeated.
    const where = [...at, looksLikeApiKey(key) ? "(a name that looks like an API key)" : key];
    if (!knows && looksLikeApiKey(key)) {
      delete used[key];
      taken.push(where.join("."));
    } else if (isRecord(value)) takeOut(value, knows ? schemaKnows[key] : undefined, where, taken, refusedAsKeys);
    else if (knows ? refusedAsKey(value, schemaKnows[key], refusedAsKeys.has(where.join("."))) : holdsCredential(key, value)) {
      delete used[key];
      taken.push(where.join("."));
    }
  }
}

/**
 * data.json as stored, less what `takeOutKeysOutOfPlace` takes out of the settings read from it, any
 * name that looks like a key (which loading never keeps) and any key a setting's value was refused
 * for (`model.model: "sk-…"`, its default in use). Written at once, and before a copy of a file with
 * values loading could not use is kept, so neither the file nor its copy holds a key; everything
 * else stays as the user wrote it, to be fixed. `stored` itself when it holds none.
 */
export function storedWithoutKeysOutOfPlace(stored: unknown): unknown {
  if (!isRecord(stored)) return stored;
  const load = loadSettings(stored);
  const known = settingsSchema.safeParse(JSON.parse(JSON.stringify(load.settings)));
  if (!known.success) return stored;
  try {
    const copy = structuredClone(stored);
    const taken: string[] = [];
    takeOut(copy, known.data, [], taken, new Set(load.keysOutOfPlace));
    return taken.length > 0 ? copy : stored;
  } catch {
    // Nested deeper than a walk can go (loading kept nothing of it): the file as it is.
    return stored;
  }
}

/**
 * Whether a setting's stored `value` is a key the settings in use do not hold (`inUse`): one loading
 * refused for its look (`refusedForKey`: `model.model: "sk-…"`, a secret's id that is an Exa key), or
 * one that differs from what is used and begins as a key or holds a key-shaped word (an address with
 * a key among its words), which data.json as stored still holds. A UUID alone is no reason: an
 * address or a folder may hold one (a tenant's id), and one spelled otherwise than it is used
 * (`Imports\\<uuid>\\Clips`, or refused for its `?query`) was wiped from data.json, not kept to be fixed.
 * The settings themselves never differ from their own parse, so this takes only from data.json as stored.
 */
function refusedAsKey(value: unknown, inUse: unknown, refusedForKey: boolean): boolean {
  if (typeof value !== "string" || value === inUse || !isCredential(value)) return false;
  return refusedForKey || looksLikeApiKey(value) || holdsKeyShapedWord(value);
}
