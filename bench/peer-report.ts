// Writes issue 32's published comparison from the peer benches' output: bench/results/kafka-vs-kafkite.json
// (every figure, kafkite ÷ Kafka 4.4, with commit, date and load), .md (the README's table) and .png (the plot).
// npm run bench (bench/run-all.ts) calls it with its results; by hand, from the benches' saved output:
//
//   node dist/bench/peer-report.js perf-tools.log transactions.log ...     (each file's last JSON line)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './lib/kafkite-process.js';
import { peerSvg, renderPng } from './lib/peer-chart.js';
import { collectPeerResults, markdownTable, type PeerResults } from './lib/peer-results.js';
import { isMain } from './lib/stats.js';

const OUT = join(REPO_ROOT, 'bench/results/kafka-vs-kafkite');

export async function writePeerReport(byBench: Record<string, any>): Promise<PeerResults> {
  const results = collectPeerResults(byBench);
  mkdirSync(join(REPO_ROOT, 'bench/results'), { recursive: true });
  writeFileSync(`${OUT}.json`, `${JSON.stringify(results, null, 1)}\n`);
  writeFileSync(`${OUT}.md`, `${markdownTable(results)}\n`);
  const svg = peerSvg(results);
  writeFileSync(`${OUT}.svg`, `${svg}\n`);
  writeFileSync(`${OUT}.png`, await renderPng(svg));
  return results;
}

if (isMain(import.meta.url)) {
  const byBench: Record<string, any> = {};
  for (const file of process.argv.slice(2)) {
    const line = readFileSync(file, 'utf8').trim().split('\n').reverse().find((l) => l.startsWith('{"bench"'));
    if (line) {
      const json = JSON.parse(line);
      byBench[json.bench] = json;
    }
  }
  const results = await writePeerReport(byBench);
  console.log(markdownTable(results));
  console.log(`\nwritten: ${OUT}.json, .md, .svg, .png`);
}
