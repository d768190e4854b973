// Responses that become ready together (the acks=all produce requests one commit round releases) leave
// in one socket write, not one write each: counted on the broker process's own write syscalls
// (/proc/<pid>/io syscw), with a raw pipelining client.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiKey } from '../../protocol/generated/index.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { BenchConnection } from '../../bench/lib/wire.js';
import { createTopic } from '../../bench/loadgen.js';
import { brokerForFile } from '../helpers/broker-process.js';

const REQUESTS = 40;

function writeSyscalls(pid: number): number {
  return Number(/^syscw: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
}

/** The write count once the broker has been quiet for a while: the topic's creation (its metadata records, log lines) is over. */
async function quietWriteSyscalls(pid: number): Promise<number> {
  let last = writeSyscalls(pid);
  for (let quietSince = Date.now(), start = Date.now(); Date.now() - quietSince < 300 && Date.now() - start < 10_000;) {
    await new Promise((r) => setTimeout(r, 50));
    const now = writeSyscalls(pid);
    if (now !== last) [last, quietSince] = [now, Date.now()];
  }
  return last;
}

describe('response coalescing', () => {
  const brokerProcess = brokerForFile();

  it('sends the pipelined acks=all answers a commit round releases in a few writes, in request order', async () => {
    const broker = brokerProcess();
    const topic = 'coalesce';
    await createTopic(broker.bootstrap, topic, 1);
    const connection = await BenchConnection.open(broker.bootstrap);
    try {
      const pid = broker.child.pid!;
      const before = await quietWriteSyscalls(pid);
      const replies = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => connection.send(ApiKey.Produce, 9, {
        transactionalId: null, acks: -1, timeoutMs: 30_000,
        topicData: [{ name: topic, partitionData: [{ index: 0, records: encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: Date.now(), key: null, value: Buffer.from(`v${i}`), headers: [] }] }) }] }],
      })));
      const writes = writeSyscalls(pid) - before;
      // Each request's append is one write to the .log; the answers, REQUESTS more writes if each went out alone.
      // Measured 43-47 on an idle machine; under CI's load the commit rounds are more and smaller, and the
      // broker's own background writes (coordinators, metadata log) land in the same counter: half the answers'
      // worth of writes is the margin, still far from one write per answer.
      expect(writes).toBeGreaterThanOrEqual(REQUESTS);
      expect(writes).toBeLessThan(REQUESTS + REQUESTS / 2);
      // Offsets in the order the requests were sent: the answers were matched to their requests.
      expect(replies.map((r) => r.response.responses[0].partitionResponses[0].baseOffset)).toEqual(Array.from({ length: REQUESTS }, (_, i) => i));
    } finally {
      connection.close();
    }
  });
});
