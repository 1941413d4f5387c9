// A worker's session (index/worker-jobs.ts `workerSession`) run on this thread, for the tests of what
// a worker does: each message copied as a worker's messages are (structured clone), and what the
// session posts back kept in order — its `TAKEN`s, then at most one reply.
import { isTaken, workerSession } from "../../src/index/worker-jobs";

export function workerHere() {
  const posted: unknown[] = [];
  let sent = 0;
  let replied!: (reply: unknown) => void;
  const reply = new Promise<unknown>((resolve) => (replied = resolve));
  const session = workerSession((message) => {
    const copy = structuredClone(message);
    posted.push(copy);
    if (!isTaken(copy)) replied(copy);
  });
  return {
    posted,
    send(message: unknown): void {
      sent++;
      session(structuredClone(message));
    },
    /** Whether a message was taken without a `TAKEN`: the session's reply is on its way (or came). */
    answering: () => posted.filter(isTaken).length < sent,
    /** The session's one reply (wait for it only when `answering`). */
    reply,
  };
}
