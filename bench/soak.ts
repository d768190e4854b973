// The soak (issue 14, target 7): a long run at a fixed rate, half the measured maximum, 100 B and 1 KB
// records mixed, consumers reading along, and retention deleting segments all the time. Every 10 s it
// samples the broker's RSS, heap and open descriptors, what was acknowledged and read, the segment files
// and the log start offsets; at the end it judges
//   - RSS:        least-squares slope after the warm-up < 1 MB/min;
//   - fds:        least-squares slope of the open descriptor count after the warm-up < 1 fd/min
//                 (and the range after the warm-up is printed; the descriptors other than segment files,
//                 which do not follow the roll rate, are printed as a figure);
//   - throughput: records acknowledged, and records read, in the last window ≥ 0.9× the first window
//                 (beside it, as a figure, the broker's CPU per record in both windows);
//   - retention:  segments deleted in every minute after the first.
// The warm-up and the windows are 5 minutes (a third of the run when that is shorter than 15 minutes).
// The graph goes to bench/results/soak.png, the samples beside it (soak.json, soak.csv).
//
//   npx tsc -p . && BENCH_SOAK_MINUTES=30 node dist/bench/soak.js
//   BENCH_SOAK_RATE=20000 (records/s, skips the maximum measurement)  BENCH_SOAK_MAX_SECONDS=20
//   BENCH_SOAK_OUT=/tmp/soak (path prefix of the .png/.json/.csv)  BENCH_BROKER_NODE_ARGS=--heapsnapshot-signal=SIGUSR2
//   node dist/bench/soak.js --render bench/results/soak.json   (judge and draw a recorded run again)
//
// The producer offers a constant rate whatever the machine does (a noisy neighbour slows what the
// broker acknowledges, not what is offered), so the first and last windows compare like with like as
// long as the machine can serve the rate: on an oversubscribed machine the throughput ratio measures the
// machine's share, and the CPU per record says whether the broker's own work per record changed.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ApiKey } from '../protocol/generated/index.js';
import { encodeBatch, type KafkaRecord } from '../protocol/records/record-batch.js';
import { REPO_ROOT } from './lib/kafkite-process.js';
import { renderChart } from './lib/soak-chart.js';
import { isMain, printJson, printTable, round } from './lib/stats.js';
import { BenchConnection } from './lib/wire.js';
import { countBatches, createTopic, fetchRequest, LoadError, type PartitionProgress } from './loadgen.js';
import { spawnBroker, type SpawnedBroker } from './soak-support.js';
import { freePort } from './lib/free-port.js';

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
const FIXED_RATE = process.env.BENCH_SOAK_RATE ? Number(process.env.BENCH_SOAK_RATE) : null;
const MAX_SECONDS = Number(process.env.BENCH_SOAK_MAX_SECONDS ?? 20);
const LOAD_FRACTION = 0.5;
const SAMPLE_SECONDS = 10;
const OUT = process.env.BENCH_SOAK_OUT ?? join(REPO_ROOT, 'bench/results/soak');
const PARTITIONS = 4;
const CONNECTIONS = 4;
/** Records per Produce request, for both sizes: equal record counts make the mix. */
const BATCH_RECORDS = 100;
/** Produce requests in flight: the maximum measurement keeps this many... */
const SATURATE_IN_FLIGHT = 32;
/** ...and the fixed rate never has more (a busy machine's scheduling delays must not cap the rate). */
const MAX_IN_FLIGHT = 64;
/** Idle time between the maximum measurement and the soak, so the broker's catching up is not in the first window. */
const SETTLE_MS = 5000;
const PRODUCE_VERSION = 8;
const FETCH_VERSION = 11;
const LIST_OFFSETS_VERSION = 7;
const OFFSET_OUT_OF_RANGE = 1;

interface SizeClass {
  topic: string;
  recordBytes: number;
  /** Topic configs: small segments, and retention that deletes them continuously. */
  configs: Record<string, string>;
}

