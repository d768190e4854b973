// Produce and consume throughput with a librdkafka client (kcat), 100 B and 1 KB records.
//
//   npx tsc -p . && node dist/bench/kcat-throughput.js
//   BENCH_KCAT_RECORDS_100=4000000 BENCH_KCAT_RECORDS_1K=1000000 BENCH_RUNS=3 node dist/bench/kcat-throughput.js
//
// kcat's start-up (connect, metadata, final flush) is timed separately with a one-record run and
// subtracted from a whole run over a big input; consume reads the produced topic from page cache
// (offset beginning, exit at end) into /dev/null. Each figure is the median of BENCH_RUNS runs,
// each on a fresh topic. MB = 10^6 bytes of record values.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchBroker } from './lib/broker-process.js';
import { KCAT_CONSUME_TO_END, timeKcat, writeInput } from './lib/kcat.js';
import { median, printJson, printTable, round } from './lib/stats.js';
import { createTopic } from './loadgen.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PARTITIONS = Number(process.env.BENCH_KCAT_PARTITIONS ?? 1);
const CASES = [
  { recordBytes: 100, records: Number(process.env.BENCH_KCAT_RECORDS_100 ?? 3_000_000) },
  { recordBytes: 1024, records: Number(process.env.BENCH_KCAT_RECORDS_1K ?? 600_000) },
];
const PRODUCER_SETTINGS = ['acks=1', 'linger.ms=5', 'batch.num.messages=10000', 'queue.buffering.max.messages=1000000'];

const produceArgs = (bootstrap: string, topic: string) => ['-P', '-b', bootstrap, '-t', topic, ...PRODUCER_SETTINGS.flatMap((s) => ['-X', s])];
const consumeArgs = (bootstrap: string, topic: string) => ['-C', '-b', bootstrap, '-t', topic, ...KCAT_CONSUME_TO_END];

export interface KcatCase {
  recordBytes: number;
  records: number;
  startupProduceSeconds: number;
  startupConsumeSeconds: number;
  produce: { seconds: number; recordsPerSec: number; mbPerSec: number; runs: number[] };
  consume: { seconds: number; recordsPerSec: number; mbPerSec: number; runs: number[] };
  brokerPeakRssMB: number;
}

async function runCase(broker: BenchBroker, dir: string, recordBytes: number, records: number): Promise<KcatCase> {
  const input = writeInput(dir, recordBytes, records);
  const one = writeInput(dir, recordBytes, 1);
  const startupProduce: number[] = [];
  const startupConsume: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const topic = `startup-${recordBytes}-${i}`;
    await createTopic(broker.bootstrap, topic, PARTITIONS);
    startupProduce.push(await timeKcat(produceArgs(broker.bootstrap, topic), one));
    startupConsume.push(await timeKcat(consumeArgs(broker.bootstrap, topic), null));
  }
  const produceStartup = median(startupProduce);
  const consumeStartup = median(startupConsume);
  const produceSeconds: number[] = [];
  const consumeSeconds: number[] = [];
  const stopRss = broker.sampleRss();
  for (let i = 0; i < RUNS; i++) {
    const topic = `kcat-${recordBytes}-${i}`;
    await createTopic(broker.bootstrap, topic, PARTITIONS);
    produceSeconds.push(Math.max(1e-3, (await timeKcat(produceArgs(broker.bootstrap, topic), input)) - produceStartup));
    consumeSeconds.push(Math.max(1e-3, (await timeKcat(consumeArgs(broker.bootstrap, topic), null)) - consumeStartup));
  }
  const peakRss = stopRss();
  rmSync(input);
  const figures = (runs: number[]) => {
    const s = median(runs);
    return { seconds: round(s, 3), recordsPerSec: Math.round(records / s), mbPerSec: round((records * recordBytes) / s / 1e6, 1), runs: runs.map((r) => round(r, 3)) };
  };
  return {
    recordBytes,
    records,
    startupProduceSeconds: round(produceStartup, 3),
    startupConsumeSeconds: round(consumeStartup, 3),
    produce: figures(produceSeconds),
    consume: figures(consumeSeconds),
    brokerPeakRssMB: round(peakRss / 1048576, 1),
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kafkite-bench-kcat-'));
  const results: KcatCase[] = [];
  try {
    for (const { recordBytes, records } of CASES) {
      // A fresh broker per record size keeps the page cache and the log small.
      const broker = await BenchBroker.start();
      try {
        results.push(await runCase(broker, dir, recordBytes, records));
      } finally {
        await broker.stop();
        broker.cleanup();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(`kcat (librdkafka) throughput, ${PARTITIONS} partition(s), acks=1, median of ${RUNS}; start-up subtracted`, results.flatMap((r) => [
    { case: `produce ${r.recordBytes} B`, records: r.records, 'startup s': r.startupProduceSeconds, 'net s': r.produce.seconds, 'records/s': r.produce.recordsPerSec, 'MB/s': r.produce.mbPerSec },
    { case: `consume ${r.recordBytes} B`, records: r.records, 'startup s': r.startupConsumeSeconds, 'net s': r.consume.seconds, 'records/s': r.consume.recordsPerSec, 'MB/s': r.consume.mbPerSec },
  ]));
  printJson('kcat-throughput', { partitions: PARTITIONS, runs: RUNS, producerSettings: PRODUCER_SETTINGS, results });
}

await main();
