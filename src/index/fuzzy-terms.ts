// A typo lookup without MiniSearch's radix tree: the terms within an edit distance of a word, with
// their distances, in the very order MiniSearch's `fuzzyGet` walks its tree, found by reading the
// term map (insertion order) twice. Making the tree for 41,000 terms costs a one-search process
// about 80 ms; these two reads cost a few.
//
// Why the order matters, and how it is found. Results sum a note's scores term by term in this
// order, and notes of equal score keep the order they were first met, so another order could move a
// result. The tree is built by inserting the terms in the map's order, and a node's children (a
// Map) keep the order they were set in: a child is set when it is made, and again (moved last) when
// a later term splits its edge, which makes the node in between. So at the node where two terms
// part, a child stands where the later of two moments put it: the making of the node where the
// terms part, and the making of the first node below it on the child's side (a term ending at the
// parting node is that node's leaf, set when the term was inserted). At one moment the older
// child goes first. A node is made when its path is first a term, or first the place where two
// terms inserted so far part: the second-earliest of the first insertions of each way onward.

/** What one matched term knows of every term's common beginning with it. */
interface PartingsOf {
  /** Per depth: when a term first parted from this one there (Infinity: never, so no node below the root can be there but the term's own end). */
  firstAt: Float64Array;
  /** Per depth: when a term of a second way onward first parted there. */
  secondAt: Float64Array;
  /** Per depth: the way onward (a code unit, or -1: the term ends there) of the first parting. */
  firstWay: Int32Array;
  /** Per depth: when a term equal to this one's beginning of that length was inserted (Infinity: none). */
  endAt: Float64Array;
}

interface Match<V> {
  term: string;
  value: V;
  distance: number;
  /** Its place in the term map: when it was inserted. */
  at: number;
  partings?: PartingsOf;
}

const NEVER = Number.POSITIVE_INFINITY;

/**
 * MiniSearch's `fuzzyGet(query, maxDistance)` over a tree that `terms` were inserted into in their
 * order, with none taken out since: the same terms, distances and order, without the tree.
 */
export function fuzzyTerms<V>(terms: ReadonlyMap<string, V>, query: string, maxDistance: number): Map<string, [V, number]> {
  const matches = termsWithin(terms, query, maxDistance);
  if (matches.length > 1) {
    notePartings(terms, matches);
    matches.sort(treeOrder);
  }
  return new Map(matches.map((m) => [m.term, [m.value, m.distance]]));
}

function termsWithin<V>(terms: ReadonlyMap<string, V>, query: string, maxDistance: number): Match<V>[] {
  const matches: Match<V>[] = [];
  const rows = new EditRows(query.length);
  let at = 0;
  for (const [term, value] of terms) {
    if (Math.abs(term.length - query.length) <= maxDistance) {
      const distance = rows.distance(term, query, maxDistance);
      if (distance <= maxDistance) matches.push({ term, value, distance, at });
    }
    at++;
  }
  return matches;
}

/** Levenshtein distance, or more than `limit` once it must be (two rows reused). */
class EditRows {
  private previous: Int32Array;
  private current: Int32Array;

  constructor(queryLength: number) {
    this.previous = new Int32Array(queryLength + 1);
    this.current = new Int32Array(queryLength + 1);
  }

  distance(term: string, query: string, limit: number): number {
    const n = query.length;
    let previous = this.previous;
    let current = this.current;
    for (let j = 0; j <= n; j++) previous[j] = j;
    for (let i = 1; i <= term.length; i++) {
      current[0] = i;
      let rowLeast = i;
      const char = term.charCodeAt(i - 1);
      for (let j = 1; j <= n; j++) {
        const replace = previous[j - 1] + (char === query.charCodeAt(j - 1) ? 0 : 1);
        const cell = Math.min(replace, previous[j] + 1, current[j - 1] + 1);
        current[j] = cell;
        if (cell < rowLeast) rowLeast = cell;
      }
      // A row's least value never falls in the rows below it.
      if (rowLeast > limit) return limit + 1;
      [previous, current] = [current, previous];
    }
    return previous[n];
  }
}

/** One more read of the term map: where each term parts from each match, and when it was inserted. */
function notePartings<V>(terms: ReadonlyMap<string, V>, matches: Match<V>[]): void {
  for (const m of matches) {
    const depths = m.term.length + 1;
    m.partings = { firstAt: new Float64Array(depths).fill(NEVER), secondAt: new Float64Array(depths).fill(NEVER), firstWay: new Int32Array(depths), endAt: new Float64Array(depths).fill(NEVER) };
  }
  let at = 0;
  for (const term of terms.keys()) {
    for (const m of matches) {
      const depth = commonLength(term, m.term);
      // The match itself is no parting from itself, but its own end is a node's leaf.
      const way = depth === term.length ? -1 : term.charCodeAt(depth);
      const p = m.partings!;
      if (way === -1) p.endAt[depth] = Math.min(p.endAt[depth], at);
      if (term === m.term) continue;
      // The term map is read in insertion order: the first of a way onward is its earliest.
      if (p.firstAt[depth] === NEVER) {
        p.firstAt[depth] = at;
        p.firstWay[depth] = way;
      } else if (p.secondAt[depth] === NEVER && p.firstWay[depth] !== way) p.secondAt[depth] = at;
    }
    at++;
  }
}

function commonLength(a: string, b: string): number {
  const most = Math.min(a.length, b.length);
  let i = 0;
  while (i < most && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** When the node at the match's first `depth` code units was made (the root was always there). */
function nodeMadeAt(m: Match<unknown>, depth: number): number {
  if (depth === 0) return -1;
  const p = m.partings!;
  // The earliest term of each way onward from the node: the match's own way (the match and every
  // term parting from it deeper down; none when the match ends there) and the first two others.
  let own = NEVER;
  if (depth < m.term.length) {
    own = m.at;
    for (let d = depth + 1; d < p.firstAt.length; d++) own = Math.min(own, p.firstAt[d]);
  }
  const ways = [own, p.firstAt[depth], p.secondAt[depth]].sort((a, b) => a - b);
  // There once two ways onward were, or once its path was a term.
  const itself = depth === m.term.length ? m.at : p.endAt[depth];
  return Math.min(itself, ways[1]);
}

/** Where the match's side stands among the children of the node at `depth` where it parts from another term: [moment set, moment made]. */
function sidePlace(m: Match<unknown>, depth: number): [number, number] {
  const parting = nodeMadeAt(m, depth);
  if (depth === m.term.length) return [Math.max(parting, m.at), m.at];
  // The first node below: the first depth where some term parts from the match, or its own end.
  const p = m.partings!;
  let below = depth + 1;
  while (below < m.term.length && p.firstAt[below] === NEVER) below++;
  const made = nodeMadeAt(m, below);
  return [Math.max(parting, made), made];
}

function treeOrder(a: Match<unknown>, b: Match<unknown>): number {
  const depth = commonLength(a.term, b.term);
  const [aSet, aMade] = sidePlace(a, depth);
  const [bSet, bMade] = sidePlace(b, depth);
  return aSet - bSet || aMade - bMade;
}
