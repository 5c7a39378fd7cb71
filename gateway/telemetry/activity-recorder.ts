// The workspace activity behind GET /agent/activity (issue 25): per workspace, the requests of the
// last hour in one-minute buckets by route and error class, with latency quantiles from a small
// fixed-bucket histogram. The OpenTelemetry counters are no-ops when telemetry is off, so the
// console reads this instead. Per replica (docs/decisions.md). Memory is bounded by closed sets:
// routes are the app's registered routes (anything else is `unmatched`), error classes are the
// catalogue's six plus `none`, workspaces are those of the current config (`retain`), and each
// series is a ring of 60 slots that recycles a slot when its minute comes round again.
import type { ErrorClass } from '../errors/index.js';

export const BUCKET_MS = 60_000;
export const BUCKETS = 60;

export const ACTIVITY_ERROR_CLASSES = [
  'none',
  'proxy_authorization',
  'upstream_reachability',
  'upstream_authorization',
  'tool_execution',
  'request',
  'internal',
] as const satisfies readonly (ErrorClass | 'none')[];
export type ActivityErrorClass = (typeof ACTIVITY_ERROR_CLASSES)[number];

/** Upper bounds (ms) of the latency histogram's bins; one more bin holds everything slower. */
export const LATENCY_BOUNDS_MS = [2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 10_000] as const;
const BINS = LATENCY_BOUNDS_MS.length + 1;
const CLASS_INDEX = new Map<string, number>(ACTIVITY_ERROR_CLASSES.map((name, i) => [name, i]));
const UNMATCHED = 'unmatched';

export interface ActivityBucket {
  readonly start: string;
  readonly count: number;
  readonly p50_ms: number | null;
  readonly p95_ms: number | null;
}

export interface ActivitySeries {
  readonly route: string;
  readonly error_class: ActivityErrorClass;
  readonly buckets: ActivityBucket[];
}

/** One route and error class: 60 slots, each the histogram of one minute. */
class Ring {
  /** The minute (epoch ms / 60,000) each slot holds; -1 for never used. */
  readonly minutes = new Float64Array(BUCKETS).fill(-1);
  readonly bins = new Uint32Array(BUCKETS * BINS);
  lastMinute = -1;

  add(minute: number, ms: number): void {
    const slot = minute % BUCKETS;
    const base = slot * BINS;
    if (this.minutes[slot] !== minute) {
      this.minutes[slot] = minute;
      this.bins.fill(0, base, base + BINS);
    }
    let bin = 0;
    while (bin < LATENCY_BOUNDS_MS.length && ms > LATENCY_BOUNDS_MS[bin]!) bin += 1;
    this.bins[base + bin]! += 1;
    this.lastMinute = minute;
  }

  bucket(minute: number): { count: number; p50: number | null; p95: number | null } {
    const slot = minute % BUCKETS;
    if (this.minutes[slot] !== minute) return { count: 0, p50: null, p95: null };
    const base = slot * BINS;
    let count = 0;
    for (let bin = 0; bin < BINS; bin += 1) count += this.bins[base + bin]!;
    if (count === 0) return { count, p50: null, p95: null };
    return { count, p50: this.quantile(base, count, 0.5), p95: this.quantile(base, count, 0.95) };
  }

  /** Linear within the bin that holds the quantile; the open last bin reads as its lower bound. */
  private quantile(base: number, count: number, q: number): number {
    const rank = q * count;
    let below = 0;
    for (let bin = 0; bin < BINS; bin += 1) {
      const inBin = this.bins[base + bin]!;
      if (below + inBin >= rank && inBin > 0) {
        const low = bin === 0 ? 0 : LATENCY_BOUNDS_MS[bin - 1]!;
        const high = LATENCY_BOUNDS_MS[bin];
        if (high === undefined) return low;
        return Math.round((low + ((rank - below) / inBin) * (high - low)) * 10) / 10;
      }
      below += inBin;
    }
    return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]!;
  }
}

export class ActivityRecorder {
  private readonly routes = new Map<string, number>([[UNMATCHED, 0]]);
  private readonly workspaces = new Map<string, Map<number, Ring>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Adds a route to the closed set (the app calls it for every route it registers). */
  addRoute(route: string): void {
    if (!this.routes.has(route)) this.routes.set(route, this.routes.size);
  }

  /** Counts one finished request of `workspace`; an unknown route is `unmatched`, an unknown error
   * class `internal`. */
  record(workspace: string, route: string | undefined, errorClass: string | undefined, ms: number): void {
    const r = (route === undefined ? undefined : this.routes.get(route)) ?? 0;
    const c =
      errorClass === undefined ? 0 : (CLASS_INDEX.get(errorClass) ?? ACTIVITY_ERROR_CLASSES.length - 1);
    let series = this.workspaces.get(workspace);
    if (series === undefined) {
      series = new Map();
      this.workspaces.set(workspace, series);
    }
    const id = r * ACTIVITY_ERROR_CLASSES.length + c;
    let ring = series.get(id);
    if (ring === undefined) {
      ring = new Ring();
      series.set(id, ring);
    }
    ring.add(Math.floor(this.now() / BUCKET_MS), ms);
  }

  /** Forgets every workspace not named (called when the config changes). */
  retain(names: ReadonlySet<string>): void {
    for (const name of this.workspaces.keys()) if (!names.has(name)) this.workspaces.delete(name);
  }

  /** The last hour of one workspace, oldest bucket first; series with no request in it are left
   * out (and their memory released). */
  series(workspace: string): ActivitySeries[] {
    const current = Math.floor(this.now() / BUCKET_MS);
    const first = current - BUCKETS + 1;
    const rings = this.workspaces.get(workspace);
    if (rings === undefined) return [];
    const names = [...this.routes.keys()];
    const out: ActivitySeries[] = [];
    for (const [id, ring] of rings) {
      if (ring.lastMinute < first) {
        rings.delete(id);
        continue;
      }
      const buckets: ActivityBucket[] = [];
      for (let minute = first; minute <= current; minute += 1) {
        const { count, p50, p95 } = ring.bucket(minute);
        buckets.push({ start: new Date(minute * BUCKET_MS).toISOString(), count, p50_ms: p50, p95_ms: p95 });
      }
      const routeIndex = Math.floor(id / ACTIVITY_ERROR_CLASSES.length);
      out.push({
        route: names[routeIndex] ?? UNMATCHED,
        error_class: ACTIVITY_ERROR_CLASSES[id % ACTIVITY_ERROR_CLASSES.length]!,
        buckets,
      });
    }
    if (rings.size === 0) this.workspaces.delete(workspace);
    return out.sort((a, b) => a.route.localeCompare(b.route) || a.error_class.localeCompare(b.error_class));
  }

  /** How many series are held (for the bounds test). */
  get seriesCount(): number {
    let total = 0;
    for (const rings of this.workspaces.values()) total += rings.size;
    return total;
  }

  get workspaceCount(): number {
    return this.workspaces.size;
  }
}
