// Reads entries of a jar (a zip file) with Node alone: the central directory names each entry and where its
// local header is; entries are stored (method 0) or deflated (method 8). Enough for Kafka's jars, which are
// neither zip64 nor encrypted; anything else is refused rather than misread.
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

/** Entry name → its bytes, for the entries of `jarPath` that `wanted` accepts. */
export function readJarEntries(jarPath: string, wanted: (name: string) => boolean): Map<string, Buffer> {
  const zip = readFileSync(jarPath);
  // The end record is the last 22 bytes, unless an archive comment (up to 64 KiB) follows it.
  let end = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new Error(`${jarPath}: not a zip file (no end of central directory)`);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== CENTRAL_FILE_HEADER) throw new Error(`${jarPath}: bad central directory entry ${i}`);
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localHeader = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (!wanted(name)) continue;
    if (zip.readUInt32LE(localHeader) !== LOCAL_FILE_HEADER) throw new Error(`${jarPath}: bad local header of ${name}`);
    // The local header's own name and extra lengths may differ from the central directory's.
    const data = localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
    const raw = zip.subarray(data, data + compressedSize);
    if (method === 0) entries.set(name, Buffer.from(raw));
    else if (method === 8) entries.set(name, inflateRawSync(raw));
    else throw new Error(`${jarPath}: ${name} uses compression method ${method}`);
  }
  return entries;
}
