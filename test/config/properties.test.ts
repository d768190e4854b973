import { describe, expect, it } from 'vitest';
import { parseProperties, PropertiesSyntaxError } from '../../config/properties.js';

const parse = (text: string): Record<string, string> => Object.fromEntries(parseProperties(text));

describe('parseProperties', () => {
  it('reads key=value lines and skips # and ! comments and blank lines', () => {
    expect(parse('# comment\n! also a comment\n\n   \na=1\nb=2\n')).toEqual({ a: '1', b: '2' });
  });

  it('recognises comments only as the first non-blank character', () => {
    expect(parse('   # indented comment\na=x # not a comment\nb=!bang')).toEqual({ a: 'x # not a comment', b: '!bang' });
  });

  it('accepts =, : and whitespace as separators, with whitespace around them', () => {
    expect(parse('a=1\nb:2\nc 3\nd\t4\ne = 5\nf  :  6\ng\f7')).toEqual({ a: '1', b: '2', c: '3', d: '4', e: '5', f: '6', g: '7' });
  });

  it('takes only the first separator; the rest belongs to the value', () => {
    expect(parse('a:=1\nb = = 2\nc  =:3\nd=e=f\nurl=PLAINTEXT://:9092')).toEqual({ a: '=1', b: '= 2', c: ':3', d: 'e=f', url: 'PLAINTEXT://:9092' });
  });

  it('drops leading whitespace of keys and keeps trailing whitespace of values', () => {
    expect(parse('   key=value   \n\t\fother = x ')).toEqual({ key: 'value   ', other: 'x ' });
  });

  it('gives a key with no value the empty string', () => {
    expect(parse('empty\nempty2=\nempty3   \nempty4 :   ')).toEqual({ empty: '', empty2: '', empty3: '', empty4: '' });
  });

  it('joins continued lines, dropping the next line\'s leading whitespace', () => {
    expect(parse('list=a,\\\n    b,\\\n\tc\nnext=1')).toEqual({ list: 'a,b,c', next: '1' });
  });

  it('does not treat a # on a continuation line as a comment', () => {
    expect(parse('a=1\\\n  # still a\nb=2')).toEqual({ a: '1# still a', b: '2' });
  });

  it('does not continue a comment line that ends in a backslash', () => {
    expect(parse('# comment \\\na=1')).toEqual({ a: '1' });
  });

  it('continues only after an odd number of backslashes', () => {
    expect(parse('a=x\\\\\nb=y\\\\\\\nz')).toEqual({ a: 'x\\', b: 'y\\z' });
  });

  it('ends a continuation at an empty line', () => {
    expect(parse('a=1\\\n\n  b=2')).toEqual({ a: '1', b: '2' });
  });

  it('drops a trailing backslash at end of input', () => {
    expect(parse('a=1\\')).toEqual({ a: '1' });
  });

  it('handles \\r\\n and lone \\r line endings, also inside continuations', () => {
    expect(parse('a=1\r\nb=2\rc=3\\\r\n   4')).toEqual({ a: '1', b: '2', c: '34' });
  });

  it('resolves \\t \\n \\r \\f and \\uXXXX escapes', () => {
    expect(parse('a=x\\ty\\nz\\r\\f\nb=\\u0041\\u00e9\\u20AC')).toEqual({ a: 'x\ty\nz\r\f', b: 'Aé€' });
  });

  it('makes any other escaped character stand for itself', () => {
    expect(parse('a=\\\\ \\= \\: \\# \\! \\q')).toEqual({ a: '\\ = : # ! q' });
  });

  it('keeps escaped separators and spaces in keys', () => {
    expect(parse('my\\ key=1\nk\\=v=2\nk\\:x:3\n\\#notcomment=4')).toEqual({ 'my key': '1', 'k=v': '2', 'k:x': '3', '#notcomment': '4' });
  });

  it('keeps an escaped leading space of a value', () => {
    expect(parse('a=\\  padded')).toEqual({ a: '  padded' });
  });

  it('does not read an escaped backslash followed by u as a unicode escape', () => {
    expect(parse('a=\\\\u0041')).toEqual({ a: '\\u0041' });
  });

  it('lets a later key override an earlier one', () => {
    expect(parse('a=1\nb=2\na=3')).toEqual({ a: '3', b: '2' });
    expect([...parseProperties('x=1\ny=2\nx=3').keys()]).toEqual(['x', 'y']);
  });

  it('throws PropertiesSyntaxError with the line number for a malformed \\u escape', () => {
    const run = (): unknown => parseProperties('# header\na=1\n\nb=\\u12G4\n');
    expect(run).toThrow(PropertiesSyntaxError);
    expect(run).toThrow(/^line 4: malformed \\uxxxx encoding/);
    try {
      run();
    } catch (err) {
      expect((err as PropertiesSyntaxError).line).toBe(4);
    }
  });

  it('reports a malformed \\u escape at the line its entry starts on, and in keys too', () => {
    expect(() => parseProperties('a=1\nb=x\\\n  \\u12')).toThrow(/^line 2:/);
    expect(() => parseProperties('\\uZZZZ=1')).toThrow(/^line 1:/);
  });
});
