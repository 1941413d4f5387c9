// A fixed list of words, written as one block of text for reading (stop words, the planner's and
// the judge's word lists): the one way such a block becomes a set.

/** The words of `text`, split on any white space (line breaks and indentation included). */
export function wordSet(text: string): ReadonlySet<string> {
  return new Set(text.split(/\s+/).filter((word) => word !== ""));
}
