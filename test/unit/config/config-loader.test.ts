import { describe, it, expect } from 'vitest';
import {
  formatPath,
  formatProblems,
  parseConfigText,
  validateConfig,
  type ConfigParseResult,
  type ConfigProblem,
} from '../../../gateway/config/index.js';

import { ALIAS_BOMB } from '../support/config-fixtures.js';

const HASH = `sha256:${'a'.repeat(64)}`;

function problemsOf(result: ConfigParseResult): readonly ConfigProblem[] {
  if (result.ok) throw new Error('expected the config to be rejected');
  return result.problems;
}

function problemAt(result: ConfigParseResult, path: string): ConfigProblem {
  const problem = problemsOf(result).find((p) => p.path === path);
  if (problem === undefined)
    throw new Error(`no problem at ${path}; got ${JSON.stringify(problemsOf(result))}`);
  return problem;
}

function httpSource(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp', ...extra };
}

describe('parseConfigText', () => {
  it('fills in server and source defaults for a minimal config', () => {
    const result = parseConfigText(
      'version: 1\nworkspaces:\n  - name: demo\n    mcpSources:\n      - name: docs\n        transport: streamable-http\n        url: http://localhost:3000/mcp\n',
    );
    if (!result.ok) throw new Error(formatProblems(result.problems));
    expect(result.config.server.host).toBe('127.0.0.1');
    expect(result.config.server.port).toBe(8080);
    const source = result.config.workspaces[0]!.mcpSources[0]!;
    expect(source.timeouts.listMs).toBe(15_000);
    expect(source.timeouts.callMs).toBe(60_000);
    expect(source.tools).toEqual({ include: ['*'], exclude: [] });
    expect(result.config.workspaces[0]!.keys).toEqual([]);
  });

  it('accepts JSON text as well as YAML', () => {
    const result = parseConfigText(JSON.stringify({ version: 1, server: { port: 9090 } }));
    expect(result.ok && result.config.server.port).toBe(9090);
  });

  it('reports a YAML syntax error with the line it occurred on', () => {
    const problems = problemsOf(
      parseConfigText('version: 1\nworkspaces:\n  - name: demo\n   bad: [unclosed\n'),
    );
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]!.path).toMatch(/^\(line \d+\)$/);
    expect(problems[0]!.message).not.toContain('\n');
  });

  it('rejects duplicate mapping keys in the YAML text', () => {
    const problems = problemsOf(parseConfigText('version: 1\nversion: 1\n'));
    expect(problems[0]!.path).toBe('(line 2)');
  });

  it('rejects an empty document because the version is required', () => {
    expect(problemAt(parseConfigText(''), 'version').message).toContain('must be 1');
  });

  it('returns a problem instead of throwing for a document with too many aliases', () => {
    let result: ConfigParseResult | undefined;
    expect(() => {
      result = parseConfigText(ALIAS_BOMB);
    }).not.toThrow();
    expect(result?.ok).toBe(false);
  });

  it('applies the transform to the parsed document before validation', () => {
    const result = parseConfigText('version: 1\n', (doc) => ({ ...(doc as object), server: { port: 1234 } }));
    expect(result.ok && result.config.server.port).toBe(1234);
  });
});

