// Charts per epoch, drawn with uPlot on a canvas: thousands of bars draw in milliseconds and the
// library adds about 22 KB gzipped. Heights are floats (a pixel is coarser than their error); the
// legend shows each value's exact text as the cursor moves.

import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { h } from './dom.js';

export interface EpochSeries {
  label: string;
  /** One value per epoch of the chart, for drawing. */
  values: number[];
  /** The exact value per epoch, for the legend. */
  text: string[];
}

/** Colour-blind-aware categorical colours (Tableau 10), each readable on white. */
const COLOURS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

export function colour(i: number): string {
  return COLOURS[i % COLOURS.length]!;
}

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 2 });

/** Axis labels: 1.5K, 20M, 3T; beyond trillions (18-decimal raw amounts) 4.2e20. */
function tickLabel(v: number): string {
  return Math.abs(v) < 1e15 ? compact.format(v) : v.toExponential(1).replace('+', '');
}

function axis(extra: Partial<uPlot.Axis> = {}): uPlot.Axis {
  return {
    stroke: '#333',
    grid: { stroke: '#e4e4e4', width: 1 },
    ticks: { stroke: '#ccc', width: 1 },
    values: (_u, splits) => splits.map((v) => (v === null ? '' : tickLabel(v))),
    size: 64,
    ...extra,
  };
}

const epochAxis: uPlot.Axis = {
  stroke: '#333',
  grid: { show: false },
  ticks: { stroke: '#ccc', width: 1 },
  // Whole epochs only.
  values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? String(v) : '')),
};

const bars = uPlot.paths.bars!({ size: [0.8, 48], gap: 1 });

/**
 * A figure that draws its chart once it is in the page and has a width, and redraws at the new
 * width when the page is resized. It is also readable from the keyboard: focused, the arrow keys
 * (Home, End) move the chart's cursor from epoch to epoch, and a live region reads that epoch's
 * values, the text the legend shows.
 */
function figure(
  opts: { caption: string; description: string; epochs: number[]; read: (i: number) => string },
  make: (width: number) => uPlot.Options,
  data: uPlot.AlignedData,
): HTMLElement {
  const hint = opts.epochs.length > 0 ? ' Focus it and use the arrow keys to read each epoch.' : '';
  const plot = h('div', { class: 'plot', role: 'img', tabindex: opts.epochs.length > 0 ? 0 : null, 'aria-label': opts.description + hint });
  const spoken = h('p', { class: 'visually-hidden', 'aria-live': 'polite' });
  const el = h('figure', { class: 'chart' }, h('figcaption', {}, opts.caption), plot, spoken);
  let chart: uPlot | undefined;
  let at = -1;
  plot.addEventListener('keydown', (event) => {
    const last = opts.epochs.length - 1;
    const next = { ArrowRight: Math.min(at + 1, last), ArrowLeft: Math.max(at - 1, 0), Home: 0, End: last }[event.key];
    if (next === undefined || !chart || last < 0) return;
    event.preventDefault();
    at = next;
    chart.setCursor({ left: chart.valToPos(opts.epochs[at]!, 'x'), top: chart.over.clientHeight / 2 });
    spoken.textContent = opts.read(at);
  });
  const observer = new ResizeObserver(() => {
    if (!plot.isConnected) {
      // Not in the page yet, or the view was left: then uPlot's window listeners go with it.
      if (chart) {
        observer.disconnect();
        chart.destroy();
      }
      return;
    }
    const width = Math.floor(plot.clientWidth);
    if (width === 0) return;
    if (!chart) chart = new uPlot(make(width), data, plot);
    else if (chart.width !== width) chart.setSize({ width, height: chart.height });
  });
  observer.observe(plot);
  return el;
}

/** What the live region reads for one epoch: the epoch and each series' exact text. */
function reading(epochs: number[], series: EpochSeries[]): (i: number) => string {
  return (i) => [`Epoch ${epochs[i]}`, ...series.map((s) => `${s.label}: ${s.text[i]}`)].join('; ');
}

