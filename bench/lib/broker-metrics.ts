// Where a latency tail goes, as the broker sees it: snapshots of its /metrics (admin HTTP) before and
// after a run give, for that run only, the produce requests' total and flush-wait (remote) time
// percentiles, the event loop's longest delay, and the garbage collections that paused it over 10 ms.

/** Cumulative histogram buckets (upper bound in seconds → count), histogram sums and counts, and gauges, as scraped. */
export interface MetricsSnapshot {
  buckets: Map<string, Array<[le: number, count: number]>>;
  sums: Map<string, number>;
  counts: Map<string, number>;
  gauges: Map<string, number>;
}

export interface BrokerTimes {
  /** Upper bound of the histogram bucket holding the 99th percentile, ms (the buckets are coarse). */
  produceTotalP99Ms: number;
  /** The part of it an acks=all produce waits for its flush (Kafka's RemoteTimeMs). */
  produceRemoteP99Ms: number;
  fetchTotalP99Ms: number;
  /** Longest event loop delay during the run (prom-client's monitor, 10 ms resolution), ms. */
  eventLoopMaxMs: number;
  /** Garbage collections longer than 10 ms during the run. */
  gcOver10Ms: number;
}

const BUCKET = /^kafkite_(\w+)_bucket\{le="([^"]+)"(?:,(\w+)="([^"]*)")?\} (\S+)$/;
const SUM_OR_COUNT = /^kafkite_(\w+)_(sum|count)(?:\{(\w+)="([^"]*)"\})? (\S+)$/;
const GAUGE = /^kafkite_(nodejs_eventloop_lag_max_seconds) (\S+)$/;

export async function scrapeMetrics(admin: string): Promise<MetricsSnapshot> {
  const text = await (await fetch(`${admin}/metrics`)).text();
  const buckets = new Map<string, Array<[number, number]>>();
  const gauges = new Map<string, number>();
  const sums = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const sc = SUM_OR_COUNT.exec(line);
    if (sc) {
      (sc[2] === 'sum' ? sums : counts).set(sc[3] ? `${sc[1]}{${sc[3]}=${sc[4]}}` : sc[1]!, Number(sc[5]));
      continue;
    }
    const b = BUCKET.exec(line);
    if (b) {
      const key = b[3] ? `${b[1]}{${b[3]}=${b[4]}}` : b[1]!;
      let series = buckets.get(key);
      if (!series) buckets.set(key, (series = []));
      series.push([b[2] === '+Inf' ? Infinity : Number(b[2]), Number(b[5])]);
      continue;
    }
    const g = GAUGE.exec(line);
    if (g) gauges.set(g[1]!, Number(g[2]));
  }
  return { buckets, sums, counts, gauges };
}

/** Per bucket, the observations between two snapshots (cumulative counts). */
function delta(before: MetricsSnapshot, after: MetricsSnapshot, key: string): Array<[number, number]> {
  const old = before.buckets.get(key) ?? [];
  return (after.buckets.get(key) ?? []).map(([le, count], i) => [le, count - (old[i]?.[1] ?? 0)]);
}

/** Upper bound (ms) of the bucket holding quantile `q` of the observations between the snapshots; NaN if none. */
function quantileMs(before: MetricsSnapshot, after: MetricsSnapshot, key: string, q: number): number {
  const d = delta(before, after, key);
  const total = d.at(-1)?.[1] ?? 0;
  if (total === 0) return NaN;
  const le = d.find(([, count]) => count >= q * total)![0];
  return le * 1000;
}

/** Observations above `seconds` between the snapshots (`seconds` must be a bucket bound). */
function countAbove(before: MetricsSnapshot, after: MetricsSnapshot, key: string, seconds: number): number {
  const d = delta(before, after, key);
  const total = d.at(-1)?.[1] ?? 0;
  const atMost = d.find(([le]) => le === seconds)?.[1] ?? total;
  return total - atMost;
}

/**
 * The run's broker-side figures. The event loop gauge is reset by each scrape (prom-client), so
 * `after` alone covers the run when `before` was scraped at its start.
 */
export function brokerTimes(before: MetricsSnapshot, after: MetricsSnapshot): BrokerTimes {
  let gcOver10Ms = 0;
  for (const key of after.buckets.keys()) if (key.startsWith('nodejs_gc_duration_seconds')) gcOver10Ms += countAbove(before, after, key, 0.01);
  return {
    produceTotalP99Ms: quantileMs(before, after, 'request_total_time_seconds{api=Produce}', 0.99),
    produceRemoteP99Ms: quantileMs(before, after, 'request_remote_time_seconds{api=Produce}', 0.99),
    fetchTotalP99Ms: quantileMs(before, after, 'request_total_time_seconds{api=Fetch}', 0.99),
    eventLoopMaxMs: Math.round((after.gauges.get('nodejs_eventloop_lag_max_seconds') ?? NaN) * 1000 * 10) / 10,
    gcOver10Ms,
  };
}

/** Mean of a histogram's observations between the snapshots, ms; NaN if none. */
function meanMs(before: MetricsSnapshot, after: MetricsSnapshot, key: string): number {
  const count = (after.counts.get(key) ?? 0) - (before.counts.get(key) ?? 0);
  if (count === 0) return NaN;
  return (((after.sums.get(key) ?? 0) - (before.sums.get(key) ?? 0)) / count) * 1000;
}

/** Where an average produce request's time went during a run, ms, as the broker timed it. */
export interface ProducePhases {
  /** Handler's own work: the append (LocalTimeMs). */
  appendMs: number;
  /** acks=all: from the append to the data being durable (RemoteTimeMs). */
  durableWaitMs: number;
  /** Of that, a flush's own duration (begin → complete: syncfs or fdatasync, per partition flushed). */
  flushMs: number;
  /** Ready → written to the socket (ResponseQueueTimeMs + ResponseSendTimeMs). */
  responseMs: number;
  /** Flushes (per partition) between the snapshots. */
  flushes: number;
}

export function producePhases(before: MetricsSnapshot, after: MetricsSnapshot): ProducePhases {
  const m = (name: string) => meanMs(before, after, `${name}{api=Produce}`);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    appendMs: round(m('request_local_time_seconds')),
    durableWaitMs: round(m('request_remote_time_seconds')),
    flushMs: round(meanMs(before, after, 'log_flush_duration_seconds')),
    responseMs: round(m('response_queue_time_seconds') + m('response_send_time_seconds')),
    flushes: (after.counts.get('log_flush_duration_seconds') ?? 0) - (before.counts.get('log_flush_duration_seconds') ?? 0),
  };
}
