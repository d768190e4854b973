// Random-offset reads as a partition log grows: time and work (batch headers read, bytes hopped
// over) per read should stay flat whatever the log size; plus the memory the indexes take per GB
// and the time to reopen the log (indexes of inactive segments load lazily).
//
//   npx tsc -p . && node dist/bench/storage-lookup.js
//   STORAGE_BENCH_MAX_MB=4096 STORAGE_BENCH_READS=5000 STORAGE_BENCH_SEGMENT_MB=256 node dist/bench/storage-lookup.js
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { encodeBatch, type KafkaRecord } from '../protocol/records/record-batch.js';
import { scanCounters } from '../storage/file-records.js';
import { DEFAULT_LOG_CONFIG } from '../storage/log-config.js';
import { UnifiedLog } from '../storage/unified-log.js';

const MAX_MB = Number(process.env.STORAGE_BENCH_MAX_MB ?? 1024);
const READS = Number(process.env.STORAGE_BENCH_READS ?? 2000);
const WARM_UP_READS = 500;
const RECORDS_PER_BATCH = 100;
const RECORD_BYTES = 100;
const SEGMENT_BYTES = Number(process.env.STORAGE_BENCH_SEGMENT_MB ?? 16) * 1048576;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

function makeBatch(): Buffer {
  const records: KafkaRecord[] = [];
  for (let i = 0; i < RECORDS_PER_BATCH; i++) {
    records.push({ offset: i, timestamp: Date.now() + i, key: null, value: Buffer.alloc(RECORD_BYTES, i), headers: [] });
  }
  return encodeBatch({ baseOffset: 0, records });
}

function openLog(dir: string): UnifiedLog {
  return UnifiedLog.load({
    dir: path.join(dir, 'bench-0'),
    topic: 'bench',
    partition: 0,
    topicId: '0'.repeat(32),
    config: { ...DEFAULT_LOG_CONFIG, segmentBytes: SEGMENT_BYTES },
    logger: pino({ level: 'silent' }),
    recoveryPoint: 0,
    logStartOffset: 0,
    hadCleanShutdown: true,
  });
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkite-bench-lookup-'));
  try {
    let log = openLog(dir);
    const batch = makeBatch();
    const sizes: number[] = [];
    for (let mb = 1; mb <= MAX_MB; mb *= 4) sizes.push(mb);
    if (sizes[sizes.length - 1] !== MAX_MB) sizes.push(MAX_MB);

    const rows: Record<string, number>[] = [];
    for (const mb of sizes) {
      while (log.size < mb * 1048576) log.appendAsLeader(batch, Date.now());
      // Untimed reads first, so the first row does not carry the JIT's warm-up.
      for (let i = 0; i < WARM_UP_READS; i++) log.read(Math.floor(Math.random() * log.logEndOffset), 1048576, true);
      const timings: number[] = [];
      scanCounters.headerReads = 0;
      scanCounters.bytesScanned = 0;
      for (let i = 0; i < READS; i++) {
        const offset = Math.floor(Math.random() * log.logEndOffset);
        const start = process.hrtime.bigint();
        log.read(offset, 1048576, true);
        timings.push(Number(process.hrtime.bigint() - start) / 1000);
      }
      timings.sort((a, b) => a - b);
      let indexMemory = 0;
      for (const s of log.segments.values()) indexMemory += s.offsetIndex.memoryBytes + s.timeIndex.memoryBytes;
      rows.push({
        logMB: Math.round(log.size / 1048576),
        segments: log.segments.size,
        p50us: +percentile(timings, 0.5).toFixed(1),
        p99us: +percentile(timings, 0.99).toFixed(1),
        headerReadsPerRead: +(scanCounters.headerReads / READS).toFixed(1),
        bytesScannedPerRead: Math.round(scanCounters.bytesScanned / READS),
        indexMemoryKBPerGB: Math.round(indexMemory / 1024 / (log.size / 1073741824)),
      });
    }
    await log.close();
    const reopenStart = process.hrtime.bigint();
    log = openLog(dir);
    const reopenMs = +(Number(process.hrtime.bigint() - reopenStart) / 1e6).toFixed(1);
    const firstReadStart = process.hrtime.bigint();
    log.read(0, 1048576, true);
    const coldReadUs = +(Number(process.hrtime.bigint() - firstReadStart) / 1e3).toFixed(0);

    console.log(
      `random reads of up to 1 MB from a random offset (x${READS}), batches of ${RECORDS_PER_BATCH} x ${RECORD_BYTES} B, ` +
        `segment.bytes ${SEGMENT_BYTES / 1048576} MB, index.interval.bytes ${DEFAULT_LOG_CONFIG.indexIntervalBytes}`,
    );
    console.table(rows);
    console.log(`reopen after clean shutdown: ${reopenMs} ms for ${log.segments.size} segments; first read of a cold segment: ${coldReadUs} us`);
    console.log(JSON.stringify({ bench: 'storage-lookup', reads: READS, segmentMB: SEGMENT_BYTES / 1048576, rows, reopenMs, coldReadUs }));
    log.segments.values().forEach((s) => s.close());
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
