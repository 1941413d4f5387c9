// What a thrown value says to a person. Errors raised by this project carry a human message; a
// library or the platform may throw anything (a string, an object, an Error without a message).

/** The message of an `Error`, a thrown string as it is, else `fallback` (or the value as text). */
export function errorMessage(error: unknown, fallback?: string): string {
  if (error instanceof Error && error.message) return error.message;
  if (typeof error === "string" && error) return error;
  if (fallback !== undefined) return fallback;
  return error instanceof Error ? error.name : String(error);
}
