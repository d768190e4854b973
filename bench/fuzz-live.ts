// Hostile frames against a live broker over TCP: valid requests from our codecs, then mutated (bytes
// flipped, inserted, cut; length prefix shrunk, grown, negative, huge; header re-pointed at another API
// version). A few frames per connection, several connections at once. Afterwards the broker must still
// answer ApiVersions and Metadata on a new connection. Deterministic for a given seed.
//
//   npx tsc -p . && node dist/bench/fuzz-live.js                    (starts its own broker)
//   FUZZ_FRAMES=100000 FUZZ_SEED=7 node dist/bench/fuzz-live.js
//   FUZZ_PORT=9092 node dist/bench/fuzz-live.js                      (an already running broker)
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Reader } from '../protocol/primitives.js';
import { API_KEYS, responseHeaderVersion } from '../protocol/generated/index.js';
import { encodeBatch } from '../protocol/records/record-batch.js';
import { spawnBroker, type SpawnedBroker } from './soak-support.js';
import { WireClient, encodeRequest } from './lib/wire-client.js';

export const FUZZ_TOPIC = 'fuzz';
const ZERO_UUID = '0'.repeat(32);

interface Seed {
  apiKey: number;
  version: number;
  body: unknown;
}

/** Valid requests of the APIs clients use most, none of which creates or deletes anything. */
function seeds(): Seed[] {
  const batch = encodeBatch({
    baseOffset: 0,
    records: [0, 1, 2].map((i) => ({ offset: i, timestamp: Date.now(), key: Buffer.from(`k${i}`), value: Buffer.from(`value ${i}`), headers: [] })),
  });
  const fetchPartition = { partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 65536, replicaDirectoryId: ZERO_UUID };
  const fetch = {
    clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 10, minBytes: 1, maxBytes: 1 << 20,
    isolationLevel: 0, sessionId: 0, sessionEpoch: -1, topics: [{ topic: FUZZ_TOPIC, topicId: ZERO_UUID, partitions: [fetchPartition] }],
    forgottenTopicsData: [], rackId: '',
  };
  return [
    { apiKey: 18, version: 3, body: { clientSoftwareName: 'fuzz', clientSoftwareVersion: '1.0' } },
    { apiKey: 3, version: 12, body: { topics: [{ topicId: ZERO_UUID, name: FUZZ_TOPIC }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false } },
    { apiKey: 3, version: 1, body: { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false } },
    { apiKey: 0, version: 9, body: { transactionalId: null, acks: 1, timeoutMs: 1000, topicData: [{ name: FUZZ_TOPIC, partitionData: [{ index: 0, records: batch }] }] } },
    { apiKey: 0, version: 3, body: { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: FUZZ_TOPIC, partitionData: [{ index: 0, records: batch }] }] } },
    { apiKey: 1, version: 12, body: fetch },
    { apiKey: 1, version: 4, body: fetch },
    { apiKey: 2, version: 7, body: { replicaId: -1, isolationLevel: 0, timeoutMs: 1000, topics: [{ name: FUZZ_TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1, maxNumOffsets: 1 }] }] } },
    { apiKey: 10, version: 4, body: { key: 'fuzz-group', keyType: 0, coordinatorKeys: ['fuzz-group'] } },
    { apiKey: 11, version: 9, body: { groupId: 'fuzz-group', sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.from([0, 1, 0, 0, 0, 0]) }], reason: null } },
    { apiKey: 12, version: 4, body: { groupId: 'fuzz-group', generationId: 1, memberId: 'm', groupInstanceId: null } },
    { apiKey: 8, version: 8, body: { groupId: 'fuzz-group', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1, topics: [{ name: FUZZ_TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }] } },
    { apiKey: 9, version: 8, body: { groupId: '', topics: null, groups: [{ groupId: 'fuzz-group', memberId: null, memberEpoch: -1, topics: null }], requireStable: false } },
    { apiKey: 16, version: 4, body: { statesFilter: [], typesFilter: [] } },
    { apiKey: 32, version: 4, body: { resources: [{ resourceType: 2, resourceName: FUZZ_TOPIC, configurationKeys: null }], includeSynonyms: true, includeDocumentation: false } },
    { apiKey: 22, version: 4, body: { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 } },
  ];
}

