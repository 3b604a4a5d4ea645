/**
 * A self-contained HTML page of tables and uPlot charts: uPlot's script and
 * stylesheet are inlined from node_modules, and the chart data is embedded
 * as JSON, so the file opens anywhere with no network.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** One line of a chart. */
export interface ChartSeries {
  label: string;
  values: (number | null)[];
}

/** A chart: one x axis shared by its series; phases draw as labelled vertical lines. */
export interface Chart {
  title: string;
  xLabel: string;
  yLabel: string;
  x: number[];
  series: ChartSeries[];
  phases?: { name: string; t: number }[];
  logX?: boolean;
}

/** A part of the page: raw HTML (already escaped), or a chart. */
export type Section = { html: string } | { chart: Chart };

/** Escapes text for HTML. */
export function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function uplotAssets(): { js: string; css: string } {
  const dist = dirname(createRequire(import.meta.url).resolve('uplot'));
  return {
    js: readFileSync(join(dist, 'uPlot.iife.min.js'), 'utf8'),
    css: readFileSync(join(dist, 'uPlot.min.css'), 'utf8'),
  };
}

/** Series on different x grids merged onto one sorted x (null where a series has no point). */
export function mergeX(parts: { label: string; x: number[]; y: (number | null)[] }[]): {
  x: number[];
  series: ChartSeries[];
} {
  const xs = [...new Set(parts.flatMap((p) => p.x))].sort((a, b) => a - b);
  const index = new Map(xs.map((v, i) => [v, i]));
  return {
    x: xs,
    series: parts.map((p) => {
      const values: (number | null)[] = new Array<number | null>(xs.length).fill(null);
      p.x.forEach((v, i) => (values[index.get(v)!] = p.y[i] ?? null));
      return { label: p.label, values };
    }),
  };
}

const COLORS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
];

// The page's own script: draws every chart in `CHARTS`, and counts those drawn in window.__chartsDrawn.
const PAGE_SCRIPT = `
(function () {
  const COLORS = ${JSON.stringify(COLORS)};
  const charts = JSON.parse(document.getElementById('chart-data').textContent);
  window.__chartsDrawn = 0;
  charts.forEach(function (c, i) {
    const el = document.getElementById('chart-' + i);
    const phasePlugin = {
      hooks: {
        draw: [function (u) {
          if (!c.phases) return;
          const ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = '#888';
          ctx.fillStyle = '#444';
          ctx.setLineDash([4, 4]);
          ctx.font = (10 * devicePixelRatio) + 'px sans-serif';
          c.phases.forEach(function (p) {
            const x = u.valToPos(p.t, 'x', true);
            if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
            ctx.beginPath();
            ctx.moveTo(x, u.bbox.top);
            ctx.lineTo(x, u.bbox.top + u.bbox.height);
            ctx.stroke();
            ctx.fillText(p.name, x + 3, u.bbox.top + 12 * devicePixelRatio);
          });
          ctx.restore();
        }],
      },
    };
    const opts = {
      title: c.title,
      width: Math.min(1000, el.clientWidth || 900),
      height: 300,
      scales: { x: c.logX ? { time: false, distr: 3 } : { time: false } },
      axes: [{ label: c.xLabel }, { label: c.yLabel }],
      series: [{ label: c.xLabel }].concat(c.series.map(function (s, k) {
        return { label: s.label, stroke: COLORS[k % COLORS.length], width: 2, spanGaps: true };
      })),
      plugins: [phasePlugin],
    };
    const data = [c.x].concat(c.series.map(function (s) { return s.values; }));
    new uPlot(opts, data, el);
    window.__chartsDrawn++;
  });
})();
`;

/** Renders a page with the sections in order. */
export function renderPage(title: string, sections: Section[]): string {
  const { js, css } = uplotAssets();
  const charts: Chart[] = [];
  const body = sections
    .map((s) => {
      if ('html' in s) return s.html;
      charts.push(s.chart);
      return `<div class="chart" id="chart-${charts.length - 1}"></div>`;
    })
    .join('\n');
  // </script> inside the JSON would end the script element early.
  const data = JSON.stringify(charts, (_k, v: unknown) =>
    typeof v === 'number' && !Number.isFinite(v) ? null : v,
  ).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>${css}
body{font-family:system-ui,sans-serif;margin:24px;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:8px 0 20px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f4f4f4}
td:first-child,th:first-child{text-align:left}.pass{color:#177a17;font-weight:bold}.fail{color:#b00;font-weight:bold}
.chart{margin:12px 0 28px}.lesson{background:#f3f7ff;border-left:4px solid #1f77b4;padding:8px 12px}
.bar{display:inline-block;height:14px;vertical-align:middle}
</style></head><body>
<h1>${esc(title)}</h1>
${body}
<script id="chart-data" type="application/json">${data}</script>
<script>${js}</script>
<script>${PAGE_SCRIPT}</script>
</body></html>
`;
}
