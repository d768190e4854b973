// librdkafka's balanced consumer (kcat -G) against the real broker process: JoinGroup/SyncGroup,
// offset commits on close, and a second run of the same group continuing where the first stopped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { kcat } from '../helpers/kcat.js';

let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['num.partitions=3', 'group.initial.rebalance.delay.ms=0'] });
});

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

async function produce(topic: string, values: string[]): Promise<void> {
  const res = await kcat(['-b', broker.bootstrap, '-P', '-t', topic], values.join('\n') + '\n');
  expect(res.code, res.stderr).toBe(0);
}

/** One kcat -G run until the end of every assigned partition; offsets are committed on close. */
async function consumeAsGroup(group: string, topic: string): Promise<string[]> {
  const res = await kcat(['-b', broker.bootstrap, '-G', group, '-X', 'auto.offset.reset=earliest', '-e', '-q', '-f', '%s\\n', topic]);
  expect(res.code, res.stderr).toBe(0);
  return res.stdout.split('\n').filter((l) => l.length > 0);
}

describe('consumer groups (kcat -G)', () => {
  it('consumes every record once per group, resuming from the committed offsets', async () => {
    const topic = 'kcat-group';
    const first = Array.from({ length: 30 }, (_, i) => `a${i}`);
    await produce(topic, first);
    expect((await consumeAsGroup('kcat-g', topic)).sort()).toEqual([...first].sort());

    await produce(topic, ['b0', 'b1', 'b2']);
    expect((await consumeAsGroup('kcat-g', topic)).sort()).toEqual(['b0', 'b1', 'b2']);
    // Another group starts from the beginning on its own.
    expect(await consumeAsGroup('kcat-other', topic)).toHaveLength(33);
  });
});
