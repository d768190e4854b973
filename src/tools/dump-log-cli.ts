// `kafkite dump-log`, with kafka-dump-log.sh's options.
import { dumpLog } from '../../storage/tools/dump-log.js';

const USAGE = 'Usage: kafkite dump-log --files f1[,f2] [--print-data-log] [--deep-iteration] [--index-sanity-check] [--share-group-state-decoder]';

export async function runDumpLog(args: string[]): Promise<void> {
  const files: string[] = [];
  let printDataLog = false;
  let deepIteration = false;
  let indexSanityCheck = false;
  let shareGroupStateDecoder = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--files') files.push(...(args[++i] ?? '').split(',').filter((f) => f.length > 0));
    else if (arg.startsWith('--files=')) files.push(...arg.slice(8).split(',').filter((f) => f.length > 0));
    else if (arg === '--print-data-log') printDataLog = true;
    else if (arg === '--deep-iteration') deepIteration = true;
    else if (arg === '--index-sanity-check') indexSanityCheck = true;
    else if (arg === '--share-group-state-decoder') shareGroupStateDecoder = true;
    else {
      process.stderr.write(`Unknown argument: ${arg}\n${USAGE}\n`);
      process.exit(2);
    }
  }
  if (files.length === 0) {
    process.stderr.write(`Missing required argument "[files]"\n${USAGE}\n`);
    process.exit(2);
  }
  for await (const line of dumpLog({ files, printDataLog, deepIteration: deepIteration || printDataLog, indexSanityCheck, shareGroupStateDecoder })) {
    process.stdout.write(`${line}\n`);
  }
}
