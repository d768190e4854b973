// The short CI run of bench/fuzz-live.ts: 2,000 mutated frames against the real broker process.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { brokerStillServes, FUZZ_TOPIC, fuzzLive, MUTATIONS } from '../../bench/fuzz-live.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { connectWithRetry, createTopic, memoryOf } from './support.js';

let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['auto.create.topics.enable=false'] });
  const client = await connectWithRetry(broker.port);
  await createTopic(client, FUZZ_TOPIC, 1);
  client.close();
});

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

it('survives 2,000 mutated frames and still answers ApiVersions and Metadata', async () => {
  for (const seed of [11, 12]) {
    const stats = await fuzzLive({ port: broker.port, frames: 1000, seed, concurrency: 8 });
    expect(stats.frames).toBe(1000);
    expect(Object.keys(stats.byMutation)).toEqual(expect.arrayContaining([...MUTATIONS, 'valid']));
    expect(broker.child.exitCode).toBeNull();
    expect(await brokerStillServes(broker.port)).toBe(true);
    const mem = memoryOf(broker.child.pid!);
    console.log(`[fuzz-live] seed ${seed}: ${stats.frames} frames, ${stats.connections} connections, ${stats.responses} responses, ${stats.cutShort} cut short; broker RSS ${mem.rssMiB} MiB, peak ${mem.hwmMiB} MiB`);
  }
  // Malformed input closes connections; it never makes a handler fail.
  expect(broker.logs.filter((l) => (l.level as number) >= 50)).toEqual([]);
});
