// Top self-time functions of a V8 .cpuprofile (from `node --cpu-prof`), e.g. of the broker run under
// a bench with BENCH_BROKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
//
//   node dist/bench/profile-summary.js /tmp/prof/CPU.*.cpuprofile [--top 25]
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './lib/broker-process.js';
import { printJson, printTable, round } from './lib/stats.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function summarize(path: string, top: number): Array<{ function: string; where: string; selfMs: number; selfPct: number }> {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<string, { fn: string; where: string; us: number }>();
  let totalUs = 0;
  // Each sample's time delta is charged to the function on top of the stack at that sample.
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!)!;
    const delta = profile.timeDeltas[i] ?? 0;
    totalUs += delta;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.startsWith('file://') ? relative(REPO_ROOT, new URL(url).pathname) : url}:${lineNumber + 1}` : '';
    const key = `${functionName}@${where}`;
    const entry = selfUs.get(key) ?? { fn: functionName || '(anonymous)', where, us: 0 };
    entry.us += delta;
    selfUs.set(key, entry);
  }
  return [...selfUs.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, top)
    .map((e) => ({ function: e.fn, where: e.where, selfMs: round(e.us / 1000, 1), selfPct: round((100 * e.us) / totalUs, 1) }));
}

const { positionals, values } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
for (const path of positionals) {
  const rows = summarize(path, Number(values.top));
  printTable(`top self time: ${path}`, rows);
  printJson('profile-summary', { profile: path, rows });
}
