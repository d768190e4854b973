// BucketHistogram is exposed line for line as prom-client's Histogram: the same observations through both,
// each in its own registry, give the same /metrics text.
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BucketHistogram } from '../../src/admin/bucket-histogram.js';

const BOUNDS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function pair(labelName: string | null): { theirs: Registry; ours: Registry; observe(label: string, value: number): void } {
  const theirs = new Registry();
  const ours = new Registry();
  const reference = new Histogram({ name: 'h_seconds', help: 'A histogram.', labelNames: labelName ? [labelName] : [], buckets: BOUNDS, registers: [theirs] });
  const fast = new BucketHistogram('h_seconds', 'A histogram.', labelName, BOUNDS, ours);
  return {
    theirs,
    ours,
    observe(label, value) {
      if (labelName) {
        reference.labels(label).observe(value);
        fast.labels(label).observe(value);
      } else {
        reference.observe(value);
        fast.observe(value);
      }
    },
  };
}

describe('BucketHistogram', () => {
  it("gives prom-client's text for labelled series: bounds hit exactly, values above the last, zero, in first-use order", async () => {
    const { theirs, ours, observe } = pair('api');
    expect(await ours.metrics()).toBe(await theirs.metrics());
    let seed = 1;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let i = 0; i < 5000; i++) observe(['Produce', 'Fetch', 'Metadata'][i % 3]!, random() ** 4 * 40);
    for (const v of [...BOUNDS, 0, 31, 1e-9]) observe('ApiVersions', v);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('h_seconds_bucket{le="0.00005",api="Produce"}');
  });

  it('gives the unlabelled series at zero before any value, then as prom-client', async () => {
    const { theirs, ours, observe } = pair(null);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('h_seconds_count 0');
    for (const v of [0.0003, 0.02, 7, 45]) observe('', v);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
