// The command line as an operator meets it: config errors, unknown keys, stock Kafka files, env overrides, dump-log.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, startBroker } from '../helpers/broker-process.js';
import { kcat } from '../helpers/kcat.js';

const STOCK_CONFIGS = join(REPO_ROOT, '../shared/kafka-config');

function runCli(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [join(REPO_ROOT, 'bin/kafkite.js'), ...args], {
    cwd: REPO_ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000,
  });
}

describe('kafkite start', () => {
  it('exits 2 with one line naming the key and what it expected for an invalid value', () => {
    const res = runCli(['start', '--override', 'num.partitions=zero', '--override', 'log.dirs=/tmp/kafkite-never-created']);
    expect(res.status).toBe(2);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/num\.partitions/);
    expect(existsSync('/tmp/kafkite-never-created')).toBe(false);
  });

  it('exits 2 for a malformed admin.listener', () => {
    const res = runCli(['start', '--override', 'admin.listener=ftp://nowhere']);
    expect(res.status).toBe(2);
    expect(res.stderr).toMatch(/admin\.listener.*http:\/\/host:port/);
  });

  it('exits 2 for a missing config file and for an unknown listener scheme', () => {
    expect(runCli(['start', '/nonexistent/server.properties']).status).toBe(2);
    const res = runCli(['start', '--override', 'listeners=GOPHER://:9092']);
    expect(res.status).toBe(2);
    expect(res.stderr).toMatch(/listeners|GOPHER/);
  });

  it('exits non-zero with a clear line when the port is in use', async () => {
    const first = await startBroker();
    const dir = mkdtempSync(join(tmpdir(), 'kafkite-cli-'));
    try {
      const res = runCli(['start', '--override', `log.dirs=${dir}`, '--override', `listeners=PLAINTEXT://127.0.0.1:${first.port}`, '--override', 'advertised.listeners=', '--override', 'admin.listener=http://127.0.0.1:0']);
      expect(res.status).toBe(1);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(/cannot listen on PLAINTEXT:\/\/127\.0\.0\.1:\d+/);
      const admin = runCli(['start', '--override', `log.dirs=${dir}`, '--override', 'listeners=PLAINTEXT://127.0.0.1:0', '--override', `admin.listener=http://127.0.0.1:${first.port}`]);
      expect(admin.status).toBe(1);
      expect(admin.stderr.trim().split('\n')).toHaveLength(1);
      expect(admin.stderr).toMatch(/cannot listen on admin\.listener http:\/\/127\.0\.0\.1:\d+: .*EADDRINUSE/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await first.stop();
      first.cleanup();
    }
  });

  it('exits non-zero with a clear line when a log dir cannot be created', () => {
    const res = runCli(['start', '--override', 'log.dirs=/etc/hostname/kafkite-data', '--override', 'listeners=PLAINTEXT://127.0.0.1:0', '--override', 'admin.listener=http://127.0.0.1:0']);
    expect(res.status).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/log dir \/etc\/hostname\/kafkite-data is not usable/);
  });

  it('warns once per unknown key, logs the listeners and log dirs first, and stops cleanly on SIGTERM', async () => {
    const broker = await startBroker({ overrides: ['made.up.key=1', 'admin.listener=http://127.0.0.1:0'] });
    try {
      expect(broker.logs[0]).toMatchObject({ msg: 'starting kafkite', logDirs: [broker.dataDir] });
      const warnings = broker.logs.filter((l) => l.msg === 'unknown configuration ignored');
      expect(warnings).toEqual([expect.objectContaining({ key: 'made.up.key', level: 40 })]);
    } finally {
      expect(await broker.stop()).toBe(0);
      broker.cleanup();
    }
  });

  it.skipIf(!existsSync(STOCK_CONFIGS))('starts unchanged from each of Kafka\'s stock server.properties files', async () => {
    for (const file of readdirSync(STOCK_CONFIGS).filter((f) => f.endsWith('.properties'))) {
      // The files are used as they are; only where to listen and store data is overridden, as tests must.
      const broker = await startBroker({ configFile: join(STOCK_CONFIGS, file) });
      try {
        const res = await kcat(['-b', broker.bootstrap, '-L', '-J']);
        expect(res.code, `${file}: ${res.stderr}`).toBe(0);
      } finally {
        expect(await broker.stop()).toBe(0);
        broker.cleanup();
      }
    }
  });

  it('applies KAFKA_* environment overrides as the apache/kafka image does', async () => {
    const broker = await startBroker({ env: { KAFKA_NUM_PARTITIONS: '3' } });
    try {
      const res = await kcat(['-b', broker.bootstrap, '-L', '-J', '-t', 'env-created']);
      expect(JSON.parse(res.stdout).topics[0].partitions).toHaveLength(3);
    } finally {
      await broker.stop();
      broker.cleanup();
    }
  });
});

describe('kafkite dump-log', () => {
  it('prints a segment, its index and its time index as kafka-dump-log.sh does', async () => {
    const broker = await startBroker({ overrides: ['log.index.interval.bytes=100'] });
    const lines = Array.from({ length: 50 }, (_, i) => `value-${i}`).join('\n') + '\n';
    await kcat(['-b', broker.bootstrap, '-P', '-t', 'dumped', '-X', 'linger.ms=0', '-X', 'batch.num.messages=5'], lines);
    expect(await broker.stop()).toBe(0);
    const segment = join(broker.dataDir, 'dumped-0', '00000000000000000000');
    try {
      const log = runCli(['dump-log', '--files', `${segment}.log`, '--print-data-log']);
      expect(log.status, log.stderr).toBe(0);
      expect(log.stdout).toMatch(/^Dumping .*00000000000000000000\.log$/m);
      expect(log.stdout).toMatch(/baseOffset: 0 lastOffset: \d+ count: \d+/);
      expect(log.stdout).toMatch(/payload: value-49/);
      const index = runCli(['dump-log', '--files', `${segment}.index,${segment}.timeindex`]);
      expect(index.status, index.stderr).toBe(0);
      expect(index.stdout).toMatch(/^offset: \d+ position: \d+$/m);
      expect(index.stdout).toMatch(/^timestamp: \d+ offset: \d+$/m);
    } finally {
      broker.cleanup();
    }
  });
});
