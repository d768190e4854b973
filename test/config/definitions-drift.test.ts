// definitions.generated.ts must match what the generator makes of Kafka's reference tables.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseSynonyms, parseValidator, renderFromReferenceDir } from '../../config/generate-definitions.js';
import { BROKER_CONFIG_DEFS, TOPIC_CONFIG_DEFS } from '../../config/definitions.generated.js';

const referenceDir = fileURLToPath(new URL('../../../shared/kafka-reference', import.meta.url));
const generatedFile = fileURLToPath(new URL('../../config/definitions.generated.ts', import.meta.url));

describe.skipIf(!existsSync(referenceDir))('definitions.generated.ts', () => {
  it('is what the generator produces from ../shared/kafka-reference', () => {
    expect(readFileSync(generatedFile, 'utf8')).toBe(renderFromReferenceDir(referenceDir));
  });
});

describe('generated definitions', () => {
  it('hold every broker and topic config of the tables', () => {
    expect(BROKER_CONFIG_DEFS).toHaveLength(343);
    expect(TOPIC_CONFIG_DEFS).toHaveLength(36);
    expect(TOPIC_CONFIG_DEFS.find((d) => d.name === 'retention.ms')!.brokerSynonyms).toEqual([
      { name: 'log.retention.ms', multiplier: 1 },
      { name: 'log.retention.minutes', multiplier: 60000 },
      { name: 'log.retention.hours', multiplier: 3600000 },
    ]);
    expect(BROKER_CONFIG_DEFS.find((d) => d.name === 'log.retention.hours')).toEqual({
      name: 'log.retention.hours', type: 'int', default: '168', validator: null, topicName: 'retention.ms', group: 'log',
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
    expect(parseValidator('', 'x')).toBeNull();
  });

  it('fails on validator text it does not know, naming the config', () => {
    expect(() => parseValidator('prime numbers only', 'some.config')).toThrow(/some\.config: unrecognised validator/);
    expect(() => parseSynonyms('a.b > c.d (x7 -> s)', 'topic.x')).toThrow(/topic\.x: unrecognised broker synonym/);
  });
});
