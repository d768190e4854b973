// Client programs in other languages (Python, Go) that the integration tests drive: each prints one JSON
// object on stdout, with an `error` field when its scenario failed.
import { execFile } from 'node:child_process';

/**
 * Runs `file args`; resolves with the JSON object it printed. Rejects when it exits non-zero, or when it
 * reports an `error`, unless the caller expects one (`allowError`).
 */
export function runJsonClient(file: string, args: string[], opts: { timeoutMs?: number; allowError?: boolean } = {}): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: opts.timeoutMs ?? 120_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${args.join(' ')}: ${err.message}\n${stderr}`));
      const result = JSON.parse(stdout);
      if (result.error && !opts.allowError) return reject(new Error(`${args.join(' ')}: ${result.error}\n${stderr}`));
      resolve(result);
    });
  });
}
