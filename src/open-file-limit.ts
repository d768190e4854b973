// RLIMIT_NOFILE at start-up: the soft limit is raised to the hard limit through the native addon (Node
// has no setrlimit), then read back; the segment-file cache is sized from it. Without the addon the
// limit stays as it is and is read from /proc/self/limits.
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { loadSendfileAddon } from './network/sendfile-sender.js';

export interface OpenFileLimit {
  /** The soft limit in force (what EMFILE is about). */
  soft: number;
  hard: number;
}

/** Used when the limit cannot be read at all (not Linux): Linux's usual default soft limit. */
const UNKNOWN_LIMIT = 1024;
/** "unlimited" (RLIM_INFINITY) as a count: far more than any cache needs. */
const UNLIMITED = 1 << 20;

function fromProc(): OpenFileLimit | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const [soft, hard] = (line?.slice('Max open files'.length).trim().split(/\s+/) ?? []).map((v) => (v === 'unlimited' ? UNLIMITED : Number(v)));
    return Number.isFinite(soft) && Number.isFinite(hard) ? { soft: soft!, hard: hard! } : null;
  } catch {
    return null;
  }
}

export function raiseOpenFileLimit(log: Logger): OpenFileLimit {
  const before = fromProc();
  const raise = loadSendfileAddon()?.raiseOpenFileLimit;
  let limit = before;
  if (raise) {
    const r = raise();
    if (r.error) log.warn({ error: r.error }, 'cannot raise the open file limit (RLIMIT_NOFILE)');
    else limit = { soft: r.soft < 0 ? UNLIMITED : r.soft, hard: r.hard < 0 ? UNLIMITED : r.hard };
  }
  limit ??= { soft: UNKNOWN_LIMIT, hard: UNKNOWN_LIMIT };
  log.info(
    { openFileLimit: limit.soft, hardLimit: limit.hard, before: before?.soft ?? null, raisedBy: raise ? 'native addon' : null },
    'open file limit (RLIMIT_NOFILE)',
  );
  return limit;
}
