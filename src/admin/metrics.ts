// Prometheus metrics for /metrics, named after Kafka's own (BytesInPerSec, LogEndOffset, NumLogSegments, ...)
// in Prometheus style. Counters are bumped on the request path; log and group gauges are read from the
// broker at scrape time, so they cost nothing between scrapes and vanish with deleted partitions.
import { readdir } from 'node:fs/promises';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { BucketHistogram, type HistogramSeries } from './bucket-histogram.js';
import { scrapedCounter } from './scraped-counter.js';
import type { DiskSpaceStatus } from '../../storage/disk-space-monitor.js';
import { segmentFiles } from '../../storage/file-handle-cache.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import type { Broker, BrokerMetrics, RequestTimes } from '../broker.js';
import { HANDLERS } from '../handlers/index.js';
import { groupIds, groupLags } from './group-views.js';
import { ShareGroupMetrics } from './share-metrics.js';
import { TrafficHistory } from './traffic-history.js';
import type { QuotaSensor } from '../quota/client-quota-manager.js';

/** Seconds; fetch long polls (fetch.max.wait.ms, 500 by default) land in the upper buckets. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** The phases of a request: reading a fetch from the page cache or a send is often well under 0.5 ms. */
const PHASE_BUCKETS = [0.00005, 0.0001, 0.00025, ...LATENCY_BUCKETS];

/** Kafka's RequestMetrics (kafka.network:type=RequestMetrics,name=...,request=API), as Prometheus histograms. */
const REQUEST_PHASES = [
  ['localMs', 'kafkite_request_local_time_seconds', "LocalTimeMs: the handler's own work (for Fetch: lookups, slices) and encoding the response, per API."],
  ['remoteMs', 'kafkite_request_remote_time_seconds', 'RemoteTimeMs: parked in a purgatory (Fetch: waiting for fetch.min.bytes or max wait), per API.'],
  ['responseQueueMs', 'kafkite_response_queue_time_seconds', 'ResponseQueueTimeMs: ready, waiting behind earlier responses or a send in progress on the same connection, per API.'],
  ['responseSendMs', 'kafkite_response_send_time_seconds', 'ResponseSendTimeMs: until the socket write or sendfile carrying the response returned (small responses: handed to the socket), per API.'],
  ['totalMs', 'kafkite_request_total_time_seconds', 'TotalTimeMs: from the decoded request to its response sent, per API.'],
] as const satisfies ReadonlyArray<readonly [keyof RequestTimes, string, string]>;

const PRODUCE_API_KEY = 0;
const FETCH_API_KEY = 1;

type PartitionLabels = 'topic' | 'partition';

/**
 * The request path's counters are plain numbers, handed to prom-client only when scraped (scrapedCounter):
 * prom-client's inc validates its value and hashes the labels on every call, about 2.5% of the broker's
 * CPU under 100,000 small acks=all records/s.
 */
interface PartitionCounters {
  readonly labels: { topic: string; partition: string };
  bytesIn: number;
  recordsIn: number;
  bytesOut: number;
}

interface RequestSeries {
  readonly api: string;
  requests: number;
  errors: number;
  readonly latency: HistogramSeries;
  /** Indexed as REQUEST_PHASES. */
  readonly phases: ReadonlyArray<HistogramSeries>;
}

export interface KafkiteMetricsOptions {
  broker: Broker;
  connectionCount(): number;
}

export class KafkiteMetrics implements BrokerMetrics {
  readonly registry = new Registry();
  private readonly broker: Broker;
  private readonly requestLatency: BucketHistogram;
  private readonly requestPhases: ReadonlyArray<BucketHistogram>;
  private readonly flushLatency: BucketHistogram;
  private readonly authentications: Counter<'listener' | 'mechanism' | 'result'>;
  private readonly adminAuthenticationFailures: Counter;
  private readonly transactionsStarted: Counter;
  private readonly transactionsCommitted: Counter;
  private readonly transactionsAborted: Counter;
  private readonly transactionsTimedOut: Counter;
  private readonly partitionCounters = new Map<string, PartitionCounters>();
  private readonly requestSeries = new Map<number, RequestSeries>();
  readonly shareGroups: ShareGroupMetrics;
  /** Produce/fetch per second over 15 minutes, for the console. */
  readonly traffic = new TrafficHistory();

