// This machine is a Firecracker VM whose guest kernel hands free memory back to the host (virtio-balloon
// free page reporting, a few seconds after the memory is freed). The first write to such a page costs a
// fault on the host: `dd` of 1 GB into a new file took 2.6 s of system time after 20 s idle, and 0.2 s
// right after a file of the same size was deleted. A broker writes every produced byte into new page-cache
// pages, so it pays that price per byte; librdkafka's mock keeps a bounded in-memory log (its RSS grew 18 MB
// per 400 MB produced) and does not. The fault lands in whatever the guest was running: system time for a
// page-cache write, user time for a Buffer first filled in JS. Benches whose figures compare runs recycle
// memory before each measured run (produce-vs-mock, fetch-cpu, the security bench's produce runs).
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const CHUNK = Buffer.alloc(1 << 20, 0x77);

/** Writes a file of `bytes` in `dir` and deletes it, so that the page allocations of the next seconds reuse memory the guest still holds. */
export function recycleGuestMemory(dir: string, bytes: number): void {
  const path = join(dir, `recycled-memory-${process.pid}.bin`);
  const fd = openSync(path, 'w');
  try {
    for (let written = 0; written < bytes; ) written += writeSync(fd, CHUNK);
  } finally {
    closeSync(fd);
    rmSync(path);
  }
}
