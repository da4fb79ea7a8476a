// Chart geometry, shared by the SVG (HTML) and the vector (PDF) renderers: both draw exactly the
// same scales, ticks and points, computed once here in a box whose origin is its top-left corner.
import type { TrendPoint } from './document.ts';
import { shortDate } from './format.ts';

export interface Point {
  x: number;
  y: number;
}

export interface TrendGeometry {
  /** The plot area inside the box (axis labels sit outside it). */
  plot: { left: number; top: number; right: number; bottom: number };
  line: Point[];
  yTicks: { y: number; label: string }[];
  xTicks: { x: number; label: string; anchor: 'start' | 'middle' | 'end' }[];
  /** The latest point and its value, labelled on the chart. */
  last: Point & { label: string };
}

const LEFT_GUTTER = 26;
const BOTTOM_GUTTER = 16;
const TOP_GUTTER = 12;
const RIGHT_GUTTER = 8;

/** A score axis with a little room around the data, on steps of 5, 10 or 20, inside 0–100. */
function scoreAxis(values: readonly number[]): { min: number; max: number; step: number } {
  const low = Math.min(...values);
  const high = Math.max(...values);
  let min = Math.max(0, Math.floor((low - 5) / 10) * 10);
  let max = Math.min(100, Math.ceil((high + 5) / 10) * 10);
  if (max - min < 20) {
    if (min === 0) max = Math.min(100, min + 20);
    else min = Math.max(0, max - 20);
  }
  const span = max - min;
  const step = span <= 20 ? 5 : span <= 50 ? 10 : 20;
  return { min, max, step };
}

export function trendGeometry(
  points: readonly TrendPoint[],
  width: number,
  height: number,
  timeZone: string,
): TrendGeometry | null {
  if (points.length === 0) return null;
  const plot = {
    left: LEFT_GUTTER,
    top: TOP_GUTTER,
    right: width - RIGHT_GUTTER,
    bottom: height - BOTTOM_GUTTER,
  };
  const axis = scoreAxis(points.map((p) => p.value));
  const times = points.map((p) => Date.parse(p.date));
  const first = Math.min(...times);
  const lastTime = Math.max(...times);
  const xOf = (t: number) =>
    lastTime === first
      ? (plot.left + plot.right) / 2
      : plot.left + ((t - first) / (lastTime - first)) * (plot.right - plot.left);
  const yOf = (v: number) =>
    plot.bottom - ((v - axis.min) / (axis.max - axis.min)) * (plot.bottom - plot.top);

  const line = points.map((p, i) => ({ x: xOf(times[i] as number), y: yOf(p.value) }));
  const yTicks = [];
  for (let v = axis.min; v <= axis.max; v += axis.step) yTicks.push({ y: yOf(v), label: String(v) });

  const xTicks: TrendGeometry['xTicks'] = [];
  const firstLabel = shortDate(new Date(first).toISOString(), timeZone);
  const lastLabel = shortDate(new Date(lastTime).toISOString(), timeZone);
  if (lastTime === first) {
    xTicks.push({ x: xOf(first), label: firstLabel, anchor: 'middle' });
  } else {
    xTicks.push({ x: plot.left, label: firstLabel, anchor: 'start' });
    const middle = shortDate(new Date((first + lastTime) / 2).toISOString(), timeZone);
    if (points.length > 2 && middle !== firstLabel && middle !== lastLabel) {
      xTicks.push({ x: (plot.left + plot.right) / 2, label: middle, anchor: 'middle' });
    }
    if (lastLabel !== firstLabel) xTicks.push({ x: plot.right, label: lastLabel, anchor: 'end' });
  }
  const end = line[line.length - 1] as Point;
  const latest = points[points.length - 1] as TrendPoint;
  return { plot, line, yTicks, xTicks, last: { ...end, label: latest.value.toFixed(1) } };
}

/** Each segment's share of the whole, for a stacked bar; all zero when the total is. */
export function splitFractions(counts: readonly number[]): number[] {
  const total = counts.reduce((sum, c) => sum + c, 0);
  return counts.map((c) => (total > 0 ? c / total : 0));
}
