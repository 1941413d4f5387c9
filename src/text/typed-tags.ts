// A #tag as a person types it into a question or a search: the planner and the index's query reader take
// tags with this one pattern, so a tag the plan filters by is the tag the search filters by.

/**
 * A `#tag` after white space or at the start: letters with their marks (Hindi's vowel signs, Thai's
 * tone marks: "#पनीर" is no "#पन"), digits, `_`, `-` and `/`, and something besides figures, as a
 * note's tags hold ("issue #123" asks about an issue number). Group 1 is what came before the `#`,
 * group 2 the tag as typed. Global: for `matchAll` and `replace`, which read from the start.
 */
export const TYPED_TAG = /(^|\s)#([\p{L}\p{M}\p{N}_\-/]*[\p{L}\p{M}_\-/][\p{L}\p{M}\p{N}_\-/]*)/gu;