/** mulberry32: small, fast, seedable. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const MUTATIONS = ['flip', 'flips', 'insert', 'truncate', 'cut-frame', 'extremes', 'size-smaller', 'size-larger', 'size-negative', 'size-huge', 'other-version', 'other-api'] as const;
type Mutation = (typeof MUTATIONS)[number];

function mutate(frame: Buffer, kind: Mutation, rand: () => number): Buffer {
  const int = (n: number) => Math.floor(rand() * n);
  const body = 4 + int(Math.max(frame.length - 4, 1));
  const out = Buffer.from(frame);
  const resize = (b: Buffer) => (b.writeInt32BE(b.length - 4, 0), b);
  switch (kind) {
    case 'flip':
      out[body] ^= 1 << int(8);
      return out;
    case 'flips':
      for (let i = 0; i < 1 + int(8); i++) out[4 + int(out.length - 4)] = int(256);
      return out;
    case 'insert':
      return resize(Buffer.concat([out.subarray(0, body), Buffer.from(Array.from({ length: 1 + int(8) }, () => int(256))), out.subarray(body)]));
    case 'truncate':
      return resize(Buffer.from(out.subarray(0, body)));
    case 'cut-frame':
      // The size prefix promises more than arrives: the broker must wait, then time out or see the close.
      return out.subarray(0, body);
    case 'extremes':
      out.fill(rand() < 0.5 ? 0xff : 0x7f, body, Math.min(body + 4, out.length));
      return out;
    case 'size-smaller':
      out.writeInt32BE(Math.max(0, out.length - 4 - 1 - int(out.length - 4)), 0);
      return out;
    case 'size-larger':
      out.writeInt32BE(out.length - 4 + 1 + int(64), 0);
      return out;
    case 'size-negative':
      out.writeInt32BE(-1 - int(0x7fffffff), 0);
      return out;
    case 'size-huge':
      out.writeInt32BE(0x7fffffff - int(1 << 20), 0);
      return out;
    case 'other-version':
      out.writeInt16BE(int(20), 6);
      return out;
    case 'other-api':
      // Any key the broker decodes except those that create, delete or alter (a fuzzer must not fill the disk).
      out.writeInt16BE([0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 22, 23, 32, 35, 42, 60, 61, 99, -1][int(23)]!, 4);
      return out;
  }
}

export interface FuzzOptions {
  port: number;
  host?: string;
  frames: number;
  seed?: number;
  framesPerConnection?: number;
  concurrency?: number;
  /** How long a connection may stay open after its frames were sent. */
  lingerMs?: number;
}

export interface FuzzStats {
  frames: number;
  connections: number;
  /** Connections with frames left unanswered (the broker closed on malformed input, or a frame never completed). */
  cutShort: number;
  responses: number;
  byMutation: Record<string, number>;
}

/** Sends the frames on one connection and waits (at most `lingerMs`) until all are answered or the broker closes. */
function sendOnConnection(host: string, port: number, frames: Buffer[], lingerMs: number): Promise<number> {
  return new Promise((resolveConnection) => {
    let responses = 0;
    let buffered = Buffer.alloc(0);
    const socket: Socket = connect({ host, port });
    const timer = setTimeout(() => socket.destroy(), lingerMs);
    socket.on('connect', () => {
      for (const f of frames) socket.write(f);
    });
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4 && buffered.length >= 4 + buffered.readInt32BE(0)) {
        responses++;
        buffered = buffered.subarray(4 + buffered.readInt32BE(0));
      }
      if (responses === frames.length) socket.destroy();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolveConnection(responses);
    });
  });
}

export async function fuzzLive(opts: FuzzOptions): Promise<FuzzStats> {
  const rand = prng(opts.seed ?? 1);
  const host = opts.host ?? '127.0.0.1';
  const perConnection = opts.framesPerConnection ?? 4;
  const all = seeds();
  const stats: FuzzStats = { frames: 0, connections: 0, cutShort: 0, responses: 0, byMutation: {} };
  let correlationId = 0;
  const nextConnection = (): Buffer[] | null => {
    if (stats.frames >= opts.frames) return null;
    const frames: Buffer[] = [];
    for (let i = 0; i < perConnection && stats.frames < opts.frames; i++) {
      const seed = all[Math.floor(rand() * all.length)]!;
      const valid = encodeRequest(seed.apiKey, seed.version, ++correlationId, seed.body);
      // One frame in four stays valid, so mutated frames also arrive after good ones on a connection.
      const kind = rand() < 0.25 ? 'valid' : MUTATIONS[Math.floor(rand() * MUTATIONS.length)]!;
      frames.push(kind === 'valid' ? valid : mutate(valid, kind, rand));
      stats.byMutation[kind] = (stats.byMutation[kind] ?? 0) + 1;
      stats.frames++;
    }
    stats.connections++;
    return frames;
  };
  const worker = async () => {
    for (let frames = nextConnection(); frames !== null; frames = nextConnection()) {
      const responses = await sendOnConnection(host, opts.port, frames, opts.lingerMs ?? 150);
      stats.responses += responses;
      if (responses < frames.length) stats.cutShort++;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 8 }, worker));
  return stats;
}

