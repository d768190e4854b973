// Which npm packages a broker process has loaded: a preload (node --import) records every module URL the
// process loads into a file, so a test can check what an idle broker has not loaded.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PRELOAD = `
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
const file = process.env.KAFKITE_TEST_LOADED_MODULES;
registerHooks({ load(url, context, next) { appendFileSync(file, url + '\\n'); return next(url, context); } });
`;

export interface LoadedPackages {
  /** Node flags and environment for startBroker. */
  nodeArgs: string[];
  env: Record<string, string>;
  /** The packages under node_modules loaded so far, e.g. 'fastify', '@fastify/static'. */
  packages(): Set<string>;
}

export function recordLoadedPackages(): LoadedPackages {
  const file = join(mkdtempSync(join(tmpdir(), 'kafkite-modules-')), 'loaded');
  return {
    nodeArgs: ['--import', `data:text/javascript,${encodeURIComponent(PRELOAD)}`],
    env: { KAFKITE_TEST_LOADED_MODULES: file },
    packages() {
      const urls = readFileSync(file, 'utf8').split('\n');
      return new Set(urls.flatMap((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1] ?? []));
    },
  };
}
