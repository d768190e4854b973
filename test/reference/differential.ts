// The differential suite's machinery: a scenario sends the same requests to kafkite and to Apache Kafka 4.4
// (each on its own connections), records what each answered, and the two records are compared field by field
// after normalizing what differs by nature (ids, hosts, ports, times). Every difference must match an entry
// of documented-differences.ts, which the README's "Where kafkite differs from Apache Kafka" section lists.
import { API_KEYS } from '../../protocol/generated/index.js';
import { WireClient } from '../../bench/lib/wire-client.js';

type TargetName = 'kafkite' | 'kafka';

export interface Target {
  readonly name: TargetName;
  /** Listener ports by listener name (PLAINTEXT, SASL_PLAINTEXT). */
  readonly ports: Readonly<Record<string, number>>;
}

/** One thing a client observed: a response, a closed connection, or no answer in time. */
interface Observation {
  readonly label: string;
  readonly value: unknown;
}

const RESPONSE_TIMEOUT_MS = 15_000;
const CLOSED = '<connection closed>';
const NO_RESPONSE = '<no response>';

/** What a scenario drives one broker with; every call is recorded for the comparison. */
export class Session {
  readonly observations: Observation[] = [];
  private readonly clients: WireClient[] = [];
  private main: WireClient | undefined;

  constructor(readonly target: Target) {}

  /** A new connection to a listener; closed when the scenario ends. */
  async connect(listener = 'PLAINTEXT'): Promise<WireClient> {
    const client = await WireClient.connect(this.target.ports[listener]!);
    this.clients.push(client);
    return client;
  }

  /** Sends a request (on `client`, or the scenario's own PLAINTEXT connection) and records the response. */
  async call<T = any>(apiKey: number, version: number, body: unknown, opts: { client?: WireClient; label?: string } = {}): Promise<T | undefined> {
    const client = opts.client ?? (this.main ??= await this.connect());
    const label = `${apiName(apiKey)} v${version}${opts.label ? ` ${opts.label}` : ''}`;
    const value = await outcome<T>(client.send(apiKey, version, body));
    this.observations.push({ label, value });
    return typeof value === 'string' ? undefined : value;
  }

  /** Sends prepared bytes and records the response, decoded as `apiKey` at `version`. */
  async callRaw<T = any>(client: WireClient, bytes: Buffer, correlationId: number, apiKey: number, version: number, label: string): Promise<T | undefined> {
    const value = await outcome<T>(client.sendRaw(bytes, correlationId, apiKey, version));
    this.observations.push({ label: `${apiName(apiKey)} ${label}`, value });
    return typeof value === 'string' ? undefined : value;
  }

  /** Sends without recording: setting up what a scenario then observes. */
  async setup<T = any>(apiKey: number, version: number, body: unknown): Promise<T> {
    const client = this.main ??= await this.connect();
    return client.send(apiKey, version, body);
  }

  /** Records something observed over several requests. */
  observe(label: string, value: unknown): void {
    this.observations.push({ label, value });
  }

  close(): void {
    for (const c of this.clients) c.close();
  }
}

