import { describe, expect, it } from 'vitest';
import { MemberState } from '../../src/coordinator/consumer/consumer-group-member.js';
import {
  ConsumerGroupRecordType as T, currentAssignmentRecord, decodeConsumerGroupKey, decodeCurrentAssignment, decodeGroupMetadata,
  decodeMemberMetadata, decodeTargetAssignment, groupEpochRecord, memberMetadataRecord, targetAssignmentRecord,
} from '../../src/coordinator/consumer/consumer-group-records.js';
import { decodeKey, offsetCommitKey } from '../../src/coordinator/records.js';
import { readConsumerGroupMemberMetadataValue, writeConsumerGroupMemberMetadataValue } from '../../protocol/generated/records/ConsumerGroupMemberMetadataValue.js';
import { Reader, Writer } from '../../protocol/primitives.js';

const TOPIC_ID = '0123456789abcdef0123456789abcdef';

describe('consumer group records (__consumer_offsets types 3-8)', () => {
  it('encodes keys as Kafka does: record type, group id, member id', () => {
    const { key } = currentAssignmentRecord('g', 'm', {
      state: MemberState.Stable, memberEpoch: 1, previousMemberEpoch: 0, assignedPartitions: new Map(), partitionsPendingRevocation: new Map(),
    });
    expect(key).toEqual(Buffer.from([0, 8, 0, 1, 0x67, 0, 1, 0x6d]));
    expect(decodeConsumerGroupKey(key)).toEqual({ type: T.CurrentMemberAssignment, groupId: 'g', memberId: 'm' });
    expect(decodeConsumerGroupKey(groupEpochRecord('g', 3, 0n).key)).toEqual({ type: T.Metadata, groupId: 'g', memberId: null });
    // The classic coordinator skips them; they skip the classic ones.
    expect(decodeKey(groupEpochRecord('g', 3, 0n).key)).toEqual({ type: 'other', version: 3 });
    expect(decodeConsumerGroupKey(offsetCommitKey('g', 't', 0))).toBeUndefined();
  });

  it('round-trips every value, starting with value version 0', () => {
    const epoch = groupEpochRecord('g', 7, -5n).value!;
    expect(epoch.readInt16BE(0)).toBe(0);
    expect(decodeGroupMetadata(epoch)).toEqual({ epoch: 7, metadataHash: -5n });
    // The hash's default, 0, is left out (no tagged field), as Kafka's writer does.
    expect(groupEpochRecord('g', 7, 0n).value!).toEqual(Buffer.from([0, 0, 0, 0, 0, 7, 0]));
    expect(decodeGroupMetadata(groupEpochRecord('g', 7, 0n).value!)).toEqual({ epoch: 7, metadataHash: 0n });

    const metadata = {
      instanceId: 'i', rackId: null, clientId: 'c', clientHost: '/127.0.0.1', subscribedTopicNames: ['t', 'u'],
      subscribedTopicRegex: null, rebalanceTimeoutMs: 30000, serverAssignor: 'range',
    };
    expect(decodeMemberMetadata(memberMetadataRecord('g', 'm', metadata).value!)).toEqual(metadata);

    const assignment = new Map([[TOPIC_ID, new Set([0, 2])]]);
    expect(decodeTargetAssignment(targetAssignmentRecord('g', 'm', assignment).value!)).toEqual(assignment);

    const state = {
      state: MemberState.UnrevokedPartitions, memberEpoch: 5, previousMemberEpoch: 4,
      assignedPartitions: assignment, partitionsPendingRevocation: new Map([[TOPIC_ID, new Set([1])]]),
    };
    expect(decodeCurrentAssignment(currentAssignmentRecord('g', 'm', state).value!)).toEqual(state);
  });

  it("writes a consumer-protocol member's ClassicMemberMetadata as Kafka's tagged null, and reads a classic member's", () => {
    const metadata = {
      instanceId: null, rackId: null, clientId: 'c', clientHost: '/h', subscribedTopicNames: ['t'], subscribedTopicRegex: null, rebalanceTimeoutMs: 1, serverAssignor: null,
    };
    // A tagged nullable struct (Kafka's MessageDataGenerator): one tagged field, tag 0, size 1, unsigned varint 0 for null.
    expect(memberMetadataRecord('g', 'm', metadata).value!.subarray(-4)).toEqual(Buffer.from([1, 0, 1, 0]));
    // Present: unsigned varint 1, then the struct (a member that joined with the classic protocol).
    const classic = { ...metadata, classicMemberMetadata: { sessionTimeoutMs: 45000, supportedProtocols: [{ name: 'range', metadata: Buffer.from([0, 3]) }] } };
    const w = new Writer(64);
    writeConsumerGroupMemberMetadataValue(w, 0, classic);
    const bytes = w.toBuffer();
    // The struct: session timeout (4), one protocol (1), "range" (1 + 5), its metadata (1 + 2), two empty tag sections (2).
    const tagged = bytes.subarray(bytes.length - (3 + 1 + 16));
    expect(tagged.subarray(0, 4)).toEqual(Buffer.from([1, 0, 17, 1]));
    expect(readConsumerGroupMemberMetadataValue(new Reader(bytes), 0)).toEqual(classic);
  });
});
