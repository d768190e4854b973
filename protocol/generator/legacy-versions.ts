// Versions kafkite serves that Kafka 4.0 dropped (KIP-896): Kafka 4.4's definitions start these APIs at a
// higher version, so the generator lowers their validVersions back to what kafkite's handlers accept (old
// clients keep working: README, Supported APIs). 4.4 keeps the fields of those old versions with their version
// ranges, except the four below, which existed in one old version only and were deleted with it; they are
// put back here as Kafka 3.9's definitions had them. Checked by comparing each version's wire layout from
// 4.4's definitions patched so with the layout from Kafka's pre-4.0 definitions (identical for every version).
import type { FieldSpec } from './spec.js';

interface LegacyField {
  /** The struct that held the field: a nested struct's type name, or the message's own name. */
  readonly struct: string;
  /** The field it followed. */
  readonly after: string;
  readonly field: FieldSpec;
}

/** API name (without Request/Response) → the lowest version kafkite serves (Kafka 4.4's lowest in the comment). */
const LOWEST: Readonly<Record<string, number>> = {
  Produce: 0, // 3; v0-2 carry message formats v0/v1
  Fetch: 0, // 4
  ListOffsets: 0, // 1
  OffsetCommit: 0, // 2
  OffsetFetch: 0, // 1
  CreateTopics: 0, // 2
  DeleteTopics: 0, // 1
  DescribeAcls: 0, // 1
  CreateAcls: 0, // 1
  DeleteAcls: 0, // 1
  DescribeConfigs: 0, // 1
  DescribeLogDirs: 0, // 1
  OffsetForLeaderEpoch: 0, // 2
  WriteTxnMarkers: 0, // 1
};

const LEGACY_FIELDS: Readonly<Record<string, readonly LegacyField[]>> = {
  ListOffsetsRequest: [{
    struct: 'ListOffsetsPartition',
    after: 'Timestamp',
    field: { name: 'MaxNumOffsets', type: 'int32', versions: '0', default: '1', about: 'The maximum number of offsets to report.' },
  }],
  ListOffsetsResponse: [{
    struct: 'ListOffsetsPartitionResponse',
    after: 'ErrorCode',
    field: { name: 'OldStyleOffsets', type: '[]int64', versions: '0', about: 'The result offsets.' },
  }],
  OffsetCommitRequest: [{
    struct: 'OffsetCommitRequestPartition',
    after: 'CommittedLeaderEpoch',
    field: { name: 'CommitTimestamp', type: 'int64', versions: '1', default: '-1', about: 'The timestamp of the commit.' },
  }],
  DescribeConfigsResponse: [{
    struct: 'DescribeConfigsResourceResult',
    after: 'ReadOnly',
    field: { name: 'IsDefault', type: 'bool', versions: '0', about: 'True if the configuration is not set.' },
  }],
};

interface PatchableSpec {
  readonly name: string;
  readonly validVersions: string;
  readonly fields: FieldSpec[];
}

function insertField(fields: FieldSpec[], owner: string, legacy: LegacyField): boolean {
  if (owner === legacy.struct) {
    // Once Kafka's definitions have the field again, its entry here is moot and must go.
    if (fields.some((f) => f.name === legacy.field.name)) throw new Error(`${legacy.struct} already has ${legacy.field.name}`);
    const at = fields.findIndex((f) => f.name === legacy.after);
    if (at < 0) throw new Error(`${legacy.struct} has no field ${legacy.after}`);
    fields.splice(at + 1, 0, legacy.field);
    return true;
  }
  return fields.some((f) => f.fields !== undefined && insertField(f.fields, f.type.replace(/^\[\]/, ''), legacy));
}

/** The spec with kafkite's legacy versions and their fields; a spec that has none is returned as it is. */
export function withLegacyVersions<S extends PatchableSpec>(spec: S): S {
  const lowest = LOWEST[spec.name.replace(/(Request|Response)$/, '')];
  if (lowest === undefined) return spec;
  const highest = /^\d+-(\d+)$/.exec(spec.validVersions);
  if (!highest) throw new Error(`${spec.name}: legacy versions need a closed range, not ${spec.validVersions}`);
  const patched: S = { ...spec, validVersions: `${lowest}-${highest[1]}`, fields: structuredClone(spec.fields) };
  for (const field of LEGACY_FIELDS[spec.name] ?? []) {
    if (!insertField(patched.fields, spec.name, field)) throw new Error(`${spec.name}: no struct ${field.struct}`);
  }
  return patched;
}
