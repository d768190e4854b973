// A Fetch served end to end by the real broker process: librdkafka (kcat) consumes what it produced,
// with zero-copy on and off.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startBroker } from '../helpers/broker-process.js';
import { kcat } from '../helpers/kcat.js';
import { loadSendfileAddon } from '../../src/network/sendfile-sender.js';

const MESSAGES = 3000;
// Hex so kcat's line-delimited input and output round-trip; 3000 × 4 KB = 12 MB of record data.
const payload = Array.from({ length: MESSAGES }, (_, i) => `${String(i).padStart(6, '0')}-${randomBytes(2045).toString('hex')}`);

describe.each([
  { zeroCopy: true, sender: loadSendfileAddon() ? 'zero-copy sendfile' : 'copying fallback' },
  { zeroCopy: false, sender: 'copying fallback' },
])('fetch with kafkite.zero.copy.enable=$zeroCopy', ({ zeroCopy, sender }) => {
  it(`serves produced records back byte for byte (${sender})`, async () => {
    const broker = await startBroker({ overrides: [`kafkite.zero.copy.enable=${zeroCopy}`] });
    try {
      expect(broker.logs.filter((l) => l.responseSender)).toEqual([expect.objectContaining({ responseSender: sender })]);
      const produced = await kcat(['-b', broker.bootstrap, '-t', 'zc', '-P', '-z', 'none'], payload.join('\n') + '\n');
      expect(produced.code, produced.stderr).toBe(0);
      const consumed = await kcat(['-b', broker.bootstrap, '-t', 'zc', '-C', '-o', 'beginning', '-e', '-q', '-X', 'fetch.max.bytes=4194304']);
      expect(consumed.code, consumed.stderr).toBe(0);
      expect(consumed.stdout.split('\n').filter(Boolean)).toEqual(payload);
    } finally {
      await broker.stop();
      broker.cleanup();
    }
  });
});
