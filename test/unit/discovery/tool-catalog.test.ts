import { describe, it, expect, vi } from 'vitest';
import type { Tool } from '@modelcontextprotocol/client';
import {
  validateConfig,
  formatProblems,
  type McpSourceConfig,
  type WorkspaceConfig,
} from '../../../gateway/config/index.js';
import {
  type CachedToolList,
  MemoryDiscoveryCache,
  requiredPermission,
  SourceStatusRegistry,
  ToolCatalog,
} from '../../../gateway/discovery/index.js';
import { silentLogger } from '../../../gateway/telemetry/index.js';
import { BreakerRegistry, UpstreamPool, type UpstreamConnection } from '../../../gateway/upstream/index.js';

function tool(name: string, annotations?: Tool['annotations']): Tool {
  return {
    name,
    description: `does ${name}`,
    inputSchema: { type: 'object' },
    ...(annotations === undefined ? {} : { annotations }),
  };
}

function workspace(sources: Record<string, unknown>[]): WorkspaceConfig {
  const result = validateConfig({ version: 1, workspaces: [{ name: 'demo', mcpSources: sources }] });
  if (!result.ok) throw new Error(formatProblems(result.problems));
  return result.config.workspaces[0]!;
}

function source(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, transport: 'streamable-http', url: `http://127.0.0.1:9/${name}`, ...extra };
}

/** A fake upstream world: per source either a tool list or an error, with call counters. */
class FakeUpstreams {
  readonly connects = new Map<string, number>();
  readonly lists = new Map<string, number>();
  /** Errors thrown by listTools on an otherwise healthy connection. */
  readonly listFailures = new Map<string, Error>();
  /** The ttlMs hint each upstream gives with its list (undefined: none, like a 2025 server). */
  readonly ttls = new Map<string, number>();
  constructor(readonly behaviour: Map<string, readonly Tool[] | Error>) {}

  readonly connector = (config: McpSourceConfig): Promise<UpstreamConnection> => {
    this.connects.set(config.name, (this.connects.get(config.name) ?? 0) + 1);
    const outcome = this.behaviour.get(config.name);
    if (outcome instanceof Error || outcome === undefined)
      return Promise.reject(outcome ?? new Error('no such upstream'));
    return Promise.resolve({
      era: 'modern',
      connectedAt: '2026-01-01T00:00:00.000Z',
      relay: undefined,
      callTool: () => Promise.reject(new Error('not used by catalog tests')),
      listResources: () => Promise.resolve({ items: [], ttlMs: undefined }),
      listPrompts: () => Promise.resolve({ items: [], ttlMs: undefined }),
      listResourceTemplates: () => Promise.resolve({ items: [], ttlMs: undefined }),
      complete: () => Promise.resolve({ completion: { values: [] } }),
      readResource: () => Promise.reject(new Error('not used by catalog tests')),
      getPrompt: () => Promise.reject(new Error('not used by catalog tests')),
      listTools: () => {
        this.lists.set(config.name, (this.lists.get(config.name) ?? 0) + 1);
        const failure = this.listFailures.get(config.name);
        if (failure !== undefined) return Promise.reject(failure);
        const current = this.behaviour.get(config.name);
        if (current instanceof Error || current === undefined)
          return Promise.reject(current ?? new Error('no such upstream'));
        return Promise.resolve({ tools: current, ttlMs: this.ttls.get(config.name) });
      },
      close: () => Promise.resolve(),
    });
  };
}

function catalogFor(upstreams: FakeUpstreams, listTtlMs = 60_000) {
  const deps = {
    secrets: { readEnv: () => undefined, readFile: () => '' },
    clientInfo: { name: 't', version: '0' },
    logger: silentLogger,
  };
  const pool = new UpstreamPool(deps, upstreams.connector);
  const statuses = new SourceStatusRegistry();
  const catalog = new ToolCatalog({
    pool,
    breakers: new BreakerRegistry(),
    cache: new MemoryDiscoveryCache<CachedToolList>(),
    statuses,
    logger: silentLogger,
    listTtlMs,
  });
  return { catalog, pool, statuses };
}

function refused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
}