  constructor(opts: KafkiteMetricsOptions) {
    this.broker = opts.broker;
    const registers = [this.registry];
    const partitionLabels: PartitionLabels[] = ['topic', 'partition'];
    const partitions = (value: (c: PartitionCounters) => number) => () => [...this.partitionCounters.values()].map((c) => ({ labels: c.labels, value: value(c) }));
    scrapedCounter('kafkite_topic_bytes_in_total', 'Record batch bytes appended by producers, per partition.', partitionLabels, registers, partitions((c) => c.bytesIn));
    scrapedCounter('kafkite_topic_records_in_total', 'Records appended by producers, per partition.', partitionLabels, registers, partitions((c) => c.recordsIn));
    scrapedCounter('kafkite_topic_bytes_out_total', 'Record batch bytes returned to fetchers, per partition.', partitionLabels, registers, partitions((c) => c.bytesOut));
    const apis = (value: (s: RequestSeries) => number) => () => [...this.requestSeries.values()].map((s) => ({ labels: { api: s.api }, value: value(s) }));
    scrapedCounter('kafkite_requests_total', 'Requests handled, per API.', ['api'], registers, apis((s) => s.requests));
    scrapedCounter('kafkite_request_errors_total', 'Requests whose handling failed, per API.', ['api'], registers, apis((s) => s.errors));
    this.requestLatency = new BucketHistogram(
      'kafkite_request_duration_seconds', 'Time from a decoded request to its response being ready, per API.', 'api', LATENCY_BUCKETS, this.registry,
    );
    this.requestPhases = REQUEST_PHASES.map(([, name, help]) => new BucketHistogram(name, help, 'api', PHASE_BUCKETS, this.registry));
    this.flushLatency = new BucketHistogram(
      'kafkite_log_flush_duration_seconds', 'Duration of each log fdatasync (acks=all group commits and flush.ms/flush.messages flushes).', null, LATENCY_BUCKETS, this.registry,
    );
    // Kafka's successful-authentication-total / failed-authentication-total (and the re-authentication pair).
    this.authentications = new Counter({
      name: 'kafkite_authentications_total',
      help: 'SASL authentications and re-authentications, per listener, mechanism and result (success, failure).',
      labelNames: ['listener', 'mechanism', 'result'],
      registers,
    });
    this.adminAuthenticationFailures = new Counter({
      name: 'kafkite_admin_authentication_failures_total',
      help: 'Admin HTTP requests refused for a wrong bearer token (a missing one is not counted).',
      registers,
    });
    this.transactionsStarted = new Counter({ name: 'kafkite_transactions_started_total', help: 'Transactions begun (first partition added).', registers });
    this.transactionsCommitted = new Counter({ name: 'kafkite_transactions_committed_total', help: 'Transactions committed (markers written).', registers });
    this.transactionsAborted = new Counter({
      name: 'kafkite_transactions_aborted_total',
      help: 'Transactions aborted (markers written), timed out ones and fenced ones included.',
      registers,
    });
    this.transactionsTimedOut = new Counter({
      name: 'kafkite_transactions_timed_out_total',
      help: 'Transactions aborted by the coordinator because transaction.timeout.ms passed.',
      registers,
    });
    new Gauge({
      name: 'kafkite_connections',
      help: 'Open client connections.',
      registers,
      collect() {
        this.set(opts.connectionCount());
      },
    });
    this.registerLogGauges(registers);
    this.registerQuotaGauges(registers);
    this.shareGroups = new ShareGroupMetrics(this.broker, this.registry);
    collectDefaultMetrics({ register: this.registry, prefix: 'kafkite_' });
    this.replaceCollectorsLinearInHandles(registers);
  }

