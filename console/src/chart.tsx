// A uPlot time series chart that keeps its instance and only swaps data on updates.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartProps {
  title: string;
  labels: string[];
  /** [x (unix seconds), ...series]. */
  data: number[][];
  unit?: (v: number) => string;
}

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea'];

export function Chart({ title, labels, data, unit }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  useEffect(() => {
    const el = box.current!;
    const width = Math.max(Math.min(el.clientWidth, 1200), 280);
    plot.current = new uPlot(
      {
        title,
        width,
        height: 180,
        series: [{}, ...labels.map((label, i) => ({ label, stroke: COLORS[i % COLORS.length], width: 2, value: (_u: uPlot, v: number | null) => (v === null ? '–' : unit ? unit(v) : String(v)) }))],
        axes: [{}, { size: 84, values: (_u: uPlot, vals: number[]) => vals.map((v) => (unit ? unit(v) : String(v))) }],
      },
      data as uPlot.AlignedData,
      el,
    );
    el.dataset.ready = 'true';
    // For bench/console.ts: time from navigation to the first chart drawn.
    if (performance.getEntriesByName('kafkite:first-chart').length === 0) performance.mark('kafkite:first-chart');
    const resize = () => plot.current?.setSize({ width: Math.max(Math.min(el.clientWidth, 1200), 280), height: 180 });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.current?.destroy();
      plot.current = null;
    };
  }, [title, labels.join(',')]);
  useEffect(() => plot.current?.setData(data as uPlot.AlignedData), [data]);
  return <div class="chart" ref={box} role="img" aria-label={`${title} chart`} />;
}