/** ApiVersions then Metadata on a fresh connection; resolves with whether both were answered without error. */
export function brokerStillServes(port: number, host = '127.0.0.1', timeoutMs = 5000): Promise<boolean> {
  return new Promise((resolveCheck) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => finish(false), timeoutMs);
    let buffered = Buffer.alloc(0);
    const pending = [
      { apiKey: 18, version: 3, check: (r: any) => r.errorCode === 0 && r.apiKeys.length > 0 },
      { apiKey: 3, version: 12, check: (r: any) => r.brokers.length === 1 },
    ];
    let ok = true;
    function finish(result: boolean) {
      clearTimeout(timer);
      socket.destroy();
      resolveCheck(result);
    }
    socket.on('error', () => finish(false));
    socket.on('connect', () => {
      socket.write(encodeRequest(18, 3, 1, { clientSoftwareName: 'fuzz-check', clientSoftwareVersion: '1' }));
      socket.write(encodeRequest(3, 12, 2, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }));
    });
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4 && buffered.length >= 4 + buffered.readInt32BE(0)) {
        const frame = buffered.subarray(4, 4 + buffered.readInt32BE(0));
        buffered = buffered.subarray(4 + frame.length);
        const expected = pending.shift()!;
        const r = new Reader(frame);
        r.int32();
        if (responseHeaderVersion(expected.apiKey, expected.version) >= 1) r.skipTaggedFields();
        ok &&= expected.check(API_KEYS[expected.apiKey]!.readResponse(r, expected.version));
        if (pending.length === 0) finish(ok);
      }
    });
  });
}

async function main(): Promise<void> {
  const frames = Number(process.env.FUZZ_FRAMES ?? 20_000);
  const seed = Number(process.env.FUZZ_SEED ?? 1);
  let own: SpawnedBroker | null = null;
  let dataDir: string | null = null;
  // Error-level broker log lines by message: handler failures the fuzzer provoked (they close the connection, not the broker).
  const errors = new Map<string, number>();
  if (!process.env.FUZZ_PORT) {
    dataDir = mkdtempSync(join(tmpdir(), 'kafkite-fuzz-'));
    own = await spawnBroker({ dataDir, overrides: ['auto.create.topics.enable=false'] });
    const client = await WireClient.connect(own.port);
    await client.send(19, 7, { topics: [{ name: FUZZ_TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    client.close();
  }
  const port = own?.port ?? Number(process.env.FUZZ_PORT);
  const started = performance.now();
  const stats = await fuzzLive({ port, frames, seed, concurrency: 16 });
  const seconds = (performance.now() - started) / 1000;
  const serves = await brokerStillServes(port);
  console.log(`fuzz-live: ${stats.frames} frames on ${stats.connections} connections in ${seconds.toFixed(1)} s (${Math.round(stats.frames / seconds)} frames/s), seed ${seed}`);
  console.log(`  responses ${stats.responses}, connections cut short (frames unanswered) ${stats.cutShort}`);
  console.log(`  mutations ${JSON.stringify(stats.byMutation)}`);
  console.log(`  broker still answers ApiVersions + Metadata: ${serves}${own ? `, process alive: ${own.child.exitCode === null}` : ''}`);
  if (own) {
    for (const entry of own.logs) {
      if ((entry.level as number) < 50) continue;
      const key = `${entry.msg}${(entry.err as { message?: string } | undefined)?.message ? `: ${(entry.err as { message: string }).message}` : ''}`;
      errors.set(key, (errors.get(key) ?? 0) + 1);
    }
    console.log(`  broker error log lines: ${JSON.stringify(Object.fromEntries(errors))}`);
    console.log(`  broker exit code after SIGTERM: ${await own.stop()}`);
    rmSync(dataDir!, { recursive: true, force: true });
  }
  if (!serves) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();