  /**
   * prom-client's open-fd count (a readdirSync of /proc/self/fd) and active-handle gauges walk every
   * socket on the event loop at each scrape: about 50 ms with 10,000 connections, every time Prometheus
   * scrapes. The fd count is read off the loop instead; the per-handle ones go (kafkite_connections and
   * kafkite_nodejs_active_resources_total count the same sockets for less).
   */
  private replaceCollectorsLinearInHandles(registers: Registry[]): void {
    for (const name of ['kafkite_nodejs_active_handles', 'kafkite_nodejs_active_handles_total', 'kafkite_nodejs_active_resources']) {
      this.registry.removeSingleMetric(name);
    }
    if (this.registry.getSingleMetric('kafkite_process_open_fds') === undefined) return; // not Linux
    this.registry.removeSingleMetric('kafkite_process_open_fds');
    new Gauge({
      name: 'kafkite_process_open_fds',
      help: 'Number of open file descriptors.',
      registers,
      async collect() {
        try {
          // The directory's own descriptor is in the listing: not counted.
          this.set((await readdir('/proc/self/fd')).length - 1);
        } catch {
          // /proc unreadable: the last value stays.
        }
      },
    });
  }

  observeRequest(apiKey: number, millis: number): void {
    const series = this.seriesFor(apiKey);
    series.requests++;
    series.latency.observe(millis / 1000);
    if (apiKey === PRODUCE_API_KEY) this.traffic.add('produceRequests', 1);
    else if (apiKey === FETCH_API_KEY) this.traffic.add('fetchRequests', 1);
  }

  observeRequestTimes(apiKey: number, times: RequestTimes): void {
    const phases = this.seriesFor(apiKey).phases;
    for (let i = 0; i < REQUEST_PHASES.length; i++) phases[i]!.observe(Math.max(0, times[REQUEST_PHASES[i]![0]]) / 1000);
  }

  observeRequestError(apiKey: number): void {
    this.seriesFor(apiKey).errors++;
  }

  recordsAppended(topic: string, partition: number, records: number, bytes: number): void {
    const counters = this.countersFor(topic, partition);
    counters.recordsIn += records;
    counters.bytesIn += bytes;
    this.traffic.add('produceBytes', bytes);
  }

  bytesFetched(topic: string, partition: number, bytes: number): void {
    this.countersFor(topic, partition).bytesOut += bytes;
    this.traffic.add('fetchBytes', bytes);
  }

  observeFlush(millis: number): void {
    this.flushLatency.observe(millis / 1000);
  }

  transactionStarted(): void {
    this.transactionsStarted.inc();
  }

  transactionCompleted(committed: boolean): void {
    (committed ? this.transactionsCommitted : this.transactionsAborted).inc();
  }

  transactionTimedOut(): void {
    this.transactionsTimedOut.inc();
  }

  authentication(listener: string, mechanism: string, success: boolean): void {
    this.authentications.labels(listener, mechanism, success ? 'success' : 'failure').inc();
  }

  adminAuthenticationFailed(): void {
    this.adminAuthenticationFailures.inc();
  }

