// Counters kept as plain numbers by whoever counts, handed to prom-client only when scraped.
import { Counter, type Registry } from 'prom-client';

/** A prom-client Counter whose series are read from `series` at each scrape, and only then; a series still at 0 is left out, as prom-client leaves out one never incremented. */
export function scrapedCounter<L extends string>(
  name: string, help: string, labelNames: L[], registers: Registry[], series: () => Array<{ labels: Record<L, string>; value: number }>,
): void {
  const collect = function (this: Counter<L>): void {
    this.reset();
    for (const { labels, value } of series()) if (value > 0) this.labels(labels).inc(value);
  };
  new Counter({ name, help, labelNames, registers, collect });
}
