// Where Kafka 4.0 GA's message definitions differ from the pre-GA copy in ../shared/kafka-message-specs.
// The generator applies these on load, so the copy stays as Kafka shipped it and every difference is
// listed here with the reason. Each entry was checked against GA's clients/src/main/resources/common/message.

interface GaPatch {
  /** GA's validVersions, where it grew after the copy was taken. */
  readonly validVersions?: string;
  /** GA no longer marks the latest version unstable. */
  readonly stable?: true;
  readonly why: string;
}

const GA_PATCHES: Readonly<Record<string, GaPatch>> = {
  // The field lists of v0-1 in ../shared were checked against apache/kafka's message definitions with the
  // search tool: the same fields (SubscribedTopicRegex in v1+, nullable), and the response lists
  // INVALID_REGULAR_EXPRESSION for v1+; only the unstable marker differs.
  ConsumerGroupHeartbeatRequest: { stable: true, why: 'KIP-848 went GA in 4.0 with v1 (SubscribedTopicRegex, KIP-1082 member ids)' },
  ConsumerGroupHeartbeatResponse: { stable: true, why: 'pairs with the request' },
  EndTxnRequest: { stable: true, why: 'v5 (KIP-890 part 2, transaction version 2) is stable in 4.0' },
  EndTxnResponse: { stable: true, why: 'pairs with the request' },
  ProduceRequest: { validVersions: '0-12', why: 'v12 has v11\'s layout; under transaction version 2 it adds the partition to the transaction implicitly (KIP-890 part 2)' },
  ProduceResponse: { validVersions: '0-12', why: 'pairs with the request' },
  // Checked with the search tool (GA's TxnOffsetCommitRequest.json comment): "Version 5 is the same as
  // version 4 (KIP-890)"; under transaction version 2 it also does AddOffsetsToTxn's work.
  TxnOffsetCommitRequest: { validVersions: '0-5', why: 'v5 has v4\'s layout; under transaction version 2 it adds the group\'s offsets partition to the transaction implicitly (KIP-890 part 2)' },
  TxnOffsetCommitResponse: { validVersions: '0-5', why: 'pairs with the request' },
};

/** A spec as loaded: only the fields a patch touches matter here. */
interface PatchableSpec {
  readonly name: string;
  readonly validVersions: string;
  readonly latestVersionUnstable?: boolean;
}

export function applyGaPatches<S extends PatchableSpec>(spec: S): S {
  const patch = GA_PATCHES[spec.name];
  if (!patch) return spec;
  return {
    ...spec,
    ...(patch.validVersions ? { validVersions: patch.validVersions } : {}),
    ...(patch.stable ? { latestVersionUnstable: false } : {}),
  };
}
