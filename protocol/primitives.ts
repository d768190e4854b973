// Kafka wire primitives (see kafka-docs/protocol.html, "Protocol Primitive Types").
// Every length read from the wire is checked against the bytes remaining before anything is allocated,
// so a hostile length prefix can never make us allocate more than the frame we already hold.

/** A byte range of a segment file, sent to the socket by the network layer (sendfile or read+write). */
export interface FileSlice {
  /** Read it right before each use: storage may close idle files and reopen them on demand. */
  readonly fd: number;
  readonly position: number;
  readonly length: number;
  /** Keeps `fd` open until the returned function is called, for reads that span event-loop turns. */
  pin?(): () => void;
}

/** A `records` field value: bytes in memory, a file range, or a list of both (one partition's batches). */
export type Records = Buffer | FileSlice | ReadonlyArray<Buffer | FileSlice>;

/** Reads a big-endian int64 as a number (exact within ±2^53). */
export function readInt64(buf: Buffer, pos: number): number {
  return buf.readInt32BE(pos) * 4294967296 + buf.readUInt32BE(pos + 4);
}

/** Writes a number as a big-endian int64; values beyond ±2^63 are clamped. */
export function writeInt64(buf: Buffer, v: number, pos: number): void {
  if (Number.isSafeInteger(v)) {
    const hi = Math.floor(v / 4294967296);
    buf.writeInt32BE(hi, pos);
    buf.writeUInt32BE(v - hi * 4294967296, pos + 4);
  } else {
    const big = v >= 2 ** 63 ? 2n ** 63n - 1n : v <= -(2 ** 63) ? -(2n ** 63n) : BigInt(Math.trunc(v));
    buf.writeBigInt64BE(big, pos);
  }
}

export class DecodeError extends Error {
  override name = 'DecodeError';
}

/** A message that cannot be encoded in the requested version (e.g. null where that version has no null). */
export class EncodeError extends Error {
  override name = 'EncodeError';
}

export class Reader {
  offset: number;
  constructor(readonly buf: Buffer, offset = 0, readonly end = buf.length) {
    this.offset = offset;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  private need(n: number): void {
    if (n < 0 || this.offset + n > this.end) {
      throw new DecodeError(`need ${n} bytes at offset ${this.offset}, have ${this.end - this.offset}`);
    }
  }

  int8(): number { this.need(1); return this.buf.readInt8(this.offset++); }
  bool(): boolean { return this.int8() !== 0; }
  int16(): number { this.need(2); const v = this.buf.readInt16BE(this.offset); this.offset += 2; return v; }
  uint16(): number { this.need(2); const v = this.buf.readUInt16BE(this.offset); this.offset += 2; return v; }
  int32(): number { this.need(4); const v = this.buf.readInt32BE(this.offset); this.offset += 4; return v; }
  uint32(): number { this.need(4); const v = this.buf.readUInt32BE(this.offset); this.offset += 4; return v; }
  /** int64 as a JS number: exact within ±2^53, which covers every offset, timestamp and id we hand out. */
  int64(): number { this.need(8); const v = readInt64(this.buf, this.offset); this.offset += 8; return v; }
  float64(): number { this.need(8); const v = this.buf.readDoubleBE(this.offset); this.offset += 8; return v; }

  uvarint(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.buf[this.offset++];
      if (b === undefined || this.offset > this.end) throw new DecodeError('truncated varint');
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) {
        if (value > 0xffffffff) throw new DecodeError('varint overflow');
        return value;
      }
    }
    throw new DecodeError('varint too long');
  }

  varint(): number {
    const v = this.uvarint();
    return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
  }

  /** Zig-zag varlong as a number (record timestamps and offsets; exact within ±2^53). */
  varlong(): number {
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      const b = this.buf[this.offset++];
      if (b === undefined || this.offset > this.end) throw new DecodeError('truncated varlong');
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    }
    throw new DecodeError('varlong too long');
  }

  uuid(): string {
    this.need(16);
    const hex = this.buf.toString('hex', this.offset, this.offset + 16);
    this.offset += 16;
    return hex;
  }

  /** Raw bytes without copying (a view into the request buffer). */
  raw(n: number): Buffer {
    this.need(n);
    const v = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }

  private lengthOf(compact: boolean, nullable: boolean, what: string): number {
    const n = compact ? this.uvarint() - 1 : what === 'string' ? this.int16() : this.int32();
    if (n < -1 || (n === -1 && !nullable)) throw new DecodeError(`invalid ${what} length ${n}`);
    return n;
  }

  string(compact: boolean): string {
    return this.nullableString(compact, false) as string;
  }

  nullableString(compact: boolean, nullable = true): string | null {
    const n = this.lengthOf(compact, nullable, 'string');
    if (n < 0) return null;
    this.need(n);
    const v = this.buf.toString('utf8', this.offset, this.offset + n);
    this.offset += n;
    return v;
  }

  bytes(compact: boolean): Buffer {
    return this.nullableBytes(compact, false) as Buffer;
  }

  nullableBytes(compact: boolean, nullable = true): Buffer | null {
    const n = this.lengthOf(compact, nullable, 'bytes');
    return n < 0 ? null : this.raw(n);
  }

  /**
   * Array length; -1 means null. Each element takes at least one byte, so a count larger than
   * the bytes remaining is rejected before any array is allocated.
   */
  arrayLength(compact: boolean, nullable: boolean): number {
    const n = this.lengthOf(compact, nullable, 'array');
    if (n > this.remaining) throw new DecodeError(`array of ${n} elements with ${this.remaining} bytes left`);
    return n;
  }

  /** Skips all tagged fields; returns them untouched for fields this version does not know. */
  skipTaggedFields(): void {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint();
      this.raw(this.uvarint());
    }
  }
}

