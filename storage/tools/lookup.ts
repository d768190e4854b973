// `kafkite lookup`: runs the read path (LogSegments.read / offsetForTimestamp, the code Fetch and ListOffsets
// use) over a partition directory opened read-only, with a LookupTrace, so it works on a stopped data dir.
import fs from 'node:fs';
import path from 'node:path';
import { OffsetCheckpointFile } from '../checkpoint-file.js';
import { LOG_START_OFFSET_CHECKPOINT_FILE, offsetFromFileName } from '../log-file-names.js';
import { LogSegment } from '../log-segment.js';
import { LogSegments } from '../log-segments.js';
import { LookupTrace, type LookupStep } from '../lookup-trace.js';

/** Kafka's max.partition.fetch.bytes default: what one partition of a consumer's Fetch asks for. */
export const DEFAULT_LOOKUP_MAX_BYTES = 1048576;

export type LookupTarget = { offset: number } | { timestamp: number };

export interface LookupResult {
  logStartOffset: number;
  logEndOffset: number;
  target: LookupTarget;
  maxBytes: number;
  /** The offset the lookup resolved to (the timestamp's first record), or null when nothing is there. */
  offset: number | null;
  range: { file: string; position: number; length: number } | null;
  bytesScanned: number;
  steps: LookupStep[];
}

export class LookupError extends Error {
  override readonly name = 'LookupError';
}

/** The trace of one lookup on an open log; `read`/`byTimestamp` are the log's own read path. */
export function traceLookup(
  target: LookupTarget,
  maxBytes: number,
  log: {
    logStartOffset: number;
    logEndOffset: number;
    read(offset: number, maxBytes: number, minOneBatch: boolean, trace: LookupTrace): unknown;
    byTimestamp(timestamp: number, trace: LookupTrace): { offset: number } | null;
  },
): LookupResult {
  const trace = new LookupTrace();
  let offset: number | null;
  if ('offset' in target) {
    if (target.offset < log.logStartOffset || target.offset > log.logEndOffset) {
      throw new LookupError(`offset ${target.offset} is out of range [${log.logStartOffset}, ${log.logEndOffset}]`);
    }
    offset = target.offset;
  } else {
    offset = log.byTimestamp(target.timestamp, trace)?.offset ?? null;
  }
  if (offset !== null && offset < log.logEndOffset) log.read(offset, maxBytes, true, trace);
  const range = trace.range;
  return {
    logStartOffset: log.logStartOffset,
    logEndOffset: log.logEndOffset,
    target,
    maxBytes,
    offset,
    range: range ? { file: range.file, position: range.position, length: range.length } : null,
    bytesScanned: trace.bytesScanned,
    steps: trace.steps,
  };
}

/** Opens the segments of a (possibly stopped) partition directory without recovery and traces one lookup. */
export function lookupInDir(dir: string, target: LookupTarget, maxBytes = DEFAULT_LOOKUP_MAX_BYTES): LookupResult {
  const segments = new LogSegments();
  // Never appends: the interval only matters for the tail check that decides whether to rebuild an index.
  const config = { indexIntervalBytes: Number.MAX_SAFE_INTEGER, maxIndexSize: Number.MAX_SAFE_INTEGER, rollJitterMs: 0 };
  for (const f of fs.readdirSync(dir)) {
    if (/^\d{20}\.log$/.test(f)) segments.add(LogSegment.open(dir, offsetFromFileName(f), config));
  }
  if (segments.isEmpty) throw new LookupError(`${dir} holds no .log segments`);
  try {
    const logEndOffset = segments.activeSegment.readNextOffset().nextOffset;
    const checkpointed = readLogStartOffset(dir);
    const logStartOffset = Math.min(Math.max(checkpointed ?? 0, segments.firstSegment!.baseOffset), logEndOffset);
    return traceLookup(target, maxBytes, {
      logStartOffset,
      logEndOffset,
      read: (offset, max, minOneBatch, trace) => segments.read(offset, logEndOffset, logEndOffset, max, minOneBatch, trace),
      byTimestamp: (timestamp, trace) => segments.offsetForTimestamp(timestamp, logStartOffset, trace),
    });
  } finally {
    for (const s of segments.values()) s.close();
  }
}

/** The partition's entry in its log dir's log-start-offset-checkpoint, if there is one. */
function readLogStartOffset(dir: string): number | undefined {
  const file = path.join(path.dirname(path.resolve(dir)), LOG_START_OFFSET_CHECKPOINT_FILE);
  if (!fs.existsSync(file)) return undefined;
  try {
    return new OffsetCheckpointFile(file).read().get(path.basename(path.resolve(dir)));
  } catch {
    return undefined;
  }
}
