// Runs Debian's kcat (librdkafka) against the broker.
import { spawn } from 'node:child_process';

export interface KcatResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function kcat(args: string[], input?: string | Buffer, timeoutMs = 30_000): Promise<KcatResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kcat ${args.join(' ')} timed out; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}
