// Compress/decompress throughput of each record codec candidate on ~1 MB of realistic records
// (JSON order events with keys and headers, encoded as a v2 batch's records section).
//
//   npx tsc -p . && node dist/bench/codecs.js
//
// The rows "kafkite" measure protocol/records/compression.ts (the chosen packages plus Kafka's
// framing and the size-bound walk). Other candidates are loaded if installed; to compare packages
// that are not project dependencies, install them in a scratch folder and point
// CODEC_CANDIDATES_DIR at it, e.g.
//   (mkdir /tmp/cand && cd /tmp/cand && npm init -y && npm i snappyjs lz4js @bokuweb/zstd-wasm \
//     @hpcc-js/wasm-zstd fzstd zstd-codec)
//   CODEC_CANDIDATES_DIR=/tmp/cand node dist/bench/codecs.js
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { BATCH_HEADER_SIZE, CompressionType } from '../protocol/records/batch-header.js';
import { compress, decompress } from '../protocol/records/compression.js';
import { type KafkaRecord, encodeBatch } from '../protocol/records/record-batch.js';

type Codec = (data: Buffer) => Uint8Array;

interface Candidate {
  codec: string;
  name: string;
  /** Returns null when the package is not installed. */
  load(): Promise<{ compress: Codec; decompress: Codec } | null>;
}

const TARGET_BYTES = 1_000_000;
const ROUNDS = 5;
const ROUND_SECONDS = 0.2;

function realisticRecords(): Buffer {
  const statuses = ['created', 'paid', 'shipped', 'delivered', 'cancelled'];
  const products = ['keyboard', 'monitor', 'laptop stand', 'usb-c cable', 'headphones', 'webcam'];
  let seed = 42;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const records: KafkaRecord[] = [];
  let size = 0;
  for (let i = 0; size < TARGET_BYTES; i++) {
    const customer = `customer-${random(5000)}`;
    const value = Buffer.from(JSON.stringify({
      orderId: `ord-${1_000_000 + i}`,
      customerId: customer,
      status: statuses[random(statuses.length)],
      items: Array.from({ length: 1 + random(3) }, () => ({
        sku: `SKU-${random(100000)}`,
        name: products[random(products.length)],
        quantity: 1 + random(4),
        priceCents: 199 + random(50000),
      })),
      createdAt: new Date(1_700_000_000_000 + i * 137).toISOString(),
    }));
    const traceId = Buffer.from(random(2 ** 30).toString(16).padStart(16, '0'));
    records.push({
      offset: i,
      timestamp: 1_700_000_000_000 + i * 137,
      key: Buffer.from(customer),
      value,
      headers: [{ key: 'trace-id', value: traceId }, { key: 'content-type', value: Buffer.from('application/json') }],
    });
    size += value.length + customer.length + traceId.length + 40;
  }
  return encodeBatch({ baseOffset: 0, records }).subarray(BATCH_HEADER_SIZE);
}

const candidatesRoot = process.env.CODEC_CANDIDATES_DIR
  ? path.resolve(process.env.CODEC_CANDIDATES_DIR, 'package.json')
  : import.meta.url;
const requireCandidate = createRequire(candidatesRoot);

async function importCandidate(name: string): Promise<any | null> {
  let resolved: string;
  try {
    resolved = requireCandidate.resolve(name);
  } catch {
    return null;
  }
  const module = await import(pathToFileURL(resolved).href);
  return { ...module.default, ...module };
}

const kafkite = (type: CompressionType): Candidate => ({
  codec: CompressionType[type].toLowerCase(),
  name: 'kafkite',
  load: async () => ({ compress: (d) => compress(type, d), decompress: (d) => decompress(type, d) }),
});

