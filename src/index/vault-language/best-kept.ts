// The best few of many items offered one at a time (the notes nearest a question, the passages of
// smallest key), without keeping the rest. Until `limit` are kept they are kept as they come; then
// they become a heap with the worst kept on top, so an item no better than it goes by at once, and
// a better one takes its place in log(limit) steps.

export class BestKept<T> {
  private readonly heap: T[] = [];

  /** `order(a, b)` is below 0 when a is the better (as a sort's comparator, best first). */
  constructor(
    private readonly limit: number,
    private readonly order: (a: T, b: T) => number,
  ) {}

  /** The worst item kept once `limit` are kept (the one the next better item replaces); undefined before. */
  worst(): T | undefined {
    return this.heap.length >= this.limit ? this.heap[0] : undefined;
  }

  offer(item: T): void {
    const heap = this.heap;
    if (heap.length < this.limit) {
      heap.push(item);
      // Full now: made a heap once, in linear time.
      if (heap.length === this.limit) for (let i = (heap.length >> 1) - 1; i >= 0; i--) this.down(i);
    } else if (this.limit > 0 && this.order(item, heap[0]) < 0) {
      heap[0] = item;
      this.down(0);
    }
  }

  /** The items kept: in the order offered while fewer than `limit` came, in no particular order after. */
  items(): T[] {
    return [...this.heap];
  }

  private down(i: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && this.order(heap[left], heap[worst]) > 0) worst = left;
      if (right < heap.length && this.order(heap[right], heap[worst]) > 0) worst = right;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst], heap[i]];
      i = worst;
    }
  }
}
