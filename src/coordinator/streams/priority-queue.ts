// A binary heap that orders equal elements as java.util.PriorityQueue does (siftUp moves an element only above a
// strictly greater parent, siftDown prefers the left child on a tie), so an assignor ported from Kafka picks the
// same member or process among equally loaded ones as Kafka's does.
export class PriorityQueue<T> {
  private readonly heap: T[] = [];

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.heap.length;
  }

  add(item: T): void {
    let k = this.heap.length;
    this.heap.push(item);
    while (k > 0) {
      const parent = (k - 1) >>> 1;
      if (this.compare(item, this.heap[parent]!) >= 0) break;
      this.heap[k] = this.heap[parent]!;
      k = parent;
    }
    this.heap[k] = item;
  }

  poll(): T | undefined {
    const result = this.heap[0];
    const last = this.heap.pop();
    if (this.heap.length === 0 || last === undefined) return result;
    let k = 0;
    const half = this.heap.length >>> 1;
    while (k < half) {
      let child = 2 * k + 1;
      const right = child + 1;
      if (right < this.heap.length && this.compare(this.heap[child]!, this.heap[right]!) > 0) child = right;
      if (this.compare(last, this.heap[child]!) <= 0) break;
      this.heap[k] = this.heap[child]!;
      k = child;
    }
    this.heap[k] = last;
    return result;
  }
}
