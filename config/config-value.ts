// Parsing and validating one configuration value the way Kafka's ConfigDef does: the text is trimmed, parsed by
// type, then checked by the validator. Longs beyond ±2^53 (Long.MAX_VALUE, Kafka's "never") become
// ±Number.MAX_SAFE_INTEGER, since int64 is a JS number throughout kafkite.
import type { ConfigDef, ConfigType, Validator } from './config-def.js';
import { ConfigError } from './config-error.js';

export type ConfigValue = string | number | boolean | readonly string[] | null;

const INTEGER_BOUNDS: Partial<Record<ConfigType, readonly [bigint, bigint]>> = {
  short: [-(2n ** 15n), 2n ** 15n - 1n],
  int: [-(2n ** 31n), 2n ** 31n - 1n],
  long: [-(2n ** 63n), 2n ** 63n - 1n],
};

const TYPE_NOUNS: Record<ConfigType, string> = {
  boolean: 'a boolean (true or false)',
  string: 'a string',
  int: 'an int',
  short: 'a short',
  long: 'a long',
  double: 'a double',
  list: 'a comma-separated list',
  class: 'a class name',
  password: 'a string',
};

// Java's Double.parseDouble, less hexadecimal floats.
const DOUBLE_PATTERN = /^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)$/;

/** What an accepted value looks like, for ConfigError's `expected`. */
function expectedText(def: ConfigDef): string {
  const noun = TYPE_NOUNS[def.type];
  const v = def.validator;
  if (!v) return noun;
  switch (v.kind) {
    case 'range': {
      const bounds = v.max === null ? `>= ${v.min}` : `in ${v.min}..${v.max}`;
      return v.orValue === undefined ? `${noun} ${bounds}` : `${noun} ${bounds} or ${v.orValue}`;
    }
    case 'oneOf':
      return `one of: ${v.values.join(', ')}${v.caseInsensitive ? ' (case-insensitive)' : ''}`;
    case 'list': {
      const list = `a ${v.nonEmpty ? 'non-empty ' : ''}comma-separated list without empty or repeated values`;
      return v.values === null ? list : `${list}, each one of: ${v.values.join(', ')}`;
    }
    case 'nonEmptyString':
      return 'a non-empty string';
    case 'nonNullString':
      return noun;
    case 'principals':
      return 'a semicolon-separated list of principals, such as User:alice;User:bob';
    case 'principal':
      return 'a principal, such as User:alice';
    case 'hostPortList':
      return 'a comma-separated list of {host}:{port}';
    case 'voterList':
      return 'a comma-separated list of {node.id}@{host}:{port}';
    case 'throttledReplicas':
      return "'*' or a comma-separated list of {partitionId}:{brokerId}";
    case 'bytesOrPercent':
      return 'a number of bytes (such as 1073741824) or a percentage from 0% to 100% (such as 5%)';
  }
}

/** The exact integer a config's text denotes, or a ConfigError. Only for int, short and long configs. */
export function parseInteger(def: ConfigDef, raw: string): bigint {
  const text = raw.trim();
  const bounds = INTEGER_BOUNDS[def.type]!;
  if (!/^[+-]?\d+$/.test(text)) throw new ConfigError(def.name, raw, expectedText(def));
  const n = BigInt(text);
  if (n < bounds[0] || n > bounds[1]) throw new ConfigError(def.name, raw, expectedText(def));
  return n;
}

/** A Java long as a JS number, clamped to the safe-integer range. */
export function longToNumber(n: bigint): number {
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
  if (n < BigInt(Number.MIN_SAFE_INTEGER)) return Number.MIN_SAFE_INTEGER;
  return Number(n);
}

function parseByType(def: ConfigDef, raw: string): Exclude<ConfigValue, null> {
  const text = raw.trim();
  switch (def.type) {
    case 'boolean':
      if (text.toLowerCase() === 'true') return true;
      if (text.toLowerCase() === 'false') return false;
      throw new ConfigError(def.name, raw, expectedText(def));
    case 'int':
    case 'short':
    case 'long':
      return longToNumber(parseInteger(def, raw));
    case 'double':
      if (!DOUBLE_PATTERN.test(text)) throw new ConfigError(def.name, raw, expectedText(def));
      return Number(text.replace(/[fFdD]$/, ''));
    case 'list':
      return text === '' ? [] : text.split(/\s*,\s*/);
    case 'string':
    case 'class':
    case 'password':
      return text;
  }
}

function inRange(n: number, v: Extract<Validator, { kind: 'range' }>): boolean {
  if (n === v.orValue) return true;
  return (v.min === null || n >= v.min) && (v.max === null || n <= v.max);
}

function satisfies(v: Validator, value: Exclude<ConfigValue, null>): boolean {
  const asList = (): readonly string[] => (Array.isArray(value) ? value : [String(value)]);
  switch (v.kind) {
    case 'range':
      return typeof value === 'number' && inRange(value, v);
    case 'oneOf':
      return v.caseInsensitive
        ? v.values.some((allowed) => allowed.toLowerCase() === String(value).toLowerCase())
        : v.values.includes(String(value));
    case 'list': {
      const items = asList();
      return (!v.nonEmpty || items.length > 0) && !items.includes('') && new Set(items).size === items.length
        && (v.values === null || items.every((item) => v.values!.includes(item)));
    }
    case 'nonEmptyString':
      return value !== '';
    case 'nonNullString':
      return true;
    case 'principals':
      return String(value).split(';').every((p) => p.trim() === '' || /^[^:]+:.+$/.test(p.trim()));
    case 'principal':
      return /^[^:;\s]+:[^;]+$/.test(String(value).trim());
    case 'hostPortList':
      return asList().every((item) => /^.+:\d+$/.test(item));
    case 'voterList':
      return asList().every((item) => /^\d+@.+:\d+$/.test(item));
    case 'throttledReplicas': {
      const items = asList();
      return (items.length === 1 && items[0] === '*') || items.every((item) => /^(\d+:\d+)?$/.test(item));
    }
    case 'bytesOrPercent':
      return parseBytesOrPercent(String(value)) !== null;
  }
}

/** Parses and validates `raw` for `def`; throws ConfigError naming the key when it is not acceptable. */
export function parseConfigValue(def: ConfigDef, raw: string): Exclude<ConfigValue, null> {
  const value = parseByType(def, raw);
  if (def.validator && !satisfies(def.validator, value)) throw new ConfigError(def.name, raw, expectedText(def));
  return value;
}

/** The typed default; null when the config has none. */
export function defaultValue(def: ConfigDef): ConfigValue {
  return def.default === null ? null : parseConfigValue(def, def.default);
}

/** A valid value as DescribeConfigs shows it (Kafka's ConfigDef.convertToString): trimmed, lists joined by ','. */
export function describeText(def: ConfigDef, raw: string): string {
  switch (def.type) {
    case 'int':
    case 'short':
    case 'long':
      return parseInteger(def, raw).toString(); // exact even beyond 2^53
    case 'boolean':
      return String(parseConfigValue(def, raw));
    case 'list':
      return (parseConfigValue(def, raw) as readonly string[]).join(',');
    default:
      return raw.trim();
  }
}

/** `kafkite.storage.min.free.bytes`-style values: bytes, or a percentage (0-100) of a size; null when malformed. */
export function parseBytesOrPercent(text: string): { bytes: number } | { percent: number } | null {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number.isSafeInteger(Number(t)) ? { bytes: Number(t) } : null;
  const m = /^(\d+(?:\.\d+)?)\s*%$/.exec(t);
  if (m && Number(m[1]) <= 100) return { percent: Number(m[1]) };
  return null;
}
