// A share-group member over the wire that acquires records and never acknowledges them, for bench/share-groups.ts's
// in-flight memory (issue 29): it joins with ShareGroupHeartbeat (and keeps heartbeating on a second connection),
// then ShareFetches in one share session until it holds `target` records or the broker gives no more.
import { randomBytes } from 'node:crypto';
import { ApiKey } from '../../protocol/generated/index.js';
import type { ShareFetchResponse } from '../../protocol/generated/ShareFetchResponse.js';
import { WireClient } from './wire-client.js';

const HEARTBEAT_MS = 1000;
/** Fetches in a row that acquire nothing before the broker counts as having no more to give. */
const EMPTY_FETCHES = 10;
/** COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR. */
const COORDINATOR_ERRORS = new Set([14, 15, 16]);

interface ShareAcquirer {
  /** Records acquired and held. */
  acquired: number;
  fetches: number;
  /** Leaves the group (what it held is released) and closes its connections. */
  leave(): Promise<void>;
}

/** Sets group configs with IncrementalAlterConfigs (GROUP resources). */
export async function setGroupConfigs(port: number, group: string, configs: Record<string, string>): Promise<void> {
  const client = await WireClient.connect(port);
  try {
    const res = await client.send(ApiKey.IncrementalAlterConfigs, 1, {
      resources: [{ resourceType: 32, resourceName: group, configs: Object.entries(configs).map(([name, value]) => ({ name, configOperation: 0, value })) }],
      validateOnly: false,
    });
    if (res.responses[0].errorCode !== 0) throw new Error(`${group}: ${res.responses[0].errorMessage}`);
  } finally {
    client.close();
  }
}

export async function acquireWithoutAcknowledging(port: number, group: string, topic: string, partitions: number, target: number, timeoutMs = 120_000): Promise<ShareAcquirer> {
  const deadline = Date.now() + timeoutMs;
  // A member id as Kafka's clients make it: a UUID, base64url.
  const memberId = randomBytes(16).toString('base64url');
  const beats = await WireClient.connect(port);
  let epoch = 0;
  let assigned = 0;
  let topicId = '';
  /** The heartbeat's error code; the epoch and assignment it answers with. */
  const heartbeat = async (memberEpoch: number): Promise<number> => {
    const res = await beats.send(ApiKey.ShareGroupHeartbeat, 1, { groupId: group, memberId, memberEpoch, rackId: null, subscribedTopicNames: memberEpoch === 0 ? [topic] : null });
    if (res.errorCode !== 0) return res.errorCode;
    epoch = res.memberEpoch;
    const tps = res.assignment?.topicPartitions as Array<{ topicId: string; partitions: number[] }> | undefined;
    if (tps?.length) {
      topicId = tps[0]!.topicId;
      assigned = tps[0]!.partitions.length;
    }
    return 0;
  };
  const pause = () => new Promise((r) => setTimeout(r, 250));
  // A fresh Kafka creates __consumer_offsets at a first FindCoordinator, and answers the group's requests with
  // coordinator errors until it has loaded it.
  for (let code = -1; code !== 0;) {
    if (code !== -1 && (!COORDINATOR_ERRORS.has(code) || Date.now() > deadline)) throw new Error(`ShareGroupHeartbeat: error ${code}`);
    if (code !== -1) await pause();
    await beats.send(ApiKey.FindCoordinator, 6, { key: '', keyType: 0, coordinatorKeys: [group] });
    code = await heartbeat(0);
  }
  // The broker assigns a partition once its share state is initialized, which may take a few heartbeats.
  while (assigned < partitions) {
    if (Date.now() > deadline) throw new Error(`${group}: ${assigned} of ${partitions} partitions assigned`);
    await pause();
    const code = await heartbeat(epoch);
    if (code !== 0) throw new Error(`ShareGroupHeartbeat: error ${code}`);
  }
  let beating: Promise<void> = Promise.resolve();
  const timer = setInterval(() => (beating = heartbeat(epoch).then(() => {}, () => {})), HEARTBEAT_MS);

  const fetcher = await WireClient.connect(port);
  let acquired = 0;
  let fetches = 0;
  for (let empty = 0, session = 0; acquired < target && empty < EMPTY_FETCHES && Date.now() < deadline; fetches++) {
    const res: ShareFetchResponse = await fetcher.send(ApiKey.ShareFetch, 2, {
      groupId: group, memberId, shareSessionEpoch: session, maxWaitMs: 100, minBytes: 1, maxBytes: 8 << 20,
      maxRecords: target - acquired, batchSize: 500, shareAcquireMode: 0, isRenewAck: false,
      topics: [{ topicId, partitions: Array.from({ length: partitions }, (_, p) => ({ partitionIndex: p, partitionMaxBytes: 0, acknowledgementBatches: [] })) }],
      forgottenTopicsData: [],
    });
    if (res.errorCode !== 0) throw new Error(`ShareFetch: ${res.errorCode} ${res.errorMessage}`);
    session++;
    let got = 0;
    for (const t of res.responses) {
      for (const p of t.partitions) {
        if (p.errorCode !== 0) throw new Error(`ShareFetch ${topic}-${p.partitionIndex}: ${p.errorCode} ${p.errorMessage}`);
        for (const r of p.acquiredRecords) got += r.lastOffset - r.firstOffset + 1;
      }
    }
    acquired += got;
    empty = got === 0 ? empty + 1 : 0;
  }
  return {
    acquired,
    fetches,
    async leave() {
      clearInterval(timer);
      await beating;
      fetcher.close();
      await heartbeat(-1).catch(() => {});
      beats.close();
    },
  };
}
