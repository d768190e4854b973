// librdkafka transactions (Debian's python3-confluent-kafka; kcat has no transactional mode): commit,
// abort, consume-transform-produce with send_offsets_to_transaction, and read_committed consumers that
// never see aborted records. Checked on disk (control batches, .txnindex entries) and through second
// clients, not through the producer's own answers.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { batchesOnDisk } from '../helpers/disk-batches.js';
import { runJsonClient } from '../helpers/json-client.js';

const SCRIPT = join(import.meta.dirname, 'transactions_librdkafka.py');
/** Debian's interpreter, where python3-confluent-kafka is installed (.ci/run installs it). */
const PYTHON = '/usr/bin/python3';

let broker: BrokerProcess;
let client: WireClient;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['offsets.topic.num.partitions=3', 'transaction.state.log.num.partitions=3'] });
  client = await WireClient.connect(broker.port);
  for (const name of ['py-out', 'py-in', 'py-ctp-out', 'py-empty']) {
    const res = await client.send(19, 7, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect(res.topics[0].errorCode).toBe(0);
  }
});

afterAll(async () => {
  client?.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

function runScenario(scenario: string): Promise<any> {
  return runJsonClient(PYTHON, [SCRIPT, `127.0.0.1:${broker.port}`, scenario]);
}

/** Kafka's .txnindex entries: version int16, producerId, firstOffset, lastOffset, lastStableOffset (int64 each). */
function txnIndexEntries(topic: string): Array<{ producerId: number; firstOffset: number; lastOffset: number; lastStableOffset: number }> {
  const dir = join(broker.dataDir, `${topic}-0`);
  return readdirSync(dir).filter((f) => f.endsWith('.txnindex')).sort().flatMap((f) => {
    const buf = readFileSync(join(dir, f));
    const out = [];
    for (let pos = 0; pos + 34 <= buf.length; pos += 34) {
      expect(buf.readInt16BE(pos)).toBe(0);
      out.push({
        producerId: Number(buf.readBigInt64BE(pos + 2)), firstOffset: Number(buf.readBigInt64BE(pos + 10)),
        lastOffset: Number(buf.readBigInt64BE(pos + 18)), lastStableOffset: Number(buf.readBigInt64BE(pos + 26)),
      });
    }
    return out;
  });
}

describe('librdkafka transactions', () => {
  it('commit, abort, commit: read_committed sees only committed records; markers and the aborted range are on disk', async () => {
    const result = await runScenario('commit-abort');
    expect(result.readCommitted).toEqual(['c1', 'c2', 'c3', 'c4']);
    // The aborted records are in the log all the same: read_uncommitted (a second consumer) sees them.
    expect(result.readUncommitted).toEqual(['c1', 'c2', 'c3', 'a1', 'a2', 'c4']);

    const batches = batchesOnDisk(broker.dataDir, 'py-out');
    const markers = batches.filter((b) => b.marker !== null).map((b) => b.marker);
    expect(markers).toEqual(['COMMIT', 'ABORT', 'COMMIT']);
    for (const b of batches) expect(b.isTransactional).toBe(true);
    const aborted = batches.filter((b) => b.values().includes('a1') || b.values().includes('a2'));
    const abortMarker = batches.find((b) => b.marker === 'ABORT')!;
    // One .txnindex entry: the aborted records through the ABORT marker, with the LSO after it.
    expect(txnIndexEntries('py-out')).toEqual([{
      producerId: abortMarker.producerId, firstOffset: aborted[0].baseOffset, lastOffset: abortMarker.baseOffset, lastStableOffset: abortMarker.baseOffset + 1,
    }]);
  });

  it('consume-transform-produce with send_offsets_to_transaction: the committed round moves the group offset, the aborted one does not', async () => {
    const result = await runScenario('ctp');
    expect(result.rounds).toEqual([{ committed: true, offsets: [0, 1, 2] }, { committed: false, offsets: [3, 4, 5] }]);
    // Read by a second consumer of the group: the offset the committed transaction carried.
    expect(result.committedOffset).toBe(3);
    expect(result.output).toEqual(['IN0', 'IN1', 'IN2']);
    expect(result.outputUncommitted).toEqual(['IN0', 'IN1', 'IN2', 'IN3', 'IN4', 'IN5']);
    // The offsets went through __consumer_offsets in the same transactions: a COMMIT then an ABORT marker there.
    const offsetsMarkers = readdirSync(broker.dataDir)
      .filter((d) => d.startsWith('__consumer_offsets-'))
      .flatMap((d) => batchesOnDisk(broker.dataDir, '__consumer_offsets', Number(d.slice(d.lastIndexOf('-') + 1))))
      .filter((b) => b.marker !== null)
      .map((b) => b.marker);
    expect(offsetsMarkers).toEqual(['COMMIT', 'ABORT']);
    expect(txnIndexEntries('py-ctp-out')).toHaveLength(1);
  });

  it('an aborted transaction that added a partition but wrote nothing there: an ABORT marker and no .txnindex entry (as Kafka)', async () => {
    const init = await client.send(22, 4, { transactionalId: 'py-empty-txn', transactionTimeoutMs: 30000, producerId: -1, producerEpoch: -1 });
    const { producerId, producerEpoch } = init;
    const added = await client.send(24, 3, {
      transactions: [], v3AndBelowTransactionalId: 'py-empty-txn', v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch,
      v3AndBelowTopics: [{ name: 'py-empty', partitions: [0] }],
    });
    expect(added.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(0);
    expect((await client.send(26, 3, { transactionalId: 'py-empty-txn', producerId, producerEpoch, committed: false })).errorCode).toBe(0);
    // ProducerAppendInfo.appendEndTxnMarker emits no CompletedTxn for a transaction without data, so
    // Kafka writes the marker but indexes nothing.
    expect(batchesOnDisk(broker.dataDir, 'py-empty').map((b) => b.marker)).toEqual(['ABORT']);
    expect(txnIndexEntries('py-empty')).toEqual([]);
  });
});
