// A bounded cache of open segment files (.log, .index, .timeindex and any later per-segment file), so
// that open descriptors do not grow with partitions × segments. Segments hold a CachedFile per file
// and read its `fd` when they use it: the file is opened then, and the least recently used unpinned
// files are closed once more than `capacity` are open. Kafka keeps every segment open (and asks for
// a huge RLIMIT_NOFILE); kafkite is meant to run under ordinary limits.
import fs from 'node:fs';
import { errnoCodeOf, TooManyOpenFilesError } from './errors.js';

/** EMFILE/ENFILE (also as the cause of a wrapping error): the process or system ran out of descriptors. Never a disk failure. */
export function isDescriptorExhaustion(err: unknown): boolean {
  const code = errnoCodeOf(err);
  return code === 'EMFILE' || code === 'ENFILE';
}

/** One file a segment may keep open; reopened by its current path whenever the cache closed it. */
export class CachedFile {
  /** -1 while closed. */
  fdOrClosed = -1;
  pins = 0;
  /** close() was called while pinned: the descriptor goes once the last pin is released. */
  closeWhenUnpinned = false;

  constructor(
    private readonly cache: FileHandleCache,
    /** The file's current path (renames update it; an open descriptor survives a rename). */
    public path: string,
    readonly flags: string,
  ) {}

  /** The open descriptor, opening the file if needed. Valid until the next file is opened, unless pinned. */
  get fd(): number {
    return this.cache.use(this);
  }

  get isOpen(): boolean {
    return this.fdOrClosed >= 0;
  }

  /** Keeps the descriptor open (for I/O that outlives the current tick); call the result once done. */
  pin(): () => void {
    this.cache.use(this);
    this.pins++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.pins--;
      if (this.pins === 0) this.cache.unpinned(this);
    };
  }

  /** Closes the descriptor now, or after the last pin is released. A later `fd` opens the file again. */
  close(): void {
    if (this.pins > 0) this.closeWhenUnpinned = true;
    else this.cache.close(this);
  }
}

export class FileHandleCache {
  /** Open files, least recently used first (a Set keeps insertion order; a use re-inserts). */
  private readonly open = new Set<CachedFile>();
  /** The last file in `open`: a fetch uses the same file several times in a row, which needs no reordering. */
  private newest: CachedFile | undefined;
  private capacity_: number;
  /** Files opened and closed by eviction since start (metrics, tests). */
  opens = 0;
  evictions = 0;

  constructor(capacity: number) {
    this.capacity_ = Math.max(MIN_CAPACITY, capacity);
  }

  get capacity(): number {
    return this.capacity_;
  }

  set capacity(n: number) {
    this.capacity_ = Math.max(MIN_CAPACITY, Math.floor(n));
    this.evictDownTo(this.capacity_);
  }

  /** Descriptors open now. */
  get size(): number {
    return this.open.size;
  }

  file(path: string, flags = 'r+'): CachedFile {
    return new CachedFile(this, path, flags);
  }

  use(file: CachedFile): number {
    if (file.fdOrClosed >= 0) {
      if (file !== this.newest) {
        this.open.delete(file);
        this.open.add(file);
        this.newest = file;
      }
      return file.fdOrClosed;
    }
    this.evictDownTo(this.capacity_ - 1);
    let fd: number;
    try {
      fd = fs.openSync(file.path, file.flags);
    } catch (err) {
      if (!isDescriptorExhaustion(err)) throw err;
      // Sockets and short-lived opens share the limit: give back half of ours and try once more.
      this.evictDownTo(Math.floor(this.open.size / 2));
      try {
        fd = fs.openSync(file.path, file.flags);
      } catch (again) {
        if (!isDescriptorExhaustion(again)) throw again;
        throw new TooManyOpenFilesError(`cannot open ${file.path}: ${(again as Error).message}`, { cause: again });
      }
    }
    this.opens++;
    file.fdOrClosed = fd;
    file.closeWhenUnpinned = false;
    this.open.add(file);
    this.newest = file;
    return fd;
  }

  /** The last pin went: a deferred close happens now, and pins that held the cache above capacity give way. */
  unpinned(file: CachedFile): void {
    if (file.closeWhenUnpinned) this.close(file);
    this.evictDownTo(this.capacity_);
  }

  close(file: CachedFile): void {
    if (file.fdOrClosed < 0) return;
    this.open.delete(file);
    if (file === this.newest) this.newest = undefined;
    const fd = file.fdOrClosed;
    file.fdOrClosed = -1;
    file.closeWhenUnpinned = false;
    try {
      fs.closeSync(fd);
    } catch {
      // Nothing to do about a failed close; the descriptor is gone either way.
    }
  }

  private evictDownTo(target: number): void {
    if (this.open.size <= target) return;
    for (const file of this.open) {
      if (this.open.size <= target) return;
      if (file.pins > 0) continue;
      this.close(file);
      this.evictions++;
    }
  }
}

const MIN_CAPACITY = 16;

/**
 * Share of RLIMIT_NOFILE given to segment files; the rest is for sockets, checkpoints and snapshots
 * written on the side, the addon's dup()s and Node itself.
 */
export function segmentFileCapacity(openFileLimit: number): number {
  return Math.max(MIN_CAPACITY, Math.floor(openFileLimit / 2));
}

/** The process's one cache (the descriptor limit is per process). LogManager sizes it from the limit. */
export const segmentFiles = new FileHandleCache(segmentFileCapacity(1024));

/**
 * One descriptor held back (on /dev/null) for cleanup that must not fail for want of one: removing what a
 * creation that ran out of descriptors made. fs.rmSync opens the directory it removes, from Node 24 even
 * an empty one (its C++ std::filesystem::remove_all), so without a spare the rollback fails as the
 * creation did.
 */
class DescriptorReserve {
  private fd = -1;

  /** Takes the spare descriptor if it is not held (a no-op while out of descriptors: taken again after the next spend). */
  hold(): void {
    if (this.fd >= 0) return;
    try {
      this.fd = fs.openSync('/dev/null', 'r');
    } catch {
      this.fd = -1;
    }
  }

  /** Runs `fn` with the spare descriptor free for it to use, then takes it back. */
  spend<T>(fn: () => T): T {
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
    try {
      return fn();
    } finally {
      this.hold();
    }
  }
}

/** The process's one spare descriptor; LogManager holds it. */
export const descriptorReserve = new DescriptorReserve();
