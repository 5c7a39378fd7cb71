// A small SVG line chart of our own (no library): time on x, one line per series, y from zero to a
// rounded maximum, four grid lines, a tick every quarter of the window. Colours come from CSS classes
// (series-0 … series-7), so nothing is styled inline. The SVG is an image with a title and a text
// description; the caller puts the same numbers in a table for people who cannot see it.
import { el } from '../dom.js';

export interface ChartSeries {
  readonly label: string;
  /** [epoch ms, value or null (no data)] */
  readonly points: readonly (readonly [number, number | null])[];
}

export interface ChartSpec {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly unit: string;
  readonly from: number;
  readonly to: number;
  readonly series: readonly ChartSeries[];
}

const SVG = 'http://www.w3.org/2000/svg';
const W = 640;
const H = 220;
const PAD = { left: 48, right: 12, top: 26, bottom: 28 };
export const PALETTE_SIZE = 8;

function svg(tag: string, attrs: Readonly<Record<string, string | number>>, text?: string): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 2.5, 5, 10].find((s) => s * power >= value) ?? 10;
  return step * power;
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

export function lineChart(spec: ChartSpec): HTMLElement {
  const values = spec.series.flatMap((s) => s.points.map(([, v]) => v ?? 0));
  const top = niceMax(Math.max(0, ...values));
  const x = (t: number) =>
    PAD.left + ((t - spec.from) / Math.max(1, spec.to - spec.from)) * (W - PAD.left - PAD.right);
  const y = (v: number) => H - PAD.bottom - (v / top) * (H - PAD.top - PAD.bottom);
  const root = svg('svg', {
    viewBox: `0 0 ${W} ${H}`,
    role: 'img',
    'aria-labelledby': `${spec.id}-title ${spec.id}-desc`,
    class: 'chart',
  });
  root.append(
    svg('title', { id: `${spec.id}-title` }, spec.title),
    svg('desc', { id: `${spec.id}-desc` }, spec.description),
  );
  for (let i = 0; i <= 4; i += 1) {
    const value = (top * i) / 4;
    root.append(
      svg('line', {
        x1: PAD.left,
        x2: W - PAD.right,
        y1: y(value),
        y2: y(value),
        class: i === 0 ? 'axis' : 'grid',
      }),
      svg(
        'text',
        { x: PAD.left - 6, y: y(value) + 4, 'text-anchor': 'end', class: 'tick' },
        `${Number(value.toPrecision(3))}`,
      ),
    );
  }
  for (let i = 0; i <= 4; i += 1) {
    const t = spec.from + ((spec.to - spec.from) * i) / 4;
    root.append(
      svg(
        'text',
        { x: x(t), y: H - 8, 'text-anchor': i === 0 ? 'start' : i === 4 ? 'end' : 'middle', class: 'tick' },
        clock(t),
      ),
    );
  }
  root.append(svg('text', { x: 4, y: 12, class: 'tick' }, spec.unit));
  spec.series.forEach((series, index) => {
    // A gap (null) breaks the line rather than drawing it down to zero.
    let run: string[] = [];
    const flush = () => {
      if (run.length > 1)
        root.append(svg('polyline', { points: run.join(' '), class: `line series-${index % PALETTE_SIZE}` }));
      if (run.length === 1) {
        const [cx, cy] = (run[0] as string).split(',');
        root.append(
          svg('circle', { cx: cx ?? 0, cy: cy ?? 0, r: 2.5, class: `dot series-${index % PALETTE_SIZE}` }),
        );
      }
      run = [];
    };
    for (const [t, v] of series.points) {
      if (v === null) flush();
      else run.push(`${x(t).toFixed(1)},${y(v).toFixed(1)}`);
    }
    flush();
  });
  const legend = el(
    'ul',
    { class: 'legend', 'aria-label': `${spec.title}: series` },
    ...spec.series.map((s, i) =>
      el(
        'li',
        {},
        el('span', { class: `swatch series-${i % PALETTE_SIZE}`, 'aria-hidden': 'true' }),
        s.label,
      ),
    ),
  );
  const figure = el('figure', { class: 'chart-figure' });
  figure.append(root, legend);
  return figure;
}
