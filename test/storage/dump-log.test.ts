import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { dumpLog } from '../../storage/tools/dump-log.js';
import { batch, config, openLog, tempDir } from './helpers.js';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function lines(opts: Parameters<typeof dumpLog>[0]): Promise<string[]> {
  const out: string[] = [];
  for await (const line of dumpLog(opts)) out.push(line);
  return out;
}

describe('dumpLog', () => {
  it('prints log, index and time index like kafka-dump-log.sh', async () => {
    dir = tempDir();
    const log = openLog(dir, config({ indexIntervalBytes: 50 }));
    log.appendAsLeader(batch(2, { timestamp: 1000, key: (i) => Buffer.from(`k${i}`), value: (i) => Buffer.from(`v${i}`) }), 0);
    log.appendAsLeader(batch(1, { timestamp: 2000, producerId: 9, producerEpoch: 0, baseSequence: 0 }), 0);
    const sizes = log.segments.activeSegment.size;
    await log.close();
    const base = path.join(dir, 'topic-0', '00000000000000000000');

    const logLines = await lines({ files: [`${base}.log`], printDataLog: true, deepIteration: false, indexSanityCheck: false });
    expect(logLines[0]).toBe(`Dumping ${base}.log`);
    expect(logLines[1]).toBe('Log starting offset: 0');
    expect(logLines[2]).toMatch(
      /^baseOffset: 0 lastOffset: 1 count: 2 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1001 size: (\d+) magic: 2 compresscodec: none crc: \d+ isvalid: true$/,
    );
    expect(logLines[3]).toBe('| offset: 0 CreateTime: 1000 keySize: 2 valueSize: 2 sequence: -1 headerKeys: [] key: k0 payload: v0');
    expect(logLines[4]).toBe('| offset: 1 CreateTime: 1001 keySize: 2 valueSize: 2 sequence: -1 headerKeys: [] key: k1 payload: v1');
    const firstSize = Number(/size: (\d+)/.exec(logLines[2])![1]);
    expect(logLines[5]).toContain(`baseOffset: 2 lastOffset: 2 count: 1 baseSequence: 0 lastSequence: 0 producerId: 9 producerEpoch: 0`);
    expect(logLines[5]).toContain(`position: ${firstSize} CreateTime: 2000 size: ${sizes - firstSize}`);
    expect(logLines[6]).toBe('| offset: 2 CreateTime: 2000 keySize: -1 valueSize: 10 sequence: 0 headerKeys: [] payload: ' + '\u0000'.repeat(10));
    expect(logLines).toHaveLength(7);

    const shallow = await lines({ files: [`${base}.log`], printDataLog: false, deepIteration: false, indexSanityCheck: false });
    expect(shallow).toHaveLength(4);

    expect(await lines({ files: [`${base}.index`], printDataLog: false, deepIteration: false, indexSanityCheck: false })).toEqual([
      `Dumping ${base}.index`,
      `offset: 2 position: ${firstSize}`,
    ]);
    expect(await lines({ files: [`${base}.timeindex`], printDataLog: false, deepIteration: false, indexSanityCheck: false })).toEqual([
      `Dumping ${base}.timeindex`,
      'timestamp: 2000 offset: 2',
    ]);
    expect(await lines({ files: [`${base}.index`], printDataLog: false, deepIteration: false, indexSanityCheck: true })).toEqual([
      `Dumping ${base}.index`,
      `${base}.index passed sanity check.`,
    ]);
  });

  it('prints producer snapshots', async () => {
    dir = tempDir();
    const log = openLog(dir, config());
    log.appendAsLeader(batch(2, { timestamp: 50, producerId: 4, producerEpoch: 2, baseSequence: 0 }), 0);
    await log.close();
    const file = path.join(dir, 'topic-0', '00000000000000000002.snapshot');
    expect(await lines({ files: [file], printDataLog: false, deepIteration: false, indexSanityCheck: false })).toEqual([
      `Dumping ${file}`,
      'producerId: 4 producerEpoch: 2 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty lastTimestamp: 51 firstSequence: 0 lastSequence: 1 lastOffset: 1 offsetDelta: 1 timestamp: 51',
    ]);
  });

  it('reports invalid trailing bytes and empty indexes', async () => {
    dir = tempDir();
    const log = openLog(dir, config());
    log.appendAsLeader(batch(1), 0);
    await log.close();
    const base = path.join(dir, 'topic-0', '00000000000000000000');
    fs.appendFileSync(`${base}.log`, Buffer.alloc(30));
    const out = await lines({ files: [`${base}.log`, `${base}.index`], printDataLog: false, deepIteration: false, indexSanityCheck: false });
    expect(out[3]).toBe('Found 30 invalid bytes at the end of 00000000000000000000.log');
    expect(out.slice(4)).toEqual([`Dumping ${base}.index`, `${base}.index is empty.`]);
  });

  it('prints transactional flags, end-transaction markers and .txnindex entries', async () => {
    dir = tempDir();
    const log = openLog(dir, config());
    const txn = (producerId: number) =>
      encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: 10, key: null, value: Buffer.from('x'), headers: [] }], producerId, producerEpoch: 1, baseSequence: 0, isTransactional: true });
    log.appendAsLeader(txn(5), 0); // 0
    log.appendAsLeader(txn(6), 0); // 1
    log.appendTransactionMarker(5n, 1, 7, true, 20); // 2
    log.appendTransactionMarker(6n, 1, 7, false, 30); // 3
    await log.close();
    const base = path.join(dir, 'topic-0', '00000000000000000000');
    const out = await lines({ files: [`${base}.log`, `${base}.txnindex`], printDataLog: false, deepIteration: true, indexSanityCheck: false });
    expect(out[2]).toContain('producerId: 5 producerEpoch: 1 partitionLeaderEpoch: 0 isTransactional: true isControl: false');
    expect(out[6]).toContain('baseOffset: 2 lastOffset: 2 count: 1 baseSequence: -1 lastSequence: -1 producerId: 5 producerEpoch: 1 partitionLeaderEpoch: 0 isTransactional: true isControl: true');
    expect(out[7]).toBe('| offset: 2 CreateTime: 20 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 7');
    expect(out[9]).toBe('| offset: 3 CreateTime: 30 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: ABORT coordinatorEpoch: 7');
    expect(out.slice(10)).toEqual([`Dumping ${base}.txnindex`, 'version: 0 producerId: 6 firstOffset: 1 lastOffset: 3 lastStableOffset: 4']);
  });
});
