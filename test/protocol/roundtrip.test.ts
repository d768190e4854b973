// Every message and every record body at every valid version: random value → write → read → the same value (fields the
// version does not carry read back as their defaults), reading consumes exactly what was written,
// and writing the decoded value again gives the same bytes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Reader, Writer } from '../../protocol/primitives.js';
import { API_KEYS } from '../../protocol/generated/index.js';
import { MESSAGE_SCHEMAS } from '../../protocol/generated/schemas.js';
import { RECORD_CODECS } from '../../protocol/generated/records/index.js';
import { RECORD_SCHEMAS } from '../../protocol/generated/records/schemas.js';
import {
  readConsumerProtocolAssignment,
  writeConsumerProtocolAssignment,
} from '../../protocol/generated/ConsumerProtocolAssignment.js';
import {
  readConsumerProtocolSubscription,
  writeConsumerProtocolSubscription,
} from '../../protocol/generated/ConsumerProtocolSubscription.js';
import { readRequestHeader, writeRequestHeader } from '../../protocol/generated/RequestHeader.js';
import { readResponseHeader, writeResponseHeader } from '../../protocol/generated/ResponseHeader.js';
import { messageArbitrary, normalize, versionsOf } from './message-arbitraries.js';

type Read = (r: Reader, version: number) => unknown;
type Write = (w: Writer, version: number, m: any) => void;

function codecs(): Map<string, { read: Read; write: Write }> {
  const byName = new Map<string, { read: Read; write: Write }>([
    ['RequestHeader', { read: readRequestHeader, write: writeRequestHeader }],
    ['ResponseHeader', { read: readResponseHeader, write: writeResponseHeader }],
    ['ConsumerProtocolSubscription', { read: readConsumerProtocolSubscription, write: writeConsumerProtocolSubscription }],
    ['ConsumerProtocolAssignment', { read: readConsumerProtocolAssignment, write: writeConsumerProtocolAssignment }],
  ]);
  for (const api of API_KEYS) {
    if (!api) continue;
    byName.set(`${api.name}Request`, { read: api.readRequest, write: api.writeRequest });
    byName.set(`${api.name}Response`, { read: api.readResponse, write: api.writeResponse });
  }
  return byName;
}

const CODECS = codecs();
const RECORDS = new Map(RECORD_CODECS.map((c) => [c.name, c]));

describe('generated codecs round-trip', () => {
  it('has a codec for every schema', () => {
    expect([...CODECS.keys()].sort()).toEqual(MESSAGE_SCHEMAS.map((s) => s.name).sort());
    expect([...RECORDS.keys()].sort()).toEqual(RECORD_SCHEMAS.map((s) => s.name).sort());
  });

  for (const schema of [...MESSAGE_SCHEMAS, ...RECORD_SCHEMAS]) {
    it(`${schema.name} v${schema.validVersions}`, () => {
      const { read, write } = CODECS.get(schema.name) ?? RECORDS.get(schema.name)!;
      for (const version of versionsOf(schema)) {
        fc.assert(
          fc.property(messageArbitrary(schema, version), (value) => {
            const w = new Writer(16);
            write(w, version, value);
            const bytes = Buffer.from(w.toBuffer());
            const r = new Reader(bytes);
            const decoded = read(r, version);
            expect(decoded, `v${version}`).toEqual(normalize(schema.fields, version, value));
            expect(r.offset, `v${version} consumed`).toBe(bytes.length);
            const again = new Writer();
            write(again, version, decoded);
            expect(again.toBuffer().equals(bytes), `v${version} re-encoded`).toBe(true);
          }),
          { numRuns: 25 },
        );
      }
    });
  }
});
