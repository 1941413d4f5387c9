// A question that is an API key (pasted into the question box instead of the key field), or that
// holds one the run cannot scrub, is refused before the run starts: otherwise it is the web query
// sent to every provider, the trace note's title and the query log's line. A key the caller holds
// (`knownSecrets`) inside a longer question is scrubbed instead (run-state.ts); a key it does not
// hold cannot be, so that question is refused too. Whether a word is a key is the settings' one rule
// (`looksLikeApiKey`: how the keys of the services it calls begin), asked of whole words only.
import { looksLikeApiKey } from "../settings";
import { secretScrubber } from "../text/secret-scrub";

/** Why a question was refused. The message never repeats the question. */
export class QuestionRefused extends Error {
  readonly kind = "question_is_a_key";

  constructor() {
    super(
      "The question looks like an API key, or holds one, so it was not used: nothing was searched, sent, logged or written. " +
        "A key goes in settings (the CLI: its environment variable); ask the question in words.",
    );
    this.name = "QuestionRefused";
  }
}

/**
 * A word of key characters, 20 and more: "sk-learn" and "BSA rules" are words, not keys (the keys
 * this rule knows are 30 characters and more, and random).
 */
const KEY_LENGTH = /^[A-Za-z0-9_-]{20,}$/;
/**
 * What tells a random key from a long hyphenated word ("sk-learn-versus-pytorch-benchmarks"): a
 * digit. Hugging Face issues its tokens as `hf_` and 34 letters, with none; the prefix rule already
 * tells them from a Python name (`hf_hub_download_retry`: a second underscore).
 */
const RANDOM_KEY = /\d|^hf_/;
/** A token after "Bearer" (an Authorization header pasted whole) is a credential by its own words, whatever its form. */
const BEARER_TOKEN = /\bbearer\s+[A-Za-z0-9._~+/=-]{20,}/i;
/** What a paste leaves around a key: quotes, brackets, end punctuation, `Authorization: Bearer`, `NAME=`. */
const AROUND_A_KEY = /^[\s"'`“”‘’([{<]*(?:authorization:\s*)?(?:bearer\s+)?(?:export\s+)?(?:[A-Za-z_][A-Za-z0-9_]*=)?|[\s"'`“”‘’)\]}>,.;:!?]+$/gi;

/**
 * Whether `question` is a key — one the caller holds (`known`), or one by the rule — or holds a key
 * the caller does not: a held key inside a longer question is the scrubber's (run-state.ts).
 */
export function keyInQuestion(question: string, known: readonly string[] = []): boolean {
  const whole = question.replace(AROUND_A_KEY, "");
  if (whole !== "" && known.some((key) => key.trim() === whole)) return true;
  const rest = secretScrubber(known).text(question);
  if (BEARER_TOKEN.test(rest)) return true;
  // Words split at anything a key never holds: `OPENAI_API_KEY=sk-…`, `key:BSA…`, `"sk-…",` each give the key alone.
  return rest.split(/[^A-Za-z0-9_-]+/).some(isKeyWord);
}

/** Whether one word of a question is a key by the rule: its length, its prefix, and no plain word. */
function isKeyWord(word: string): boolean {
  return KEY_LENGTH.test(word) && looksLikeApiKey(word) && RANDOM_KEY.test(word);
}

/** Throws `QuestionRefused` for a question that is, or holds, a key (see `keyInQuestion`). */
export function refuseKeyAsQuestion(question: string, known: readonly string[] = []): void {
  if (keyInQuestion(question, known)) throw new QuestionRefused();
}
