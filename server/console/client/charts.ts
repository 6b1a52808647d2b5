import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartDataset,
} from 'chart.js';
import { h } from './dom.js';

// only what the console draws: keeps the bundle small (Chart.js is tree-shaken by esbuild)
Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  Legend,
  Filler,
);

/** Colours of the status classes and series (also meaningful without colour: legends and tables say the same). */
export const PALETTE = ['#2563eb', '#16a34a', '#d97706', '#dc2626', '#7c3aed', '#0891b2', '#db2777', '#4b5563'];

/**
 * A chart in a sized box. The canvas is created here and drawn once the box is in
 * the page (Chart.js measures its parent); the caller appends the returned figure.
 */
export function chartFigure(title: string, draw: (canvas: HTMLCanvasElement) => Chart, summary: string): HTMLElement {
  const canvas = h('canvas', { role: 'img', 'aria-label': `${title}: ${summary}` });
  const figure = h(
    'figure',
    { class: 'chart' },
    h('figcaption', null, title),
    h('div', { class: 'chart-box' }, canvas),
  );
  // drawn on the next frame, when the figure is attached and has a size
  requestAnimationFrame(() => {
    if (canvas.isConnected) draw(canvas);
  });
  return figure;
}

/** A line chart of one or more series over shared labels (e.g. followers per day). */
export function lineChart(
  canvas: HTMLCanvasElement,
  labels: string[],
  series: Array<{ label: string; data: Array<number | null> }>,
): Chart {
  const datasets: Array<ChartDataset<'line'>> = series.map((s, i) => ({
    label: s.label,
    data: s.data,
    borderColor: PALETTE[i % PALETTE.length],
    backgroundColor: `${PALETTE[i % PALETTE.length]}22`,
    pointRadius: 0,
    borderWidth: 2,
    fill: series.length === 1,
    tension: 0.2,
  }));
  return new Chart(canvas, {
    type: 'line',
    data: { labels, datasets },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: 'index', intersect: false },
      plugins: { legend: { display: series.length > 1 } },
      scales: { x: { ticks: { maxTicksLimit: 8 } } },
    },
  });
}

/** Horizontal bars of shares (percent), one per category. */
export function shareBars(canvas: HTMLCanvasElement, labels: string[], values: number[]): Chart {
  return new Chart(canvas, {
    type: 'bar',
    data: { labels, datasets: [{ label: '%', data: values, backgroundColor: PALETTE[0] }] },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      indexAxis: 'y',
      plugins: { legend: { display: false } },
      scales: { x: { beginAtZero: true, ticks: { callback: (v) => `${v}%` } } },
    },
  });
}

/** Stacked vertical bars: one stack per label, one colour per series (e.g. requests per day by status class). */
export function stackedBars(
  canvas: HTMLCanvasElement,
  labels: string[],
  series: Array<{ label: string; data: number[]; color: string }>,
): Chart {
  return new Chart(canvas, {
    type: 'bar',
    data: { labels, datasets: series.map((s) => ({ label: s.label, data: s.data, backgroundColor: s.color })) },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: 'index', intersect: false },
      scales: { x: { stacked: true, ticks: { maxTicksLimit: 10 } }, y: { stacked: true, beginAtZero: true } },
    },
  });
}

/** Vertical bars, one colour each, for a few values side by side (e.g. sponsored against organic engagement); `unit` follows each tick. */
export function compareBars(
  canvas: HTMLCanvasElement,
  labels: string[],
  values: Array<number | null>,
  unit = '',
): Chart {
  return new Chart(canvas, {
    type: 'bar',
    data: {
      labels,
      datasets: [
        { label: unit || 'value', data: values, backgroundColor: labels.map((_, i) => PALETTE[i % PALETTE.length]!) },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      plugins: { legend: { display: false } },
      scales: { y: { beginAtZero: true, ticks: { callback: (v) => `${v}${unit}` } } },
    },
  });
}
