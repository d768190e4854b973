// Runs every benchmark (each script in its own process, one after another), then prints the
// figures against the targets (PASS/MISS) and as fractions of the machine's limits.
//
//   npm run bench                      short version, ~45 minutes (the Kafka 4.4 peers take most of it)
//   BENCH_FULL=1 npm run bench         more runs and bigger inputs
//   BENCH_SOAK=1 npm run bench         adds the soak (BENCH_SOAK_MINUTES, 30 by default: half an hour more)
//
// Each script's output is passed through; its last JSON line feeds the summary.
import type { PeerResults } from './lib/peer-results.js';
import { runScript } from './lib/run-script.js';
import { writePeerReport } from './peer-report.js';
import { printJson, printTable, round } from './lib/stats.js';

const FULL = process.env.BENCH_FULL === '1';

const SCRIPTS: Array<{ name: string; file: string; env: Record<string, string> }> = [
  { name: 'limits', file: 'limits.js', env: {} },
  { name: 'produce-matrix', file: 'produce-matrix.js', env: { BENCH_RUNS: FULL ? '5' : '3', BENCH_PRODUCE_SECONDS: FULL ? '4' : '1.5' } },
  { name: 'acks-all', file: 'acks-all.js', env: { BENCH_ACKS_ROUNDS: FULL ? '5' : '3', BENCH_ACKS_SECONDS: FULL ? '3' : '1.5' } },
  { name: 'kcat-throughput', file: 'kcat-throughput.js', env: { BENCH_RUNS: FULL ? '5' : '3', BENCH_KCAT_RECORDS_100: FULL ? '5000000' : '2000000', BENCH_KCAT_RECORDS_1K: FULL ? '1000000' : '400000' } },
  { name: 'produce-vs-mock', file: 'produce-vs-mock.js', env: { BENCH_RUNS: FULL ? '7' : '5', BENCH_PVM_RECORDS_100: FULL ? '4000000' : '2000000', BENCH_PVM_RECORDS_1K: FULL ? '800000' : '400000' } },
  // Apache Kafka 4.4 beside kafkite (issue 32); needs test/kafka/lib (node scripts/kafka-jars.mjs).
  { name: 'kafka-vs-kafkite', file: 'kafka-vs-kafkite.js', env: {} },
  // Kafka's own ProducerPerformance and ConsumerPerformance against both brokers, ~8 minutes (issue 32).
  { name: 'perf-tools', file: 'perf-tools.js', env: { BENCH_RUNS: FULL ? '5' : '3' } },
  // Share groups (KIP-932) with Kafka 4.4's KafkaShareConsumer against both brokers, ~5 minutes (issues 29 and 32).
  { name: 'share-groups', file: 'share-groups.js', env: { BENCH_RUNS: FULL ? '5' : '3', BENCH_SHARE_RECORDS: FULL ? '500000' : '100000' } },
  // Kafka Streams 4.4 against both brokers: rebalances under both protocols, the exactly-once word count, 3-5 minutes (issues 30 and 32).
  { name: 'streams', file: 'streams.js', env: { BENCH_RUNS: FULL ? '5' : '3', BENCH_STREAMS_RECORDS: FULL ? '300000' : '100000' } },
  { name: 'fetch-cpu', file: 'fetch-cpu.js', env: { BENCH_RUNS: FULL ? '5' : '3', BENCH_FETCH_MB: FULL ? '2000' : '1000' } },
  { name: 'security', file: 'security.js', env: { BENCH_RUNS: FULL ? '5' : '3', BENCH_SEC_CONNECTIONS: FULL ? '2000' : '600' } },
  { name: 'transactions', file: 'transactions.js', env: { BENCH_RUNS: FULL ? '9' : '5', BENCH_TXN_SECONDS: '1' } },
  { name: 'read-committed', file: 'read-committed.js', env: { BENCH_RUNS: FULL ? '5' : '3', BENCH_RC_MB: FULL ? '400' : '200' } },
  { name: 'kip848-fetch', file: 'kip848-fetch.js', env: { BENCH_RUNS: FULL ? '7' : '5', BENCH_KIP848_MB: FULL ? '400' : '150' } },
  { name: 'down-conversion', file: 'down-conversion.js', env: { BENCH_RUNS: FULL ? '5' : '3', BENCH_DOWNCONVERSION_MB: FULL ? '500' : '150' } },
  { name: 'connections', file: 'connections.js', env: { BENCH_CONN_CONNECTIONS: '10000', BENCH_CONN_PRODUCERS: '1000', BENCH_CONN_PRODUCE_SECONDS: FULL ? '10' : '3' } },
  { name: 'e2e-latency', file: 'e2e-latency.js', env: { BENCH_RUNS: '3', BENCH_E2E_SECONDS: FULL ? '10' : '3' } },
  { name: 'storage-lookup', file: 'storage-lookup.js', env: { STORAGE_BENCH_MAX_MB: '1024', STORAGE_BENCH_READS: FULL ? '5000' : '2000' } },
  { name: 'console', file: 'console.js', env: { BENCH_CONSOLE_MB: FULL ? '1024' : '256', BENCH_CONSOLE_IDLE_SECONDS: FULL ? '20' : '10' } },
  { name: 'startup', file: 'startup.js', env: { BENCH_RUNS: FULL ? '5' : '3' } },
  // ~1 minute: 10,000 registrations take most of it (one durable append each).
  { name: 'schema-registry', file: 'schema-registry.js', env: { BENCH_RUNS: FULL ? '7' : '5', BENCH_SR_LOOKUP_SECONDS: FULL ? '4' : '2' } },
  // 100,000 partitions (1,000 × 100) with BENCH_FULL=1; 10,000 (100 × 100) otherwise, to stay within minutes.
  { name: 'many-partitions', file: 'many-partitions.js', env: { BENCH_MP_TOPICS: FULL ? '1000' : '100', BENCH_MP_PER_TOPIC: '100' } },
  // Half an hour at a fixed rate: only when asked for.
  ...(process.env.BENCH_SOAK === '1' ? [{ name: 'soak', file: 'soak.js', env: {} }] : []),
];

