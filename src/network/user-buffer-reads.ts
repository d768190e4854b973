// Socket reads into buffers we choose, instead of a fresh 64 KB buffer per read. Node's default read
// path allocates a new buffer for every read: the kernel then copies into pages it must first fault in
// and zero, and the garbage collector frees them again; a 1 MB Produce frame costs 16 such buffers plus
// the copy that joins them. With our own buffers a large frame is read straight into its (reused) frame
// buffer, and everything else into one scratch buffer that stays mapped.
//
// Node offers this as net.Socket's `onread` option, but only for sockets it creates for a client, not
// for the ones a server accepts (nodejs/node#25436). The option sets three internal symbols and calls
// the handle's useUserBuffer(); this module does the same on an accepted socket, and reports false
// (the caller keeps 'data' events) where this Node does not have them.
import type { Socket } from 'node:net';

export interface UserBufferReader {
  /** The buffer the next read goes into (called after each read). */
  next(): Buffer;
  /** `bytes` were read into `buffer` (the one next() returned last). */
  onRead(bytes: number, buffer: Buffer): void;
}

interface UserBufferHandle {
  useUserBuffer(buffer: Uint8Array): void;
}

function symbolOf(socket: Socket, description: string): symbol | undefined {
  return Object.getOwnPropertySymbols(socket).find((s) => s.description === description);
}

/**
 * Switches a plain TCP socket to reads into `reader`'s buffers. Call before the socket's first read is
 * delivered, with the socket paused and nothing buffered (see takeBuffered). False: not possible here.
 */
export function installUserBufferReads(socket: Socket, reader: UserBufferReader): boolean {
  const handle = (socket as unknown as { _handle?: Partial<UserBufferHandle> | null })._handle;
  const kBuffer = symbolOf(socket, 'kBuffer');
  const kBufferCb = symbolOf(socket, 'kBufferCb');
  const kBufferGen = symbolOf(socket, 'kBufferGen');
  if (!handle || typeof handle.useUserBuffer !== 'function' || !kBuffer || !kBufferCb || !kBufferGen) return false;
  const first = reader.next();
  const target = socket as unknown as Record<symbol, unknown>;
  target[kBufferGen] = () => reader.next();
  target[kBufferCb] = (bytes: number, buffer: Buffer) => reader.onRead(bytes, buffer);
  target[kBuffer] = first;
  handle.useUserBuffer(first);
  return true;
}

/** Data a paused socket has already read into its stream buffer (it must be processed first). */
export function takeBuffered(socket: Socket): Buffer[] {
  const chunks: Buffer[] = [];
  for (let chunk = socket.read() as Buffer | null; chunk !== null; chunk = socket.read() as Buffer | null) chunks.push(chunk);
  return chunks;
}
