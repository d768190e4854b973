// The last 15 minutes of produce and fetch traffic, per second, for the console's overview charts. Kept as
// ring buffers advanced lazily by the events themselves, so an idle broker runs no timer for it.
const SECONDS = 15 * 60;

export interface TrafficSeries {
  /** Unix seconds of the first slot; slot i covers second start + i. */
  start: number;
  produceBytes: number[];
  fetchBytes: number[];
  produceRequests: number[];
  fetchRequests: number[];
}

type SeriesName = Exclude<keyof TrafficSeries, 'start'>;
const SERIES: SeriesName[] = ['produceBytes', 'fetchBytes', 'produceRequests', 'fetchRequests'];

export class TrafficHistory {
  private readonly rings = new Map<SeriesName, Float64Array>(SERIES.map((s) => [s, new Float64Array(SECONDS)]));
  /** The second the newest slot belongs to. */
  private head: number;

  constructor(private readonly now: () => number = Date.now) {
    this.head = Math.floor(now() / 1000);
  }

  add(series: SeriesName, amount: number): void {
    const second = this.advance();
    this.rings.get(series)![second % SECONDS] += amount;
  }

  /** The whole window, oldest first, ending at the current second. */
  snapshot(): TrafficSeries {
    const head = this.advance();
    const start = head - SECONDS + 1;
    const out = { start } as TrafficSeries;
    for (const name of SERIES) {
      const ring = this.rings.get(name)!;
      const values = new Array<number>(SECONDS);
      for (let i = 0; i < SECONDS; i++) values[i] = ring[(start + i) % SECONDS];
      out[name] = values;
    }
    return out;
  }

  /** Zeroes the slots of the seconds that passed without events. */
  private advance(): number {
    const second = Math.floor(this.now() / 1000);
    if (second > this.head) {
      const gap = Math.min(second - this.head, SECONDS);
      for (const ring of this.rings.values()) for (let s = second - gap + 1; s <= second; s++) ring[s % SECONDS] = 0;
      this.head = second;
    }
    return this.head;
  }
}
