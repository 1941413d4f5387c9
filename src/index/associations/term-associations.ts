// Which words this vault uses together. A question says "uncommitted edits", the note that answers
// it says "unstaged changes": no synonym list knows that, but this vault does: its notes that use
// "uncommitted" also use "unstaged", "stash" and "changes" far more often than chance. Learned from
// the notes alone, at index time, and kept current note by note (adding and removing a note is
// exact: it only moves counts), so it never needs a rebuild.
//
// Words count as used together when they stand in the same passage: a few lines of one section
// under its heading (passages.ts), not merely the same note: a long changelog holds every word.
// Data: each passage's distinct index terms (as numbers, a typed array) and each term's passages.
// An association is measured when asked, from the passages that hold the word: how many of them
// also hold the other word, against how many hold each (Ochiai: together / √(n(a) × n(b))).
// Answers are remembered until the vault changes.
import { isTopicTerm } from "../stopwords";

export interface Associate {
  /** The associated index term. */
  term: string;
  /** Ochiai coefficient, 0–1: 1 when the two words always come together. */
  strength: number;
  /** Passages that hold both words. */
  together: number;
}

export interface AssociationLimits {
  /** Associates returned per word, strongest first. */
  perWord: number;
  /** A pair seen together in fewer passages than this is chance. */
  minTogether: number;
  minStrength: number;
  /** A word in more passages than this says little about a topic (and is slow to measure). */
  maxNotes: number;
  /** An associate in more than this share of all passages is too general to stand in for a word. */
  maxAssociateShare: number;
}

export const DEFAULT_ASSOCIATION_LIMITS: AssociationLimits = { perWord: 3, minTogether: 3, minStrength: 0.1, maxNotes: 1500, maxAssociateShare: 0.05 };

export class TermAssociations {
  private readonly termIds = new Map<string, number>();
  private readonly termNames: string[] = [];
  /** Per term, the numbers of the passages that hold it (unordered). */
  private readonly termPassages: number[][] = [];
  /** Per note path, the numbers of its passages. */
  private readonly notePassages = new Map<string, number[]>();
  private readonly freePassages: number[] = [];
  /** Per passage number, its distinct topic terms. */
  private readonly passageTerms: (Uint32Array | undefined)[] = [];
  private passageCount = 0;
  private readonly remembered = new Map<string, Associate[]>();
  private scratch = new Int32Array(0);

  get noteCount(): number {
    return this.notePassages.size;
  }

  /** How many passages hold `term`. */
  passagesWith(term: string): number {
    const id = this.termIds.get(term);
    return id === undefined ? 0 : this.termPassages[id].length;
  }

  /** Records (or replaces) a note's passages, each the index terms of a few lines. */
  setNote(path: string, passages: Iterable<Iterable<string>>): void {
    this.removeNote(path);
    const numbers: number[] = [];
    for (const terms of passages) {
      const ids = new Set<number>();
      for (const term of terms) if (isTopicTerm(term)) ids.add(this.idOf(term));
      if (ids.size < 2) continue;
      const passage = this.freePassages.pop() ?? this.passageTerms.length;
      const list = Uint32Array.from(ids);
      this.passageTerms[passage] = list;
      for (const id of list) this.termPassages[id].push(passage);
      numbers.push(passage);
    }
    this.notePassages.set(path, numbers);
    this.passageCount += numbers.length;
    this.remembered.clear();
  }

  removeNote(path: string): void {
    const numbers = this.notePassages.get(path);
    if (numbers === undefined) return;
    for (const passage of numbers) {
      for (const id of this.passageTerms[passage] ?? []) {
        const list = this.termPassages[id];
        const at = list.lastIndexOf(passage);
        if (at !== -1) {
          list[at] = list[list.length - 1];
          list.pop();
        }
      }
      this.passageTerms[passage] = undefined;
      this.freePassages.push(passage);
    }
    this.passageCount -= numbers.length;
    this.notePassages.delete(path);
    this.remembered.clear();
  }

  clear(): void {
    this.termIds.clear();
    this.termNames.length = 0;
    this.termPassages.length = 0;
    this.notePassages.clear();
    this.freePassages.length = 0;
    this.passageTerms.length = 0;
    this.passageCount = 0;
    this.remembered.clear();
  }

  /** The words this vault uses with `term`, strongest first (none for a word it barely or too often uses). */
  associatesOf(term: string, limits: AssociationLimits = DEFAULT_ASSOCIATION_LIMITS): Associate[] {
    const key = `${term}\u0000${limits.perWord},${limits.minTogether},${limits.minStrength},${limits.maxNotes},${limits.maxAssociateShare}`;
    const known = this.remembered.get(key);
    if (known) return known;
    const found = this.measure(term, limits);
    this.remembered.set(key, found);
    return found;
  }

  private idOf(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.termNames.length;
      this.termIds.set(term, id);
      this.termNames.push(term);
      this.termPassages.push([]);
    }
    return id;
  }

  private measure(term: string, limits: AssociationLimits): Associate[] {
    const id = this.termIds.get(term);
    if (id === undefined) return [];
    const passages = this.termPassages[id];
    if (passages.length < limits.minTogether || passages.length > limits.maxNotes) return [];
    if (this.scratch.length < this.termNames.length) this.scratch = new Int32Array(Math.max(1024, this.termNames.length * 2));
    const counts = this.scratch;
    const touched: number[] = [];
    for (const passage of passages) {
      for (const other of this.passageTerms[passage] ?? []) {
        if (counts[other]++ === 0) touched.push(other);
      }
    }
    const tooCommon = Math.max(limits.maxNotes, this.passageCount * limits.maxAssociateShare);
    const found: Associate[] = [];
    for (const other of touched) {
      const together = counts[other];
      counts[other] = 0;
      if (other === id || together < limits.minTogether) continue;
      const otherPassages = this.termPassages[other].length;
      if (otherPassages > tooCommon) continue;
      const strength = together / Math.sqrt(passages.length * otherPassages);
      if (strength >= limits.minStrength) found.push({ term: this.termNames[other], strength, together });
    }
    return found.sort((a, b) => b.strength - a.strength || a.term.localeCompare(b.term)).slice(0, limits.perWord);
  }
}