const SIZES: SizeClass[] = [
  // By time: segments older than 30 s go.
  { topic: 'soak-100', recordBytes: 100, configs: { 'segment.bytes': String(1 << 20), 'retention.ms': '30000' } },
  // By size: 32 MiB per partition stays.
  { topic: 'soak-1k', recordBytes: 1024, configs: { 'segment.bytes': String(8 << 20), 'retention.bytes': String(32 << 20) } },
];
const BROKER_OVERRIDES = ['log.retention.check.interval.ms=2000'];

interface Counts {
  records: number;
  bytes: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Produce requests alternating between the sizes, round-robin over partitions and connections. The
 * encoded requests are rebuilt every second so record timestamps stay current (retention.ms reads them).
 */
class MixedProducer {
  readonly acked = SIZES.map((): Counts => ({ records: 0, bytes: 0 }));
  /** Records the schedule offered but the producer could not send (more than 1 s behind). */
  dropped = 0;
  offered = 0;
  inFlight = 0;
  private next = 0;
  private bodies: Buffer[][] = [];
  private headers: Buffer[] = [];
  private bodiesSecond = -1;

  private constructor(private readonly connections: BenchConnection[]) {}

  static async open(bootstrap: string): Promise<MixedProducer> {
    return new MixedProducer(await Promise.all(Array.from({ length: CONNECTIONS }, () => BenchConnection.open(bootstrap))));
  }

  private refreshBodies(): void {
    const second = Math.floor(Date.now() / 1000);
    if (second === this.bodiesSecond) return;
    this.bodiesSecond = second;
    const timestamp = Date.now();
    this.bodies = SIZES.map((size) => {
      const records: KafkaRecord[] = Array.from({ length: BATCH_RECORDS }, (_, i) => ({
        offset: i, timestamp, key: null, value: Buffer.alloc(size.recordBytes, 0x61 + (i % 26)), headers: [],
      }));
      const batch = encodeBatch({ baseOffset: 0, records });
      return Array.from({ length: PARTITIONS }, (_, partition) => BenchConnection.encodeBody(ApiKey.Produce, PRODUCE_VERSION, {
        transactionalId: null, acks: 1, timeoutMs: 30_000, topicData: [{ name: size.topic, partitionData: [{ index: partition, records: batch }] }],
      }));
    });
    this.headers = this.bodies.map((b) => BenchConnection.preparedHeader(ApiKey.Produce, PRODUCE_VERSION, b[0]!.length));
  }

  /** Sends the next request of the mix; resolves when it is acknowledged. */
  async send(): Promise<void> {
    this.refreshBodies();
    const i = this.next++;
    const sizeIndex = i % SIZES.length;
    const partition = Math.floor(i / SIZES.length) % PARTITIONS;
    const connection = this.connections[i % CONNECTIONS]!;
    this.inFlight++;
    try {
      const { response } = await connection.sendPrepared(this.headers[sizeIndex]!, this.bodies[sizeIndex]![partition]!, ApiKey.Produce, PRODUCE_VERSION);
      for (const t of response.responses) {
        for (const p of t.partitionResponses) {
          if (p.errorCode !== 0) throw new LoadError(`Produce to ${t.name}-${p.index}: error ${p.errorCode} ${p.errorMessage ?? ''}`);
        }
      }
    } finally {
      this.inFlight--;
    }
    this.acked[sizeIndex]!.records += BATCH_RECORDS;
    this.acked[sizeIndex]!.bytes += BATCH_RECORDS * SIZES[sizeIndex]!.recordBytes;
  }

  /** As fast as the broker answers, SATURATE_IN_FLIGHT requests outstanding, for `seconds`; returns records/s acknowledged. */
  async saturate(seconds: number): Promise<number> {
    const before = this.ackedRecords();
    const start = performance.now();
    const deadline = start + seconds * 1000;
    await Promise.all(Array.from({ length: SATURATE_IN_FLIGHT }, async () => {
      while (performance.now() < deadline) await this.send();
    }));
    return (this.ackedRecords() - before) / ((performance.now() - start) / 1000);
  }