interface Target {
  figure: string;
  value: string;
  target: string;
  verdict: 'PASS' | 'MISS' | 'n/a';
  ofLimit: string;
}

const pct = (fraction: number) => `${round(fraction * 100, 0)}%`;

/** Issue 32's target for a kafka-vs-kafkite figure (kafkite ÷ Kafka 4.4), if it has one. */
function kafkaTarget(figure: string): { bound: number; atLeast: boolean } | null {
  if (figure.includes('default durability') || figure.includes('acks=1 ')) return { bound: 1.0, atLeast: true };
  if (figure.includes('both durable')) return { bound: 1.5, atLeast: true };
  if (figure.startsWith('broker CPU-s per GB')) return { bound: 0.5, atLeast: false };
  if (figure.startsWith('RSS')) return { bound: 0.2, atLeast: false };
  if (figure.startsWith('start to ready')) return { bound: 0.1, atLeast: false };
  if (figure.startsWith('e2e p99 ')) return { bound: 1.0, atLeast: false };
  return null;
}

async function main(): Promise<void> {
  const r: Record<string, any> = {};
  for (const s of SCRIPTS) {
    console.log(`\n=== ${s.name}`);
    try {
      r[s.name] = await runScript(s.file, s.env);
    } catch (err) {
      console.log(`${s.name} failed: ${(err as Error).message}`);
    }
  }
  const limits = r.limits;
  const loopbackMBs = limits ? limits.tcp.gbPerSec * 1000 : NaN;
  const sendfileLimit = limits?.sendfile.find((s: any) => s.sender === 'sendfile') ?? limits?.sendfile[0];
  const sendfileMBs = sendfileLimit ? sendfileLimit.gbPerSecond * 1000 : NaN;
  const targets: Target[] = [];
  const check = (figure: string, value: number, unit: string, target: string, pass: boolean, ofLimit: string) =>
    targets.push({ figure, value: `${value.toLocaleString('en-US')} ${unit}`, target, verdict: Number.isNaN(value) ? 'n/a' : pass ? 'PASS' : 'MISS', ofLimit });

  const kcat = r['kcat-throughput']?.results as any[] | undefined;
  const k100 = kcat?.find((c) => c.recordBytes === 100);
  const k1k = kcat?.find((c) => c.recordBytes === 1024);
  if (k100) {
    check('kcat produce 100 B, acks=1', k100.produce.recordsPerSec, 'rec/s', '≥ 1,000,000 rec/s', k100.produce.recordsPerSec >= 1e6, `${pct(k100.produce.mbPerSec / loopbackMBs)} of loopback TCP`);
    check('kcat consume 100 B', k100.consume.recordsPerSec, 'rec/s', '≥ 750,000 rec/s', k100.consume.recordsPerSec >= 750_000, `${pct(k100.consume.mbPerSec / sendfileMBs)} of sendfile → loopback`);
  }
  if (k1k) {
    check('kcat produce 1 KB, acks=1', k1k.produce.mbPerSec, 'MB/s', '≥ 300 MB/s', k1k.produce.mbPerSec >= 300, `${pct(k1k.produce.mbPerSec / loopbackMBs)} of loopback TCP`);
    check('kcat consume 1 KB', k1k.consume.mbPerSec, 'MB/s', '≥ 320 MB/s', k1k.consume.mbPerSec >= 320, `${pct(k1k.consume.mbPerSec / sendfileMBs)} of sendfile → loopback`);
  }
  const pvm = r['produce-vs-mock']?.results as any[] | undefined;
  for (const c of pvm ?? []) {
    const size = c.recordBytes === 1024 ? '1 KB' : `${c.recordBytes} B`;
    const want = c.recordBytes === 1024 ? 0.6 : 1.0;
    check(`kcat produce ${size} / librdkafka mock, 4 part., acks=1`, c.ratio, '×', `≥ ${want}×`, c.ratio >= want,
      `kafkite ${c.kafkite.mbPerSec} MB/s, mock ${c.mock.mbPerSec} MB/s; rounds ${c.rounds.map((x: any) => x.ratio).join(', ')}`);
  }
  for (const c of pvm ?? []) {
    const size = c.recordBytes === 1024 ? '1 KB' : `${c.recordBytes} B`;
    // Headline figures: what a GB costs the broker. Only produce 1 KB has a target (issue 14).
    if (c.recordBytes === 1024) {
      check(`broker CPU per GB, produce ${size}`, c.kafkite.produceCpuSecondsPerGb, 'CPU-s/GB', '≤ 1.0 CPU-s/GB', c.kafkite.produceCpuSecondsPerGb <= 1.0,
        `librdkafka mock ${c.mock.produceCpuSecondsPerGb} CPU-s/GB`);
    } else {
      targets.push({ figure: `broker CPU per GB, produce ${size}`, value: `${c.kafkite.produceCpuSecondsPerGb} CPU-s/GB`, target: '(figure)', verdict: 'n/a', ofLimit: `librdkafka mock ${c.mock.produceCpuSecondsPerGb} CPU-s/GB` });
    }
    targets.push({ figure: `broker CPU per GB, consume ${size} (kcat)`, value: `${c.kafkite.consumeCpuSecondsPerGb} CPU-s/GB`, target: '(figure)', verdict: 'n/a', ofLimit: `${c.kafkite.consumeMbPerSec} MB/s` });
  }
  // Issue 32's targets, kafkite ÷ Kafka 4.4 in the same run; the other figures of that bench are listed beside them.
  // Every peer bench's figures, also written to bench/results/kafka-vs-kafkite.{json,md,svg,png} for the README.
  let peer: PeerResults | null = null;
  try {
    peer = await writePeerReport(r);
  } catch (err) {
    console.log(`peer report failed: ${(err as Error).message}`);
  }
  for (const f of peer?.figures ?? []) {
    const target = kafkaTarget(f.figure);
    const ofLimit = `kafkite ${f.kafkite.toLocaleString('en-US')}, Kafka 4.4 ${f.kafka.toLocaleString('en-US')}`;
    if (target) check(`${f.figure.trim()} / Kafka 4.4`, f.ratio, '×', `${target.atLeast ? '≥' : '≤'} ${target.bound}×`, target.atLeast ? f.ratio >= target.bound : f.ratio <= target.bound, ofLimit);
    else targets.push({ figure: `${f.figure.trim()} / Kafka 4.4`, value: `${f.ratio} ×`, target: '(figure)', verdict: 'n/a', ofLimit });
  }
  const fetch = r['fetch-cpu'];
  if (fetch) {
    const [on, off] = fetch.modes;
    const runRatios = (fetch.runRatios ?? [fetch.sendfileToFallbackRatio]) as number[];
    const worst = Math.max(...runRatios);
    check(`fetch CPU/GB sendfile vs fallback, every run (${runRatios.length})`, worst, '× (worst run)', '≤ 0.5× in every run', worst <= 0.5,
      `runs ${runRatios.join(', ')}; sendfile ${on.cpuSecondsPerGb} CPU-s/GB = ${round(on.cpuSecondsPerGb / (sendfileLimit?.cpuSecondsPerGb ?? NaN), 1)}× kafkite's sendfile sender alone, bench/sendfile.ts (fallback ${off.cpuSecondsPerGb}); the machine's bare C loops, sendfile / pread + write: ${limits?.bareSend?.sendfileCpuSecondsPerGb} / ${limits?.bareSend?.copyCpuSecondsPerGb} CPU-s/GB`);
  }
  const txn = r.transactions;
  const txn100 = txn?.results.find((row: any) => row.recordsPerTxn === 100);
  if (txn100) {
    check('transactional / idempotent produce, 100 rec/txn', txn100.ratio, '×', '≥ 0.7×', txn100.ratio >= 0.7,
      (txn.results as any[]).map((row) => `${row.recordsPerTxn}/txn: ${row.ratio}× (transaction version 2 client ${row.ratioTv2}×)`).join(', '));
    check('EndTxn(commit) p99', txn.commitP99Ms, 'ms', '≤ 10 ms', txn.commitP99Ms <= 10, `p50 ${txn.commitP50Ms} ms`);
  }
  const rc = r['read-committed'];
  if (rc) {
    check('read_committed / read_uncommitted consume', rc.ratio, '×', '≥ 0.9×', rc.ratio >= 0.9, `read_committed ${rc.committedMbPerSec} MB/s, read_uncommitted ${rc.uncommittedMbPerSec} MB/s`);
  }
  const kip848 = r['kip848-fetch'];
  if (kip848) {
    // Broker-side time per fetch (medians): total, of which parked (remote), read + encode (local) and send.
    const ms = (p: any) => `${p.request_total_time} ms/fetch (remote ${p.request_remote_time}, local ${p.request_local_time}, send ${p.response_send_time})`;
    check('consumer-protocol / classic consume, @platformatic/kafka', kip848.ratio, '×', '≥ 0.9×', kip848.ratio >= 0.9,
      `consumer ${kip848.consumerMbPerSec} MB/s, ${ms(kip848.consumerPhasesMs)}; classic ${kip848.classicMbPerSec} MB/s, ${ms(kip848.classicPhasesMs)}`);
  }
  const down = r['down-conversion'];
  for (const [topic, ratio] of Object.entries((down?.ratios ?? {}) as Record<string, { cpuV1ToV2: number; throughputV1ToV2: number }>)) {
    const rows = (down.rows as any[]).filter((row) => row.topic === topic);
    // A figure, not a target: what an old (message format v1) consumer costs against a current one.
    targets.push({
      figure: `down-conversion CPU/GB, v1 vs v2 consumer (${topic})`, value: `${ratio.cpuV1ToV2} ×`, target: '(figure)', verdict: 'n/a',
      ofLimit: rows.map((row) => `${row.consumer}: ${row.mbPerSec} MB/s, ${row.cpuSecondsPerGb} CPU-s/GB`).join('; '),
    });
  }
  const sec = r.security;
  for (const t of (sec?.throughput ?? []) as any[]) {
    check(`SASL_SSL / PLAINTEXT produce ${t.recordBytes} B`, t.produceRatio, '×', '≥ 0.5×', t.produceRatio >= 0.5, `SASL_SSL ${t.SASL_SSL.produceRecordsPerSec} rec/s, PLAINTEXT ${t.PLAINTEXT.produceRecordsPerSec} rec/s`);
    check(`SASL_SSL / PLAINTEXT consume ${t.recordBytes} B`, t.consumeRatio, '×', '≥ 0.5×', t.consumeRatio >= 0.5, `SASL_SSL ${t.SASL_SSL.consumeRecordsPerSec} rec/s, PLAINTEXT ${t.PLAINTEXT.consumeRecordsPerSec} rec/s`);
  }
  for (const storm of (sec?.storms ?? []) as any[]) {
    check(`new SCRAM-SHA-512 connections, ${storm.listener}`, storm.connectionsPerSec, 'conn/s', '≥ 100/s, p99 < 20 ms', storm.connectionsPerSec >= 100 && storm.brokerEventLoopP99Ms < 20, `broker event-loop p99 ${storm.brokerEventLoopP99Ms} ms (idle ${storm.idleEventLoopP99Ms} ms)`);
  }
  const matrix = r['produce-matrix']?.results as any[] | undefined;
  for (const size of [100, 1024]) {
    for (const partitions of [1, 8]) {
      const one = matrix?.find((m) => m.recordBytes === size && m.partitions === partitions && m.acks === 1);
      const all = matrix?.find((m) => m.recordBytes === size && m.partitions === partitions && m.acks === -1);
      if (!one || !all) continue;
      const ratio = round(all.recordsPerSec / one.recordsPerSec, 2);
      check(`acks=all / acks=1, 8 producers, ${size} B, ${partitions} part.`, ratio, '×', '≥ 0.5×', ratio >= 0.5,
        `acks=all ${all.mbPerSec} MB/s = ${pct(all.mbPerSec / (limits?.disk.durableMBPerSec ?? NaN))} of durable disk write`);
    }
  }
  // Issue 14 target 3: the commit round's syncfs against acks=1; the per-file fdatasync ratio is the before figure.
  for (const c of (r['acks-all']?.results ?? []) as any[]) {
    check(`acks=all / acks=1, ${c.name}, 1 KB`, c.syncfsRatio, '×', `≥ ${c.target}×`, c.syncfsRatio >= c.target,
      `fdatasync per file (before): ${c.fdatasyncRatio}×; acks=all ${c['acks=all syncfs']} rec/s, acks=1 ${c['acks=1']} rec/s`);
  }
  const lookup = r['storage-lookup'];
  if (lookup) {
    const first = lookup.rows[0];
    const last = lookup.rows[lookup.rows.length - 1];
    const ratio = round(last.p99us / first.p99us, 2);
    check(`random read p99, ${last.logMB} MB vs ${first.logMB} MB log`, ratio, '×', '≤ 1.2×', ratio <= 1.2, `p99 ${first.p99us} → ${last.p99us} µs`);
  }
  const e2e = r['e2e-latency']?.rows as any[] | undefined;
  const e2eRow = e2e?.find((row) => row.acks === '1' && row.client.startsWith('librdkafka')) ?? e2e?.find((row) => row.acks === '1');
  if (e2eRow) {
    check(`e2e p99 at 10k/s, ${e2eRow.client}, acks=1`, e2eRow.p99Ms, 'ms', '≤ 5 ms', e2eRow.p99Ms <= 5, `loopback RTT p99 ${limits?.rtt.p99Ms} ms; p50 ${e2eRow.p50Ms}, p999 ${e2eRow.p999Ms} ms`);
  }
  for (const row of (r['e2e-latency']?.byRate ?? []) as any[]) {
    // Issue 14: p99 ≤ 5 ms at 50k/s and ≤ 10 ms at 100k/s with acks=all; 10k/s is a figure.
    const bound = row.rate >= 100_000 ? 10 : row.rate >= 50_000 ? 5 : NaN;
    // Where the tail goes: the broker's own p99s in the same run (bucket bounds), its longest event loop delay, GC pauses.
    const b = row.broker;
    const brokerSide = b ? `; broker: produce p99 ≤ ${b.produceTotalP99Ms} ms (flush wait ≤ ${b.produceRemoteP99Ms}), fetch p99 ≤ ${b.fetchTotalP99Ms} ms, loop delay max ${b.eventLoopMaxMs} ms, ${b.gcOver10Ms} GCs > 10 ms` : '';
    const ofLimit = `asked ${row.rate.toLocaleString('en-US')}/s, achieved ${row.achievedRate.toLocaleString('en-US')}/s; p50 ${row.p50Ms}, p999 ${row.p999Ms} ms; loopback RTT p99 ${limits?.rtt.p99Ms} ms, fdatasync p50 ${limits?.fsync.p50Ms} / p99 ${limits?.fsync.p99Ms} ms${brokerSide}`;
    if (Number.isNaN(bound)) targets.push({ figure: `e2e p99 at ${row.rate / 1000}k/s, ${row.client}, acks=all`, value: `${row.p99Ms} ms`, target: '(figure)', verdict: 'n/a', ofLimit });
    else check(`e2e p99 at ${row.rate / 1000}k/s, ${row.client}, acks=all`, row.p99Ms, 'ms', `≤ ${bound} ms`, row.p99Ms <= bound, ofLimit);
  }
  const conn = r.connections;
  if (conn) {
    check(`broker RSS, ${conn.connections.toLocaleString('en-US')} connections, ${conn.producers.toLocaleString('en-US')} producing`, conn.rssPeakMB, 'MB', '< 400 MB', conn.rssPeakMB < 400,
      `${conn.rssBeforeMB} MB before any connection, ${conn.rssIdleMB} MB all idle (${conn.kbPerIdleConnection} KB/conn); bare node server with all open ${conn.peer?.rssOpenMB} MB; ${conn.producedRecordsPerSec.toLocaleString('en-US')} rec/s`);
    check(`event-loop p99 while ${conn.connections.toLocaleString('en-US')} connect`, conn.brokerEventLoopP99Ms, 'ms', '< 20 ms', conn.brokerEventLoopP99Ms < 20,
      `peer: bare node server ${conn.peer?.eventLoopP99Ms} ms in the same storm (${conn.peer?.connectionsPerSec} conn/s); idle ${conn.idleEventLoopP99Ms} ms; kafkite ${conn.connectionsPerSec} conn/s, ${conn.open} open, ${conn.failed} failed; producing ${conn.produceEventLoopP99Ms} ms`);
  }
  const startup = r.startup?.results as any[] | undefined;
  for (const s of startup ?? []) {
    if (s.segments > 0) check(`ready, ${s.layout}`, s.readyMs, 'ms', '< 500 ms', s.readyMs < 500, `bare node ${limits?.node.startupMs} ms`);
  }
  const empty = startup?.find((s) => s.segments === 0);
  if (empty) check('idle RSS (empty broker)', empty.idleRssMB, 'MB', '< 100 MB', empty.idleRssMB < 100, `bare node ${limits?.node.idleRssMB} MB`);
  const sr = r['schema-registry'];
  if (sr) {
    // Figures (issue 33 sets no targets), each against its peer in the same run.
    const figure = (name: string, value: string, ofLimit: string) => targets.push({ figure: name, value, target: '(figure)', verdict: 'n/a', ofLimit });
    figure(`schema registrations, ${sr.clients} keep-alive clients`, `${sr.registrations.perSec} /s`, `${sr.registrationRatio}× of append + fdatasync (${sr.fdatasyncPerSec}/s); p99 ${sr.registrations.p99Ms} ms; broker CPU ${sr.registrations.cpuMsPerRegistration} ms each`);
    figure('schema lookups, GET /schemas/ids/{id}', `${sr.lookups.perSec} /s`, `${sr.lookupRatio}× of a bare node:http server (${sr.bareLookups.perSec}/s); p99 ${sr.lookups.p99Ms} ms`);
    figure(`registry answering, ${sr.schemas.toLocaleString('en-US')} schemas in _schemas`, `${sr.startup.full.answerMs} ms`, `${sr.startupRatio}× of the same start with an empty _schemas (${sr.startup.empty.answerMs} ms)`);
  }
  const mp = r['many-partitions'];
  if (mp) {
    const n = `${mp.partitions.toLocaleString('en-US')} partitions`;
    check(`restart ready, ${n}`, mp.readyMs, 'ms', '< 3,000 ms', mp.readyMs < 3000, `${mp.readyToBareNode}× bare node`);
    check(`idle RSS, ${n} (after create + serve 1,000)`, mp.idleRssBeforeRestartMiB, 'MiB', '< 500 MiB', mp.idleRssBeforeRestartMiB < 500, `bare node ${mp.peer.rssMiB} MiB`);
    check(`idle RSS, ${n} (after restart + background load)`, mp.idleRssMiB, 'MiB', '< 500 MiB', mp.idleRssMiB < 500, `${mp.idleRssToBareNode}× bare node`);
    check(`fds in use, ${n}`, Math.max(mp.fdsServing, mp.fdsAfterRestart, mp.idleFds), 'fds', '≤ 4,096', Math.max(mp.fdsServing, mp.fdsAfterRestart, mp.idleFds) <= 4096, 'RLIMIT_NOFILE 4,096');
    // A figure: how much the background load after a restart slows requests down (1× = not at all).
    targets.push({
      figure: `request p99 during / after background load, ${n}`, value: `${round(mp.duringLoadP99Ms.cold / mp.afterLoadP99Ms.cold, 1)} × (cold), ${round(mp.duringLoadP99Ms.loaded / mp.afterLoadP99Ms.loaded, 1)} × (loaded)`,
      target: '(figure)', verdict: 'n/a', ofLimit: `during ${mp.duringLoadP99Ms.cold} / ${mp.duringLoadP99Ms.loaded} ms over ${mp.duringLoadP99Ms.requests} requests`,
    });
  }
  const loadRss = Math.max(...(matrix ?? []).map((m) => m.peakRssMB), ...(kcat ?? []).map((c) => c.brokerPeakRssMB));
  if (Number.isFinite(loadRss)) targets.push({ figure: 'peak RSS under load (produce/consume runs)', value: `${loadRss} MB`, target: '(figure)', verdict: 'n/a', ofLimit: '' });

  const soak = r.soak;
  if (soak) {
    const load = `${soak.minutes} min at ${soak.rate} rec/s, load average ${soak.loadAverage.join('–')}`;
    check('soak: RSS slope after warm-up', soak.rssSlopeMBPerMin, 'MB/min', '< 1 MB/min', soak.rssSlopeMBPerMin < 1, load);
    check('soak: open fds slope after warm-up', soak.fdSlopePerMin, 'fd/min', '< 1 fd/min', soak.fdSlopePerMin < 1, `range ${soak.fdRangeAfterWarmup.join('–')}`);
    check('soak: acknowledged, last / first 5 min', soak.producedRatio, '×', '≥ 0.9×', soak.producedRatio >= 0.9, `read along ${soak.consumedRatio}×; ${soak.segmentsDeleted} segments deleted`);
  }

  printTable(`kafkite against its targets (${FULL ? 'full' : 'short'} run; MB = 10^6 B)`, targets as unknown as Array<Record<string, unknown>>);
  printJson('run-all', { full: FULL, targets, results: r });
}

await main();
