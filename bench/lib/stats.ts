// Small statistics and printing helpers shared by the bench scripts.

/** The p-quantile (0..1) of an ascending array, nearest-rank. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))]!;
}

/** The median; of an even count, the mean of the two middle values. */
export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function round(value: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function seconds(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e9;
}

/** Runs `trial` `runs` times and keeps the run whose `key` is the median (the machine is shared and noisy). */
export async function medianRun<T>(runs: number, trial: (run: number) => Promise<T>, key: (result: T) => number): Promise<T & { runs: number[] }> {
  const results: T[] = [];
  for (let i = 0; i < runs; i++) results.push(await trial(i));
  const sorted = [...results].sort((a, b) => key(a) - key(b));
  return { ...sorted[Math.floor((sorted.length - 1) / 2)]!, runs: results.map(key) };
}

/** Prints rows as an aligned text table (columns from the first row's keys). */
export function printTable(title: string, rows: Array<Record<string, unknown>>): void {
  console.log(`\n${title}`);
  if (rows.length === 0) return;
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cells = rows.map((r) => columns.map((c) => format(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  console.log(columns.map((c, i) => c.padEnd(widths[i]!)).join('  '));
  for (const row of cells) console.log(row.map((v, i) => (typeof rows[0]![columns[i]!] === 'number' ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join('  '));
}

function format(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? v.toLocaleString('en-US') : String(v);
  if (Array.isArray(v)) return v.join(',');
  return String(v);
}

/** The one machine-readable line every bench script ends with. */
export function printJson(bench: string, result: object): void {
  console.log(JSON.stringify({ bench, ...result }));
}

/** Whether this module is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && new URL(moduleUrl).pathname === process.argv[1];
}
