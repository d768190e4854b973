// Broker CPU seconds per GB fetched (from /proc/<pid>/stat, all threads) with the zero-copy
// sendfile path and with the copying fallback (kafkite.zero.copy.enable=false), on the same data.
//
//   npx tsc -p . && node dist/bench/fetch-cpu.js
//   BENCH_FETCH_MB=2000 BENCH_RUNS=5 node dist/bench/fetch-cpu.js
//
// The topic (8 partitions of 1 KB records) is written once; the broker is restarted on the same
// data dir for each mode; consumers are kafkite's own loadgen (one Fetch in flight per partition,
// 1 MiB per partition, librdkafka's default max.partition.fetch.bytes) reading from page cache.
import { BenchBroker } from './lib/broker-process.js';
import { median, printJson, printTable, round } from './lib/stats.js';
import { consumeLoad, createTopic, produceLoad } from './loadgen.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TARGET_MB = Number(process.env.BENCH_FETCH_MB ?? 1000);
const PARTITIONS = 8;
const RECORD_BYTES = 1024;
const TOPIC = 'fetch-cpu';

interface ModeResult {
  zeroCopy: boolean;
  gb: number;
  cpuSecondsPerGb: number;
  mbPerSec: number;
  runs: number[];
}

async function fillTopic(broker: BenchBroker): Promise<number> {
  await createTopic(broker.bootstrap, TOPIC, PARTITIONS);
  let bytes = 0;
  while (bytes < TARGET_MB * 1e6) {
    const r = await produceLoad({
      bootstrap: broker.bootstrap, topic: TOPIC, connections: 4, inFlight: 4, recordBytes: RECORD_BYTES,
      batchRecords: 16, partitions: PARTITIONS, acks: 1, seconds: 1,
    });
    bytes += r.bytes;
  }
  return bytes;
}

async function measure(dataDir: string, zeroCopy: boolean): Promise<ModeResult> {
  const broker = await BenchBroker.start({ dataDir, overrides: [`kafkite.zero.copy.enable=${zeroCopy}`] });
  try {
    const perGb: number[] = [];
    const rates: number[] = [];
    let gb = 0;
    // One unmeasured pass warms the JIT and makes sure the segments are in page cache.
    await consumeLoad({ bootstrap: broker.bootstrap, topic: TOPIC, partitions: PARTITIONS, partitionMaxBytes: 1 << 20, recordBytes: RECORD_BYTES });
    for (let i = 0; i < RUNS; i++) {
      const cpuBefore = broker.cpuSeconds();
      const r = await consumeLoad({ bootstrap: broker.bootstrap, topic: TOPIC, partitions: PARTITIONS, partitionMaxBytes: 1 << 20, recordBytes: RECORD_BYTES });
      gb = r.bytes / 1e9;
      perGb.push((broker.cpuSeconds() - cpuBefore) / gb);
      rates.push(r.mbPerSec);
    }
    return { zeroCopy, gb: round(gb, 2), cpuSecondsPerGb: round(median(perGb), 3), mbPerSec: round(median(rates), 0), runs: perGb.map((v) => round(v, 3)) };
  } finally {
    await broker.stop();
  }
}

async function main(): Promise<void> {
  const writer = await BenchBroker.start();
  const dataDir = writer.dataDir;
  try {
    await fillTopic(writer);
    await writer.stop();
    const modes = [await measure(dataDir, true), await measure(dataDir, false)];
    const ratio = round(modes[0]!.cpuSecondsPerGb / modes[1]!.cpuSecondsPerGb, 2);
    printTable(`broker CPU per GB fetched (${PARTITIONS} partitions, 1 KB records, median of ${RUNS}; GB = 10^9 record value bytes)`,
      modes.map((m) => ({ path: m.zeroCopy ? 'sendfile (zero-copy)' : 'copying fallback', GB: m.gb, 'CPU-s/GB': m.cpuSecondsPerGb, 'MB/s': m.mbPerSec, runs: m.runs })));
    console.log(`sendfile / fallback CPU ratio: ${ratio}`);
    printJson('fetch-cpu', { partitions: PARTITIONS, recordBytes: RECORD_BYTES, runs: RUNS, modes, sendfileToFallbackRatio: ratio });
  } finally {
    writer.cleanup();
  }
}

await main();