  /** The Prometheus text exposition of every metric. */
  scrape(): Promise<string> {
    this.forgetDeletedPartitions();
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private seriesFor(apiKey: number): RequestSeries {
    let series = this.requestSeries.get(apiKey);
    if (!series) {
      const api = HANDLERS.get(apiKey)?.name ?? String(apiKey);
      series = {
        api,
        requests: 0,
        errors: 0,
        latency: this.requestLatency.labels(api),
        phases: this.requestPhases.map((h) => h.labels(api)),
      };
      this.requestSeries.set(apiKey, series);
    }
    return series;
  }

  private countersFor(topic: string, partition: number): PartitionCounters {
    const key = `${topic}\0${partition}`;
    let counters = this.partitionCounters.get(key);
    if (!counters) {
      const labels = { topic, partition: String(partition) };
      counters = { labels, bytesIn: 0, recordsIn: 0, bytesOut: 0 };
      this.partitionCounters.set(key, counters);
    }
    return counters;
  }

  /** Counters of deleted partitions go, as Kafka removes a partition's metrics with it. */
  private forgetDeletedPartitions(): void {
    for (const [key, { labels }] of this.partitionCounters) {
      if (!this.broker.logManager.hasLog(labels.topic, Number(labels.partition))) this.partitionCounters.delete(key);
    }
  }

  /** Per quota entity, as Kafka's kafka.server:type={Produce,Fetch,Request},user=,client-id= byte-rate/throttle-time. */
  private registerQuotaGauges(registers: Registry[]): void {
    const broker = this.broker;
    const labelNames = ['quota_type', 'user', 'client_id'];
    const quotaGauge = (name: string, help: string, valueOf: (s: QuotaSensor, now: number) => number) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        collect() {
          this.reset();
          const now = Date.now();
          for (const sensor of broker.quotaManager?.allSensors() ?? []) {
            this.set({ quota_type: sensor.quotaType, user: sensor.user, client_id: sensor.clientId }, valueOf(sensor, now));
          }
        },
      });
    quotaGauge('kafkite_client_quota_rate', 'Measured rate per quota entity: bytes/s (Produce, Fetch) or percent of a request thread (Request).', (s, now) => s.rate.measure(now));
    quotaGauge('kafkite_client_quota_limit', 'The quota that applies to the entity, in the same unit as kafkite_client_quota_rate.', (s) => s.quota);
    quotaGauge('kafkite_client_quota_throttle_time_ms_total', 'Milliseconds the entity was throttled (its connections muted) so far.', (s) => s.throttleTimeMsTotal);
  }

  private registerLogGauges(registers: Registry[]): void {
    const broker = this.broker;
    const logGauge = (name: string, help: string, valueOf: (log: UnifiedLog) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['topic', 'partition'],
        registers,
        collect() {
          this.reset();
          for (const log of broker.logManager.allLogs()) {
            this.set({ topic: log.topic, partition: String(log.partition) }, valueOf(log));
          }
        },
      });
    logGauge('kafkite_log_end_offset', 'The offset the next appended record gets.', (log) => log.logEndOffset);
    logGauge('kafkite_log_start_offset', 'The earliest offset still readable.', (log) => log.logStartOffset);
    logGauge('kafkite_log_size_bytes', 'Bytes of the log segments on disk.', (log) => log.size);
    logGauge('kafkite_log_segments', 'Log segments on disk.', (log) => log.segments.size);
    // Kafka's Partition LastStableOffsetLag: how far read_committed consumers trail the high watermark.
    logGauge('kafkite_last_stable_offset_lag', 'High watermark minus the last stable offset (records held back by open transactions).', (log) => log.highWatermark - log.lastStableOffset);
    const diskGauge = (name: string, help: string, valueOf: (s: DiskSpaceStatus) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['log_dir'],
        registers,
        collect() {
          this.reset();
          for (const s of broker.logManager.diskSpace.status()) this.set({ log_dir: s.logDir }, valueOf(s));
        },
      });
    diskGauge('kafkite_log_dir_free_bytes', "Free bytes on the log dir's filesystem (as of the last check).", (s) => s.freeBytes);
    diskGauge('kafkite_log_dir_min_free_bytes', 'kafkite.storage.min.free.bytes for the log dir, in bytes.', (s) => s.thresholdBytes);
    diskGauge('kafkite_log_dir_disk_full', '1 while produce is refused because the log dir is short of space.', (s) => (s.full ? 1 : 0));
    new Gauge({
      name: 'kafkite_partition_logs',
      help: 'Partition logs by state: loaded, or unloaded (not yet loaded since start-up, or idle for kafkite.log.unload.idle.ms).',
      labelNames: ['state'],
      registers,
      collect() {
        const counts = broker.logManager.logCounts;
        this.set({ state: 'loaded' }, counts.loaded);
        this.set({ state: 'unloaded' }, counts.unloaded);
      },
    });
    new Gauge({
      name: 'kafkite_open_segment_files',
      help: 'Segment files (.log, .index, .timeindex) open in the descriptor cache.',
      registers,
      collect() {
        this.set(segmentFiles.size);
      },
    });
    new Gauge({
      name: 'kafkite_segment_file_cache_capacity',
      help: 'Most segment files kept open at once (a share of RLIMIT_NOFILE).',
      registers,
      collect() {
        this.set(segmentFiles.capacity);
      },
    });
    new Gauge({
      name: 'kafkite_consumer_group_lag',
      help: "High watermark minus the group's committed offset, per partition.",
      labelNames: ['group', 'topic', 'partition'],
      registers,
      collect() {
        this.reset();
        for (const group of groupIds(broker) ?? []) {
          for (const { topic, partition, lag } of groupLags(broker, group)) {
            if (lag !== null) this.set({ group, topic, partition: String(partition) }, lag);
          }
        }
      },
    });
  }
}
