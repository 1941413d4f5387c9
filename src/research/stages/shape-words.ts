// The words that ask how two things relate, differ or go together ("how do libraries relate to
// repositories?", "how do X and Y differ", "how do X and Y work together"): the question's shape,
// not its subject. An answering note need not say them, and one that does is no likelier to answer
// ("a few Share related frontmatter keys" in a note about development). One list for the planner,
// which does not require them of a question that relates two things (plan.ts), and the judge,
// which weighs them light wherever they are still asked for (judge-coverage.ts).
import { wordSet } from "../../text/word-set";

/**
 * Each form as the plan reads it (no stemming). Not "connect", "connection" or "interact": in a vault
 * they name things done ("connect to the wifi", an SSH connection), as often as a relation asked
 * about. "difference", "different", "compare", "comparison", "vs" and "versus" are here too, though
 * the plan never requires them anywhere (they are its generic words).
 */
export const SHAPE_WORDS: ReadonlySet<string> = wordSet(
  `relate relates related relating relation relations relationship relationships
   differ differs differed differing difference differences different
   compare compares compared comparing comparison comparisons contrast contrasts contrasting versus vs
   together`,
);
