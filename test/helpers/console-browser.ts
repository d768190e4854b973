// A broker with its admin HTTP and Debian's chromium for one describe block of the console's tests.
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser, type Browser } from '../../bench/lib/browser.js';
import { adminAddress, startBroker, type BrokerProcess, type StartOptions } from './broker-process.js';

export interface ConsoleSetup {
  broker: BrokerProcess;
  browser: Browser;
  /** The admin listener's address, a wildcard host replaced by 127.0.0.1. */
  base: string;
}

/** Started before the block's tests, closed after them; `browserArgs` go to chromium. */
export function consoleForBlock(opts: StartOptions = {}, browserArgs: readonly string[] = []): () => ConsoleSetup {
  let setup: ConsoleSetup | undefined;
  let broker: BrokerProcess | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    broker = await startBroker(opts);
    browser = await launchBrowser(undefined, browserArgs);
    setup = { broker, browser, base: adminAddress(broker).replace('0.0.0.0', '127.0.0.1') };
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await broker?.stop();
    broker?.cleanup();
  });
  return () => setup!;
}
