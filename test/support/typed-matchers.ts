// Vitest's asymmetric matchers (`expect.stringContaining` and the rest) are typed `any`, so an
// expected object holding one is `any` where it is written. These are the same matchers typed as
// the value each stands for: the expected object keeps the shape of what it is compared with.
import { expect } from "vitest";

/** Any number (NaN included, as `expect.any(Number)`). */
export const anyNumber = (): number => expect.any(Number) as number;

/** Any string. */
export const anyString = (): string => expect.any(String) as string;

/** A string that holds `text`. */
export const stringContaining = (text: string): string => expect.stringContaining(text) as string;

/** A string `pattern` matches. */
export const stringMatching = (pattern: RegExp): string => expect.stringMatching(pattern) as string;

/** An object with at least these fields, of these values (each may be a matcher itself). */
export const objectContaining = <T extends object>(fields: T): T => expect.objectContaining<unknown>(fields) as T;
