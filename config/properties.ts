// java.util.Properties.load(Reader) grammar, so that stock Kafka server.properties files read the same here.
// Natural lines end at \n, \r or \r\n; a line ending in an odd number of backslashes continues on the next one,
// whose leading whitespace is dropped. Comment and blank lines are only recognised at the start of a logical line.

export class PropertiesSyntaxError extends Error {
  override name = 'PropertiesSyntaxError';
  constructor(readonly line: number, detail: string, readonly source?: string) {
    super(`${source ? `${source}, ` : ''}line ${line}: ${detail}`);
  }
}

interface LogicalLine {
  /** 1-based number of the natural line the entry starts on. */
  readonly line: number;
  /** Content with continuations joined; escapes still raw. */
  readonly text: string;
}

const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\f';

/** Parses a .properties text; a key given twice keeps its last value. `source` names the file in errors. */
export function parseProperties(text: string, source?: string): Map<string, string> {
  const props = new Map<string, string>();
  for (const { line, text: entry } of logicalLines(text)) {
    const [rawKey, rawValue] = splitKeyValue(entry);
    props.set(unescape(rawKey, line, source), unescape(rawValue, line, source));
  }
  return props;
}

function* logicalLines(text: string): Generator<LogicalLine> {
  const natural = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < natural.length; i++) {
    const first = stripLeadingWhitespace(natural[i]!);
    if (first === '' || first[0] === '#' || first[0] === '!') continue;
    const startLine = i + 1;
    let joined = first;
    while (endsWithContinuation(joined)) {
      joined = joined.slice(0, -1);
      if (++i >= natural.length) break; // a trailing backslash at end of input is dropped, as Java does
      joined += stripLeadingWhitespace(natural[i]!);
    }
    yield { line: startLine, text: joined };
  }
}

function stripLeadingWhitespace(s: string): string {
  let i = 0;
  while (i < s.length && isWhitespace(s[i]!)) i++;
  return s.slice(i);
}

function endsWithContinuation(s: string): boolean {
  let backslashes = 0;
  for (let i = s.length - 1; i >= 0 && s[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * The key runs to the first unescaped '=', ':' or whitespace. Then whitespace, at most one '=' or ':', and more
 * whitespace separate it from the value, which keeps its trailing whitespace.
 */
function splitKeyValue(entry: string): [string, string] {
  let keyEnd = 0;
  let valueStart = entry.length;
  let hasSeparator = false;
  let escaped = false;
  for (; keyEnd < entry.length; keyEnd++) {
    const c = entry[keyEnd]!;
    if (!escaped && (c === '=' || c === ':')) {
      valueStart = keyEnd + 1;
      hasSeparator = true;
      break;
    }
    if (!escaped && isWhitespace(c)) {
      valueStart = keyEnd + 1;
      break;
    }
    escaped = c === '\\' ? !escaped : false;
  }
  for (; valueStart < entry.length; valueStart++) {
    const c = entry[valueStart]!;
    if (isWhitespace(c)) continue;
    if (!hasSeparator && (c === '=' || c === ':')) {
      hasSeparator = true;
      continue;
    }
    break;
  }
  return [entry.slice(0, keyEnd), entry.slice(valueStart)];
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { t: '\t', n: '\n', r: '\r', f: '\f' };

/** Resolves \t \n \r \f and \uXXXX; any other escaped character stands for itself (\\ \= \: \# \! "\ "). */
function unescape(raw: string, line: number, source: string | undefined): string {
  if (!raw.includes('\\')) return raw;
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = raw[++i];
    if (next === undefined) break; // unreachable: logicalLines() never leaves an odd trailing backslash
    if (next === 'u') {
      const hex = raw.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new PropertiesSyntaxError(line, `malformed \\uxxxx encoding: \\u${hex}`, source);
      out += String.fromCharCode(parseInt(hex, 16));
      i += 4;
    } else {
      out += SIMPLE_ESCAPES[next] ?? next;
    }
  }
  return out;
}
