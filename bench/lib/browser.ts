// Debian's chromium driven by playwright-core, headless with a fresh profile, for the console's tests and bench.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * A persistent context on a fresh --user-data-dir (playwright passes the dir as --user-data-dir); `extraArgs`
 * e.g. --host-resolver-rules, to point a made-up name at loopback.
 */
export async function launchBrowser(viewport = { width: 1280, height: 800 }, extraArgs: readonly string[] = []): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'kafkite-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_ARGS, ...extraArgs],
    viewport,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