const textEncoder = new TextEncoder();

/**
 * Growable output buffer. Chunks are Buffers, except `records` given as FileSlices, which stay
 * separate so the network layer can send them from the file without copying.
 */
export class Writer {
  private buf: Buffer;
  private pos = 0;
  private start = 0;
  private readonly chunks: Array<Buffer | FileSlice> = [];
  private flushedBytes = 0;

  constructor(initialSize = 256) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  /** Bytes written so far, including file slices. */
  get length(): number {
    return this.flushedBytes + this.pos - this.start;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const used = this.pos - this.start;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, used + n, 256));
    this.buf.copy(next, 0, this.start, this.pos);
    this.buf = next;
    this.start = 0;
    this.pos = used;
  }

  int8(v: number): this { this.ensure(1); this.buf.writeInt8(v, this.pos); this.pos += 1; return this; }
  bool(v: boolean): this { return this.int8(v ? 1 : 0); }
  int16(v: number): this { this.ensure(2); this.buf.writeInt16BE(v, this.pos); this.pos += 2; return this; }
  uint16(v: number): this { this.ensure(2); this.buf.writeUInt16BE(v, this.pos); this.pos += 2; return this; }
  int32(v: number): this { this.ensure(4); this.buf.writeInt32BE(v, this.pos); this.pos += 4; return this; }
  uint32(v: number): this { this.ensure(4); this.buf.writeUInt32BE(v >>> 0, this.pos); this.pos += 4; return this; }
  int64(v: number): this { this.ensure(8); writeInt64(this.buf, v, this.pos); this.pos += 8; return this; }
  float64(v: number): this { this.ensure(8); this.buf.writeDoubleBE(v, this.pos); this.pos += 8; return this; }

  uvarint(v: number): this {
    this.ensure(5);
    v >>>= 0;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.pos++] = v;
    return this;
  }

  varint(v: number): this {
    return this.uvarint(((v << 1) ^ (v >> 31)) >>> 0);
  }

  /** Zig-zag varlong from a number (exact within ±2^53). */
  varlong(v: number): this {
    if (v >= -0x40000000 && v < 0x40000000) return this.varint(v);
    this.ensure(10);
    let u = v >= 0 ? v * 2 : -v * 2 - 1;
    while (u >= 0x80) {
      this.buf[this.pos++] = (u % 0x80) | 0x80;
      u = Math.floor(u / 0x80);
    }
    this.buf[this.pos++] = u;
    return this;
  }

  uuid(hex: string): this {
    this.ensure(16);
    this.buf.write(hex.length === 32 ? hex : '0'.repeat(32), this.pos, 16, 'hex');
    this.pos += 16;
    return this;
  }

  raw(bytes: Uint8Array): this {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
    return this;
  }

  private length_(n: number, compact: boolean, short: boolean): this {
    if (compact) return this.uvarint(n + 1);
    return short ? this.int16(n) : this.int32(n);
  }

  string(v: string, compact: boolean): this {
    return this.nullableString(v, compact);
  }

  nullableString(v: string | null, compact: boolean): this {
    if (v === null) return this.length_(-1, compact, true);
    if (v.length < 64 && /^[\x00-\x7f]*$/.test(v)) {
      this.length_(v.length, compact, true);
      this.ensure(v.length);
      this.pos += this.buf.write(v, this.pos, 'latin1');
      return this;
    }
    const bytes = textEncoder.encode(v);
    return this.length_(bytes.length, compact, true).raw(bytes);
  }

  bytes(v: Uint8Array, compact: boolean): this {
    return this.nullableBytes(v, compact);
  }

  nullableBytes(v: Uint8Array | null, compact: boolean): this {
    if (v === null) return this.length_(-1, compact, false);
    return this.length_(v.length, compact, false).raw(v);
  }

  arrayLength(n: number | null, compact: boolean): this {
    return this.length_(n ?? -1, compact, false);
  }

  /** A `records` field: length prefix, then the bytes (file slices are kept as their own chunks). */
  records(v: Records | null, compact: boolean): this {
    if (v === null) return this.length_(-1, compact, false);
    const parts = Buffer.isBuffer(v) ? [v] : Array.isArray(v) ? v : [v as FileSlice];
    let total = 0;
    for (const p of parts) total += Buffer.isBuffer(p) ? p.length : (p as FileSlice).length;
    this.length_(total, compact, false);
    for (const p of parts) {
      if (Buffer.isBuffer(p)) this.raw(p);
      else this.pushChunk(p as FileSlice);
    }
    return this;
  }

  private pushChunk(slice: FileSlice): void {
    if (this.pos > this.start) {
      this.chunks.push(this.buf.subarray(this.start, this.pos));
      this.flushedBytes += this.pos - this.start;
      this.start = this.pos;
    }
    this.chunks.push(slice);
    this.flushedBytes += slice.length;
  }

  /** Empty tagged-field section (or the given tagged fields, already encoded, in ascending tag order). */
  taggedFields(fields?: ReadonlyArray<[tag: number, value: Buffer]>): this {
    if (!fields || fields.length === 0) return this.uvarint(0);
    this.uvarint(fields.length);
    for (const [tag, value] of fields) this.uvarint(tag).uvarint(value.length).raw(value);
    return this;
  }

  /** Overwrites a big-endian int32 written earlier (used for size prefixes). */
  patchInt32(at: number, v: number): void {
    if (this.chunks.length > 0) throw new Error('patchInt32 after a file slice');
    this.buf.writeInt32BE(v, this.start + at);
  }

  /** The output as one Buffer; only valid when no file slices were written. */
  toBuffer(): Buffer {
    if (this.chunks.length > 0) throw new Error('toBuffer on output with file slices');
    return this.buf.subarray(this.start, this.pos);
  }

  /** The output as an ordered list of in-memory chunks and file slices. */
  toChunks(): Array<Buffer | FileSlice> {
    const out = this.chunks.slice();
    if (this.pos > this.start) out.push(this.buf.subarray(this.start, this.pos));
    return out;
  }
}
