// Disk faults on demand, for tests of what a full or failing disk does to the broker.
// KAFKITE_FAULT_INJECTION=<path-prefix>:<ERRNO>[:<bytes>] makes log appends under the prefix fail with
// ERRNO (ENOSPC, EIO, ...) once <bytes> bytes (default 0) have been appended there: the write that
// crosses the limit is cut short first, as a filling disk does. Read once at start-up; unset, it costs nothing.
import fs from 'node:fs';
import os from 'node:os';

interface Fault {
  prefix: string;
  code: string;
  bytesLeft: number;
}

export class FaultInjectionConfigError extends Error {
  override name = 'FaultInjectionConfigError';
}

export function parseFault(spec: string | undefined): Fault | null {
  if (!spec) return null;
  // The prefix may itself contain ':' (unlikely on Linux); the errno and byte count are the last fields.
  const match = /^(.+?):(E[A-Z]+)(?::(\d+))?$/.exec(spec);
  if (!match) throw new FaultInjectionConfigError(`KAFKITE_FAULT_INJECTION must be <path-prefix>:<ERRNO>[:<bytes>], got ${spec}`);
  const [, prefix, code, bytes] = match;
  if ((os.constants.errno as Record<string, number>)[code!] === undefined) throw new FaultInjectionConfigError(`unknown errno ${code}`);
  return { prefix: prefix!, code: code!, bytesLeft: Number(bytes ?? 0) };
}

const fault = parseFault(process.env.KAFKITE_FAULT_INJECTION);

function injectedError(code: string, file: string): NodeJS.ErrnoException {
  const errno = (os.constants.errno as Record<string, number>)[code]!;
  const err: NodeJS.ErrnoException = new Error(`${code}: injected fault, write '${file}'`);
  err.code = code;
  err.errno = -errno;
  err.syscall = 'write';
  err.path = file;
  return err;
}

/** fs.writeSync of a log append, with the configured fault applied to files under its prefix. */
export function writeLogSync(file: string, fd: number, buffer: Buffer, offset: number, length: number, position: number): number {
  if (fault === null || !file.startsWith(fault.prefix)) return fs.writeSync(fd, buffer, offset, length, position);
  if (fault.bytesLeft === 0) throw injectedError(fault.code, file);
  const allowed = Math.min(length, fault.bytesLeft);
  const written = fs.writeSync(fd, buffer, offset, allowed, position);
  fault.bytesLeft -= written;
  return written;
}