describe('ToolCatalog', () => {
  it('merges tools of two sources, namespaced and sorted by name', async () => {
    const upstreams = new FakeUpstreams(
      new Map([
        ['wiki', [tool('search'), tool('edit')]],
        ['docs', [tool('read', { readOnlyHint: true }), tool('apply')]],
      ]),
    );
    const { catalog, pool } = catalogFor(upstreams);
    const result = await catalog.workspaceCatalog(workspace([source('wiki'), source('docs')]));
    expect(result.tools.map((t) => t.name)).toEqual([
      'docs__apply',
      'docs__read',
      'wiki__edit',
      'wiki__search',
    ]);
    expect(result.tools.find((t) => t.name === 'docs__read')).toMatchObject({
      source: 'docs',
      upstreamName: 'read',
      description: 'does read',
      permission: 'read',
    });
    expect(result.tools.find((t) => t.name === 'wiki__edit')?.permission).toBe('write');
    expect(result.sources.get('docs')).toMatchObject({ status: 'ready', toolCount: 2, error: undefined });
    await pool.close();
  });

  it('applies include and exclude filters to upstream tool names', async () => {
    const upstreams = new FakeUpstreams(
      new Map([['docs', [tool('read_page'), tool('read_secret'), tool('delete_page'), tool('list')]]]),
    );
    const { catalog, pool } = catalogFor(upstreams);
    const ws = workspace([source('docs', { tools: { include: ['read_*', 'list'], exclude: ['*secret*'] } })]);
    const result = await catalog.workspaceCatalog(ws);
    expect(result.tools.map((t) => t.name)).toEqual(['docs__list', 'docs__read_page']);
    expect(result.sources.get('docs')?.toolCount).toBe(2);
    await pool.close();
  });

  it('leaves out an unreachable source, reports it and still returns the others', async () => {
    const upstreams = new FakeUpstreams(
      new Map<string, readonly Tool[] | Error>([
        ['up', [tool('ping')]],
        ['down', refused()],
      ]),
    );
    const { catalog, pool, statuses } = catalogFor(upstreams);
    const result = await catalog.workspaceCatalog(workspace([source('up'), source('down')]));
    expect(result.tools.map((t) => t.name)).toEqual(['up__ping']);
    const down = result.sources.get('down');
    expect(down?.status).toBe('unavailable');
    expect(down?.toolCount).toBe(0);
    expect(down?.error).toEqual({ code: 'upstream_unreachable', errorClass: 'upstream_reachability' });
    expect(down?.checkedAt).toEqual(expect.any(String));
    expect(statuses.get('demo', 'down').status).toBe('unavailable');
    expect(result.sources.get('up')?.status).toBe('ready');
    await pool.close();
  });

  it('discovery:failing-left-out — leaves a failed source out of later reads without contacting it; its probe reconnects it', async () => {
    vi.useFakeTimers();
    try {
      const behaviour = new Map<string, readonly Tool[] | Error>([['flaky', refused()]]);
      const upstreams = new FakeUpstreams(behaviour);
      const { catalog, pool } = catalogFor(upstreams);
      const ws = workspace([source('flaky')]);
      expect((await catalog.workspaceCatalog(ws)).tools).toEqual([]);
      behaviour.set('flaky', [tool('ok')]);
      const second = await catalog.workspaceCatalog(ws);
      expect(second.tools).toEqual([]);
      expect(second.sources.get('flaky')).toMatchObject({
        status: 'unavailable',
        failing: { lastError: 'connection refused', attempts: 0 },
      });
      expect(upstreams.connects.get('flaky')).toBe(1);
      // The first probe comes after 1-1.25 s, with no read asking for it.
      await vi.advanceTimersByTimeAsync(1300);
      expect(upstreams.connects.get('flaky')).toBe(2);
      const third = await catalog.workspaceCatalog(ws);
      expect(third.tools.map((t) => t.name)).toEqual(['flaky__ok']);
      expect(third.sources.get('flaky')?.status).toBe('ready');
      expect(third.sources.get('flaky')?.failing).toBeUndefined();
      catalog.close();
      await pool.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('reports a list that times out as upstream_timeout, and lists it again on an explicit retry', async () => {
    const upstreams = new FakeUpstreams(new Map([['slow', [tool('x')]]]));
    upstreams.listFailures.set('slow', new DOMException('The operation timed out.', 'TimeoutError'));
    const { catalog, pool } = catalogFor(upstreams);
    const ws = workspace([source('slow')]);
    const first = await catalog.workspaceCatalog(ws);
    expect(first.tools).toEqual([]);
    expect(first.sources.get('slow')?.error).toEqual({
      code: 'upstream_timeout',
      errorClass: 'upstream_reachability',
    });
    expect(first.sources.get('slow')?.failing?.lastError).toBe('no answer within the time-out');
    upstreams.listFailures.delete('slow');
    const second = await catalog.workspaceCatalog(ws, undefined, { retryFailing: true });
    expect(second.tools.map((t) => t.name)).toEqual(['slow__x']);
    expect(upstreams.connects.get('slow')).toBe(2);
    catalog.close();
    await pool.close();
  });

  it('discovery:failing-caller-errors — a failure about the caller (HTTP 401) does not make the source failing', async () => {
    const upstreams = new FakeUpstreams(new Map([['locked', [tool('x')]]]));
    upstreams.listFailures.set('locked', Object.assign(new Error('HTTP 401'), { status: 401 }));
    const { catalog, pool } = catalogFor(upstreams);
    const ws = workspace([source('locked')]);
    expect((await catalog.workspaceCatalog(ws)).sources.get('locked')?.failing).toBeUndefined();
    upstreams.listFailures.delete('locked');
    expect((await catalog.workspaceCatalog(ws)).tools.map((t) => t.name)).toEqual(['locked__x']);
    catalog.close();
    await pool.close();
  });

  it('discovery:failing-retained — a config without the failing source stops its probe', async () => {
    vi.useFakeTimers();
    try {
      const upstreams = new FakeUpstreams(new Map([['gone', refused()]]));
      const { catalog, pool } = catalogFor(upstreams);
      const ws = workspace([source('gone')]);
      await catalog.workspaceCatalog(ws);
      expect(catalog.failingSources()).toEqual([{ workspace: 'demo', source: 'gone' }]);
      const without = validateConfig({ version: 1, workspaces: [{ name: 'demo', mcpSources: [] }] });
      if (!without.ok) throw new Error('config');
      catalog.retain(without.config);
      expect(catalog.failingSources()).toEqual([]);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(upstreams.connects.get('gone')).toBe(1);
      await pool.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('reuses the cached list and connection for repeated reads', async () => {
    const upstreams = new FakeUpstreams(new Map([['docs', [tool('read')]]]));
    const { catalog, pool } = catalogFor(upstreams);
    const ws = workspace([source('docs')]);
    const first = await catalog.workspaceCatalog(ws);
    const second = await catalog.workspaceCatalog(ws);
    expect(second.tools).toEqual(first.tools);
    expect(upstreams.connects.get('docs')).toBe(1);
    expect(upstreams.lists.get('docs')).toBe(1);
    await pool.close();
  });

  it('asks the upstream again after invalidate', async () => {
    const behaviour = new Map<string, readonly Tool[] | Error>([['docs', [tool('read')]]]);
    const upstreams = new FakeUpstreams(behaviour);
    const { catalog, pool } = catalogFor(upstreams);
    const ws = workspace([source('docs')]);
    await catalog.workspaceCatalog(ws);
    behaviour.set('docs', [tool('read'), tool('write')]);
    await catalog.invalidate('demo', 'docs');
    const result = await catalog.workspaceCatalog(ws);
    expect(upstreams.lists.get('docs')).toBe(2);
    expect(upstreams.connects.get('docs')).toBe(1);
    expect(result.tools.map((t) => t.name)).toEqual(['docs__read', 'docs__write']);
    await pool.close();
  });

  it('does not cache when the list ttl is 0', async () => {
    const upstreams = new FakeUpstreams(new Map([['docs', [tool('read')]]]));
    const { catalog, pool } = catalogFor(upstreams, 0);
    const ws = workspace([source('docs')]);
    await catalog.workspaceCatalog(ws);
    await catalog.workspaceCatalog(ws);
    expect(upstreams.lists.get('docs')).toBe(2);
    await pool.close();
  });

  it('only asks the sources the filter lets through', async () => {
    const upstreams = new FakeUpstreams(
      new Map([
        ['a', [tool('x')]],
        ['b', [tool('y')]],
      ]),
    );
    const { catalog, pool } = catalogFor(upstreams);
    const result = await catalog.workspaceCatalog(
      workspace([source('a'), source('b')]),
      (name) => name === 'b',
    );
    expect(result.tools.map((t) => t.name)).toEqual(['b__y']);
    expect([...result.sources.keys()]).toEqual(['b']);
    expect(upstreams.connects.has('a')).toBe(false);
    await pool.close();
  });
});

describe('requiredPermission', () => {
  const plain = workspace([source('docs')]).mcpSources[0]!;
  const overridden = workspace([source('docs', { permissions: { search: 'write', purge: 'read' } })])
    .mcpSources[0]!;

  it('needs read for a tool that declares readOnlyHint true', () => {
    expect(requiredPermission(plain, tool('search', { readOnlyHint: true }))).toBe('read');
  });

  it('needs write when annotations are missing or not read-only', () => {
    expect(requiredPermission(plain, tool('search'))).toBe('write');
    expect(requiredPermission(plain, tool('search', {}))).toBe('write');
    expect(requiredPermission(plain, tool('search', { readOnlyHint: false }))).toBe('write');
  });

  it('lets a config override win in both directions', () => {
    expect(requiredPermission(overridden, tool('search', { readOnlyHint: true }))).toBe('write');
    expect(requiredPermission(overridden, tool('purge', { destructiveHint: true }))).toBe('read');
    expect(requiredPermission(overridden, tool('other', { readOnlyHint: true }))).toBe('read');
  });
});
