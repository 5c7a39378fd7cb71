// The workspace activity recorder (issue 25) on a fake clock: its memory stays bounded by closed sets
// (routes, error classes, the config's workspaces, 60 one-minute slots), old minutes are recycled,
// and the latency quantiles come from the fixed-bucket histogram.
import { describe, expect, it } from 'vitest';
import {
  ACTIVITY_ERROR_CLASSES,
  ActivityRecorder,
  BUCKET_MS,
  BUCKETS,
} from '../../../gateway/telemetry/activity-recorder.js';

const ROUTES = ['/agent/tools', '/agent/sources', '/mcp'];

function recorder(clock: { now: number }): ActivityRecorder {
  const r = new ActivityRecorder(() => clock.now);
  for (const route of ROUTES) r.addRoute(route);
  return r;
}

describe('ActivityRecorder', () => {
  it('console:activity-bounds — routes, error classes and workspaces are closed sets; slots are recycled', () => {
    const clock = { now: 1_000 * BUCKET_MS };
    const r = recorder(clock);
    // Any route outside the app's own is `unmatched`, any class outside the catalogue `internal`.
    for (let i = 0; i < 5_000; i += 1) {
      r.record('alpha', `/probe/${i}`, `class-${i}`, i % 300);
      r.record('alpha', ROUTES[i % ROUTES.length], ACTIVITY_ERROR_CLASSES[i % 7], 1);
      r.record(`ws-${i % 3}`, '/mcp', undefined, 1);
    }
    const alpha = r.series('alpha');
    expect(alpha.filter((s) => s.route === 'unmatched').map((s) => s.error_class)).toEqual(['internal']);
    expect(new Set(alpha.map((s) => s.route))).toEqual(new Set([...ROUTES, 'unmatched']));
    // At most (routes + unmatched) × 7 classes per workspace, whatever was sent.
    expect(alpha.length).toBeLessThanOrEqual((ROUTES.length + 1) * ACTIVITY_ERROR_CLASSES.length);
    expect(r.workspaceCount).toBe(4);
    // Only the workspaces of the config are kept.
    r.retain(new Set(['alpha', 'ws-1']));
    expect(r.workspaceCount).toBe(2);
    expect(r.series('ws-0')).toEqual([]);
    // An hour later the same slot holds the new minute only; the old count is gone.
    clock.now += BUCKETS * BUCKET_MS;
    r.record('alpha', '/mcp', undefined, 1);
    const mcp = r.series('alpha').find((s) => s.route === '/mcp' && s.error_class === 'none');
    expect(mcp?.buckets).toHaveLength(BUCKETS);
    expect(mcp?.buckets.reduce((sum, b) => sum + b.count, 0)).toBe(1);
    // Series with nothing in the last hour are dropped and their memory released.
    expect(r.series('ws-1')).toEqual([]);
    expect(r.seriesCount).toBe(1);
    expect(r.workspaceCount).toBe(1);
    clock.now += BUCKETS * BUCKET_MS;
    expect(r.series('alpha')).toEqual([]);
    expect(r.seriesCount).toBe(0);
    expect(r.workspaceCount).toBe(0);
  });

  it('console:activity-buckets — one-minute buckets over the last hour, oldest first, with p50 and p95', () => {
    const clock = { now: 2_000 * BUCKET_MS + 30_000 };
    const r = recorder(clock);
    for (let i = 0; i < 100; i += 1) r.record('alpha', '/agent/tools', undefined, i < 90 ? 3 : 400);
    clock.now -= 5 * BUCKET_MS;
    r.record('alpha', '/agent/tools', undefined, 20);
    clock.now += 5 * BUCKET_MS;
    const [series] = r.series('alpha');
    const buckets = series!.buckets;
    expect(buckets).toHaveLength(60);
    expect(buckets[59]!.start).toBe(new Date(2_000 * BUCKET_MS).toISOString());
    expect(buckets[0]!.start).toBe(new Date((2_000 - 59) * BUCKET_MS).toISOString());
    expect(buckets[59]!.count).toBe(100);
    expect(buckets[59]!.p50_ms).toBeGreaterThan(2);
    expect(buckets[59]!.p50_ms).toBeLessThanOrEqual(5);
    expect(buckets[59]!.p95_ms).toBeGreaterThan(250);
    expect(buckets[59]!.p95_ms).toBeLessThanOrEqual(500);
    expect(buckets[54]).toMatchObject({ count: 1 });
    expect(buckets[54]!.p50_ms).toBeGreaterThan(10);
    expect(buckets[54]!.p50_ms).toBeLessThanOrEqual(25);
    expect(buckets[30]).toMatchObject({ count: 0, p50_ms: null, p95_ms: null });
  });
});
