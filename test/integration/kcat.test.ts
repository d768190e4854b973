// librdkafka (kcat) against the real broker process: metadata, produce with every codec, consume, seek.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { kcat } from '../helpers/kcat.js';

let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['num.partitions=1'] });
});

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

function records(n: number, prefix: string): string {
  return Array.from({ length: n }, (_, i) => `key-${i}:${prefix}-${i}`).join('\n') + '\n';
}

async function consumeAll(topic: string, extra: string[] = []): Promise<string[]> {
  const res = await kcat(['-b', broker.bootstrap, '-C', '-t', topic, '-e', '-q', '-f', '%k=%s\\n', ...extra]);
  expect(res.code, res.stderr).toBe(0);
  return res.stdout.split('\n').filter((l) => l.length > 0);
}

describe('kcat', () => {
  it('lists metadata with this broker as leader', async () => {
    const res = await kcat(['-b', broker.bootstrap, '-L', '-J']);
    expect(res.code, res.stderr).toBe(0);
    const meta = JSON.parse(res.stdout);
    expect(meta.brokers).toEqual([{ id: 1, name: `127.0.0.1:${broker.port}` }]);
  });

  for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd']) {
    it(`produces 10,000 keyed records with ${codec} and consumes them back in order`, async () => {
      const topic = `kcat-${codec}`;
      const produced = await kcat(
        ['-b', broker.bootstrap, '-P', '-t', topic, '-K', ':', '-z', codec, '-X', 'enable.idempotence=true'],
        records(10_000, codec),
      );
      expect(produced.code, produced.stderr).toBe(0);
      const consumed = await consumeAll(topic);
      expect(consumed).toHaveLength(10_000);
      expect(consumed[0]).toBe(`key-0=${codec}-0`);
      expect(consumed[9_999]).toBe(`key-9999=${codec}-9999`);
      expect(consumed.every((line, i) => line === `key-${i}=${codec}-${i}`)).toBe(true);
    });
  }

  it('carries headers', async () => {
    const produced = await kcat(['-b', broker.bootstrap, '-P', '-t', 'kcat-headers', '-H', 'h1=v1', '-H', 'h2=v2'], 'with-headers\n');
    expect(produced.code, produced.stderr).toBe(0);
    const res = await kcat(['-b', broker.bootstrap, '-C', '-t', 'kcat-headers', '-e', '-q', '-f', '%h|%s\\n']);
    expect(res.stdout.trim()).toBe('h1=v1,h2=v2|with-headers');
  });

  it('seeks by offset, from the end, and by timestamp', async () => {
    const topic = 'kcat-seek';
    const first = await kcat(['-b', broker.bootstrap, '-P', '-t', topic, '-K', ':'], records(100, 'early'));
    expect(first.code, first.stderr).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
    const boundary = Date.now();
    await new Promise((r) => setTimeout(r, 50));
    const second = await kcat(['-b', broker.bootstrap, '-P', '-t', topic, '-K', ':'], records(100, 'late'));
    expect(second.code, second.stderr).toBe(0);

    expect((await consumeAll(topic, ['-o', '150']))[0]).toBe('key-50=late-50');
    const lastTwo = await consumeAll(topic, ['-o', '-2']);
    expect(lastTwo).toEqual(['key-98=late-98', 'key-99=late-99']);
    const fromTime = await consumeAll(topic, ['-o', `s@${boundary}`]);
    expect(fromTime).toHaveLength(100);
    expect(fromTime[0]).toBe('key-0=late-0');
  });

  it('reports unknown partitions and auto-creates topics on first use', async () => {
    const res = await kcat(['-b', broker.bootstrap, '-L', '-J', '-t', 'auto-created']);
    expect(res.code, res.stderr).toBe(0);
    const meta = JSON.parse(res.stdout);
    expect(meta.topics[0].topic).toBe('auto-created');
    expect(meta.topics[0].partitions).toHaveLength(1);
  });
});

describe('kcat over IPv6', () => {
  it('produces and consumes on [::1]', async () => {
    const v6 = await startBroker({ host: '::1' });
    try {
      const produced = await kcat(['-b', v6.bootstrap, '-P', '-t', 'v6'], 'over-ipv6\n');
      expect(produced.code, produced.stderr).toBe(0);
      const res = await kcat(['-b', v6.bootstrap, '-C', '-t', 'v6', '-e', '-q']);
      expect(res.stdout.trim()).toBe('over-ipv6');
    } finally {
      await v6.stop();
      v6.cleanup();
    }
  });
});

describe('kcat with listeners on localhost', () => {
  it('binds both loopback addresses, so clients resolving localhost to ::1 or 127.0.0.1 both connect', async () => {
    const local = await startBroker({ host: 'localhost' });
    try {
      for (const address of ['127.0.0.1', '[::1]', 'localhost']) {
        const res = await kcat(['-b', `${address}:${local.port}`, '-L', '-J']);
        expect(res.code, `${address}: ${res.stderr}`).toBe(0);
        expect(JSON.parse(res.stdout).brokers[0].name).toBe(`localhost:${local.port}`);
      }
    } finally {
      await local.stop();
      local.cleanup();
    }
  });
});
