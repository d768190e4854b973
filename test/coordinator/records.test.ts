import { describe, expect, it } from 'vitest';
import {
  decodeGroupMetadataValue, decodeKey, decodeOffsetCommitValue, groupMetadataKey, groupMetadataValue,
  offsetCommitKey, offsetCommitValue,
} from '../../src/coordinator/records.js';
import { javaStringHashCode, partitionFor } from '../../src/coordinator/offsets-topic.js';

describe('__consumer_offsets records', () => {
  it('encodes OffsetCommitKey v1 as Kafka does', () => {
    const key = offsetCommitKey('g', 'tp', 7);
    expect(key.toString('hex')).toBe('0001' + '0001' + '67' + '0002' + '7470' + '00000007');
    expect(decodeKey(key)).toEqual({ type: 'offset', group: 'g', topic: 'tp', partition: 7 });
  });

  it('encodes GroupMetadataKey v2', () => {
    const key = groupMetadataKey('grp');
    expect(key.toString('hex')).toBe('0002' + '0003' + Buffer.from('grp').toString('hex'));
    expect(decodeKey(key)).toEqual({ type: 'group', group: 'grp' });
  });

  it('skips record types of other group kinds', () => {
    expect(decodeKey(Buffer.from([0, 3, 0, 0]))).toEqual({ type: 'other', version: 3 });
  });

  it('writes OffsetCommitValue v3, or v1 with an expire timestamp, and round-trips them', () => {
    const v3 = { offset: 2 ** 40 + 5, leaderEpoch: 3, metadata: 'méta', commitTimestamp: 1700000000000, expireTimestamp: -1 };
    const buf = offsetCommitValue(v3);
    expect(buf.readInt16BE(0)).toBe(3);
    expect(decodeOffsetCommitValue(buf)).toEqual(v3);
    const v1 = { offset: 1, leaderEpoch: -1, metadata: '', commitTimestamp: 10, expireTimestamp: 20 };
    const buf1 = offsetCommitValue(v1);
    expect(buf1.readInt16BE(0)).toBe(1);
    expect(decodeOffsetCommitValue(buf1)).toEqual(v1);
  });

  it("writes Kafka's layouts byte for byte", () => {
    const offset = { offset: 5, leaderEpoch: 2, metadata: 'm', commitTimestamp: 10, expireTimestamp: -1 };
    expect(offsetCommitValue(offset).toString('hex')).toBe('0003' + '0000000000000005' + '00000002' + '0001' + '6d' + '000000000000000a');
    expect(offsetCommitValue({ ...offset, expireTimestamp: 20 }).toString('hex')).toBe('0001' + '0000000000000005' + '0001' + '6d' + '000000000000000a' + '0000000000000014');
    const group = groupMetadataValue({
      protocolType: 'consumer', generationId: 1, protocolName: 'range', leaderId: 'a', currentStateTimestamp: 7,
      members: [{ memberId: 'a', groupInstanceId: null, clientId: 'c', clientHost: '/h', rebalanceTimeoutMs: 3, sessionTimeoutMs: 4, subscription: Buffer.from([1]), assignment: Buffer.from([2]) }],
    });
    expect(group.toString('hex')).toBe('0003' + '0008' + Buffer.from('consumer').toString('hex') + '00000001' + '0005' + Buffer.from('range').toString('hex') + '000161'
      + '0000000000000007' + '00000001' + '000161' + 'ffff' + '000163' + '00022f68' + '00000003' + '00000004' + '0000000101' + '0000000102');
  });

  it('reads a flexible OffsetCommitValue v4', () => {
    // version 4, offset 9, leaderEpoch -1, metadata "m" (compact), commitTimestamp 1, no tagged fields
    const buf = Buffer.from('0004' + '0000000000000009' + 'ffffffff' + '02' + '6d' + '0000000000000001' + '00', 'hex');
    expect(decodeOffsetCommitValue(buf)).toEqual({ offset: 9, leaderEpoch: -1, metadata: 'm', commitTimestamp: 1, expireTimestamp: -1 });
  });

  it('round-trips GroupMetadataValue v3', () => {
    const g = {
      protocolType: 'consumer', generationId: 4, protocolName: 'range', leaderId: 'm1', currentStateTimestamp: 123,
      members: [{
        memberId: 'm1', groupInstanceId: 'i1', clientId: 'c', clientHost: '/h', rebalanceTimeoutMs: 300, sessionTimeoutMs: 100,
        subscription: Buffer.from([1, 2]), assignment: Buffer.from([3]),
      }],
    };
    const buf = groupMetadataValue(g);
    expect(buf.readInt16BE(0)).toBe(3);
    expect(decodeGroupMetadataValue(buf)).toEqual(g);
  });

  it('places groups on partitions like Kafka (abs(String.hashCode) % n)', () => {
    expect(javaStringHashCode('hello')).toBe(99162322);
    expect(javaStringHashCode('polygenelubricants')).toBe(-2147483648);
    expect(partitionFor('polygenelubricants', 50)).toBe(0);
    expect(javaStringHashCode('my-group')).toBe(-1906497762);
    expect(partitionFor('my-group', 50)).toBe(12);
  });
});
