// Gives the UI a turn between slices of long work (indexing, embedding). A zero-length setTimeout
// is clamped to 4 ms by browsers once timers nest, which a build of thousands of slices pays again
// and again; a message posted to ourselves on a MessageChannel runs as the next task, unclamped,
// and still lets Obsidian paint and handle input in between. Without MessageChannel: setTimeout.

type Resolve = () => void;

/** One channel for the session: each post wakes the oldest waiting slice. */
let channel: { post: () => void; waiting: Resolve[] } | null = null;

function openChannel(): { post: () => void; waiting: Resolve[] } | null {
  if (typeof MessageChannel === "undefined") return null;
  const { port1, port2 } = new MessageChannel();
  const waiting: Resolve[] = [];
  port1.onmessage = () => waiting.shift()?.();
  // Node's ports keep the process alive while listening; tests and the CLI must be able to exit.
  (port1 as { unref?: () => void }).unref?.();
  (port2 as { unref?: () => void }).unref?.();
  return { post: () => port2.postMessage(null), waiting };
}

export function yieldToUi(): Promise<void> {
  channel ??= openChannel();
  const open = channel;
  if (!open) return new Promise((resolve) => window.setTimeout(resolve, 0));
  return new Promise<void>((resolve) => {
    open.waiting.push(resolve);
    open.post();
  });
}
