// The console's three figures, each next to a peer measured in the same run:
//   first load to first chart (chromium, cold page)          vs. the same browser loading /health
//   message browser: 100 records at a random offset of a big partition (the page's /v1 call, and the page)
//                                                            vs. kcat -C -o <offset> -c 100 on the same partition
//   broker CPU with the overview open and idle               vs. the same broker with no page open
// BENCH_CONSOLE_MB sizes the partition (default 1024 MB, the 1 GB; kcat fills it in about 25 s here).
import { spawn, spawnSync } from 'node:child_process';
import { launchBrowser } from './lib/browser.js';
import { BenchBroker } from './lib/broker-process.js';
import { median, printJson, printTable, round } from './lib/stats.js';
import { freePort } from './lib/free-port.js';

const MB = Number(process.env.BENCH_CONSOLE_MB ?? 1024);
const LOADS = Number(process.env.BENCH_RUNS ?? 5);
const READS = 15;
const IDLE_SECONDS = Number(process.env.BENCH_CONSOLE_IDLE_SECONDS ?? 10);
const VALUE_BYTES = 1000;

/** Produces MB megabytes of 1 kB records with kcat (acks=1, large batches). */
function fill(bootstrap: string, topic: string): Promise<number> {
  const records = Math.floor((MB * 1024 * 1024) / (VALUE_BYTES + 20));
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', ['-b', bootstrap, '-P', '-t', topic, '-K:', '-X', 'acks=1', '-X', 'linger.ms=20', '-X', 'batch.size=1000000', '-X', 'compression.codec=none'], { stdio: ['pipe', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(records) : reject(new Error(`kcat exited ${code}`))));
    const value = 'v'.repeat(VALUE_BYTES);
    let i = 0;
    const write = (): void => {
      while (i < records) {
        const chunk: string[] = [];
        for (let j = 0; j < 1000 && i < records; j++, i++) chunk.push(`key-${i}:${value}`);
        if (!child.stdin.write(`${chunk.join('\n')}\n`)) return void child.stdin.once('drain', write);
      }
      child.stdin.end();
    };
    write();
  });
}


async function main(): Promise<void> {
  const adminPort = await freePort();
  const base = `http://127.0.0.1:${adminPort}`;
  const broker = await BenchBroker.start({ overrides: [`admin.listener=${base}`, 'num.partitions=1'] });
  const browser = await launchBrowser();
  try {
    // 1. First load to first chart, cold page each time; peer: /health in the same browser.
    const chart: number[] = [];
    const health: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const page = await browser.context.newPage();
      await page.goto(`${base}/`);
      await page.locator('.chart[data-ready="true"]').first().waitFor();
      chart.push(await page.evaluate(() => performance.getEntriesByName('kafkite:first-chart')[0]!.startTime));
      await page.goto(`${base}/health`);
      health.push(await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd));
      await page.close();
    }

    // 2. Message browser at random offsets of a big partition; peer: kcat reading the same 100 records.
    const fillStart = performance.now();
    const records = await fill(broker.bootstrap, 'big');
    const fillSeconds = (performance.now() - fillStart) / 1000;
    const offsets = Array.from({ length: READS }, () => Math.floor(Math.random() * (records - 100)));
    const api: number[] = [];
    const kcatMs: number[] = [];
    for (const offset of offsets) {
      const apiStart = performance.now();
      const res = await fetch(`${base}/v1/topics/big/partitions/0/records?offset=${offset}&limit=100`);
      const body = (await res.json()) as { records: unknown[] };
      api.push(performance.now() - apiStart);
      if (body.records.length !== 100) throw new Error(`expected 100 records at ${offset}, got ${body.records.length}`);
      const start = performance.now();
      const out = spawnSync('kcat', ['-b', broker.bootstrap, '-C', '-t', 'big', '-p', '0', '-o', String(offset), '-c', '100', '-e', '-q'], { maxBuffer: 1 << 26 });
      kcatMs.push(performance.now() - start);
      if (out.status !== 0) throw new Error(`kcat failed: ${out.stderr}`);
    }
    const page = await browser.context.newPage();
    const pageMs: number[] = [];
    for (const offset of offsets.slice(0, 5)) {
      await page.goto(`${base}/#/topics/big/0`);
      await page.getByRole('heading', { name: 'Segments' }).waitFor();
      await page.goto(`${base}/#/topics/big/0/messages`);
      await page.getByLabel('Start from').selectOption('offset');
      await page.getByLabel('Offset, timestamp or N').fill(String(offset));
      // Timed inside the page (click to the 100th row in the DOM), without the driver's round trips.
      pageMs.push(
        await page.evaluate(async (last) => {
          const start = performance.now();
          document.querySelector<HTMLButtonElement>('form.inline button[type=submit]')!.click();
          await new Promise<void>((resolve) => {
            const check = (): void => {
              if ([...document.querySelectorAll('table.records td:first-child')].some((td) => td.textContent === last)) resolve();
              else requestAnimationFrame(check);
            };
            check();
          });
          return performance.now() - start;
        }, String(offset + 99)),
      );
    }
    await page.close();

    // 3. Idle CPU: no page, then the overview open (it polls every 2 s).
    const idle = async (): Promise<number> => {
      const cpu = broker.cpuSeconds();
      await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
      return (broker.cpuSeconds() - cpu) / IDLE_SECONDS;
    };
    const cpuWithout = await idle();
    const open = await browser.context.newPage();
    await open.goto(`${base}/`);
    await open.locator('.chart[data-ready="true"]').first().waitFor();
    const cpuWith = await idle();
    await open.close();

    const rows = [
      { figure: 'first load to first chart (ms, median)', value: round(median(chart), 1), peer: `/health load ${round(median(health), 1)} ms`, ratio: round(median(chart) / median(health), 1), target: '< 300' },
      { figure: `100 records at a random offset, /v1 call (ms, median of ${READS}; ${MB} MB partition)`, value: round(median(api), 1), peer: `kcat -C -c 100 ${round(median(kcatMs), 1)} ms`, ratio: round(median(api) / median(kcatMs), 2), target: '< 100' },
      { figure: '100 records at a random offset, page, click to 100th row in the DOM (ms, median of 5)', value: round(median(pageMs), 1), peer: '', ratio: '', target: '< 100' },
      { figure: 'broker CPU, console open and idle (% of a core)', value: round(cpuWith * 100, 2), peer: `no page ${round(cpuWithout * 100, 2)}%`, ratio: cpuWithout > 0 ? round(cpuWith / cpuWithout, 1) : '', target: '< 1' },
    ];
    printTable(`console (fill: ${MB} MB in ${round(fillSeconds, 1)} s)`, rows);
    printJson('console', {
      firstChartMs: median(chart),
      healthLoadMs: median(health),
      browseApiMs: median(api),
      browseKcatMs: median(kcatMs),
      browsePageMs: median(pageMs),
      idleCpuPercent: cpuWith * 100,
      idleCpuPercentNoPage: cpuWithout * 100,
      partitionMb: MB,
    });
  } finally {
    await browser.close();
    await broker.stop();
    broker.cleanup();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
