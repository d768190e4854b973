// Runs one bench script (dist/bench/<file>) in its own node process, passing its output through, and
// resolves with its last JSON line (every bench script ends with one: stats.ts printJson).
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export function runScript(file: string, env: Record<string, string>): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, '..', file)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${file} exited with ${code}`));
      const line = out.trim().split('\n').reverse().find((l) => l.startsWith('{'));
      resolve(line ? JSON.parse(line) : null);
    });
  });
}