  /**
   * Offers `rate` records/s until stop() is called: every millisecond or so the batches due are sent,
   * up to MAX_IN_FLIGHT outstanding; a backlog of more than a second's worth is dropped and counted.
   */
  runAtRate(rate: number): { stop(): Promise<void>; failed: Promise<Error | null> } {
    let running = true;
    let error: Error | null = null;
    const pending = new Set<Promise<void>>();
    const maxBacklog = Math.max(1, Math.ceil(rate / BATCH_RECORDS));
    const loop = (async () => {
      const start = performance.now();
      let handled = 0;
      while (running && !error) {
        const due = Math.floor((((performance.now() - start) / 1000) * rate) / BATCH_RECORDS);
        if (due - handled > maxBacklog) {
          this.dropped += (due - handled - maxBacklog) * BATCH_RECORDS;
          handled = due - maxBacklog;
        }
        while (handled < due && this.inFlight < MAX_IN_FLIGHT) {
          handled++;
          const p = this.send().catch((err: Error) => void (error ??= err));
          pending.add(p);
          void p.finally(() => pending.delete(p));
        }
        this.offered = due * BATCH_RECORDS;
        await sleep(1);
      }
    })();
    return {
      stop: async () => {
        running = false;
        await loop;
        await Promise.all(pending);
      },
      failed: loop.then(() => error),
    };
  }

  ackedRecords(): number {
    return this.acked.reduce((n, c) => n + c.records, 0);
  }

  close(): void {
    for (const c of this.connections) c.close();
  }
}

async function listOffsets(connection: BenchConnection, topic: string, timestamp: -1 | -2): Promise<number[]> {
  const { response } = await connection.send(ApiKey.ListOffsets, LIST_OFFSETS_VERSION, {
    replicaId: -1, isolationLevel: 0, timeoutMs: 0,
    topics: [{ name: topic, partitions: Array.from({ length: PARTITIONS }, (_, p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp, maxNumOffsets: 1 })) }],
  });
  return response.topics[0].partitions
    .sort((a: any, b: any) => a.partitionIndex - b.partitionIndex)
    .map((p: any) => {
      if (p.errorCode !== 0) throw new LoadError(`ListOffsets ${topic}-${p.partitionIndex}: error ${p.errorCode}`);
      return Number(p.offset);
    });
}

/** One long-polling reader per partition from the log end at the start; falls forward to the log start when retention overtakes it. */
class ReadAlong {
  readonly read = SIZES.map((): Counts => ({ records: 0, bytes: 0 }));
  /** Records that retention deleted before the reader got to them. */
  skipped = 0;
  private running = true;
  private readonly loops: Array<Promise<void>> = [];

  constructor(bootstrap: string, starts: number[][]) {
    SIZES.forEach((size, s) => {
      for (let partition = 0; partition < PARTITIONS; partition++) {
        this.loops.push(this.readPartition(bootstrap, s, size, { partition, offset: starts[s]![partition]!, done: false }));
      }
    });
  }

