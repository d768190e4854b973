// Issue 13 part 1: every client in the suite, with every codec it has, gets the batches it asked for
// stored with that codec. A round trip alone proves nothing here: librdkafka used to fall back to no
// compression, silently, for gzip, snappy and lz4 while ApiVersions did not list Produce v0 (its
// issue 4956, Kafka's KAFKA-18659). The .log files are read directly.
import { Producer, stringSerializers } from '@platformatic/kafka';
import { CompressionTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompressionType } from '../../protocol/records/batch-header.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { batchesOnDisk, compressibleValue } from '../helpers/disk-batches.js';
import { kcat } from '../helpers/kcat.js';

let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['num.partitions=1', 'auto.create.topics.enable=true'] });
});

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

const CODECS = { none: CompressionType.None, gzip: CompressionType.Gzip, snappy: CompressionType.Snappy, lz4: CompressionType.Lz4, zstd: CompressionType.Zstd } as const;
type Codec = keyof typeof CODECS;
const COUNT = 200;

/** kcat's legacy mode: no ApiVersions, Metadata v0, Produce v1 with message format v0, Fetch v1. */
const LEGACY = ['-X', 'api.version.request=false', '-X', 'broker.version.fallback=0.9.0.1'];

function lines(prefix: string): string {
  return Array.from({ length: COUNT }, (_, i) => `${prefix}-${i}:${compressibleValue(i)}`).join('\n') + '\n';
}

function expected(prefix: string): string[] {
  return Array.from({ length: COUNT }, (_, i) => `${prefix}-${i}:${compressibleValue(i)}`);
}

function expectStoredWith(topic: string, codec: CompressionType): void {
  const stored = batchesOnDisk(broker.dataDir, topic);
  expect(stored.reduce((n, b) => n + b.records, 0)).toBe(COUNT);
  expect(stored.map((b) => CompressionType[b.compression])).toEqual(stored.map(() => CompressionType[codec]));
  expect(stored.every((b) => b.magic === 2)).toBe(true);
}

async function kcatConsume(topic: string, extra: string[] = []): Promise<string[]> {
  const res = await kcat(['-b', broker.bootstrap, '-C', '-t', topic, '-e', '-q', '-f', '%k:%s\\n', ...extra]);
  expect(res.code, res.stderr).toBe(0);
  return res.stdout.split('\n').filter((l) => l.length > 0);
}

describe('the codec a client asks for is the codec on disk', () => {
  for (const codec of Object.keys(CODECS) as Codec[]) {
    it(`kcat (librdkafka) with ${codec}`, async () => {
      const topic = `disk-kcat-${codec}`;
      const res = await kcat(['-b', broker.bootstrap, '-P', '-t', topic, '-K', ':', '-z', codec], lines('k'));
      expect(res.code, res.stderr).toBe(0);
      expectStoredWith(topic, CODECS[codec]);
      expect(await kcatConsume(topic)).toEqual(expected('k'));
    });
  }

  // Message format v0 has no zstd: librdkafka sends those batches uncompressed (checked below).
  for (const codec of ['none', 'gzip', 'snappy', 'lz4'] as const) {
    it(`kcat legacy mode (Produce v1, message format v0; Fetch v1) with ${codec}`, async () => {
      const topic = `disk-kcat-legacy-${codec}`;
      const res = await kcat(['-b', broker.bootstrap, '-P', '-t', topic, '-K', ':', '-z', codec, ...LEGACY], lines('L'));
      expect(res.code, res.stderr).toBe(0);
      expectStoredWith(topic, CODECS[codec]);
      expect(await kcatConsume(topic, LEGACY)).toEqual(expected('L'));
    });
  }

  it('kcat legacy mode with zstd: librdkafka cannot use it below message format v2 and sends no compression', async () => {
    const topic = 'disk-kcat-legacy-zstd';
    const res = await kcat(['-b', broker.bootstrap, '-P', '-t', topic, '-K', ':', '-z', 'zstd', ...LEGACY], lines('Z'));
    expect(res.code, res.stderr).toBe(0);
    expectStoredWith(topic, CompressionType.None);
    expect(await kcatConsume(topic, LEGACY)).toEqual(expected('Z'));
  });

  // kafkajs ships gzip only; snappy, lz4 and zstd need codec packages this suite does not install.
  for (const [codec, type] of [['none', CompressionTypes.None], ['gzip', CompressionTypes.GZIP]] as const) {
    it(`kafkajs with ${codec}`, async () => {
      const topic = `disk-kafkajs-${codec}`;
      const producer = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).producer({ allowAutoTopicCreation: true });
      await producer.connect();
      for (let b = 0; b < 4; b++) {
        await producer.send({ topic, compression: type, messages: Array.from({ length: COUNT / 4 }, (_, i) => ({ key: `j${b}`, value: compressibleValue(b * 50 + i) })) });
      }
      await producer.disconnect();
      expectStoredWith(topic, CODECS[codec]);
    });
  }

  // Its zstd is node:zlib's (Node 22.15+, every tested line).
  for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const) {
    it(`@platformatic/kafka with ${codec}`, async () => {
      const topic = `disk-platformatic-${codec}`;
      const producer = new Producer({ clientId: 'disk', bootstrapBrokers: [broker.bootstrap], serializers: stringSerializers, autocreateTopics: true });
      for (let b = 0; b < 4; b++) {
        await producer.send({ compression: codec, messages: Array.from({ length: COUNT / 4 }, (_, i) => ({ topic, key: `p${b}`, value: compressibleValue(b * 50 + i) })) });
      }
      await producer.close();
      expectStoredWith(topic, CODECS[codec]);
    });
  }
});
