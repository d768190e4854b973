// issue 32's plot: one bar per figure, how many times better kafkite is than Kafka 4.4 (log scale, 1× in the
// middle: right of it kafkite is ahead, left of it behind), drawn as SVG and screenshotted by chromium.
import { launchBrowser } from './browser.js';
import { advantage, type PeerResults } from './peer-results.js';

const WIDTH = 1100;
const ROW = 22;
const LABEL = 520;
const TOP = 70;
/** The axis spans 1/LIMIT× to LIMIT×; a bar beyond is drawn to the edge with its value. */
const LIMIT = 100;

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

export function peerSvg(results: PeerResults): string {
  const plot = WIDTH - LABEL - 40;
  const x = (v: number) => LABEL + ((Math.log10(Math.min(LIMIT, Math.max(1 / LIMIT, v))) + Math.log10(LIMIT)) / (2 * Math.log10(LIMIT))) * plot;
  const height = TOP + results.figures.length * ROW + 40;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="22" font-size="16" font-weight="bold">kafkite against Apache Kafka 4.4, same machine, same clients</text>`,
    `<text x="10" y="42" fill="#555">commit ${escape(results.commit)}, ${results.date.slice(0, 16).replace('T', ' ')} UTC, load average ${results.loadAverage.join(' / ')}; bar: times kafkite is better (right) or worse (left)</text>`,
  ];
  for (const tick of [0.01, 0.1, 1, 10, 100]) {
    parts.push(`<line x1="${x(tick)}" y1="${TOP - 8}" x2="${x(tick)}" y2="${height - 30}" stroke="${tick === 1 ? '#333' : '#ddd'}"/>`);
    parts.push(`<text x="${x(tick)}" y="${height - 14}" text-anchor="middle" fill="#555">${tick}×</text>`);
  }
  results.figures.forEach((f, i) => {
    const y = TOP + i * ROW;
    const a = advantage(f);
    const [from, to] = a >= 1 ? [x(1), x(a)] : [x(a), x(1)];
    parts.push(`<text x="${LABEL - 8}" y="${y + 14}" text-anchor="end">${escape(f.figure.length > 80 ? `${f.figure.slice(0, 79)}…` : f.figure)}</text>`);
    parts.push(`<rect x="${from}" y="${y + 3}" width="${Math.max(1, to - from)}" height="${ROW - 6}" fill="${a >= 1 ? '#2f7d4f' : '#b8462e'}"/>`);
    parts.push(`<text x="${a >= 1 ? to + 4 : from - 4}" y="${y + 14}" text-anchor="${a >= 1 ? 'start' : 'end'}" fill="#333">${a > LIMIT ? `> ${LIMIT}` : a < 1 / LIMIT ? `< ${1 / LIMIT}` : Math.round(a * 100) / 100}×</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** The SVG as a PNG, through Debian's chromium. */
export async function renderPng(svg: string): Promise<Buffer> {
  const browser = await launchBrowser({ width: WIDTH, height: 800 });
  try {
    const page = await browser.context.newPage();
    await page.setContent(`<!doctype html><html><body style="margin:0">${svg}</body></html>`);
    return await page.locator('svg').screenshot();
  } finally {
    await browser.close();
  }
}
