// Enforcement of client quotas as Kafka's ClientQuotaManager does it: each (user, client-id) quota entity has a
// rate sensor over quota.window.num samples of quota.window.size.seconds; a request that takes the rate above
// the quota gets throttle_time_ms = (rate - quota) / quota * window (capped at one window), and the broker
// mutes the connection that long (KIP-219). Quotas resolve with DefaultQuotaCallback's precedence.
import { principalToString, type KafkaPrincipal } from '../security/principal.js';
import { CLIENT_ID, USER, type ClientQuotaStore, type QuotaEntity } from './client-quotas.js';

export const QuotaType = { PRODUCE: 'Produce', FETCH: 'Fetch', REQUEST: 'Request' } as const;
export type QuotaTypeName = (typeof QuotaType)[keyof typeof QuotaType];

const QUOTA_KEYS: Record<QuotaTypeName, string> = {
  Produce: 'producer_byte_rate',
  Fetch: 'consumer_byte_rate',
  Request: 'request_percentage',
};

const PRODUCE = 0;
const FETCH = 1;
/** SaslHandshake, ApiVersions, SaslAuthenticate: answered before a client can be identified (Kafka exempts them). */
const REQUEST_QUOTA_EXEMPT = new Set([17, 18, 36]);

/** The record bytes a Fetch response carries. */
function fetchResponseBytes(response: unknown): number {
  let bytes = 0;
  const topics = (response as { responses?: Array<{ partitions: Array<{ records: unknown }> }> }).responses ?? [];
  for (const t of topics) {
    for (const p of t.partitions) {
      const records = p.records;
      const parts = Array.isArray(records) ? records : records ? [records] : [];
      for (const part of parts) bytes += (part as { length: number }).length ?? 0;
    }
  }
  return bytes;
}

interface Sample {
  windowStart: number;
  value: number;
}

/** Kafka's Rate over a SampledStat: total of the live samples per second of the (at least samples-1 windows) span. */
export class Rate {
  private readonly samples: Sample[] = [];

  constructor(private readonly numSamples: number, private readonly windowMs: number) {}

  record(value: number, now: number): void {
    this.purge(now);
    const current = this.samples.at(-1);
    if (current && now - current.windowStart < this.windowMs) current.value += value;
    else this.samples.push({ windowStart: now, value });
    if (this.samples.length > this.numSamples) this.samples.shift();
  }

  /** Per second. */
  measure(now: number): number {
    this.purge(now);
    const total = this.samples.reduce((sum, s) => sum + s.value, 0);
    return total / (this.windowSize(now) / 1000);
  }

  /** Rate.windowSize: the elapsed span of the samples, at least numSamples-1 full windows. */
  windowSize(now: number): number {
    const oldest = this.samples[0]?.windowStart ?? now;
    let elapsed = now - oldest;
    const fullWindows = Math.floor(elapsed / this.windowMs);
    const minFullWindows = this.numSamples - 1;
    if (fullWindows < minFullWindows) elapsed += (minFullWindows - fullWindows) * this.windowMs;
    return Math.max(elapsed, 1);
  }

  private purge(now: number): void {
    const expireAge = this.numSamples * this.windowMs;
    while (this.samples.length > 0 && now - this.samples[0]!.windowStart >= expireAge) this.samples.shift();
  }
}

/** One quota entity's sensor, with the labels Kafka's metrics carry. */
export interface QuotaSensor {
  readonly quotaType: QuotaTypeName;
  readonly user: string;
  readonly clientId: string;
  readonly rate: Rate;
  quota: number;
  throttleTimeMsTotal: number;
}

export class ClientQuotaManager {
  private readonly sensors = new Map<string, QuotaSensor>();

  constructor(
    private readonly store: ClientQuotaStore,
    private readonly numSamples: number,
    private readonly windowMs: number,
  ) {}

