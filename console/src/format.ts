// Display helpers: sizes, times and record bytes as text, JSON or hex.
export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

export function time(ms: number): string {
  return ms < 0 ? '–' : new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

export function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return d > 0 ? `${d}d ${h}h ${m}m` : h > 0 ? `${h}h ${m}m` : `${m}m ${s % 60}s`;
}

export type Encoding = 'text' | 'json' | 'hex';

function decodeBase64(b64: string | null): Uint8Array | null {
  if (b64 === null) return null;
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** What a table cell shows at most; the JSON download has everything. */
const SHOWN_CHARS = 400;

/** A value for a table cell: cut at SHOWN_CHARS so a page of big records lays out quickly. */
export function cell(b64: string | null, encoding: Encoding): string {
  const text = render(b64, encoding);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}

export function render(b64: string | null, encoding: Encoding): string {
  const data = decodeBase64(b64);
  if (data === null) return 'null';
  if (encoding === 'hex') return Array.from(data, (b) => b.toString(16).padStart(2, '0')).join(' ');
  const text = new TextDecoder().decode(data);
  if (encoding === 'json') {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }
  return text;
}
