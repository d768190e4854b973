// Shared test helpers: temp dirs, silent logger, batches built with the real codec.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { encodeBatch, type KafkaRecord } from '../../protocol/records/record-batch.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../storage/log-config.js';
import { UnifiedLog } from '../../storage/unified-log.js';

export const silentLogger = pino({ level: 'silent' });

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'kafkite-storage-'));
}

export function config(overrides: Partial<LogConfig> = {}): LogConfig {
  return { ...DEFAULT_LOG_CONFIG, ...overrides };
}

/** A client batch (base offset 0) of `count` records with `valueSize`-byte values. */
export function batch(
  count: number,
  opts: { timestamp?: number; valueSize?: number; key?: (i: number) => Buffer | null; value?: (i: number) => Buffer | null; producerId?: number; producerEpoch?: number; baseSequence?: number; isTransactional?: boolean } = {},
): Buffer {
  const records: KafkaRecord[] = [];
  for (let i = 0; i < count; i++) {
    records.push({
      offset: i,
      timestamp: (opts.timestamp ?? 1_700_000_000_000) + i,
      key: opts.key ? opts.key(i) : null,
      value: opts.value ? opts.value(i) : Buffer.alloc(opts.valueSize ?? 10, i & 0xff),
      headers: [],
    });
  }
  return encodeBatch({ baseOffset: 0, records, producerId: opts.producerId, producerEpoch: opts.producerEpoch, baseSequence: opts.baseSequence, isTransactional: opts.isTransactional });
}

export function openLog(dir: string, cfg: LogConfig, state: Partial<{ recoveryPoint: number; logStartOffset: number; hadCleanShutdown: boolean }> = {}, logger = silentLogger): UnifiedLog {
  return UnifiedLog.load({
    dir: path.join(dir, 'topic-0'),
    topic: 'topic',
    partition: 0,
    topicId: '00112233445566778899aabbccddeeff',
    config: cfg,
    logger,
    recoveryPoint: state.recoveryPoint ?? 0,
    logStartOffset: state.logStartOffset ?? 0,
    hadCleanShutdown: state.hadCleanShutdown ?? false,
  });
}

/** Reads what a FileSlice points at (tests only: fetch never copies). */
export function readSlice(slice: { fd: number; position: number; length: number }): Buffer {
  const buf = Buffer.alloc(slice.length);
  fs.readSync(slice.fd, buf, 0, slice.length, slice.position);
  return buf;
}