  /**
   * Records `value` (bytes, or request-handler time in percent-seconds) for the client and returns how long to
   * throttle it (0 within quota or without one).
   */
  recordAndGetThrottleTimeMs(quotaType: QuotaTypeName, principal: KafkaPrincipal, clientId: string | null, value: number, now: number): number {
    if (this.store.isEmpty) return 0;
    const quota = this.quotaFor(quotaType, principal, clientId);
    if (quota === null) return 0;
    const key = `${quotaType}\u0000${quota.user}\u0000${quota.clientId}`;
    let sensor = this.sensors.get(key);
    if (!sensor) {
      sensor = { quotaType, user: quota.user, clientId: quota.clientId, rate: new Rate(this.numSamples, this.windowMs), quota: quota.bound, throttleTimeMsTotal: 0 };
      this.sensors.set(key, sensor);
    }
    sensor.quota = quota.bound;
    sensor.rate.record(value, now);
    const rate = sensor.rate.measure(now);
    if (rate <= quota.bound) return 0;
    // QuotaUtils.throttleTime, capped at one quota window as ClientQuotaManager.maxThrottleTimeMs.
    const throttle = Math.min(Math.round(((rate - quota.bound) / quota.bound) * sensor.rate.windowSize(now)), this.windowMs);
    sensor.throttleTimeMsTotal += throttle;
    return throttle;
  }

  /**
   * The throttle time of one answered request (KafkaApis): Produce by request bytes, Fetch by response bytes,
   * each also under the request-time quota, which every other API but the handshake ones is under alone.
   * `handlerMillis` is the handler's own (synchronous) time, the analogue of Kafka's request thread time.
   */
  throttleTimeMs(apiKey: number, principal: KafkaPrincipal, clientId: string | null, requestBytes: number, response: unknown, handlerMillis: number): number {
    if (this.store.isEmpty || REQUEST_QUOTA_EXEMPT.has(apiKey)) return 0;
    const now = Date.now();
    let bandwidth = 0;
    if (apiKey === PRODUCE) bandwidth = this.recordAndGetThrottleTimeMs(QuotaType.PRODUCE, principal, clientId, requestBytes, now);
    else if (apiKey === FETCH) bandwidth = this.recordAndGetThrottleTimeMs(QuotaType.FETCH, principal, clientId, fetchResponseBytes(response), now);
    // ClientRequestQuotaManager.nanosToPercentagePerSecond: 100 / 1e9 per nanosecond.
    const requestTime = this.recordAndGetThrottleTimeMs(QuotaType.REQUEST, principal, clientId, handlerMillis / 10, now);
    return Math.max(bandwidth, requestTime);
  }

  /** The live sensors, for the metrics endpoint. */
  allSensors(): Iterable<QuotaSensor> {
    return this.sensors.values();
  }

  /**
   * DefaultQuotaCallback.quotaMetricTags + quotaLimit: the most specific of user+client-id, user+default client,
   * user, default user+client-id, default user+default client, default user, client-id, default client-id. The
   * sensor is per user and/or client-id as that entity names them (a default user quota applies to each user).
   */
  private quotaFor(quotaType: QuotaTypeName, principal: KafkaPrincipal, clientId: string | null): { bound: number; user: string; clientId: string } | null {
    const key = QUOTA_KEYS[quotaType];
    const user = principal.principalType === 'User' ? principal.name : principalToString(principal);
    const client = clientId ?? '';
    const candidates: Array<[QuotaEntity, string, string]> = [
      [new Map([[USER, user], [CLIENT_ID, client]]), user, client],
      [new Map([[USER, user], [CLIENT_ID, null]]), user, client],
      [new Map([[USER, user]]), user, ''],
      [new Map([[USER, null], [CLIENT_ID, client]]), user, client],
      [new Map([[USER, null], [CLIENT_ID, null]]), user, client],
      [new Map([[USER, null]]), user, ''],
      [new Map([[CLIENT_ID, client]]), '', client],
      [new Map([[CLIENT_ID, null]]), '', client],
    ];
    for (const [entity, u, c] of candidates) {
      const bound = this.store.get(entity, key);
      if (bound !== undefined) return { bound, user: u, clientId: c };
    }
    return null;
  }
}
