// `server.tasks` (issue 43): the bounds on MCP tasks, with their defaults and ranges, strict like
// every section.
import { describe, expect, it } from 'vitest';
import { validateConfig, type ConfigParseResult } from '../../../gateway/config/index.js';
import { TASK_DEFAULTS } from '../../../gateway/config/server-schema.js';

const paths = (result: ConfigParseResult): string[] =>
  result.ok ? [] : result.problems.map((problem) => problem.path);

describe('server.tasks', () => {
  it('tasks:config — defaults 100 places, 1 MiB held results for 10 min; out-of-range values and unknown fields are refused by path', () => {
    const defaults = validateConfig({ version: 1 });
    expect(defaults.ok && defaults.config.server.tasks).toEqual({
      maxPerKey: 100,
      heldResultMaxBytes: 1024 * 1024,
      heldTtlMs: 600_000,
    });
    expect(TASK_DEFAULTS).toEqual(defaults.ok ? defaults.config.server.tasks : undefined);
    // A section given in part gets the other defaults.
    const partial = validateConfig({ version: 1, server: { tasks: { maxPerKey: 5 } } });
    expect(partial.ok && partial.config.server.tasks).toEqual({ ...TASK_DEFAULTS, maxPerKey: 5 });
    const edges = { maxPerKey: 100_000, heldResultMaxBytes: 16 * 1024 * 1024, heldTtlMs: 86_400_000 };
    expect(validateConfig({ version: 1, server: { tasks: edges } }).ok).toBe(true);
    expect(
      validateConfig({
        version: 1,
        server: { tasks: { maxPerKey: 1, heldResultMaxBytes: 1024, heldTtlMs: 1000 } },
      }).ok,
    ).toBe(true);
    for (const [field, value] of [
      ['maxPerKey', 0],
      ['maxPerKey', 100_001],
      ['maxPerKey', 1.5],
      ['heldResultMaxBytes', 1023],
      ['heldResultMaxBytes', 16 * 1024 * 1024 + 1],
      ['heldTtlMs', 999],
      ['heldTtlMs', 86_400_001],
      ['heldTtlMs', '600000'],
    ] as const)
      expect(paths(validateConfig({ version: 1, server: { tasks: { [field]: value } } }))).toEqual([
        `server.tasks.${field}`,
      ]);
    expect(paths(validateConfig({ version: 1, server: { tasks: { maxPerWorkspace: 10 } } }))).toEqual([
      'server.tasks',
    ]);
  });
});
