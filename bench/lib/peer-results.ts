// issue 32's published comparison: every peer bench's kafkite ÷ Kafka 4.4 figures in one file
// (bench/results/kafka-vs-kafkite.json), with the commit, the date and the machine's load, and its table in Markdown.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import type { Figure } from './peer-figures.js';
import { REPO_ROOT } from './kafkite-process.js';

/** The benches that run Kafka 4.4 beside kafkite, and where their last JSON line keeps the figures. */
const PEER_BENCHES: Record<string, (json: any) => Figure[] | undefined> = {
  'kafka-vs-kafkite': (j) => j.results,
  'perf-tools': (j) => j.results,
  'share-groups': (j) => j.results,
  streams: (j) => j.results,
  transactions: (j) => j.peer,
  'e2e-latency': (j) => j.peer,
  startup: (j) => j.peer,
  connections: (j) => j.peerFigures,
  'many-partitions': (j) => j.peerFigures,
};

type PeerFigure = Figure & { bench: string };

export interface PeerResults {
  commit: string;
  date: string;
  loadAverage: number[];
  figures: PeerFigure[];
}

/** The peer figures of the benches' JSON lines, by bench name. */
export function collectPeerResults(byBench: Record<string, any>): PeerResults {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT }).toString().trim();
  } catch {
    // not a git checkout
  }
  const figures = Object.entries(PEER_BENCHES).flatMap(([bench, of]) => (byBench[bench] ? (of(byBench[bench]) ?? []) : []).map((f) => ({ bench, ...f, figure: f.figure.trim() })));
  return { commit, date: new Date().toISOString(), loadAverage: loadavg().map((l) => Math.round(l * 10) / 10), figures };
}

/** Whether a higher value is kafkite's advantage (a rate), rather than a lower one (time, CPU, memory). */
function higherIsBetter(figure: string): boolean {
  return /\((rec|conn)\/s\)$/.test(figure) || figure.startsWith('transactions/s');
}

/** How many times better kafkite is (above 1) or worse (below 1), whichever way the figure points. */
export function advantage(f: Figure): number {
  return higherIsBetter(f.figure) ? f.ratio : 1 / f.ratio;
}

export function markdownTable(results: PeerResults): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const rows = results.figures.map((f) => `| ${f.figure} | ${n(f.kafkite)} | ${n(f.kafka)} | ${f.ratio}× | \`${f.bench}\` |`);
  return [
    `kafkite against Apache Kafka 4.4 on the same machine, commit ${results.commit}, ${results.date.slice(0, 16).replace('T', ' ')} UTC, load average ${results.loadAverage.join(' / ')}`,
    '',
    '| figure | kafkite | Kafka 4.4 | kafkite ÷ Kafka | bench |',
    '|---|---:|---:|---:|---|',
    ...rows,
  ].join('\n');
}
