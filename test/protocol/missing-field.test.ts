// The generated writers refuse a field the spec gives no default that is left undefined (a typo, a renamed
// field's old name), naming the message and the field, instead of writing it as 0; only in the versions the
// field exists in.
import { describe, expect, it } from 'vitest';
import { EncodeError, Writer } from '../../protocol/primitives.js';
import { writeFetchResponse } from '../../protocol/generated/FetchResponse.js';
import { writeProduceRequest } from '../../protocol/generated/ProduceRequest.js';

const partition = { index: 0, records: null };

function produce(version: number, topic: Record<string, unknown>, root: Record<string, unknown> = {}): () => void {
  const request = { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ partitionData: [partition], ...topic }], ...root };
  return () => writeProduceRequest(new Writer(), version, request as any);
}

describe('a field left undefined', () => {
  it('is refused at the top level, named', () => {
    expect(produce(9, { name: 't' }, { acks: undefined })).toThrow(new EncodeError('ProduceRequest.acks is missing (undefined) in version 9'));
  });

  it('is refused in a nested struct, named with its message', () => {
    // The old name of a field (as if `name` had been renamed from `topic`) leaves the new one undefined.
    expect(produce(12, { topic: 't' })).toThrow(new EncodeError('ProduceRequest: TopicProduceData.name is missing (undefined) in version 12'));
    expect(produce(13, { name: 't' })).toThrow(/TopicProduceData\.topicId is missing/);
  });

  it('is not needed in a version that does not carry it', () => {
    expect(produce(12, { name: 't' })).not.toThrow();
    expect(produce(13, { topicId: '0'.repeat(31) + '1' })).not.toThrow();
  });

  it('is refused in a tagged field from the version it is tagged in', () => {
    const response = { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses: [] };
    expect(() => writeFetchResponse(new Writer(), 15, response as any)).not.toThrow();
    expect(() => writeFetchResponse(new Writer(), 16, response as any)).toThrow(new EncodeError('FetchResponse.nodeEndpoints is missing (undefined) in version 16'));
  });
});
