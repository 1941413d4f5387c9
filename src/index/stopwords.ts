// English function words that carry no topic. Used by the query parser (they are not required to
// match) and by the research planner (they are not "content terms"). They are still indexed, so a
// quoted phrase containing them can be found.
import { wordSet } from "../text/word-set";

export const STOP_WORDS: ReadonlySet<string> = wordSet(
  `a about above after again against all am an and any are aren't as at be because been before being
below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down
during each few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here
here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself
let's me more most mustn't my myself no nor not of off on once only or other ought our ours ourselves
out over own same shan't she she'd she'll she's should shouldn't so some such than that that's the their
theirs them themselves then there there's these they they'd they'll they're they've this those through
to too under until up very was wasn't we we'd we'll we're we've were weren't what what's when when's
where where's which while who who's whom why why's will with won't would wouldn't you you'd you'll
you're you've your yours yourself yourselves also just via using use used get got make way ways thing
things something anything does done tell show explain please want wants need needs know`,
);

export function isStopWord(term: string): boolean {
  return STOP_WORDS.has(term);
}

/** Index terms that say something about a topic: not numbers, single letters or stop words. */
export function isTopicTerm(term: string): boolean {
  return term.length > 1 && !/^\d+$/.test(term) && !isStopWord(term);
}
