// Draws the soak's samples as a PNG: uPlot (the console's chart library) in a page opened by chromium,
// screenshotted. Three stacked charts share the time axis: memory, descriptors and files, throughput.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { launchBrowser } from './browser.js';

interface ChartSeries {
  label: string;
  values: number[];
  color: string;
}

interface ChartPanel {
  title: string;
  unit: string;
  series: ChartSeries[];
}

export interface ChartPage {
  /** Title lines above the charts (the verdicts). */
  title: string[];
  /** Minutes since the start, one per sample. */
  minutes: number[];
  panels: ChartPanel[];
  /** A vertical marker (the end of the warm-up), in minutes. */
  markerMinutes: number;
}

const WIDTH = 1200;
const PANEL_HEIGHT = 260;

function pageHtml(chart: ChartPage): string {
  const require = createRequire(import.meta.url);
  const uplotDir = require.resolve('uplot/dist/uPlot.iife.min.js').replace(/uPlot\.iife\.min\.js$/, '');
  const js = readFileSync(`${uplotDir}uPlot.iife.min.js`, 'utf8');
  const css = readFileSync(`${uplotDir}uPlot.min.css`, 'utf8');
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return `<!doctype html><html><head><meta charset="utf-8"><style>${css}
    body { margin: 16px; font: 14px sans-serif; background: #fff; color: #222; }
    h1 { font-size: 18px; margin: 0 0 4px; } p.v { margin: 2px 0; font-family: monospace; font-size: 13px; }
    h2 { font-size: 14px; margin: 14px 0 2px; }
  </style></head><body>
  <h1>${escape(chart.title[0] ?? '')}</h1>
  ${chart.title.slice(1).map((line) => `<p class="v">${escape(line)}</p>`).join('\n')}
  <div id="charts"></div>
  <script>${js}</script>
  <script>
    const chart = ${JSON.stringify(chart)};
    const marker = (u) => {
      const x = Math.round(u.valToPos(chart.markerMinutes, 'x', true));
      const ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = '#999';
      ctx.setLineDash([6, 4]);
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
      ctx.restore();
    };
    for (const panel of chart.panels) {
      const h = document.createElement('h2');
      h.textContent = panel.title;
      document.getElementById('charts').appendChild(h);
      const div = document.createElement('div');
      document.getElementById('charts').appendChild(div);
      new uPlot({
        width: ${WIDTH - 32},
        height: ${PANEL_HEIGHT},
        scales: { x: { time: false } },
        axes: [{ label: 'minutes' }, { label: panel.unit, size: 70 }],
        series: [{ label: 'minute' }, ...panel.series.map((s) => ({ label: s.label, stroke: s.color, width: 2 }))],
        hooks: { draw: [marker] },
      }, [chart.minutes, ...panel.series.map((s) => s.values)], div);
    }
    document.body.dataset.ready = 'true';
  </script></body></html>`;
}

/** Renders `chart` to a PNG at `path`. */
export async function renderChart(chart: ChartPage, path: string): Promise<void> {
  const browser = await launchBrowser({ width: WIDTH, height: 400 });
  try {
    const page = await browser.context.newPage();
    await page.setContent(pageHtml(chart));
    await page.locator('body[data-ready="true"]').waitFor();
    await page.screenshot({ path, fullPage: true });
  } finally {
    await browser.close();
  }
}
