// Where the console's built files (vite build → dist/console) and package.json are, from src/ or dist/src/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository (or installed package) root: the nearest directory above this file with kafkite's package.json. */
function packageRoot(): string | null {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'kafkite') return dir;
  }
  return null;
}

const root = packageRoot();

export const KAFKITE_VERSION: string = root ? ((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown') : 'unknown';

/** The built console, or null when it was not built (then only the JSON API is served). */
export function consoleRoot(): string | null {
  const dir = root ? join(root, 'dist', 'console') : null;
  return dir && existsSync(join(dir, 'index.html')) ? dir : null;
}
