// A request whose handler fails is answered, not dropped: the response Kafka's AbstractRequest.getErrorResponse
// builds for it (the error in every entry, the request's topics, groups and resources named), the connection
// kept for the next request, and one error line in the log naming the API key.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiKey } from '../../protocol/generated/index.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

const UNKNOWN_SERVER_ERROR = -1;
const KAFKA_STORAGE_ERROR = 56;
const METADATA = { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false };

let root: string;
let broker: BrokerProcess;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'kafkite-request-errors-'));
  mkdirSync(join(root, 'a'));
  mkdirSync(join(root, 'b'));
  const overrides = [`log.dirs=${join(root, 'a')},${join(root, 'b')}`];
  // A first start writes the metadata log's opening and registers the broker; the second start appends one
  // registration batch of the same size, and then the metadata log's appends fail as on a full disk
  // (storage/fault-injection.ts): AlterClientQuotas and IncrementalAlterConfigs on a broker cannot persist.
  const first = await startBroker({ dataDir: join(root, 'a'), overrides });
  await first.kill();
  const registration = lastBatchBytes(join(root, 'a', '__cluster_metadata-0', '00000000000000000000.log'));
  broker = await startBroker({
    dataDir: join(root, 'a'),
    port: first.port,
    overrides,
    env: { KAFKITE_FAULT_INJECTION: `${join(root, 'a')}/__cluster_metadata:ENOSPC:${registration}` },
  });
});

function lastBatchBytes(file: string): number {
  let last = 0;
  for (const batch of batchesIn(readFileSync(file))) last = batch.sizeInBytes;
  return last;
}

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  rmSync(root, { recursive: true, force: true });
});

/** The broker's 'request failed' lines for an API key, once they have come through its stdout (after the response, maybe). */
async function failures(apiKey: number): Promise<Array<Record<string, unknown>>> {
  const lines = () => broker.logs.filter((l) => l.msg === 'request failed' && l.apiKey === apiKey);
  for (let waited = 0; lines().length === 0 && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  return lines();
}

it('answers UNKNOWN_SERVER_ERROR when a handler throws an internal error, and the connection serves the next request', async () => {
  const client = await WireClient.connect(broker.port);
  try {
    // A log dir removed under the running broker: DescribeLogDirs' statfs(2) of it throws ENOENT.
    rmSync(join(root, 'b'), { recursive: true, force: true });
    const res = await client.send(ApiKey.DescribeLogDirs, 4, { topics: null });
    expect(res).toMatchObject({ errorCode: UNKNOWN_SERVER_ERROR, results: [] });
    expect((await client.send(ApiKey.Metadata, 12, METADATA)).brokers).toHaveLength(1);
    const logged = await failures(ApiKey.DescribeLogDirs);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 50, apiVersion: 4 });
  } finally {
    client.close();
  }
});

it('answers a storage failure with KAFKA_STORAGE_ERROR in every entry of the request, as ApiError.fromThrowable does', async () => {
  const client = await WireClient.connect(broker.port);
  try {
    const quotas = await client.send(ApiKey.AlterClientQuotas, 1, {
      entries: [
        { entity: [{ entityType: 'client-id', entityName: 'one' }], ops: [{ key: 'producer_byte_rate', value: 1000, remove: false }] },
        { entity: [{ entityType: 'user', entityName: 'two' }, { entityType: 'client-id', entityName: 'three' }], ops: [{ key: 'consumer_byte_rate', value: 2000, remove: false }] },
      ],
      validateOnly: false,
    });
    expect(quotas.entries.map((e: any) => [e.errorCode, e.entity.map((x: any) => `${x.entityType}=${x.entityName}`)])).toEqual([
      [KAFKA_STORAGE_ERROR, ['client-id=one']],
      [KAFKA_STORAGE_ERROR, ['user=two', 'client-id=three']],
    ]);
    expect(quotas.entries[0].errorMessage).toMatch(/ENOSPC/);
    const configs = await client.send(ApiKey.IncrementalAlterConfigs, 1, {
      resources: [{ resourceType: 4, resourceName: '1', configs: [{ name: 'log.retention.ms', configOperation: 0, value: '1000' }] }], validateOnly: false,
    });
    expect(configs.responses).toMatchObject([{ errorCode: KAFKA_STORAGE_ERROR, resourceType: 4, resourceName: '1' }]);
    // Nothing was stored, and the same connection still answers.
    const described = await client.send(ApiKey.DescribeClientQuotas, 1, { components: [{ entityType: 'client-id', matchType: 0, match: 'one' }], strict: false });
    expect(described).toMatchObject({ errorCode: 0, entries: [] });
    expect(await failures(ApiKey.AlterClientQuotas)).toHaveLength(1);
  } finally {
    client.close();
  }
});
