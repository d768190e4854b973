// Fetch-style streaming of a page-cached segment file to a loopback socket: zero-copy sendfile vs the
// copying fallback. Throughput and this process's CPU seconds per GB (libuv pool threads included;
// the reader runs in a child process so its CPU is not counted).
//
//   npx tsc -p . && node dist/bench/sendfile.js
//
// Each Fetch response carries BENCH_PARTITIONS partitions (default 8), each a small in-memory
// partition header followed by BENCH_SLICE_KB of record data (default 256) sent from the file.
// BENCH_GB: total streamed per sender (default 1); BENCH_FILE_MB: segment size (default 256,
// streamed repeatedly).
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileSlice } from '../protocol/primitives.js';
import { CopyingResponseSender, type ResponseSender } from '../src/network/response-sender.js';
import { SendfileResponseSender, loadSendfileAddon } from '../src/network/sendfile-sender.js';

const GB = 1024 ** 3;
const totalBytes = Math.round(Number(process.env.BENCH_GB ?? 1) * GB);
const fileBytes = Number(process.env.BENCH_FILE_MB ?? 256) * 1024 * 1024;
const sliceBytes = Number(process.env.BENCH_SLICE_KB ?? 256) * 1024;
const partitions = Number(process.env.BENCH_PARTITIONS ?? 8);
const PARTITION_HEADER_BYTES = 60; // partition fields preceding its records in a Fetch response

// Reads and discards `total` bytes into one reused 4 MiB buffer (so the reader is not the bottleneck), then closes.
const READER = `
let left = Number(process.argv[2]);
const socket = require('node:net').connect({
  port: Number(process.argv[1]),
  host: '127.0.0.1',
  onread: { buffer: Buffer.alloc(4 << 20), callback: (n) => { left -= n; if (left <= 0) socket.end(); } },
});
`;

interface Result {
  sender: string;
  gb: number;
  seconds: number;
  gbPerSecond: number;
  cpuSecondsPerGb: number;
}

function createSegment(dir: string): number {
  const path = join(dir, '00000000000000000000.log');
  const fd = openSync(path, 'w+');
  const block = Buffer.alloc(8 * 1024 * 1024, 0x61);
  for (let written = 0; written < fileBytes; written += block.length) writeSync(fd, block, 0, Math.min(block.length, fileBytes - written));
  return fd;
}

async function accept(expectedBytes: number): Promise<{ socket: Socket; readerDone: Promise<void>; close(): void }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const port = (server.address() as { port: number }).port;
  const reader = spawn(process.execPath, ['-e', READER, String(port), String(expectedBytes)], { stdio: 'inherit' });
  const socket = await accepted;
  socket.setNoDelay(true);
  const readerDone = new Promise<void>((resolve) => reader.once('exit', () => resolve()));
  return { socket, readerDone, close: () => server.close() };
}

async function run(name: string, sender: ResponseSender, fd: number): Promise<Result> {
  const responseBytes = partitions * (PARTITION_HEADER_BYTES + sliceBytes);
  const responses = Math.ceil(totalBytes / responseBytes);
  const header = Buffer.alloc(PARTITION_HEADER_BYTES, 0x68);
  const expectedBytes = responses * responseBytes;
  const { socket, readerDone, close } = await accept(expectedBytes);
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  let position = 0;
  for (let i = 0; i < responses; i++) {
    const chunks: Array<Buffer | FileSlice> = [];
    for (let p = 0; p < partitions; p++) {
      if (position + sliceBytes > fileBytes) position = 0;
      chunks.push(header, { fd, position, length: sliceBytes });
      position += sliceBytes;
    }
    await sender.send(socket, chunks);
  }
  await readerDone;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  socket.destroy();
  close();
  const gb = expectedBytes / GB;
  return { sender: name, gb, seconds, gbPerSecond: gb / seconds, cpuSecondsPerGb: (cpu.user + cpu.system) / 1e6 / gb };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kafkite-bench-sendfile-'));
  const fd = createSegment(dir);
  try {
    const senders: Array<[string, ResponseSender]> = [['copying', new CopyingResponseSender()]];
    const addon = loadSendfileAddon();
    if (addon) senders.push(['sendfile', new SendfileResponseSender(addon)]);
    else console.log('sendfile addon not built (npm run install): measuring the copying fallback only');
    const results: Result[] = [];
    for (const [name, sender] of senders) results.push(await run(name, sender, fd));
    console.log(`${partitions} partitions × ${sliceBytes / 1024} KiB per response, segment ${fileBytes / 1024 / 1024} MiB (page-cached)`);
    console.log('sender     GB      s   GB/s  CPU-s/GB');
    for (const r of results) {
      console.log(
        `${r.sender.padEnd(8)} ${r.gb.toFixed(2).padStart(4)} ${r.seconds.toFixed(2).padStart(6)} ${r.gbPerSecond.toFixed(2).padStart(6)} ${r.cpuSecondsPerGb.toFixed(3).padStart(9)}`,
      );
    }
    console.log(JSON.stringify({ bench: 'sendfile', partitions, sliceBytes, fileBytes, results }));
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
