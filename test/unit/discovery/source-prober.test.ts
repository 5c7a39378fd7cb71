// The background prober of failing sources (issue 37 item 12): backoff with jitter never below the
// breaker's own cadence once capped, one probe at a time per source, a bound per replica, and
// nothing left running after recovery, a config change or shutdown. Fake timers, a twin probe.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { validateConfig, type McpSourceConfig } from '../../../gateway/config/index.js';
import { MAX_RUNNING_PROBES, SourceProber } from '../../../gateway/discovery/source-prober.js';

function source(name: string, resetTimeoutMs = 15_000): McpSourceConfig {
  const parsed = validateConfig({
    version: 1,
    workspaces: [
      {
        name: 'demo',
        mcpSources: [
          { name, transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp', breaker: { resetTimeoutMs } },
        ],
      },
    ],
  });
  if (!parsed.ok) throw new Error('config');
  return parsed.config.workspaces[0]!.mcpSources[0]!;
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('SourceProber', () => {
  it('discovery:probe-backoff — waits 1 s, then twice as long each time, up to the breaker reset time, stretched by at most a quarter', async () => {
    const starts: number[] = [];
    for (const random of [0, 0.999]) {
      starts.length = 0;
      const prober = new SourceProber({
        probe: () => {
          starts.push(Date.now());
          return Promise.resolve();
        },
        random: () => random,
      });
      const began = Date.now();
      expect(prober.fail('k', { workspace: 'demo', source: source('s', 10_000) }, 'connection refused')).toBe(
        true,
      );
      await vi.advanceTimersByTimeAsync(80_000);
      const gaps = starts.map((at, i) => at - (i === 0 ? began : (starts[i - 1] as number)));
      const raw = [1000, 2000, 4000, 8000, 10_000, 10_000];
      raw.forEach((expected, i) => {
        expect(gaps[i]).toBeGreaterThanOrEqual(expected);
        expect(gaps[i]).toBeLessThanOrEqual(expected * 1.25);
      });
      prober.close();
    }
  });

  it('discovery:probe-once — a source fails once (one transition), has one probe at a time, and stops being probed when it recovers', async () => {
    let running = 0;
    let most = 0;
    let probes = 0;
    const prober = new SourceProber({
      probe: async () => {
        probes += 1;
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5000));
        running -= 1;
      },
    });
    const target = { workspace: 'demo', source: source('s', 1000) };
    expect(prober.fail('k', target, 'connection refused')).toBe(true);
    expect(prober.fail('k', target, 'HTTP 503')).toBe(false);
    expect(prober.failing('k')?.lastError).toBe('HTTP 503');
    await vi.advanceTimersByTimeAsync(20_000);
    expect(most).toBe(1);
    expect(probes).toBeGreaterThan(1);
    expect(prober.recovered('k')).toBe(true);
    expect(prober.recovered('k')).toBe(false);
    const after = probes;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(probes).toBe(after);
    expect(prober.failing('k')).toBeUndefined();
  });

  it('discovery:probe-bounded — at most MAX_RUNNING_PROBES probes run at once on a replica', async () => {
    let running = 0;
    let most = 0;
    const prober = new SourceProber({
      probe: async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 15_000));
        running -= 1;
      },
    });
    for (let i = 0; i < MAX_RUNNING_PROBES * 3; i += 1)
      prober.fail(`k${i}`, { workspace: 'demo', source: source(`s${i}`) }, 'no answer within the time-out');
    await vi.advanceTimersByTimeAsync(120_000);
    expect(most).toBe(MAX_RUNNING_PROBES);
    prober.close();
  });

  it('discovery:probe-stopped — retain drops sources no longer configured; close stops every probe', async () => {
    const probed: string[] = [];
    const prober = new SourceProber({
      probe: ({ source: probedSource }) => {
        probed.push(probedSource.name);
        return Promise.resolve();
      },
    });
    prober.fail('a', { workspace: 'demo', source: source('a') }, 'connection refused');
    prober.fail('b', { workspace: 'demo', source: source('b') }, 'connection refused');
    prober.retain(new Set(['b']));
    expect(prober.keys()).toEqual(['b']);
    await vi.advanceTimersByTimeAsync(1300);
    expect(probed).toEqual(['b']);
    prober.close();
    expect(prober.fail('c', { workspace: 'demo', source: source('c') }, 'connection refused')).toBe(false);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(probed).toEqual(['b']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
