// Append throughput of UnifiedLog.appendAsLeader (100 B and 1 KB records, ~16 KB batches) beside the
// raw sequential write speed of the same disk in the same run, and the cost of the durability
// default (acks=all → group-committed fdatasync) with 1..64 concurrent producers.
//
//   npx tsc -p . && node dist/bench/storage-append.js
//   STORAGE_BENCH_APPEND_MB=2048 STORAGE_BENCH_FLUSH_SECONDS=5 node dist/bench/storage-append.js
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { encodeBatch, type KafkaRecord } from '../protocol/records/record-batch.js';
import { DEFAULT_LOG_CONFIG } from '../storage/log-config.js';
import { UnifiedLog } from '../storage/unified-log.js';

const APPEND_MB = Number(process.env.STORAGE_BENCH_APPEND_MB ?? 512);
const FLUSH_SECONDS = Number(process.env.STORAGE_BENCH_FLUSH_SECONDS ?? 2);
const BATCH_BYTES = 16384;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkite-bench-append-'));
let logCount = 0;

function newLog(): UnifiedLog {
  return UnifiedLog.load({
    dir: path.join(root, `bench-${logCount++}`),
    topic: 'bench',
    partition: logCount,
    topicId: '0'.repeat(32),
    config: { ...DEFAULT_LOG_CONFIG },
    logger: pino({ level: 'silent' }),
    recoveryPoint: 0,
    logStartOffset: 0,
    hadCleanShutdown: true,
  });
}

function makeBatch(recordBytes: number): { batch: Buffer; records: number } {
  const records: KafkaRecord[] = [];
  const count = Math.max(1, Math.floor(BATCH_BYTES / (recordBytes + 10)));
  for (let i = 0; i < count; i++) records.push({ offset: i, timestamp: Date.now(), key: null, value: Buffer.alloc(recordBytes, i), headers: [] });
  return { batch: encodeBatch({ baseOffset: 0, records }), records: count };
}

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** fs.writeSync of the same-sized buffers to a plain file: the page-cache ceiling for appends. */
function rawWrite(bytes: number, chunk: Buffer): number {
  const file = path.join(root, 'raw.bin');
  const fd = fs.openSync(file, 'w');
  const start = process.hrtime.bigint();
  let pos = 0;
  while (pos < bytes) pos += fs.writeSync(fd, chunk, 0, chunk.length, pos);
  const s = seconds(start);
  fs.closeSync(fd);
  fs.rmSync(file);
  return bytes / 1048576 / s;
}

function appendRun(recordBytes: number): { recordsPerSec: number; mbPerSec: number } {
  const log = newLog();
  const { batch, records } = makeBatch(recordBytes);
  const total = APPEND_MB * 1048576;
  const start = process.hrtime.bigint();
  let written = 0;
  let count = 0;
  while (written < total) {
    log.appendAsLeader(batch, Date.now());
    written += batch.length;
    count += records;
  }
  const s = seconds(start);
  log.segments.values().forEach((seg) => seg.close());
  fs.rmSync(log.dir, { recursive: true, force: true });
  return { recordsPerSec: Math.round(count / s), mbPerSec: +(written / 1048576 / s).toFixed(0) };
}

/** `producers` loops of append + await flush() (acks=all), against the same loops without flush. */
async function flushRun(producers: number, durable: boolean): Promise<{ batchesPerSec: number; fsyncs: number; avgLatencyMs: number }> {
  const log = newLog();
  const { batch } = makeBatch(100);
  let batches = 0;
  let flushes = 0;
  let latency = 0;
  const origFlush = log.flush.bind(log);
  let lastPromise: Promise<void> | null = null;
  const deadline = Date.now() + FLUSH_SECONDS * 1000;
  const producer = async () => {
    while (Date.now() < deadline) {
      const t = process.hrtime.bigint();
      log.appendAsLeader(Buffer.from(batch), Date.now());
      if (durable) {
        const p = origFlush();
        if (p !== lastPromise) {
          lastPromise = p;
          flushes++;
        }
        await p;
      } else {
        await new Promise<void>((r) => setImmediate(r));
      }
      latency += Number(process.hrtime.bigint() - t) / 1e6;
      batches++;
    }
  };
  await Promise.all(Array.from({ length: producers }, producer));
  await log.close();
  fs.rmSync(log.dir, { recursive: true, force: true });
  return { batchesPerSec: Math.round(batches / FLUSH_SECONDS), fsyncs: flushes, avgLatencyMs: +(latency / batches).toFixed(2) };
}

async function main(): Promise<void> {
  try {
    const small = makeBatch(100);
    const raw = rawWrite(APPEND_MB * 1048576, small.batch);
    const a100 = appendRun(100);
    const a1k = appendRun(1024);
    console.log(`append ${APPEND_MB} MB in ~16 KB batches (page cache; the durability cost is below)`);
    const appendRows = [
      { case: 'raw fs.writeSync', mbPerSec: +raw.toFixed(0), recordsPerSec: null },
      { case: 'appendAsLeader 100 B records', ...a100 },
      { case: 'appendAsLeader 1 KB records', ...a1k },
    ];
    console.table(appendRows);

    const flushRows = [];
    for (const producers of [1, 8, 64]) {
      const noFlush = await flushRun(producers, false);
      const durable = await flushRun(producers, true);
      flushRows.push({
        producers,
        batchesPerSecNoFlush: noFlush.batchesPerSec,
        batchesPerSecAcksAll: durable.batchesPerSec,
        fsyncsPerSec: Math.round(durable.fsyncs / FLUSH_SECONDS),
        batchesPerFsync: +(durable.batchesPerSec / Math.max(1, durable.fsyncs / FLUSH_SECONDS)).toFixed(1),
        avgAckLatencyMs: durable.avgLatencyMs,
      });
    }
    console.log(`acks=all: append + flush() (group-committed fdatasync), ${FLUSH_SECONDS}s per case, ~16 KB batches of 100 B records`);
    console.table(flushRows);
    console.log(JSON.stringify({ bench: 'storage-append', appendMB: APPEND_MB, append: appendRows, durability: flushRows }));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
