// Hostile input: random and mutated byte strings into every request and response decoder (and the
// request header) at every version. A decoder must return a value or throw DecodeError: nothing else, and never hang.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecodeError, Reader, Writer } from '../../protocol/primitives.js';
import { API_KEYS, readRequestHeader, writeRequestHeader } from '../../protocol/generated/index.js';
import { MESSAGE_SCHEMAS, type MessageSchema } from '../../protocol/generated/schemas.js';
import { messageArbitrary, versionsOf } from './message-arbitraries.js';

type Read = (r: Reader, version: number) => unknown;
type Write = (w: Writer, version: number, m: any) => void;

function decodeOrDecodeError(read: Read, bytes: Uint8Array, version: number): void {
  try {
    read(new Reader(Buffer.from(bytes)), version);
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
  }
}

type Mutation = { kind: 'truncate' | 'flip' | 'insert' | 'max'; at: number; bytes: Uint8Array };

const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('truncate', 'flip', 'insert', 'max'),
  at: fc.nat(),
  bytes: fc.uint8Array({ minLength: 1, maxLength: 4 }),
});

function mutate(valid: Buffer, m: Mutation): Buffer {
  if (valid.length === 0) return Buffer.from(m.bytes);
  const at = m.at % valid.length;
  switch (m.kind) {
    case 'truncate':
      return valid.subarray(0, at);
    case 'insert':
      return Buffer.concat([valid.subarray(0, at), m.bytes, valid.subarray(at)]);
    case 'max': {
      // Lengths and counts pushed to their extremes.
      const out = Buffer.from(valid);
      out.fill(m.bytes[0] & 1 ? 0xff : 0x7f, at, Math.min(at + 4, out.length));
      return out;
    }
    default: {
      const out = Buffer.from(valid);
      out[at] ^= m.bytes[0] || 0x80;
      return out;
    }
  }
}

function fuzz(schema: MessageSchema, read: Read, write: Write): void {
  for (const version of versionsOf(schema)) {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 96 }), (bytes) => decodeOrDecodeError(read, bytes, version)),
      { numRuns: 40 },
    );
    fc.assert(
      fc.property(messageArbitrary(schema, version), fc.array(mutation, { minLength: 1, maxLength: 3 }), (value, mutations) => {
        const w = new Writer();
        write(w, version, value);
        let bytes = Buffer.from(w.toBuffer());
        for (const m of mutations) bytes = mutate(bytes, m);
        decodeOrDecodeError(read, bytes, version);
      }),
      { numRuns: 40 },
    );
  }
}

describe('decoders under fuzzing', () => {
  for (const api of API_KEYS) {
    if (!api) continue;
    const request = MESSAGE_SCHEMAS.find((s) => s.name === `${api.name}Request`)!;
    it(`${request.name} v${request.validVersions}`, () => fuzz(request, api.readRequest, api.writeRequest));
    const response = MESSAGE_SCHEMAS.find((s) => s.name === `${api.name}Response`)!;
    it(`${response.name} v${response.validVersions}`, () => fuzz(response, api.readResponse, api.writeResponse));
  }

  it('RequestHeader', () => {
    const schema = MESSAGE_SCHEMAS.find((s) => s.name === 'RequestHeader')!;
    fuzz(schema, readRequestHeader, writeRequestHeader);
  });

  it('rejects absurd lengths before allocating', () => {
    const read = API_KEYS[1]!.readRequest;
    // Fetch v4: replica id, max wait, min bytes, max bytes, isolation, then a 2^31-1 topic count.
    const bytes = Buffer.from('ffffffff 00000000 00000000 00000000 00 7fffffff'.replace(/ /g, ''), 'hex');
    expect(() => read(new Reader(bytes), 4)).toThrow(DecodeError);
  });
});
