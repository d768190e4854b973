// CreateTopics' timeoutMs as Kafka 4.4 treats it (compared with a Kafka 4.4 node over the wire): <= 0 fails the
// whole request with REQUEST_TIMED_OUT and creates nothing; otherwise a creation still queued behind others
// when the time is up is not begun (REQUEST_TIMED_OUT), while those begun in time complete.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiKey } from '../../protocol/generated/index.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { brokerForFile } from '../helpers/broker-process.js';

const REQUEST_TIMED_OUT = 7;
const broker = brokerForFile();
let client: WireClient;

beforeAll(async () => {
  client = await WireClient.connect(broker().port);
});

afterAll(() => client?.close());

const topic = (name: string, numPartitions = 1) => ({ name, numPartitions, replicationFactor: -1, assignments: [], configs: [] });

function createTopics(topics: ReturnType<typeof topic>[], timeoutMs: number, validateOnly = false, via = client) {
  return via.send(ApiKey.CreateTopics, 7, { topics, timeoutMs, validateOnly }).then((r: any) => r.topics as any[]);
}

async function listedTopics(): Promise<Map<string, number>> {
  const res = await client.send(ApiKey.Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  return new Map(res.topics.map((t: any) => [t.name, t.partitions.length]));
}

it('answers REQUEST_TIMED_OUT for every topic at timeoutMs <= 0 and creates none, valid, invalid, duplicate or validateOnly', async () => {
  for (const timeoutMs of [0, -1]) {
    for (const validateOnly of [false, true]) {
      const topics = await createTopics([topic('now', 3), topic('bad name!'), topic('dup'), topic('dup'), topic('no-partitions', 0)], timeoutMs, validateOnly);
      expect(topics.map((t) => [t.name, t.errorCode, t.errorMessage])).toEqual([
        ['now', REQUEST_TIMED_OUT, null], ['bad name!', REQUEST_TIMED_OUT, null], ['dup', REQUEST_TIMED_OUT, null],
        ['dup', REQUEST_TIMED_OUT, null], ['no-partitions', REQUEST_TIMED_OUT, null],
      ]);
    }
  }
  const listed = await listedTopics();
  expect(listed.has('now')).toBe(false);
  expect(listed.has('dup')).toBe(false);
  // With time to do it the same topic is created: nothing of it was left behind.
  expect((await createTopics([topic('now', 3)], 30_000))[0]).toMatchObject({ errorCode: 0, numPartitions: 3 });
  expect((await listedTopics()).get('now')).toBe(3);
});

it('does not begin a creation still queued when its timeoutMs is up; one begun in time completes', async () => {
  // Pipelined on one connection, so the 1 ms request is dispatched second and waits behind the 200-partition one.
  const second = await WireClient.connect(broker().port);
  try {
    const [big, late] = await Promise.all([createTopics([topic('big', 200)], 60_000, false, second), createTopics([topic('late')], 1, false, second)]);
    expect(big[0]).toMatchObject({ name: 'big', errorCode: 0, numPartitions: 200 });
    expect(late[0]).toMatchObject({ name: 'late', errorCode: REQUEST_TIMED_OUT, errorMessage: null });
  } finally {
    second.close();
  }
  const listed = await listedTopics();
  expect(listed.get('big')).toBe(200);
  expect(listed.has('late')).toBe(false);
  expect((await createTopics([topic('late')], 30_000))[0]).toMatchObject({ errorCode: 0 });
});
