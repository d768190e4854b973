// The native codecs (snappy, lz4, zstd) are loaded by the first batch the broker itself has to
// decompress or compress (a topic's compression.type, down-conversion, compaction): until then the
// broker never maps them (about 8 MB of an idle broker's RSS, measured with bench/startup.ts).
// Checked on the broker process's own memory map, and on the batches stored.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTopic } from '../../bench/loadgen.js';
import { CompressionType } from '../../protocol/records/batch-header.js';
import { brokerForFile } from '../helpers/broker-process.js';
import { batchesOnDisk } from '../helpers/disk-batches.js';
import { kcat } from '../helpers/kcat.js';

const broker = brokerForFile({ overrides: ['num.partitions=1', 'auto.create.topics.enable=true'] });

/** Which native codec addons the broker process has mapped. */
function codecsMapped(): string[] {
  const maps = readFileSync(`/proc/${broker().child.pid}/maps`, 'utf8');
  return ['snappy', 'lz4-napi', 'node-zstd'].filter((name) => maps.includes(`/${name}.`) || maps.includes(`/${name}-`));
}

async function produce(topic: string, codec: string): Promise<void> {
  const lines = Array.from({ length: 50 }, (_, i) => `${codec}-${i}-${'x'.repeat(200)}`).join('\n') + '\n';
  const res = await kcat(['-b', broker().bootstrap, '-P', '-t', topic, '-z', codec], lines);
  expect(res.code, res.stderr).toBe(0);
}

describe('native codecs on first use', () => {
  it('are not mapped until a batch is recompressed; then the two it needs are, and the batch is stored recompressed', async () => {
    await produce('lazy-none', 'none');
    // A compressed batch stored as the client sent it is not decompressed by the broker either.
    await produce('lazy-snappy', 'snappy');
    expect(batchesOnDisk(broker().dataDir, 'lazy-snappy').map((b) => b.compression)).toContain(CompressionType.Snappy);
    expect(codecsMapped()).toEqual([]);

    await createTopic(broker().bootstrap, 'lazy-zstd', 1, { 'compression.type': 'zstd' });
    await produce('lazy-zstd', 'snappy');
    expect(codecsMapped()).toEqual(['snappy', 'node-zstd']);
    const stored = batchesOnDisk(broker().dataDir, 'lazy-zstd');
    expect(stored.map((b) => b.compression)).toEqual(stored.map(() => CompressionType.Zstd));
    const consumed = await kcat(['-b', broker().bootstrap, '-C', '-t', 'lazy-zstd', '-e', '-q']);
    expect(consumed.stdout.split('\n').filter(Boolean)).toEqual(Array.from({ length: 50 }, (_, i) => `snappy-${i}-${'x'.repeat(200)}`));
  });
});