describe('validateConfig', () => {
  it('rejects unknown keys and names their path', () => {
    const result = validateConfig({ version: 1, workspaces: [{ name: 'demo', colour: 'blue' }] });
    const problem = problemsOf(result).find((p) => p.path === 'workspaces[0]');
    expect(problem?.message).toContain('colour');
  });

  it('config:drain-delay-below-grace — server.drainDelayMs defaults to 0 and must be less than shutdownGraceMs', () => {
    const defaults = validateConfig({ version: 1 });
    expect(defaults.ok && defaults.config.server.drainDelayMs).toBe(0);
    const drained = validateConfig({ version: 1, server: { drainDelayMs: 3000, shutdownGraceMs: 10_000 } });
    expect(drained.ok && drained.config.server.drainDelayMs).toBe(3000);
    // No drain fits any grace, even none.
    expect(validateConfig({ version: 1, server: { drainDelayMs: 0, shutdownGraceMs: 0 } }).ok).toBe(true);
    for (const [drainDelayMs, shutdownGraceMs] of [
      [10_000, 10_000],
      [15_000, 10_000],
      [1, 0],
    ] as const) {
      const problem = problemAt(
        validateConfig({ version: 1, server: { drainDelayMs, shutdownGraceMs } }),
        'server.drainDelayMs',
      );
      expect(problem.message).toContain(`less than server.shutdownGraceMs (${shutdownGraceMs})`);
    }
    expect(
      problemAt(validateConfig({ version: 1, server: { drainDelayMs: 60_001 } }), 'server.drainDelayMs'),
    ).toBeDefined();
    expect(
      problemAt(validateConfig({ version: 1, server: { drainDelayMs: -1 } }), 'server.drainDelayMs'),
    ).toBeDefined();
  });

  it('rejects unknown top-level keys', () => {
    expect(problemAt(validateConfig({ version: 1, extra: true }), '(root)').message).toContain('extra');
  });

  it('reports a duplicate workspace name at the second occurrence', () => {
    const problem = problemAt(
      validateConfig({ version: 1, workspaces: [{ name: 'demo' }, { name: 'demo' }] }),
      'workspaces[1].name',
    );
    expect(problem.message).toContain('duplicate workspace name demo');
  });

  it('reports a duplicate source name within a workspace', () => {
    const value = {
      version: 1,
      workspaces: [{ name: 'demo', mcpSources: [httpSource('a'), httpSource('b'), httpSource('a')] }],
    };
    expect(problemAt(validateConfig(value), 'workspaces[0].mcpSources[2].name').message).toContain(
      'duplicate source name a',
    );
  });

  it('allows the same source name in two workspaces', () => {
    const value = {
      version: 1,
      workspaces: [
        { name: 'one', mcpSources: [httpSource('a')] },
        { name: 'two', mcpSources: [httpSource('a')] },
      ],
    };
    expect(validateConfig(value).ok).toBe(true);
  });

  it('reports a key id used twice, even across workspaces', () => {
    const key = { id: 'AAAAAAAAAA', hash: HASH };
    const value = {
      version: 1,
      workspaces: [
        { name: 'one', keys: [key] },
        { name: 'two', keys: [{ ...key }] },
      ],
    };
    expect(problemAt(validateConfig(value), 'workspaces[1].keys[0].id').message).toContain(
      'duplicate key id AAAAAAAAAA',
    );
  });

  it('requires a command for a stdio source', () => {
    const value = {
      version: 1,
      workspaces: [{ name: 'demo', mcpSources: [{ name: 'local', transport: 'stdio' }] }],
    };
    expect(problemAt(validateConfig(value), 'workspaces[0].mcpSources[0].command').message).toContain(
      'required when transport is stdio',
    );
  });

  it('rejects a url on a stdio source', () => {
    const value = {
      version: 1,
      workspaces: [
        { name: 'demo', mcpSources: [{ name: 'local', transport: 'stdio', command: 'x', url: 'http://a/' }] },
      ],
    };
    expect(problemAt(validateConfig(value), 'workspaces[0].mcpSources[0].url').message).toContain(
      'not allowed',
    );
  });

  it('requires a url for an http source', () => {
    const value = {
      version: 1,
      workspaces: [{ name: 'demo', mcpSources: [{ name: 'remote', transport: 'sse' }] }],
    };
    expect(problemAt(validateConfig(value), 'workspaces[0].mcpSources[0].url').message).toContain(
      'required when transport is sse',
    );
  });

  it('rejects a non-http url', () => {
    const value = {
      version: 1,
      workspaces: [{ name: 'demo', mcpSources: [httpSource('remote', { url: 'ftp://host/x' })] }],
    };
    expect(problemAt(validateConfig(value), 'workspaces[0].mcpSources[0].url').message).toContain('http(s)');
  });

  it('rejects an inline secret where a secret reference is expected', () => {
    const source = httpSource('remote', { credential: { type: 'bearer', secret: 'sk-live-123' } });
    const result = validateConfig({ version: 1, workspaces: [{ name: 'demo', mcpSources: [source] }] });
    const problem = problemAt(result, 'workspaces[0].mcpSources[0].credential.secret');
    expect(problem.message).toContain('secret reference');
    expect(JSON.stringify(problemsOf(result))).not.toContain('sk-live-123');
  });

  it('accepts env and file secret references', () => {
    const sources = [
      httpSource('a', { credential: { type: 'bearer', secret: { env: 'TOKEN' } } }),
      httpSource('b', {
        credential: { type: 'header', name: 'X-Api-Key', secret: { file: '/run/secrets/key' } },
      }),
    ];
    expect(validateConfig({ version: 1, workspaces: [{ name: 'demo', mcpSources: sources }] }).ok).toBe(true);
  });

  it('rejects a key hash that is not sha256 hex', () => {
    const value = {
      version: 1,
      workspaces: [{ name: 'demo', keys: [{ id: 'AAAAAAAAAA', hash: 'md5:abc' }] }],
    };
    expect(problemAt(validateConfig(value), 'workspaces[0].keys[0].hash').message).toContain('sha256:');
  });

  it('rejects upper-case hex in a key hash', () => {
    const value = {
      version: 1,
      workspaces: [{ name: 'demo', keys: [{ id: 'AAAAAAAAAA', hash: `sha256:${'A'.repeat(64)}` }] }],
    };
    expect(problemsOf(validateConfig(value)).map((p) => p.path)).toContain('workspaces[0].keys[0].hash');
  });

  it('gives a key read access to everything, not revoked, by default', () => {
    const result = validateConfig({
      version: 1,
      workspaces: [{ name: 'demo', keys: [{ id: 'AAAAAAAAAA', hash: HASH }] }],
    });
    if (!result.ok) throw new Error(formatProblems(result.problems));
    expect(result.config.workspaces[0]!.keys[0]).toMatchObject({
      access: 'read',
      sources: ['*'],
      tools: ['*'],
      revoked: false,
    });
  });

  it('rejects a workspace name with a double underscore or upper case', () => {
    const result = validateConfig({ version: 1, workspaces: [{ name: 'a__b' }, { name: 'Demo' }] });
    expect(problemsOf(result).map((p) => p.path)).toEqual(
      expect.arrayContaining(['workspaces[0].name', 'workspaces[1].name']),
    );
  });

  it('reports every problem in one pass', () => {
    const result = validateConfig({
      version: 2,
      server: { port: 70_000 },
      workspaces: [{ name: 'demo', mcpSources: [{ name: 'x', transport: 'stdio' }] }],
    });
    expect(problemsOf(result).map((p) => p.path)).toEqual(
      expect.arrayContaining(['version', 'server.port', 'workspaces[0].mcpSources[0].command']),
    );
  });

  it('deep-freezes the config it returns', () => {
    const result = validateConfig({
      version: 1,
      workspaces: [{ name: 'demo', mcpSources: [httpSource('a')], keys: [{ id: 'AAAAAAAAAA', hash: HASH }] }],
    });
    if (!result.ok) throw new Error(formatProblems(result.problems));
    const { config } = result;
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.server)).toBe(true);
    expect(Object.isFrozen(config.server.allowedOrigins)).toBe(true);
    expect(Object.isFrozen(config.workspaces)).toBe(true);
    expect(Object.isFrozen(config.workspaces[0]!.mcpSources[0]!.timeouts)).toBe(true);
    expect(Object.isFrozen(config.workspaces[0]!.mcpSources[0]!.tools.include)).toBe(true);
    expect(Object.isFrozen(config.workspaces[0]!.keys[0]!.tools)).toBe(true);
    expect(() => {
      (config.server as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it('does not freeze or alter the input value', () => {
    const input = { version: 1, workspaces: [{ name: 'demo' }] };
    expect(validateConfig(input).ok).toBe(true);
    expect(Object.isFrozen(input)).toBe(false);
    expect(input).toEqual({ version: 1, workspaces: [{ name: 'demo' }] });
  });
});

describe('formatPath', () => {
  it('names the root', () => {
    expect(formatPath([])).toBe('(root)');
  });

  it('joins keys with dots and indexes with brackets', () => {
    expect(formatPath(['workspaces', 1, 'name'])).toBe('workspaces[1].name');
    expect(formatPath(['workspaces', 0, 'mcpSources', 2, 'timeouts', 'listMs'])).toBe(
      'workspaces[0].mcpSources[2].timeouts.listMs',
    );
  });

  it('starts with an index when the path does', () => {
    expect(formatPath([3, 'id'])).toBe('[3].id');
  });
});

describe('formatProblems', () => {
  it('renders one indented path: message line per problem', () => {
    expect(
      formatProblems([
        { path: 'a', message: 'x' },
        { path: 'b[0]', message: 'y' },
      ]),
    ).toBe('  a: x\n  b[0]: y');
  });
});
