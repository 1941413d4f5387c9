// Secrets at the port that remember every lookup, so a test can prove a key was never even read
// when the run had no business reading it.
import type { SecretName, Secrets } from "../../src/ports";

/** A key distinctive enough that finding it anywhere in an output is proof of a leak. */
export const BRAVE_TEST_KEY = "BSA-leakcheck-7Qz9Xw4Kp2Lm8Rt5";
export const EXA_TEST_KEY = "exa-leakcheck-3Vn6Hj1Df9Gs4Bc7";

export interface RecordingSecrets extends Secrets {
  /** Names asked for, in order, one entry per call. */
  readonly asked: SecretName[];
}

export function recordingSecrets(values: Partial<Record<SecretName, string>> = { brave: BRAVE_TEST_KEY, exa: EXA_TEST_KEY }): RecordingSecrets {
  const asked: SecretName[] = [];
  return {
    asked,
    async get(name) {
      asked.push(name);
      return values[name] ?? null;
    },
  };
}
