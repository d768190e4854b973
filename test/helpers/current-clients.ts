// The current clients of test/clients/<lang>/: where test/clients/install.sh puts the Python virtualenv
// (outside the work tree, so that CI's fresh clones reuse it), and the versions pinned for them, which the
// test names and the README's client matrix give.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const CLIENTS_DIR = join(import.meta.dirname, '..', 'clients');
export const CLIENTS_VENV = join(homedir(), '.cache', 'kafkite', 'venv');

/** `name==version` lines of requirements.txt, by name. */
export function pythonPins(): Map<string, string> {
  const text = readFileSync(join(CLIENTS_DIR, 'python', 'requirements.txt'), 'utf8');
  return new Map([...text.matchAll(/^([\w.-]+)==(\S+)$/gm)].map((m) => [m[1], m[2]]));
}

/** The modules go.mod requires directly, by path, with their versions (without the v). */
export function goPins(): Map<string, string> {
  const text = readFileSync(join(CLIENTS_DIR, 'go', 'go.mod'), 'utf8');
  return new Map([...text.matchAll(/^\s+(\S+) v(\S+)$/gm)].map((m) => [m[1], m[2]]));
}
