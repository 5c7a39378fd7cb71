// The heap growing factor the long-running commands set (issue 45): the default, the override, V8's
// own choice, and a clear refusal of a value that is not one. What the flag does to memory under
// load is measured by the benchmarks, not here.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HEAP_GROWING_PERCENT, heapGrowingPercent } from '../../../gateway/platform/heap-growth.js';

describe('heap growth', () => {
  it('platform:heap-growing-percent — 50 by default, the variable when it is 0–400, a refusal naming it otherwise', () => {
    expect(heapGrowingPercent({})).toBe(DEFAULT_HEAP_GROWING_PERCENT);
    expect(DEFAULT_HEAP_GROWING_PERCENT).toBe(50);
    expect(heapGrowingPercent({ AGW_HEAP_GROWING_PERCENT: '' })).toBe(50);
    expect(heapGrowingPercent({ AGW_HEAP_GROWING_PERCENT: '0' })).toBe(0);
    expect(heapGrowingPercent({ AGW_HEAP_GROWING_PERCENT: '20' })).toBe(20);
    expect(heapGrowingPercent({ AGW_HEAP_GROWING_PERCENT: '400' })).toBe(400);
    for (const bad of ['401', '-1', '1.5', '20%', 'lots', ' 20', '1e2'])
      expect(() => heapGrowingPercent({ AGW_HEAP_GROWING_PERCENT: bad })).toThrow(
        /AGW_HEAP_GROWING_PERCENT must be a whole number from 0 to 400/,
      );
  });

  it('platform:heap-growing-percent — `serve` refuses a bad value before it reads its config, with exit code 2', () => {
    const run = spawnSync(
      process.execPath,
      ['bin/agent-gateway.js', 'serve', '--config', '/nonexistent.yaml'],
      {
        env: { ...process.env, AGW_HEAP_GROWING_PERCENT: 'lots' },
        encoding: 'utf8',
      },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('AGW_HEAP_GROWING_PERCENT must be a whole number from 0 to 400');
    expect(run.stderr).not.toContain('nonexistent');
  });
});
