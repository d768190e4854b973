// The native storage addon (native/storage.cc): syncfs(2), which Node does not bind. Optional: without it
// (not built, not Linux, a kernel before 5.8) flushes fall back to an fdatasync per file.
import { createRequire } from 'node:module';
import os from 'node:os';

export interface StorageAddon {
  /** syncfs(2) of the filesystem holding `fd`, on the libuv pool. Errors carry `code` (EIO, EBADF…) and `syscall`. */
  syncfs(fd: number, callback: (err: NodeJS.ErrnoException | null) => void): void;
  /** Opens `path`, syncfs(2) of its filesystem, closes; throws like fs.*Sync. Blocks the calling thread. */
  syncfsSync(path: string): void;
}

// Relative to this module: storage/ when run from source, dist/storage/ when compiled.
const ADDON_PATHS = ['../build/Release/kafkite_storage.node', '../../build/Release/kafkite_storage.node'];

export type StorageAddonProbe = { addon: StorageAddon } | { addon: null; reason: string };

/**
 * Before Linux 5.8 syncfs(2) returned 0 even when writing back failed (the superblock's errseq came in
 * 5.8), so an I/O error would be acknowledged as durable: such kernels keep per-file fdatasync.
 */
function kernelReportsSyncfsErrors(release: string): boolean {
  const match = /^(\d+)\.(\d+)/.exec(release);
  if (!match) return false;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 5 || (major === 5 && minor >= 8);
}

let probed: StorageAddonProbe | null = null;

/** Loads the addon once; says why not when it cannot be used. */
export function probeStorageAddon(): StorageAddonProbe {
  probed ??= probe();
  return probed;
}

function probe(): StorageAddonProbe {
  if (process.platform !== 'linux') return { addon: null, reason: `syncfs(2) is Linux-only (platform ${process.platform})` };
  if (!kernelReportsSyncfsErrors(os.release())) return { addon: null, reason: `kernel ${os.release()} does not report syncfs(2) errors (5.8 or later needed)` };
  const require = createRequire(import.meta.url);
  const failures: string[] = [];
  for (const file of ADDON_PATHS) {
    try {
      return { addon: require(file) as StorageAddon };
    } catch (err) {
      failures.push((err as Error).message.split('\n')[0]!);
    }
  }
  return { addon: null, reason: `native addon not built (npm run install): ${failures.join('; ')}` };
}
