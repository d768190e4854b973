// definitions.generated.ts must be what the generator makes of the committed Kafka 4.4 tables (config/kafka-4.4), and
// those tables what KafkaConfigTables.java reads from the Kafka jars in test/kafka/lib: a bump of Kafka's version
// in test/kafka/pom.xml shows here as drift.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseSynonyms, parseValidator, renderFromReferenceDir } from '../../config/generate-definitions.js';
import { BROKER_CONFIG_DEFS, TOPIC_CONFIG_DEFS } from '../../config/definitions.generated.js';
import { compileJava, javaArgs } from '../helpers/java.js';

const tablesDir = fileURLToPath(new URL('../../config/kafka-4.4', import.meta.url));
const generatedFile = fileURLToPath(new URL('../../config/definitions.generated.ts', import.meta.url));
const kafkaJars = fileURLToPath(new URL('../kafka/lib/kafka-server-4.4.0.jar', import.meta.url));
const TABLES = ['broker-configs.tsv', 'topic-configs.tsv'];

describe('definitions.generated.ts', () => {
  it('is what the generator produces from config/kafka-4.4', () => {
    expect(readFileSync(generatedFile, 'utf8')).toBe(renderFromReferenceDir(tablesDir));
  });
});

describe.skipIf(!existsSync(kafkaJars))('config/kafka-4.4', () => {
  it("holds what KafkaConfigTables.java reads from Kafka's jars", () => {
    const out = mkdtempSync(join(tmpdir(), 'kafka-config-tables-'));
    try {
      execFileSync('java', javaArgs('KafkaConfigTables', [out], compileJava('KafkaConfigTables')), { stdio: ['ignore', 'ignore', 'pipe'] });
      for (const table of TABLES) expect(readFileSync(join(out, table), 'utf8'), table).toBe(readFileSync(join(tablesDir, table), 'utf8'));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('generated definitions', () => {
  it('hold every broker and topic config of the tables', () => {
    expect(BROKER_CONFIG_DEFS).toHaveLength(384);
    expect(TOPIC_CONFIG_DEFS).toHaveLength(38);
    expect(TOPIC_CONFIG_DEFS.find((d) => d.name === 'retention.ms')!.brokerSynonyms).toEqual([
      { name: 'log.retention.ms', multiplier: 1 },
      { name: 'log.retention.minutes', multiplier: 60000 },
      { name: 'log.retention.hours', multiplier: 3600000 },
    ]);
    expect(BROKER_CONFIG_DEFS.find((d) => d.name === 'log.retention.hours')).toEqual({
      name: 'log.retention.hours', type: 'int', default: '168', validator: null, topicName: 'retention.ms', group: 'log',
    });
    expect(BROKER_CONFIG_DEFS.find((d) => d.name === 'listeners')).toMatchObject({
      type: 'list', default: 'PLAINTEXT://:9092', validator: { kind: 'list', nonEmpty: true, values: null },
    });
  });
});

describe('generator parsing', () => {
  it('parses each validator form', () => {
    expect(parseValidator('>= 1', 'x')).toEqual({ kind: 'range', min: 1, max: null });
    expect(parseValidator('0..0.5', 'x')).toEqual({ kind: 'range', min: 0, max: 0.5 });
    expect(parseValidator('-131072..22', 'x')).toEqual({ kind: 'range', min: -131072, max: 22 });
    expect(parseValidator('-1 or >= 1', 'x')).toEqual({ kind: 'range', min: 1, max: null, orValue: -1 });
    expect(parseValidator('1..9 or -1', 'x')).toEqual({ kind: 'range', min: 1, max: 9, orValue: -1 });
    expect(parseValidator('one of (case-insensitive): a,b', 'x')).toEqual({ kind: 'oneOf', values: ['a', 'b'], caseInsensitive: true });
    expect(parseValidator('list, no duplicates', 'x')).toEqual({ kind: 'list', nonEmpty: false, values: null });
    expect(parseValidator('non-empty list, no duplicates, each one of: a,b', 'x')).toEqual({ kind: 'list', nonEmpty: true, values: ['a', 'b'] });
    expect(parseValidator('', 'x')).toBeNull();
  });

  it('fails on validator text it does not know, naming the config', () => {
    expect(() => parseValidator('prime numbers only', 'some.config')).toThrow(/some\.config: unrecognised validator/);
    expect(() => parseSynonyms('a.b > c.d (x7 -> s)', 'topic.x')).toThrow(/topic\.x: unrecognised broker synonym/);
  });
});
