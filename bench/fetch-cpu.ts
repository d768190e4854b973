// Broker CPU seconds per GB fetched (from /proc/<pid>/stat, all threads) with the zero-copy
// sendfile path and with the copying fallback (kafkite.zero.copy.enable=false), on the same data.
//
//   npx tsc -p . && node dist/bench/fetch-cpu.js
//   BENCH_FETCH_MB=2000 BENCH_RUNS=5 node dist/bench/fetch-cpu.js
//
// The topic (8 partitions of 1 KB records) is written once and copied; one broker per mode serves its
// copy; their BENCH_WARM_PASSES unmeasured passes each (3 by default) and then their measured passes alternate; each run's sendfile /
// fallback ratio is reported (the target must hold in every run, not only in the median); consumers are kafkite's own loadgen (one Fetch in flight per partition,
// 1 MiB per partition, librdkafka's default max.partition.fetch.bytes) reading from page cache.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchBroker } from './lib/broker-process.js';
import { recycleGuestMemory } from './lib/guest-memory.js';
import { median, printJson, printTable, round } from './lib/stats.js';
import { consumeLoad, createTopic, produceLoad } from './loadgen.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
// Warm-up: V8 is still optimizing the fetch path's functions during the second 1 GB pass (about 90
// TurboFan compilations in --trace-opt, on 2 busy cores each taking 15-30 ms of a compiler thread) and
// the third (about 40), and only a dozen in the fourth. Measured before then, a run counts that one-off
// compilation, the same few hundred ms in both modes, as per-GB cost.
const WARM_PASSES = Number(process.env.BENCH_WARM_PASSES ?? 3);
const TARGET_MB = Number(process.env.BENCH_FETCH_MB ?? 1000);
const PARTITIONS = 8;
const RECORD_BYTES = 1024;
const TOPIC = 'fetch-cpu';
const RECYCLED_BYTES = 512e6;

interface ModeResult {
  zeroCopy: boolean;
  gb: number;
  cpuSecondsPerGb: number;
  mbPerSec: number;
  runs: number[];
}

interface Measured {
  gb: number;
  cpuSecondsPerGb: number;
  mbPerSec: number;
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

/** A broker in one mode on its own copy of the data; `consume` reads the topic once (a warm-up pass). */
async function startMode(dataDir: string, zeroCopy: boolean): Promise<{ broker: BenchBroker; consume: () => Promise<unknown>; measure: () => Promise<Measured> }> {
  const broker = await BenchBroker.start({ dataDir, overrides: [`kafkite.zero.copy.enable=${zeroCopy}`] });
  const consume = () => consumeLoad({ bootstrap: broker.bootstrap, topic: TOPIC, partitions: PARTITIONS, partitionMaxBytes: 1 << 20, recordBytes: RECORD_BYTES });
  const measure = async (): Promise<Measured> => {
    // Memory the VM still holds for the pass's buffers and socket memory: without it, whichever pass meets
    // memory handed back to the host pays its first-touch faults (a copying pass measured 1.47 CPU-s/GB so, 0.46–0.48 otherwise).
    recycleGuestMemory(tmpdir(), RECYCLED_BYTES);
    const cpuBefore = broker.cpuSeconds();
    const r = await consume();
    const gb = r.bytes / 1e9;
    return { gb, cpuSecondsPerGb: (broker.cpuSeconds() - cpuBefore) / gb, mbPerSec: r.mbPerSec };
  };
  return { broker, consume, measure };
}

function summary(zeroCopy: boolean, runs: Measured[]): ModeResult {
  return {
    zeroCopy,
    gb: round(runs[0]!.gb, 2),
    cpuSecondsPerGb: round(median(runs.map((r) => r.cpuSecondsPerGb)), 3),
    mbPerSec: round(median(runs.map((r) => r.mbPerSec)), 0),
    runs: runs.map((r) => round(r.cpuSecondsPerGb, 3)),
  };
}

async function main(): Promise<void> {
  const writer = await BenchBroker.start();
  const dataDir = writer.dataDir;
  const copyDir = mkdtempSync(join(tmpdir(), 'kafkite-bench-fetch-copy-'));
  const brokers: BenchBroker[] = [];
  try {
    await fillTopic(writer);
    await writer.stop();
    // Both brokers run side by side, each on its own copy of the same segments, and their measured
    // passes alternate (the order swapping each run), so each run's ratio compares neighbours in time.
    cpSync(dataDir, copyDir, { recursive: true });
    const sendfile = await startMode(dataDir, true);
    brokers.push(sendfile.broker);
    const copying = await startMode(copyDir, false);
    brokers.push(copying.broker);
    // Warm-up passes alternate too (JIT, page cache), so neither broker sits idle through the other's
    // whole warm-up right before its first measured pass.
    for (let i = 0; i < WARM_PASSES; i++) {
      await sendfile.consume();
      await copying.consume();
    }
    const on: Measured[] = [];
    const off: Measured[] = [];
    for (let i = 0; i < RUNS; i++) {
      if (i % 2 === 0) {
        on.push(await sendfile.measure());
        off.push(await copying.measure());
      } else {
        off.push(await copying.measure());
        on.push(await sendfile.measure());
      }
    }
    const modes = [summary(true, on), summary(false, off)];
    const runRatios = on.map((r, i) => round(r.cpuSecondsPerGb / off[i]!.cpuSecondsPerGb, 2));
    const ratio = round(median(runRatios), 2);
    printTable(`broker CPU per GB fetched (${PARTITIONS} partitions, 1 KB records, ${RUNS} alternating runs after ${WARM_PASSES} warm-up passes; GB = 10^9 record value bytes)`,
      modes.map((m) => ({ path: m.zeroCopy ? 'sendfile (zero-copy)' : 'copying fallback', GB: m.gb, 'CPU-s/GB': m.cpuSecondsPerGb, 'MB/s': m.mbPerSec, runs: m.runs })));
    console.log(`sendfile / fallback CPU ratio per run: ${runRatios.join(', ')} (median ${ratio})`);
    printJson('fetch-cpu', { partitions: PARTITIONS, recordBytes: RECORD_BYTES, runs: RUNS, warmPasses: WARM_PASSES, modes, sendfileToFallbackRatio: ratio, runRatios });
  } finally {
    for (const b of brokers) await b.stop();
    writer.cleanup();
    rmSync(copyDir, { recursive: true, force: true });
  }
}

await main();
