// Loading Kafka's JSON message definitions (JSON with `//` line comments) from the jars Kafka ships them in
// (test/kafka/lib, fetched by scripts/kafka-jars.mjs): the protocol from kafka-clients, the records Kafka
// writes into its own logs from the metadata, raft and coordinator jars (and KRaft's control records from kafka-clients).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readJarEntries } from './jar.js';

export interface FieldSpec {
  name: string;
  type: string;
  versions: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  flexibleVersions?: string;
  default?: string | number | boolean;
  ignorable?: boolean;
  about?: string;
  fields?: FieldSpec[];
}

export interface StructSpec {
  name: string;
  versions: string;
  fields: FieldSpec[];
}

export interface MessageSpec {
  name: string;
  /** Records: a coordinator's key or value (its apiKey is the record type), or a KRaft metadata record. */
  type: 'request' | 'response' | 'header' | 'data' | 'coordinator-key' | 'coordinator-value' | 'metadata';
  apiKey?: number;
  validVersions: string;
  flexibleVersions: string;
  latestVersionUnstable?: boolean;
  fields: FieldSpec[];
  commonStructs?: StructSpec[];
}

/** Removes `//` comments, leaving string literals (which may contain "//") untouched. */
function stripLineComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else {
      out += c;
    }
  }
  return out;
}

const EXTRA_SPECS = new Set([
  'RequestHeader.json',
  'ResponseHeader.json',
  'ConsumerProtocolSubscription.json',
  'ConsumerProtocolAssignment.json',
]);

/** Jars holding record definitions, the folder of each that holds them (found with `jar tf`), and which of its specs (all by default). */
const RECORD_JARS: ReadonlyArray<{ artifact: string; folder: string; only?: ReadonlySet<string> }> = [
  { artifact: 'kafka-metadata', folder: 'common/metadata/' },
  { artifact: 'kafka-raft', folder: 'common/message/' },
  { artifact: 'kafka-group-coordinator', folder: 'common/message/' },
  { artifact: 'kafka-transaction-coordinator', folder: 'common/message/' },
  { artifact: 'kafka-share-coordinator', folder: 'common/message/' },
  // KRaft's control records (ControlRecordUtils), which live beside the protocol's messages in kafka-clients.
  {
    artifact: 'kafka-clients',
    folder: 'common/message/',
    only: new Set(['LeaderChangeMessage.json', 'SnapshotHeaderRecord.json', 'SnapshotFooterRecord.json', 'KRaftVersionRecord.json', 'VotersRecord.json']),
  },
];

/** The one jar of `artifact` in `lib` (any version: the pom decides which). */
function jarOf(lib: string, artifact: string): string {
  const pattern = new RegExp(`^${artifact}-\\d[\\w.-]*\\.jar$`);
  const found = readdirSync(lib).filter((f) => pattern.test(f) && !f.includes('-test'));
  if (found.length !== 1) throw new Error(`${lib}: expected one ${artifact} jar, found ${found.length}`);
  return join(lib, found[0]!);
}

/**
 * A field as Kafka's generator reads it (its FieldSpec): versions default to taggedVersions, and Jackson
 * reads a JSON null default as no default at all (a few record specs write null rather than "null").
 */
function normalizeField(field: FieldSpec & { default?: unknown; versions?: string }): FieldSpec {
  const { default: fallback, ...rest } = field;
  return {
    ...rest,
    versions: field.versions ?? field.taggedVersions!,
    ...(fallback === null || fallback === undefined ? {} : { default: fallback as string | number | boolean }),
    ...(field.fields ? { fields: field.fields.map(normalizeField) } : {}),
  };
}

function normalize(spec: MessageSpec): MessageSpec {
  return {
    ...spec,
    fields: (spec.fields ?? []).map(normalizeField),
    ...(spec.commonStructs ? { commonStructs: spec.commonStructs.map((s) => ({ ...s, fields: s.fields.map(normalizeField) })) } : {}),
  };
}

/** The specs in `folder` of `jar` whose file names `wanted` accepts, sorted by file name. */
function specsIn(jar: string, folder: string, wanted: (file: string) => boolean): MessageSpec[] {
  const entries = readJarEntries(jar, (name) => {
    const file = name.slice(folder.length);
    return name.startsWith(folder) && !file.includes('/') && file.endsWith('.json') && wanted(file);
  });
  return [...entries.keys()].sort().map((name) => {
    try {
      return normalize(JSON.parse(stripLineComments(entries.get(name)!.toString('utf8'))) as MessageSpec);
    } catch (err) {
      throw new Error(`${jar}!${name}: ${(err as Error).message}`);
    }
  });
}

/**
 * Every request, response, header and consumer-protocol spec of kafka-clients. APIs Kafka has retired ("validVersions": "none": the ZooKeeper-era controller requests) are left out.
 */
export function loadMessageSpecs(lib: string): MessageSpec[] {
  return specsIn(jarOf(lib, 'kafka-clients'), 'common/message/', (file) => /(Request|Response)\.json$/.test(file) || EXTRA_SPECS.has(file))
    .filter((spec) => spec.validVersions !== 'none');
}

/** Every record spec of the metadata, raft and coordinator jars, sorted by name. */
export function loadRecordSpecs(lib: string): MessageSpec[] {
  const specs = RECORD_JARS.flatMap(({ artifact, folder, only }) => specsIn(jarOf(lib, artifact), folder, (file) => only?.has(file) ?? true));
  const names = new Set(specs.map((s) => s.name));
  if (names.size !== specs.length) throw new Error('two record specs share a name');
  return specs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