function height(): number {
  return window.innerWidth < 640 ? 240 : 320;
}

/**
 * Values per epoch by category (reward type): stacked bars, or one line per category when split.
 * Stacking draws each category's bar from zero to its running total, the highest total first, so
 * each category shows as its own band.
 */
export function epochChart(opts: {
  caption: string;
  description: string;
  epochs: number[];
  series: EpochSeries[];
  stacked: boolean;
}): HTMLElement {
  const { epochs, series, stacked } = opts;
  let drawn: EpochSeries[] = series;
  if (stacked) {
    const running = epochs.map(() => 0);
    const totals = series.map((s) => ({ ...s, values: s.values.map((v, i) => (running[i]! += v)) }));
    drawn = totals.reverse();
  }
  const colours = new Map(series.map((s, i) => [s.label, colour(i)]));
  const data: uPlot.AlignedData = [epochs, ...drawn.map((s) => s.values)];
  return figure(
    { ...opts, read: reading(epochs, series) },
    (width) => ({
      width,
      height: height(),
      scales: { x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] } },
      axes: [epochAxis, axis()],
      legend: { live: true },
      cursor: { points: { show: !stacked } },
      series: [
        { label: 'Epoch', value: (_u, v) => (v === null ? '—' : String(v)) },
        ...drawn.map((s) => {
          const c = colours.get(s.label)!;
          return {
            label: s.label,
            stroke: c,
            width: stacked ? 0 : 2,
            fill: stacked ? c : undefined,
            paths: stacked ? bars : undefined,
            points: { show: !stacked && epochs.length <= 60, size: 5, fill: c },
            value: (_u: uPlot, _v: number | null, _s: number, i: number | null) => (i === null ? '—' : s.text[i]!),
          } satisfies uPlot.Series;
        }),
      ],
    }),
    data,
  );
}

/** Two quantities per epoch on their own scales: bars on the left axis, a line on the right. */
export function dualChart(opts: {
  caption: string;
  description: string;
  epochs: number[];
  bars: EpochSeries;
  line: EpochSeries;
}): HTMLElement {
  const { epochs } = opts;
  return figure(
    { ...opts, read: reading(epochs, [opts.bars, opts.line]) },
    (width) => ({
      width,
      height: height(),
      scales: { x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] }, left: {}, right: {} },
      axes: [epochAxis, axis({ scale: 'left' }), axis({ scale: 'right', side: 1, grid: { show: false } })],
      series: [
        { label: 'Epoch', value: (_u, v) => (v === null ? '—' : String(v)) },
        {
          label: opts.bars.label,
          scale: 'left',
          stroke: colour(0),
          fill: colour(0),
          width: 0,
          paths: bars,
          value: (_u, _v, _s, i) => (i === null ? '—' : opts.bars.text[i]!),
        },
        {
          label: opts.line.label,
          scale: 'right',
          stroke: colour(1),
          width: 2,
          points: { show: epochs.length <= 60, size: 5, fill: colour(1) },
          value: (_u, _v, _s, i) => (i === null ? '—' : opts.line.text[i]!),
        },
      ],
    }),
    [epochs, opts.bars.values, opts.line.values],
  );
}

/** A small line of values as inline SVG (one per leaderboard row: a chart each would be heavy). */
export function sparkline(values: number[], label: string): SVGSVGElement {
  const width = 100;
  const tall = 24;
  const max = Math.max(...values, 0);
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const points = values
    .map((v, i) => `${(i * step).toFixed(1)},${(tall - 2 - (max > 0 ? (v / max) * (tall - 4) : 0)).toFixed(1)}`)
    .join(' ');
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${tall}`);
  svg.setAttribute('class', 'spark');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
  line.setAttribute('points', values.length === 1 ? `0,${tall / 2} ${width},${tall / 2}` : points);
  svg.append(line);
  return svg;
}
