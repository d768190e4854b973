// librdkafka's share consumer (KIP-932, a preview since librdkafka 2.15), as confluent-kafka's ShareConsumer from
// PyPI bundles it (test/clients/python/requirements.txt pins it; test/clients/python/share_consumer.py): two
// consumers of one share group work through a topic of two partitions with explicit acknowledgement. Each record
// ends accepted once or rejected, none comes again after that, a released one comes back with a higher delivery
// count, and the share group's start offsets end at the partitions' ends.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { brokerForFile } from '../helpers/broker-process.js';
import { CLIENTS_DIR, CLIENTS_VENV, pythonPins } from '../helpers/current-clients.js';
import { runJsonClient } from '../helpers/json-client.js';
import { prepareShareTopic, shareStartOffsets } from '../helpers/share-consumers.js';

const PYTHON = join(CLIENTS_VENV, 'bin', 'python');
const N = 200;
const broker = brokerForFile();

it(`confluent-kafka ${pythonPins().get('confluent-kafka')} ShareConsumers: each record accepted once or rejected, released ones redelivered`, async () => {
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: run bash test/clients/install.sh`);
  await prepareShareTopic(broker().port, 'rdk-share', 'rdk-share', N, { partitions: 2 });
  const result = await runJsonClient(PYTHON, [join(CLIENTS_DIR, 'python', 'share_consumer.py'), broker().bootstrap, 'work', 'rdk-share', 'rdk-share', String(N)]);
  const events = result.events as Array<['recv', number, number, number, number] | ['ack', number, number, number, string]>;
  // No record delivered after its ACCEPT or REJECT was confirmed, none decided twice; REJECT exactly for v % 10 == 7
  // (a record's offset % 10 is its value's, prepareShareTopic's layout).
  const finished = new Map<string, string>();
  for (const [kind, , partition, offset, what] of events) {
    const key = `${partition}:${offset}`;
    if (kind === 'recv') expect(finished.has(key), `${key} delivered after ${finished.get(key)}`).toBe(false);
    else if (what !== 'RELEASE') {
      expect(finished.has(key), `${key} decided twice`).toBe(false);
      finished.set(key, String(what));
    }
  }
  expect(finished.size).toBe(N);
  for (const [key, ack] of finished) expect(ack === 'REJECT', key).toBe(Number(key.split(':')[1]) % 10 === 7);
  // Every released record came back with delivery count 2 and was then accepted.
  const released = events.filter((e) => e[0] === 'ack' && e[4] === 'RELEASE').map((e) => `${e[2]}:${e[3]}`);
  expect(released.length).toBe(N / 10);
  for (const key of released) {
    expect(events.some((e) => e[0] === 'recv' && `${e[2]}:${e[3]}` === key && e[4] === 2), `${key} redelivered`).toBe(true);
    expect(finished.get(key)).toBe('ACCEPT');
  }
  expect(await shareStartOffsets(broker().port, 'rdk-share', 'rdk-share', 2)).toEqual([N / 2, N / 2]);
  const byConsumer = [0, 1].map((c) => events.filter((e) => e[0] === 'recv' && e[1] === c).length);
  console.log(`librdkafka ${result.librdkafka} share consumers: ${finished.size} decided, deliveries per consumer ${byConsumer.join(' / ')}`);
}, 120_000);
