// data.json as stored against the settings in use. Whether it spells a value otherwise than the
// settings read from it (a folder written `./AI Traces` that the settings hold as `AI Traces`, a
// folder listed twice): the plugin then saves the settings once, so the file says what is in use.
// Only values the file holds are compared: a setting it leaves out is not written in just to pin
// today's default. And a copy of a file the plugin could not use, kept before anything overwrites it.

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

/** Where a copy of an unusable data.json goes, beside it: `data.unusable.json`, then `-2`, `-3`… */
const COPY_NAMES = 20;

/** The parts of Obsidian's DataAdapter a copy needs. */
export interface SettingsFolder {
  exists(path: string): Promise<boolean>;
  read(path: string): Promise<string>;
  write(path: string, data: string): Promise<void>;
}

/**
 * Keeps a copy of data.json as it is, beside it, before the settings in use are ever written over
 * it: a file that is not JSON (a sync conflict's `<<<<<<<` lines, a hand edit) or holds values the
 * plugin cannot use would otherwise lose the user's values at the next save. An identical copy
 * already kept is reused, so a restart with the same file makes no second one. Returns the copy's
 * path, or null when there is no file to copy.
 */
export async function keepUnusableSettingsFile(folder: SettingsFolder, pluginDir: string): Promise<string | null> {
  const file = `${pluginDir}/data.json`;
  if (!(await folder.exists(file))) return null;
  const text = await folder.read(file);
  for (let n = 1; n <= COPY_NAMES; n++) {
    const copy = `${pluginDir}/data.unusable${n === 1 ? "" : `-${n}`}.json`;
    if (!(await folder.exists(copy))) {
      await folder.write(copy, text);
      return copy;
    }
    if ((await folder.read(copy)) === text) return copy;
  }
  throw new Error(`${COPY_NAMES} copies of unusable settings files are already kept in ${pluginDir}`);
}
