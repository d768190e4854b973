// CRC32C of record batches: kafkite's native addon (native/crc32c.cc, three interleaved SSE4.2
// streams, about 2.5x @node-rs/crc32 on one stream) when it is built and the CPU has SSE4.2,
// @node-rs/crc32 otherwise. Every produced batch's CRC is checked, so this is on the produce path.
import { createRequire } from 'node:module';
import { crc32c as portableCrc32c } from '@node-rs/crc32';

// Relative to this module: protocol/records/ from source, dist/protocol/records/ compiled.
const ADDON_PATHS = ['../../build/Release/kafkite_crc32c.node', '../../../build/Release/kafkite_crc32c.node'];

function loadNative(): ((buf: Uint8Array) => number) | null {
  const require = createRequire(import.meta.url);
  for (const path of ADDON_PATHS) {
    try {
      const addon = require(path) as { crc32c?: (buf: Uint8Array) => number };
      return typeof addon.crc32c === 'function' ? addon.crc32c : null;
    } catch {
      // not built at this path
    }
  }
  return null;
}

const native = loadNative();

/** Which implementation computes CRC32C in this process. */
export const crc32cImplementation: 'native-sse4.2' | '@node-rs/crc32' = native ? 'native-sse4.2' : '@node-rs/crc32';

/** CRC32C (Castagnoli) of `buf`, as an unsigned 32-bit number. */
export const crc32c: (buf: Uint8Array) => number = native ?? ((buf) => portableCrc32c(buf) >>> 0);