  private async readPartition(bootstrap: string, s: number, size: SizeClass, progress: PartitionProgress): Promise<void> {
    const connection = await BenchConnection.open(bootstrap);
    try {
      while (this.running) {
        const { response } = await connection.send(ApiKey.Fetch, FETCH_VERSION, fetchRequest(size.topic, progress, 1 << 20, 500));
        const data = response.responses[0].partitions[0];
        if (data.errorCode === OFFSET_OUT_OF_RANGE) {
          const start = (await listOffsets(connection, size.topic, -2))[progress.partition]!;
          if (start > progress.offset) this.skipped += start - progress.offset;
          progress.offset = Math.max(start, progress.offset);
          continue;
        }
        if (data.errorCode !== 0) throw new LoadError(`Fetch ${size.topic}-${progress.partition}: error ${data.errorCode}`);
        const fetched = countBatches(data.records ?? Buffer.alloc(0), progress.offset);
        this.read[s]!.records += fetched.records;
        this.read[s]!.bytes += fetched.records * size.recordBytes;
        progress.offset = fetched.nextOffset;
      }
    } finally {
      connection.close();
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  readRecords(): number {
    return this.read.reduce((n, c) => n + c.records, 0);
  }
}

interface Sample {
  /** Seconds since the fixed-rate load began. */
  t: number;
  rssMB: number;
  heapUsedMB: number;
  externalMB: number;
  fds: number;
  /** Segment files (.log) in the soak topics' partition dirs, and those renamed .deleted awaiting unlink. */
  segmentFiles: number;
  deletedPending: number;
  /** kafkite_open_segment_files: the descriptor cache's open segment files. */
  cachedSegmentFiles: number;
  /** Segments deleted (from the broker's "segments deleted" log lines) in this interval, and so far. */
  segmentsDeleted: number;
  segmentsDeletedTotal: number;
  /** Sum of the log start offsets, per topic. */
  logStart: number[];
  offeredPerSec: number;
  producedPerSec: number;
  producedMBps: number;
  consumedPerSec: number;
  consumedMBps: number;
  brokerCpuPct: number;
  loadAvg1: number;
}

function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** VmRSS in MB (MiB), to 0.1. */
function rssMBOf(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return round(Number(kb) / 1024, 1);
}

function segmentFilesIn(dataDir: string): { live: number; deleted: number } {
  let live = 0;
  let deleted = 0;
  for (const dir of readdirSync(dataDir)) {
    if (!SIZES.some((s) => dir.startsWith(`${s.topic}-`))) continue;
    for (const f of readdirSync(join(dataDir, dir))) {
      if (f.endsWith('.log')) live++;
      else if (f.endsWith('.log.deleted')) deleted++;
    }
  }
  return { live, deleted };
}

async function scrapeMetrics(adminBase: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${adminBase}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const name of ['kafkite_nodejs_heap_size_used_bytes', 'kafkite_nodejs_external_memory_bytes', 'kafkite_open_segment_files']) {
    const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
    out[name] = m ? Number(m[1]) : NaN;
  }
  return out;
}

/** Least-squares slope of ys over xs. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return num / den;
}

/** Records per second over the samples whose interval ends in (from, to]. */
function rateIn(samples: Sample[], from: number, to: number, key: 'offeredPerSec' | 'producedPerSec' | 'consumedPerSec' | 'brokerCpuPct'): number {
  const inWindow = samples.filter((s, i) => i > 0 && s.t > from && s.t <= to + 1e-6);
  let records = 0;
  let seconds = 0;
  for (const s of inWindow) {
    const dt = s.t - samples[samples.indexOf(s) - 1]!.t;
    records += s[key] * dt;
    seconds += dt;
  }
  return seconds > 0 ? records / seconds : NaN;
}

interface Verdict {
  check: string;
  value: string;
  target: string;
  verdict: 'PASS' | 'MISS' | 'n/a';
}

function judge(samples: Sample[], durationS: number) {
  const windowS = Math.min(300, Math.round(durationS / 3));
  const warm = samples.filter((s) => s.t >= windowS);
  const minutes = warm.map((s) => s.t / 60);
  const rssSlope = round(slope(minutes, warm.map((s) => s.rssMB)), 3);
  const heapSlope = round(slope(minutes, warm.map((s) => s.heapUsedMB)), 3);
  const fdSlope = round(slope(minutes, warm.map((s) => s.fds)), 3);
  const fdValues = warm.map((s) => s.fds);
  const fdMin = Math.min(...fdValues);
  const fdMax = Math.max(...fdValues);
  // Segment files stay open until file.delete.delay.ms after their deletion, so the total follows the roll
  // rate (the throughput); what is not a segment file (sockets, the log dir, pipes) must stay flat.
  const otherFds = warm.map((s) => s.fds - s.cachedSegmentFiles);
  const otherFdSlope = round(slope(minutes, otherFds), 3);
  const windowRates = (from: number, to: number) => ({
    offered: Math.round(rateIn(samples, from, to, 'offeredPerSec')),
    produced: Math.round(rateIn(samples, from, to, 'producedPerSec')),
    consumed: Math.round(rateIn(samples, from, to, 'consumedPerSec')),
    /** Broker CPU milliseconds per 1,000 records acknowledged (and read along). */
    cpuMsPer1k: round((rateIn(samples, from, to, 'brokerCpuPct') * 10) / (rateIn(samples, from, to, 'producedPerSec') / 1000), 3),
  });
  const first = windowRates(0, windowS);
  const last = windowRates(durationS - windowS, durationS);
  const producedRatio = round(last.produced / first.produced, 3);
  const consumedRatio = round(last.consumed / first.consumed, 3);
  const cpuPerRecordRatio = round(last.cpuMsPer1k / first.cpuMsPer1k, 3);
  // Segments deleted per whole minute, the first minute (retention.ms still filling) left out.
  const perMinute: number[] = [];
  for (let m = 1; (m + 1) * 60 <= durationS + 1e-6; m++) {
    perMinute.push(samples.filter((s) => s.t > m * 60 && s.t <= (m + 1) * 60 + 1e-6).reduce((n, s) => n + s.segmentsDeleted, 0));
  }
  const deletedTotal = samples.at(-1)!.segmentsDeletedTotal;
  const verdicts: Verdict[] = [
    { check: `RSS slope after ${round(windowS / 60, 2)} min warm-up`, value: `${rssSlope} MB/min`, target: '< 1 MB/min', verdict: rssSlope < 1 ? 'PASS' : 'MISS' },
    { check: `open fds slope after warm-up (range ${fdMin}–${fdMax})`, value: `${fdSlope} fd/min`, target: '< 1 fd/min', verdict: fdSlope < 1 ? 'PASS' : 'MISS' },
    { check: `acknowledged, last / first ${round(windowS / 60, 2)} min`, value: `${producedRatio}× (${last.produced} / ${first.produced} rec/s; offered ${last.offered} / ${first.offered})`, target: '≥ 0.9×', verdict: producedRatio >= 0.9 ? 'PASS' : 'MISS' },
    { check: `read along, last / first ${round(windowS / 60, 2)} min`, value: `${consumedRatio}× (${last.consumed} / ${first.consumed} rec/s)`, target: '≥ 0.9×', verdict: consumedRatio >= 0.9 ? 'PASS' : 'MISS' },
    {
      check: `fds other than segment files, slope after warm-up (range ${Math.min(...otherFds)}–${Math.max(...otherFds)})`,
      value: `${otherFdSlope} fd/min`,
      target: '(figure)',
      verdict: 'n/a',
    },
    // A figure, not a target: the broker's work per record, which a neighbour's load does not change much
    // (the throughput ratios above measure the machine's share too when it is oversubscribed).
    {
      check: `broker CPU per record, last / first ${round(windowS / 60, 2)} min`,
      value: `${cpuPerRecordRatio}× (${last.cpuMsPer1k} / ${first.cpuMsPer1k} CPU-ms per 1,000 records)`,
      target: '(figure)',
      verdict: 'n/a',
    },
    {
      check: 'segments deleted in every minute after the first',
      value: perMinute.length > 0 ? `${deletedTotal} in all, ${Math.min(...perMinute)}–${Math.max(...perMinute)} per minute` : `${deletedTotal} in all (run under 2 min)`,
      target: '≥ 1 per minute',
      verdict: perMinute.length > 0 && Math.min(...perMinute) >= 1 ? 'PASS' : 'MISS',
    },
  ];
  return {
    windowMinutes: round(windowS / 60, 2),
    rssSlopeMBPerMin: rssSlope,
    heapSlopeMBPerMin: heapSlope,
    fdSlopePerMin: fdSlope,
    fdRangeAfterWarmup: [fdMin, fdMax],
    otherFdSlopePerMin: otherFdSlope,
    throughputFirst: first,
    throughputLast: last,
    producedRatio,
    consumedRatio,
    segmentsDeleted: deletedTotal,
    segmentsDeletedPerMinute: perMinute,
    verdicts,
    cpuPerRecordRatio,
    pass: verdicts.every((v) => v.verdict !== 'MISS'),
  };
}

async function writeResults(config: SoakConfig, samples: Sample[], result: ReturnType<typeof judge>): Promise<void> {
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(`${OUT}.json`, `${JSON.stringify({ config, result, samples }, null, 1)}\n`);
  const columns = Object.keys(samples[0]!) as Array<keyof Sample>;
  const csv = [columns.join(','), ...samples.map((s) => columns.map((c) => (Array.isArray(s[c]) ? (s[c] as number[]).join(' ') : s[c])).join(','))];
  writeFileSync(`${OUT}.csv`, `${csv.join('\n')}\n`);
  const c = config;
  await renderChart({
    title: [
      `kafkite soak: ${c.minutes} min at ${c.rate.toLocaleString('en-US')} records/s offered` +
        `${c.maxMeasured ? ` (half the measured ${Math.round(c.maxMeasured).toLocaleString('en-US')})` : ''}, 100 B + 1 KB mixed, retention deleting — ${result.pass ? 'PASS' : 'MISS'}`,
      ...result.verdicts.map((v) => (v.verdict === 'n/a' ? `      ${v.check}: ${v.value}` : `${v.verdict}  ${v.check}: ${v.value} (target ${v.target})`)),
    ],
    minutes: samples.map((s) => round(s.t / 60, 3)),
    markerMinutes: result.windowMinutes,
    panels: [
      { title: 'Broker memory (dashed line: end of warm-up)', unit: 'MB', series: [
        { label: 'RSS', values: samples.map((s) => s.rssMB), color: '#d62728' },
        { label: 'V8 heap used', values: samples.map((s) => s.heapUsedMB), color: '#1f77b4' },
        { label: 'external (Buffers)', values: samples.map((s) => s.externalMB), color: '#2ca02c' },
      ] },
      { title: 'Descriptors and segment files', unit: 'count', series: [
        { label: 'open fds', values: samples.map((s) => s.fds), color: '#d62728' },
        { label: 'segment .log files', values: samples.map((s) => s.segmentFiles), color: '#1f77b4' },
        { label: '.deleted awaiting unlink', values: samples.map((s) => s.deletedPending), color: '#ff7f0e' },
        { label: 'segment files in fd cache', values: samples.map((s) => s.cachedSegmentFiles), color: '#2ca02c' },
      ] },
      { title: 'Throughput (records/s, per 10 s)', unit: 'records/s', series: [
        { label: 'offered', values: samples.map((s) => s.offeredPerSec), color: '#999999' },
        { label: 'acknowledged', values: samples.map((s) => s.producedPerSec), color: '#d62728' },
        { label: 'read along', values: samples.map((s) => s.consumedPerSec), color: '#1f77b4' },
      ] },
      { title: 'Retention and the machine (2 cores)', unit: 'count, %', series: [
        { label: 'segments deleted per 10 s', values: samples.map((s) => s.segmentsDeleted), color: '#9467bd' },
        { label: 'load average (1 min)', values: samples.map((s) => s.loadAvg1), color: '#8c564b' },
        { label: 'broker CPU %', values: samples.map((s) => s.brokerCpuPct), color: '#e377c2' },
      ] },
    ],
  }, `${OUT}.png`);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kafkite-soak-'));
  const adminBase = `http://127.0.0.1:${await freePort()}`;
  const nodeArgs = process.env.BENCH_BROKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const broker: SpawnedBroker = await spawnBroker({ dataDir, overrides: [...BROKER_OVERRIDES, `admin.listener=${adminBase}`], nodeArgs });
  const pid = broker.child.pid!;
  const bootstrap = `127.0.0.1:${broker.port}`;
  let producer: MixedProducer | null = null;
  let reader: ReadAlong | null = null;
  const admin = await BenchConnection.open(bootstrap);
  try {
    for (const size of SIZES) await createTopic(bootstrap, size.topic, PARTITIONS, size.configs);
    producer = await MixedProducer.open(bootstrap);
    let maxMeasured: number | null = null;
    if (FIXED_RATE === null) {
      const cpuBefore = cpuSecondsOf(pid);
      const ownBefore = process.cpuUsage();
      maxMeasured = await producer.saturate(MAX_SECONDS);
      const cpuPct = Math.round(((cpuSecondsOf(pid) - cpuBefore) / MAX_SECONDS) * 100);
      const own = process.cpuUsage(ownBefore);
      const ownPct = Math.round((own.user + own.system) / 1e4 / MAX_SECONDS);
      console.log(`soak: maximum of the mix ${Math.round(maxMeasured).toLocaleString('en-US')} records/s acknowledged over ${MAX_SECONDS} s ` +
        `(${PARTITIONS} partitions per size, ${SATURATE_IN_FLIGHT} requests in flight, broker CPU ${cpuPct}%, load generator CPU ${ownPct}%, load average ${round(loadavg()[0]!, 1)})`);
      await sleep(SETTLE_MS);
    }
    const rate = FIXED_RATE ?? Math.round(maxMeasured! * LOAD_FRACTION);
    const mbPerRecord = SIZES.reduce((n, s) => n + s.recordBytes, 0) / SIZES.length / 1e6;
    console.log(`soak: ${MINUTES} min at ${rate.toLocaleString('en-US')} records/s (${round(rate * mbPerRecord, 1)} MB/s), sampling every ${SAMPLE_SECONDS} s; broker pid ${pid}, data in ${dataDir}`);

    const starts = await Promise.all(SIZES.map((s) => listOffsets(admin, s.topic, -1)));
    reader = new ReadAlong(bootstrap, starts);
    const load = producer.runAtRate(rate);
    const samples: Sample[] = [];
    const start = performance.now();
    let deletedTotal = 0;
    let previous = { t: 0, produced: producer.ackedRecords(), producedBytes: 0, consumed: 0, consumedBytes: 0, offered: 0, cpu: cpuSecondsOf(pid) };
    const bytesOf = (counts: Counts[]) => counts.reduce((n, c) => n + c.bytes, 0);
    previous.producedBytes = bytesOf(producer.acked);
    const durationS = MINUTES * 60;
    for (let k = 0; k <= durationS / SAMPLE_SECONDS; k++) {
      const wait = start + k * SAMPLE_SECONDS * 1000 - performance.now();
      if (wait > 0) await Promise.race([sleep(wait), load.failed.then((e) => { if (e) throw e; })]);
      const t = (performance.now() - start) / 1000;
      let deleted = 0;
      for (const entry of broker.logs.splice(0)) {
        if (entry.msg === 'segments deleted' && typeof entry.topic === 'string' && entry.topic.startsWith('soak-')) deleted += (entry.segments as unknown[]).length;
      }
      deletedTotal += deleted;
      const [metrics, logStart] = await Promise.all([
        scrapeMetrics(adminBase),
        Promise.all(SIZES.map(async (s) => (await listOffsets(admin, s.topic, -2)).reduce((a, b) => a + b, 0))),
      ]);
      const files = segmentFilesIn(dataDir);
      const now = {
        t, produced: producer.ackedRecords(), producedBytes: bytesOf(producer.acked), consumed: reader.readRecords(), consumedBytes: bytesOf(reader.read),
        offered: producer.offered, cpu: cpuSecondsOf(pid),
      };
      const dt = t - previous.t || 1;
      samples.push({
        t: round(t, 2),
        rssMB: rssMBOf(pid),
        heapUsedMB: round(metrics.kafkite_nodejs_heap_size_used_bytes! / 2 ** 20, 1),
        externalMB: round(metrics.kafkite_nodejs_external_memory_bytes! / 2 ** 20, 1),
        fds: readdirSync(`/proc/${pid}/fd`).length,
        segmentFiles: files.live,
        deletedPending: files.deleted,
        cachedSegmentFiles: metrics.kafkite_open_segment_files!,
        segmentsDeleted: deleted,
        segmentsDeletedTotal: deletedTotal,
        logStart,
        offeredPerSec: k === 0 ? 0 : Math.round((now.offered - previous.offered) / dt),
        producedPerSec: k === 0 ? 0 : Math.round((now.produced - previous.produced) / dt),
        producedMBps: k === 0 ? 0 : round((now.producedBytes - previous.producedBytes) / dt / 1e6, 1),
        consumedPerSec: k === 0 ? 0 : Math.round((now.consumed - previous.consumed) / dt),
        consumedMBps: k === 0 ? 0 : round((now.consumedBytes - previous.consumedBytes) / dt / 1e6, 1),
        brokerCpuPct: k === 0 ? 0 : Math.round(((now.cpu - previous.cpu) / dt) * 100),
        loadAvg1: round(loadavg()[0]!, 2),
      });
      previous = now;
      const s = samples.at(-1)!;
      if (k % 6 === 0) {
        console.log(`  ${round(t / 60, 1)} min: RSS ${s.rssMB} MB (heap ${s.heapUsedMB}, external ${s.externalMB}), ${s.fds} fds, ${s.segmentFiles} segments (+${s.deletedPending} .deleted), ` +
          `${s.producedPerSec} rec/s acknowledged, ${s.consumedPerSec} read, ${deletedTotal} segments deleted, load ${s.loadAvg1}`);
      }
    }
    await load.stop();
    const error = await load.failed;
    if (error) throw error;
    await reader.stop();
    const skipped = reader.skipped;
    reader = null;

    const config: SoakConfig = {
      minutes: MINUTES, rate, maxMeasured, loadFraction: FIXED_RATE === null ? LOAD_FRACTION : null, partitionsPerTopic: PARTITIONS,
      batchRecords: BATCH_RECORDS, sizes: SIZES, brokerOverrides: BROKER_OVERRIDES, sampleSeconds: SAMPLE_SECONDS,
      droppedRecords: producer.dropped, skippedByReaders: skipped,
    };
    await report(config, samples);
  } finally {
    await reader?.stop().catch(() => undefined);
    producer?.close();
    admin.close();
    await broker.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface SoakConfig {
  minutes: number;
  rate: number;
  maxMeasured: number | null;
  loadFraction: number | null;
  partitionsPerTopic: number;
  batchRecords: number;
  sizes: SizeClass[];
  brokerOverrides: string[];
  sampleSeconds: number;
  droppedRecords: number;
  skippedByReaders: number;
}

/** Judges the samples, prints the tables and the JSON line, writes the .json/.csv/.png. */
async function report(config: SoakConfig, samples: Sample[]): Promise<void> {
  const result = judge(samples, config.minutes * 60);
  const perMinute = samples.filter((s, i) => i > 0 && Math.round(s.t) % 60 === 0);
  printTable(`soak samples, one per minute (records/s over the last ${config.sampleSeconds} s)`, perMinute.map((s) => ({
    min: round(s.t / 60, 1), 'RSS MB': s.rssMB, 'heap MB': s.heapUsedMB, 'ext MB': s.externalMB, fds: s.fds, segments: s.segmentFiles, '.deleted': s.deletedPending,
    'deleted (total)': s.segmentsDeletedTotal, 'acked rec/s': s.producedPerSec, 'acked MB/s': s.producedMBps, 'read rec/s': s.consumedPerSec, 'broker CPU %': s.brokerCpuPct, load: s.loadAvg1,
  })));
  printTable(`soak verdicts (${config.minutes} min at ${config.rate.toLocaleString('en-US')} records/s; warm-up and windows ${result.windowMinutes} min)`, result.verdicts as unknown as Array<Record<string, unknown>>);
  const loads = samples.map((s) => s.loadAvg1);
  console.log(`  records offered but dropped by the producer (over 1 s behind): ${config.droppedRecords}; skipped by the readers (deleted before read): ${config.skippedByReaders}; ` +
    `load average ${Math.min(...loads)}–${Math.max(...loads)} (2 cores)`);
  await writeResults(config, samples, result);
  console.log(`  graph ${OUT}.png, samples ${OUT}.json and ${OUT}.csv`);
  printJson('soak', {
    minutes: config.minutes, rate: config.rate, maxMeasured: config.maxMeasured && Math.round(config.maxMeasured), rssSlopeMBPerMin: result.rssSlopeMBPerMin,
    heapSlopeMBPerMin: result.heapSlopeMBPerMin, fdSlopePerMin: result.fdSlopePerMin, fdRangeAfterWarmup: result.fdRangeAfterWarmup, otherFdSlopePerMin: result.otherFdSlopePerMin,
    producedRatio: result.producedRatio, consumedRatio: result.consumedRatio, cpuPerRecordRatio: result.cpuPerRecordRatio, segmentsDeleted: result.segmentsDeleted,
    droppedRecords: config.droppedRecords, loadAverage: [Math.min(...loads), Math.max(...loads)], pass: result.pass, png: `${OUT}.png`,
  });
}

if (isMain(import.meta.url)) {
  // `--render <soak.json>`: judge and draw a recorded run again (same OUT rules), without running anything.
  if (process.argv[2] === '--render') {
    const recorded = JSON.parse(readFileSync(process.argv[3]!, 'utf8')) as { config: SoakConfig; samples: Sample[] };
    await report(recorded.config, recorded.samples);
  } else {
    await main();
  }
}