const candidates: Candidate[] = [
  kafkite(CompressionType.Gzip),
  {
    codec: 'gzip', name: 'node:zlib level 1',
    load: async () => ({ compress: (d) => zlib.gzipSync(d, { level: 1 }), decompress: (d) => zlib.gunzipSync(d) }),
  },
  kafkite(CompressionType.Snappy),
  {
    codec: 'snappy', name: 'snappy (napi-rs, no copyOutputData)',
    load: async () => {
      const m = await importCandidate('snappy');
      return m && {
        compress: (d) => m.compressSync(d),
        decompress: (d) => m.uncompressSync(d, { asBuffer: true }),
      };
    },
  },
  {
    codec: 'snappy', name: 'snappyjs',
    load: async () => {
      const m = await importCandidate('snappyjs');
      return m && { compress: (d) => m.compress(d), decompress: (d) => m.uncompress(d) };
    },
  },
  kafkite(CompressionType.Lz4),
  {
    codec: 'lz4', name: 'lz4-napi (frame)',
    load: async () => {
      const m = await importCandidate('lz4-napi');
      return m && { compress: (d) => m.compressFrameSync(d), decompress: (d) => m.decompressFrameSync(d) };
    },
  },
  {
    codec: 'lz4', name: 'lz4js (frame)',
    load: async () => {
      const m = await importCandidate('lz4js');
      return m && { compress: (d) => m.compress(d), decompress: (d) => m.decompress(d) };
    },
  },
  kafkite(CompressionType.Zstd),
  {
    codec: 'zstd', name: '@toondepauw/node-zstd',
    load: async () => {
      const m = await importCandidate('@toondepauw/node-zstd');
      if (!m) return null;
      const encoder = new m.Encoder(3);
      const decoder = new m.Decoder();
      return { compress: (d) => encoder.encodeSync(d), decompress: (d) => decoder.decodeSync(d) };
    },
  },
  {
    codec: 'zstd', name: '@bokuweb/zstd-wasm',
    load: async () => {
      const m = await importCandidate('@bokuweb/zstd-wasm');
      if (!m) return null;
      await m.init();
      return { compress: (d) => m.compress(d, 3), decompress: (d) => m.decompress(d) };
    },
  },
  {
    codec: 'zstd', name: '@hpcc-js/wasm-zstd',
    load: async () => {
      const m = await importCandidate('@hpcc-js/wasm-zstd');
      if (!m) return null;
      const zstd = await m.Zstd.load();
      return { compress: (d) => zstd.compress(d, 3), decompress: (d) => zstd.decompress(d) };
    },
  },
  {
    codec: 'zstd', name: 'zstd-codec (emscripten)',
    load: async () => {
      const m = await importCandidate('zstd-codec');
      if (!m) return null;
      const simple = await new Promise<any>((resolve) => m.ZstdCodec.run((z: any) => resolve(new z.Simple())));
      return { compress: (d) => simple.compress(d, 3), decompress: (d) => simple.decompress(d) };
    },
  },
  {
    codec: 'zstd', name: 'fzstd (decode only; kafkite encodes)',
    load: async () => {
      const m = await importCandidate('fzstd');
      return m && { compress: (d) => compress(CompressionType.Zstd, d), decompress: (d) => m.decompress(d) };
    },
  },
];

/**
 * MB (10^6 bytes of uncompressed data) per second: the median of ROUNDS rounds of at least
 * ROUND_SECONDS each, since the machine is shared and single rounds are noisy.
 */
function throughput(op: () => unknown, uncompressedBytes: number): number {
  for (let i = 0; i < 3; i++) op();
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let iterations = 0;
    let elapsed = 0;
    const start = process.hrtime.bigint();
    while (elapsed < ROUND_SECONDS) {
      op();
      iterations++;
      elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    }
    rounds.push((uncompressedBytes * iterations) / elapsed / 1e6);
  }
  return rounds.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

async function main(): Promise<void> {
  const data = realisticRecords();
  console.log(`input: ${data.length} bytes of encoded records; node ${process.version}; MB = 10^6 uncompressed bytes`);
  console.log(['codec', 'package', 'ratio', 'compress MB/s', 'decompress MB/s'].join('\t'));
  for (const candidate of candidates) {
    const impl = await candidate.load();
    if (!impl) {
      console.log(`${candidate.codec}\t${candidate.name}\t(not installed)`);
      continue;
    }
    const compressed = Buffer.from(impl.compress(data));
    if (!Buffer.from(impl.decompress(compressed)).equals(data)) throw new Error(`${candidate.name} does not round-trip`);
    const compressMBs = throughput(() => impl.compress(data), data.length);
    const decompressMBs = throughput(() => impl.decompress(compressed), data.length);
    console.log([
      candidate.codec,
      candidate.name,
      (data.length / compressed.length).toFixed(2),
      compressMBs.toFixed(0),
      decompressMBs.toFixed(0),
    ].join('\t'));
  }
}

await main();
