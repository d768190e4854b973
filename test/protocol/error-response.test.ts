// errorResponse answers any request of any API kafkite serves, at any version, with the error in every error code
// of the response and an entry per topic, partition or group the request named (Kafka's getErrorResponse).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Reader, Writer } from '../../protocol/primitives.js';
import { API_KEYS } from '../../protocol/generated/index.js';
import { MESSAGE_SCHEMAS, type FieldSchema } from '../../protocol/generated/schemas.js';
import { fieldKey, inVersionRange } from '../../protocol/schema-values.js';
import { errorResponse } from '../../protocol/error-response.js';
import { HANDLERS } from '../../src/handlers/index.js';
import { messageArbitrary } from './message-arbitraries.js';

const UNKNOWN_SERVER_ERROR = -1;
const UNKNOWN = { code: UNKNOWN_SERVER_ERROR, message: null };

/** Every error code the response carries at `version`, at any depth. */
function errorCodes(fields: readonly FieldSchema[], version: number, value: Record<string, unknown>, out: number[] = []): number[] {
  for (const field of fields) {
    if (!inVersionRange(version, field.versions) || field.tag !== undefined) continue;
    const v = value[fieldKey(field)];
    if (field.type === 'int16' && field.name.endsWith('ErrorCode')) out.push(v as number);
    else if (field.fields && Array.isArray(v)) for (const e of v) errorCodes(field.fields, version, e as Record<string, unknown>, out);
    else if (field.fields && v !== null) errorCodes(field.fields, version, v as Record<string, unknown>, out);
  }
  return out;
}

describe('errorResponse', () => {
  for (const handler of HANDLERS.values()) {
    const schema = MESSAGE_SCHEMAS.find((s) => s.type === 'request' && s.apiKey === handler.apiKey)!;
    const responseSchema = MESSAGE_SCHEMAS.find((s) => s.type === 'response' && s.apiKey === handler.apiKey)!;
    it(`encodes for every version of ${handler.name}, with the error in every error code`, () => {
      for (let version = handler.minVersion; version <= handler.maxVersion; version++) {
        fc.assert(fc.property(messageArbitrary(schema, version), (written) => {
          // The request as the broker decodes it.
          const w = new Writer();
          API_KEYS[handler.apiKey]!.writeRequest(w, version, written);
          const request = API_KEYS[handler.apiKey]!.readRequest(new Reader(w.toBuffer()), version);
          const out = new Writer();
          API_KEYS[handler.apiKey]!.writeResponse(out, version, errorResponse(handler.apiKey, version, request, UNKNOWN));
          const decoded = API_KEYS[handler.apiKey]!.readResponse(new Reader(out.toBuffer()), version);
          for (const code of errorCodes(responseSchema.fields, version, decoded)) expect(code).toBe(UNKNOWN_SERVER_ERROR);
        }), { numRuns: 20 });
      }
    });
  }

  it('answers each partition of each topic of a Produce, named as in the request', () => {
    const request = { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [
      { name: 'a', topicId: '0'.repeat(32), partitionData: [{ index: 0, records: null }, { index: 3, records: null }] },
      { name: 'b', topicId: '0'.repeat(32), partitionData: [{ index: 1, records: null }] },
    ] };
    const res = errorResponse(0, 9, request, UNKNOWN) as any;
    expect(res.responses.map((t: any) => [t.name, t.partitionResponses.map((p: any) => [p.index, p.errorCode, p.errorMessage])])).toEqual([
      ['a', [[0, -1, null], [3, -1, null]]],
      ['b', [[1, -1, null]]],
    ]);
  });

  it('answers each group of DescribeGroups and DeleteGroups, each topic of DeleteTopics and Fetch, each resource of DescribeConfigs', () => {
    expect((errorResponse(15, 5, { groups: ['g1', 'g2'], includeAuthorizedOperations: false }, UNKNOWN) as any).groups.map((g: any) => [g.groupId, g.errorCode])).toEqual([['g1', -1], ['g2', -1]]);
    expect((errorResponse(42, 2, { groupsNames: ['g1'] }, UNKNOWN) as any).results.map((g: any) => [g.groupId, g.errorCode])).toEqual([['g1', -1]]);
    expect((errorResponse(20, 5, { topicNames: ['t1', 't2'], timeoutMs: 1 }, UNKNOWN) as any).responses.map((t: any) => [t.name, t.errorCode])).toEqual([['t1', -1], ['t2', -1]]);
    const fetch = errorResponse(1, 12, { topics: [{ topic: 't', topicId: '0'.repeat(32), partitions: [{ partition: 4, fetchOffset: 7, logStartOffset: -1 }] }] }, UNKNOWN) as any;
    expect(fetch).toMatchObject({ errorCode: -1, responses: [{ topic: 't', partitions: [{ partitionIndex: 4, errorCode: -1 }] }] });
    expect((errorResponse(32, 4, { resources: [{ resourceType: 2, resourceName: 't', configurationKeys: null }] }, UNKNOWN) as any).results)
      .toMatchObject([{ resourceType: 2, resourceName: 't', errorCode: -1, errorMessage: null, configs: [] }]);
    const quotas = errorResponse(49, 1, { entries: [{ entity: [{ entityType: 'client-id', entityName: 'c' }], ops: [] }], validateOnly: false }, { code: 56, message: 'disk' }) as any;
    expect(quotas.entries).toEqual([{ errorCode: 56, errorMessage: 'disk', entity: [{ entityType: 'client-id', entityName: 'c' }] }]);
    expect((errorResponse(10, 4, { key: '', keyType: 0, coordinatorKeys: ['g'] }, UNKNOWN) as any).coordinators).toMatchObject([{ key: 'g', errorCode: -1, nodeId: 0 }]);
    // A filter names no entries; JoinGroup's protocols are not members.
    expect((errorResponse(16, 5, { statesFilter: ['Stable'], typesFilter: [] }, UNKNOWN) as any).groups).toEqual([]);
    expect((errorResponse(11, 9, { groupId: 'g', memberId: 'm', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }] }, UNKNOWN) as any))
      .toMatchObject({ errorCode: -1, memberId: '', members: [] });
  });
});
