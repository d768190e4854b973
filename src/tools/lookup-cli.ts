// `kafkite lookup --dir <partition dir> (--offset N | --timestamp T) [--max-bytes B] [--json]`: how the
// read path finds an offset or a timestamp on disk, step by step (see storage/tools/lookup.ts).
import { DEFAULT_LOOKUP_MAX_BYTES, LookupError, lookupInDir, type LookupResult, type LookupTarget } from '../../storage/tools/lookup.js';
import type { LookupStep } from '../../storage/lookup-trace.js';

const USAGE = 'Usage: kafkite lookup --dir <partition dir> (--offset N | --timestamp T) [--max-bytes B] [--json]';

function usage(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function integer(name: string, value: string | undefined): number {
  if (value === undefined || !/^-?\d+$/.test(value)) usage(`${name} expects an integer`);
  return Number(value);
}

export async function runLookup(args: string[]): Promise<void> {
  let dir: string | undefined;
  let target: LookupTarget | undefined;
  let maxBytes = DEFAULT_LOOKUP_MAX_BYTES;
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--dir') dir = args[++i];
    else if (arg === '--offset') target = { offset: integer(arg, args[++i]) };
    else if (arg === '--timestamp') target = { timestamp: integer(arg, args[++i]) };
    else if (arg === '--max-bytes') maxBytes = integer(arg, args[++i]);
    else if (arg === '--json') json = true;
    else usage(`Unknown argument: ${arg}`);
  }
  if (dir === undefined) usage('Missing required argument --dir');
  if (target === undefined) usage('One of --offset or --timestamp is required');
  let result: LookupResult;
  try {
    result = lookupInDir(dir, target, maxBytes);
  } catch (err) {
    if (err instanceof LookupError || (err as NodeJS.ErrnoException).code === 'ENOENT') {
      process.stderr.write(`kafkite lookup: ${(err as Error).message}\n`);
      process.exit(1);
    }
    throw err;
  }
  process.stdout.write(json ? `${JSON.stringify(result, null, 2)}\n` : formatLookup(result).join('\n') + '\n');
}

function formatLookup(r: LookupResult): string[] {
  const lines = [
    `Lookup of ${'offset' in r.target ? `offset ${r.target.offset}` : `timestamp ${r.target.timestamp}`} ` +
      `(log start ${r.logStartOffset}, log end ${r.logEndOffset}, max bytes ${r.maxBytes})`,
  ];
  r.steps.forEach((step, i) => lines.push(`${i + 1}. ${formatStep(step)}`));
  lines.push(
    r.range
      ? `sendfile: ${r.range.file} position: ${r.range.position} length: ${r.range.length} bytesScanned: ${r.bytesScanned}`
      : `sendfile: nothing to send (offset ${r.offset ?? 'none'})`,
  );
  return lines;
}

function formatStep(s: LookupStep): string {
  switch (s.kind) {
    case 'segment-floor':
      return `segment floor search for ${s.target} over ${s.segments} segments: compared ${s.probes.map((p) => p.baseOffset).join(', ') || 'none'}; chose ${s.chosen ?? 'none'}`;
    case 'segment-skip':
      return `skipped segment ${s.baseOffset}: ${s.reason}`;
    case 'time-index':
      return (
        `time index ${s.file} (${s.entries} entries) for timestamp ${s.target}: probes ${s.probes.map((p) => `#${p.slot}(${p.timestamp}->${p.offset})`).join(' ') || 'none'}; ` +
        `entry #${s.found.slot} timestamp: ${s.found.timestamp} offset: ${s.found.offset}`
      );
    case 'offset-index':
      return (
        `offset index ${s.file} (${s.entries} entries) for ${s.purpose === 'offset' ? 'offset' : 'position'} ${s.target}: ` +
        `probes ${s.probes.map((p) => `#${p.slot}(${p.offset}@${p.position})`).join(' ') || 'none'}; entry #${s.found.slot} offset: ${s.found.offset} position: ${s.found.position}`
      );
    case 'scan':
      return (
        `scan (${s.purpose}) from position ${s.from}: ${s.batches.map((b) => `[${b.baseOffset}..${b.lastOffset} @${b.position} +${b.size}]`).join(' ') || 'no batch skipped'}; ` +
        (s.found ? `found baseOffset: ${s.found.baseOffset} lastOffset: ${s.found.lastOffset} position: ${s.found.position} size: ${s.found.size}` : 'end') +
        `; ${s.bytesScanned} bytes hopped`
      );
    case 'timestamp-result':
      return `first record at or after the timestamp: offset ${s.offset} timestamp ${s.timestamp}`;
    case 'range':
      return `file range ${s.file} position: ${s.position} length: ${s.length}`;
  }
}