async function outcome<T>(response: Promise<T>): Promise<T | string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((r) => (timer = setTimeout(() => r(NO_RESPONSE), RESPONSE_TIMEOUT_MS)));
  try {
    return await Promise.race([response.catch(() => CLOSED), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function apiName(apiKey: number): string {
  return API_KEYS[apiKey]?.name ?? `api${apiKey}`;
}

export interface Scenario {
  /** Unique; also prefixes the topics and groups it creates, so scenarios running at once do not meet. */
  readonly id: string;
  /** The API key it is counted under in the table. */
  readonly api: number;
  /** Compare error messages as text (Kafka's wording is fixed here); otherwise only whether there is one. */
  readonly exactMessages?: boolean;
  /** Runs before the coordinators are warmed up: what a client sees of a broker's first moments. */
  readonly cold?: boolean;
  run(s: Session): Promise<void>;
}

export interface DocumentedDifference {
  /** API key names as in the table, e.g. 'Produce': a scenario counted under one of them. */
  readonly apis: readonly string[];
  /** Scenario ids it covers (a regular expression). */
  readonly scenario: RegExp;
  /** The normalized field path (indices as []), e.g. 'Produce v9 .responses[].partitionResponses[].errorCode'. */
  readonly path: RegExp;
  readonly reason: string;
}

interface Difference {
  readonly path: string;
  readonly kafkite: unknown;
  readonly kafka: unknown;
}

// --- normalization -------------------------------------------------------------------------------------------

const ZERO_UUID = '0'.repeat(32);
/** Values that name the same thing differently on each broker: numbered in order of first sight per scenario. */
const NUMBERED_KEYS: Record<string, string> = { topicId: 'topic', memberId: 'member', leader: 'member', producerId: 'producer' };
/** Values only one broker could know (where it listens, its cluster id, a session it picked): blanked unless unset. */
const BLANKED_KEYS = new Set(['clusterId', 'host', 'port', 'logDir', 'clientHost', 'sessionId', 'totalBytes', 'usableBytes']);

function normalize(value: unknown, exactMessages: boolean, ids = new Map<string, string>(), key = ''): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (typeof value === 'bigint') return normalize(Number(value), exactMessages, ids, key);
  if (Buffer.isBuffer(value)) return value.length === 0 ? '<0 bytes>' : `<${value.length} bytes ${value.toString('hex').slice(0, 64)}>`;
  if (Array.isArray(value)) {
    // ApiVersions' list compares key by key ('.apiKeys.Fetch.maxVersion'), not by position.
    if (key === 'apiKeys') return Object.fromEntries(value.map((v: { apiKey: number }) => [apiName(v.apiKey), normalize(v, exactMessages, ids)]));
    // So do config lists, by name: Kafka sorts them, kafkite keeps its definitions' order; clients read them as maps.
    if (key === 'configs' && value.every((v) => typeof v?.name === 'string')) {
      return Object.fromEntries(value.map((v: { name: string }) => [v.name, normalize(v, exactMessages, ids)]));
    }
    return value.map((v) => normalize(v, exactMessages, ids, key));
  }
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, normalize(v, exactMessages, ids, k)]));
  }
  if (key === 'throttleTimeMs') return 0;
  if (BLANKED_KEYS.has(key) && value !== 0 && value !== -1 && value !== '') return '<blank>';
  // '' is what Kafka sends for a message it leaves unset: it stays apart from null and from text.
  if (key === 'errorMessage' && !exactMessages && value !== '') return '<message>';
  const kind = NUMBERED_KEYS[key];
  if (kind && value !== '' && value !== ZERO_UUID && value !== -1) {
    const k = `${kind}:${String(value)}`;
    if (!ids.has(k)) ids.set(k, `<${kind} ${[...ids.keys()].filter((x) => x.startsWith(`${kind}:`)).length + 1}>`);
    return ids.get(k);
  }
  // Times of day (epoch milliseconds from 2001 on) differ between any two runs; -1 and durations stay.
  if (typeof value === 'number' && /time|timestamp/i.test(key) && value > 1e12) return '<time>';
  return value;
}

/** Field-by-field differences of two normalized values; arrays of different length differ at `path.length`. */
function diff(a: unknown, b: unknown, path = ''): Difference[] {
  if (Object.is(a, b)) return [];
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return [{ path: `${path}.length`, kafkite: describe(a), kafka: describe(b) }];
    return a.flatMap((v, i) => diff(v, b[i], `${path}[${i}]`));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => diff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`));
  }
  return [{ path, kafkite: a, kafka: b }];
}

/** A short form of an array for a length difference: its elements, cut to 300 characters. */
function describe(a: unknown[]): string {
  const text = JSON.stringify(a);
  return `${a.length}: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
}

/** A path with its indices dropped, as documented differences name it. */
function canonicalPath(path: string): string {
  return path.replace(/\[\d+\]/g, '[]');
}

// --- comparing a scenario's two records ----------------------------------------------------------------------

export interface ScenarioResult {
  readonly scenario: Scenario;
  readonly documented: Array<Difference & { reason: string }>;
  readonly unexplained: Difference[];
}

