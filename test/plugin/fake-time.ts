// Fake time for the plugin's tests: moves it on, then lets the chains of zero-delay timers it
// releases (yields between slices, IndexedDB's callbacks) run out.
import { vi } from "vitest";

/** Moves fake time on by `ms`, then runs out zero-delay timers set inside timer callbacks (each due a tick later). */
export async function wait(ms = 0): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  for (let i = 0; i < 50; i++) await vi.advanceTimersByTimeAsync(1);
}
