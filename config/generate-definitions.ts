// Generates config/definitions.generated.ts from Kafka's reference tables (broker-configs.tsv, topic-configs.tsv).
// Run from the repository root: node dist/config/generate-definitions.js [reference-dir]
// (reference-dir defaults to config/kafka-4.4, the tables test/clients/java/KafkaConfigTables.java writes from Kafka
// 4.4.0's jars). Unrecognised validator text fails the run, so a new kind of validator cannot slip through unchecked.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrokerConfigDef, BrokerSynonym, ConfigType, TopicConfigDef, Validator } from './config-def.js';

const CONFIG_TYPES: readonly ConfigType[] = ['boolean', 'string', 'int', 'short', 'long', 'double', 'list', 'class', 'password'];

export const GENERATED_FILE = 'config/definitions.generated.ts';

/** Rows of a tab-separated table with a header line, as objects keyed by column name. */
function readTsv(text: string): Record<string, string>[] {
  const [header, ...rows] = text.split('\n').filter((line) => line.trim() !== '');
  const columns = header!.split('\t');
  return rows.map((row) => {
    const cells = row.split('\t');
    return Object.fromEntries(columns.map((column, i) => [column, cells[i] ?? '']));
  });
}

function parseType(text: string, name: string): ConfigType {
  const type = CONFIG_TYPES.find((t) => t === text);
  if (!type) throw new Error(`${name}: unknown config type '${text}'`);
  return type;
}

function parseDefault(text: string): string | null {
  if (text === 'null') return null;
  if (text === '""') return '';
  return text;
}

function parseNumber(text: string, name: string): number {
  const n = Number(text);
  if (text.trim() === '' || Number.isNaN(n)) throw new Error(`${name}: bad number '${text}' in validator`);
  return n;
}

function splitValues(text: string): string[] {
  return text.split(',').map((v) => v.trim());
}

export function parseValidator(text: string, name: string): Validator | null {
  const t = text.trim();
  let m: RegExpMatchArray | null;
  if (t === '') return null;
  if ((m = t.match(/^>= (\S+)$/))) return { kind: 'range', min: parseNumber(m[1]!, name), max: null };
  if ((m = t.match(/^(-?[\d.]+)\.\.(-?[\d.]+)$/))) {
    return { kind: 'range', min: parseNumber(m[1]!, name), max: parseNumber(m[2]!, name) };
  }
  if ((m = t.match(/^(-?\d+) or >= (-?\d+)$/))) {
    return { kind: 'range', min: parseNumber(m[2]!, name), max: null, orValue: parseNumber(m[1]!, name) };
  }
  if ((m = t.match(/^(-?\d+)\.\.(-?\d+) or (-?\d+)$/))) {
    return { kind: 'range', min: parseNumber(m[1]!, name), max: parseNumber(m[2]!, name), orValue: parseNumber(m[3]!, name) };
  }
  if ((m = t.match(/^one of: (.+)$/))) return { kind: 'oneOf', values: splitValues(m[1]!), caseInsensitive: false };
  if ((m = t.match(/^one of \(case-insensitive\): (.+)$/))) return { kind: 'oneOf', values: splitValues(m[1]!), caseInsensitive: true };
  if ((m = t.match(/^(non-empty )?list, no duplicates(?:, each one of: (.+))?$/))) {
    return { kind: 'list', nonEmpty: m[1] !== undefined, values: m[2] === undefined ? null : splitValues(m[2]) };
  }
  if (t === 'non-empty string') return { kind: 'nonEmptyString' };
  if (t === 'non-null string') return { kind: 'nonNullString' };
  if (t.startsWith('semicolon-separated list of principals')) return { kind: 'principals' };
  if (t === 'list of {host}:{port} (may be empty)') return { kind: 'hostPortList' };
  if (t === 'list of {node.id}@{host}:{port} (may be empty)') return { kind: 'voterList' };
  if (t === "'*' or list of {partitionId}:{brokerId}") return { kind: 'throttledReplicas' };
  throw new Error(`${name}: unrecognised validator '${t}'`);
}

/** "log.retention.ms > log.retention.minutes (x60000 -> ms) > log.retention.hours (x3600000 -> ms)" */
export function parseSynonyms(text: string, name: string): BrokerSynonym[] {
  if (text.trim() === '') return [];
  return text.split(' > ').map((part) => {
    const m = part.trim().match(/^([\w.]+)(?: \(x(\d+) -> ms\))?$/);
    if (!m) throw new Error(`${name}: unrecognised broker synonym '${part}'`);
    return { name: m[1]!, multiplier: m[2] ? Number(m[2]) : 1 };
  });
}

export function brokerDefinitions(tsv: string): BrokerConfigDef[] {
  return readTsv(tsv).map((row) => {
    const name = row['name']!;
    return {
      name,
      type: parseType(row['type']!, name),
      default: parseDefault(row['default']!),
      validator: parseValidator(row['valid_values_or_range']!, name),
      topicName: row['topic_level_name'] || null,
      group: row['group']!,
    };
  });
}

export function topicDefinitions(tsv: string): TopicConfigDef[] {
  return readTsv(tsv).map((row) => {
    const name = row['name']!;
    return {
      name,
      type: parseType(row['type']!, name),
      default: parseDefault(row['default']!),
      validator: parseValidator(row['valid_values']!, name),
      brokerSynonyms: parseSynonyms(row['broker_synonyms_in_priority_order']!, name),
    };
  });
}

function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const fields = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{ ${fields.map(([k, v]) => `${k}: ${literal(v)}`).join(', ')} }`;
  }
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return String(value);
}

/** The TypeScript source of definitions.generated.ts. */
export function renderDefinitions(brokerTsv: string, topicTsv: string): string {
  const lines = [
    '// Generated by config/generate-definitions.ts from config/kafka-4.4/broker-configs.tsv and topic-configs.tsv',
    '// (Apache Kafka 4.4.0\'s ConfigDefs, read from its jars by test/clients/java/KafkaConfigTables.java). Do not edit by hand.',
    "import type { BrokerConfigDef, TopicConfigDef } from './config-def.js';",
    '',
    'export const BROKER_CONFIG_DEFS: readonly BrokerConfigDef[] = [',
    ...brokerDefinitions(brokerTsv).map((def) => `  ${literal(def)},`),
    '];',
    '',
    'export const TOPIC_CONFIG_DEFS: readonly TopicConfigDef[] = [',
    ...topicDefinitions(topicTsv).map((def) => `  ${literal(def)},`),
    '];',
    '',
  ];
  return lines.join('\n');
}

export function renderFromReferenceDir(referenceDir: string): string {
  return renderDefinitions(
    readFileSync(resolve(referenceDir, 'broker-configs.tsv'), 'utf8'),
    readFileSync(resolve(referenceDir, 'topic-configs.tsv'), 'utf8'),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const referenceDir = process.argv[2] ?? 'config/kafka-4.4';
  writeFileSync(GENERATED_FILE, renderFromReferenceDir(referenceDir));
  console.log(`wrote ${GENERATED_FILE} from ${referenceDir}`);
}
