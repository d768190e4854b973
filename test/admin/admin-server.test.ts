// startAdminServer in-process on a real broker core (logs in a temp dir): readiness follows isReady(),
// the listener is validated, and close() releases the port and the broker's metrics.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/config-error.js';
import { loadBrokerConfig } from '../../config/broker-config.js';
import { startAdminServer } from '../../src/admin/admin-server.js';
import { Broker } from '../../src/broker.js';

let dataDir: string;
let broker: Broker;
const log = pino({ level: 'silent' });

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kafkite-admin-'));
  const { config } = loadBrokerConfig({ overrides: [`log.dirs=${dataDir}`] });
  broker = await Broker.open(config, log);
});

afterAll(async () => {
  await broker.shutdown();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('startAdminServer', () => {
  it('answers /ready with 503 until the broker is ready, and /health throughout', async () => {
    let ready = false;
    const admin = await startAdminServer({
      broker,
      listener: 'http://127.0.0.1:0',
      log,
      isReady: () => ready,
      connectionCount: () => 7,
    });
    try {
      expect(admin.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${admin.address}/health`)).status).toBe(200);
      const notReady = await fetch(`${admin.address}/ready`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual({ status: 'not ready' });
      ready = true;
      expect((await fetch(`${admin.address}/ready`)).status).toBe(200);
      expect(await (await fetch(`${admin.address}/metrics`)).text()).toMatch(/^kafkite_connections 7$/m);
      expect(broker.metrics).toBeDefined();
    } finally {
      await admin.close();
    }
    expect(broker.metrics).toBeUndefined();
    await expect(fetch(`${admin.address}/health`)).rejects.toThrow();
  });

  it('serves IPv6 listeners with a bracketed address', async () => {
    const admin = await startAdminServer({ broker, listener: 'http://[::1]:0', log, isReady: () => true, connectionCount: () => 0 });
    try {
      expect(admin.address).toMatch(/^http:\/\/\[::1\]:\d+$/);
      expect((await fetch(`${admin.address}/health`)).status).toBe(200);
    } finally {
      await admin.close();
    }
  });

  for (const listener of ['127.0.0.1:9644', 'https://127.0.0.1:9644', 'http://127.0.0.1', 'http://127.0.0.1:9644/admin']) {
    it(`rejects admin.listener=${listener} with a ConfigError`, async () => {
      await expect(
        startAdminServer({ broker, listener, log, isReady: () => true, connectionCount: () => 0 }),
      ).rejects.toBeInstanceOf(ConfigError);
    });
  }
});