function compare(scenario: Scenario, kafkite: Observation[], kafka: Observation[], documented: readonly DocumentedDifference[], used: Set<DocumentedDifference>): ScenarioResult {
  const label = (o: Observation[]) => o.map((x) => x.label);
  const differences: Difference[] = diff(label(kafkite), label(kafka), 'requests');
  const count = Math.min(kafkite.length, kafka.length);
  for (let i = 0; i < count; i++) {
    const ids = [new Map<string, string>(), new Map<string, string>()];
    differences.push(...diff(normalize(kafkite[i]!.value, !!scenario.exactMessages, ids[0]), normalize(kafka[i]!.value, !!scenario.exactMessages, ids[1]), kafkite[i]!.label + ' '));
  }
  const result: ScenarioResult = { scenario, documented: [], unexplained: [] };
  const api = apiName(scenario.api);
  for (const d of differences) {
    const entry = documented.find((e) => e.apis.includes(api) && e.scenario.test(scenario.id) && e.path.test(canonicalPath(d.path)));
    if (entry) {
      used.add(entry);
      result.documented.push({ ...d, reason: entry.reason });
    } else result.unexplained.push(d);
  }
  return result;
}

/** Runs `scenario` on both brokers at once and compares what each answered. */
export async function runScenario(scenario: Scenario, kafkite: Target, kafka: Target, documented: readonly DocumentedDifference[], used: Set<DocumentedDifference>): Promise<ScenarioResult> {
  const sessions = [new Session(kafkite), new Session(kafka)] as const;
  try {
    await Promise.all(sessions.map((s) => scenario.run(s)));
  } finally {
    for (const s of sessions) s.close();
  }
  return compare(scenario, sessions[0].observations, sessions[1].observations, documented, used);
}

/** Waits until the group and transaction coordinators answer (Kafka creates their topics on first use). */
export async function warmUp(target: Target): Promise<void> {
  const client = await WireClient.connect(target.ports.PLAINTEXT!);
  try {
    for (const keyType of [0, 1]) {
      for (let tries = 0; ; tries++) {
        const res = await client.send(10, 3, { key: 'warm-up', keyType, coordinatorKeys: [] });
        if (res.errorCode === 0) break;
        if (tries > 300) throw new Error(`${target.name}: no coordinator for key type ${keyType}: ${res.errorCode}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    // The share coordinator too (FindCoordinator v6, a share-partition key): Kafka creates __share_group_state (50
    // partitions) on its first use, which a share group's first member would otherwise set off among the scenarios.
    const shareKey = `warm-up:${Buffer.alloc(16, 1).toString('base64url')}:0`;
    for (let tries = 0; ; tries++) {
      const res = await client.send(10, 6, { key: '', keyType: 2, coordinatorKeys: [shareKey] });
      if (res.coordinators[0].errorCode === 0) break;
      if (tries > 300) throw new Error(`${target.name}: no share coordinator: ${res.coordinators[0].errorCode}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    client.close();
  }
}

/** Runs `tasks` with at most `limit` at once, results in order. */
export async function pooled<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** The table per API key: scenarios, identical, differing as documented, differing unexplained. */
export function table(results: readonly ScenarioResult[]): string {
  const rows = new Map<number, [number, number, number, number]>();
  for (const r of results) {
    const row = rows.get(r.scenario.api) ?? [0, 0, 0, 0];
    row[0]++;
    if (r.unexplained.length > 0) row[3]++;
    else if (r.documented.length > 0) row[2]++;
    else row[1]++;
    rows.set(r.scenario.api, row);
  }
  const lines = ['| API key | scenarios | identical | documented | unexplained |', '| --- | ---: | ---: | ---: | ---: |'];
  const total = [0, 0, 0, 0];
  for (const [api, row] of [...rows].sort((a, b) => a[0] - b[0])) {
    lines.push(`| ${api} ${apiName(api)} | ${row.join(' | ')} |`);
    row.forEach((n, i) => (total[i]! += n));
  }
  lines.push(`| all | ${total.join(' | ')} |`);
  return lines.join('\n');
}

/** The README section's list, generated from the documented differences. */
export function documentedMarkdown(documented: readonly DocumentedDifference[]): string {
  return documented.map((d) => `- **${d.apis.join(', ')}** (scenarios \`${d.scenario.source}\`, fields \`${d.path.source}\`): ${d.reason}`).join('\n');
}
