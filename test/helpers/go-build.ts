// Builds a Go client program (test/clients/go, test/integration/sarama) into `output`.
import { execFile } from 'node:child_process';

export function goBuild(dir: string, output: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('go', ['build', '-o', output, '.'], { timeout: 300_000, env, cwd: dir }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`go build: ${err.message}\n${stderr}`));
      else resolve();
    });
  });
}
