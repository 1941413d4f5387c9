// The k best of a stream of scores without sorting the stream: a min-heap of size k whose root is
// the worst kept score, so each new score costs one comparison unless it beats that root.

export class TopK<T> {
  private readonly scores: number[] = [];
  private readonly items: T[] = [];

  constructor(private readonly k: number) {}

  /** The score a newcomer must beat to be kept (−Infinity until k items are held). */
  get threshold(): number {
    return this.scores.length < this.k ? -Infinity : this.scores[0];
  }

  push(score: number, item: T): void {
    if (this.k <= 0) return;
    if (this.scores.length < this.k) {
      this.scores.push(score);
      this.items.push(item);
      this.siftUp(this.scores.length - 1);
    } else if (score > this.scores[0]) {
      this.scores[0] = score;
      this.items[0] = item;
      this.siftDown(0);
    }
  }

  /** Best first; ties keep no particular order. */
  sorted(): { score: number; item: T }[] {
    return this.scores.map((score, i) => ({ score, item: this.items[i] })).sort((a, b) => b.score - a.score);
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.scores[parent] <= this.scores[i]) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const n = this.scores.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.scores[left] < this.scores[smallest]) smallest = left;
      if (right < n && this.scores[right] < this.scores[smallest]) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  private swap(a: number, b: number): void {
    [this.scores[a], this.scores[b]] = [this.scores[b], this.scores[a]];
    [this.items[a], this.items[b]] = [this.items[b], this.items[a]];
  }
}
