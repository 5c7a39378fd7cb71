// Deciding tools/call on an upstream that says ttlMs 0 (issue 13): a list younger than the source's
// callListFloorMs is reused for the decision, refreshed in the background past half the floor, and
// concurrent decisions share one listing; what the reused list would refuse is checked again on a
// fresh list; tools/list keeps honouring ttlMs 0; a floor of 0 lists before every call.
import { describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/client';
import { formatProblems, validateConfig, type McpSourceConfig } from '../../../gateway/config/index.js';
import {
  MemoryDiscoveryCache,
  SourceStatusRegistry,
  ToolCatalog,
  type DiscoveryEntry,
} from '../../../gateway/discovery/index.js';
import { silentLogger } from '../../../gateway/telemetry/index.js';
import { BreakerRegistry, UpstreamPool, type UpstreamConnection } from '../../../gateway/upstream/index.js';

const tool = (name: string, readOnly: boolean): Tool => ({
  name,
  inputSchema: { type: 'object' },
  annotations: { readOnlyHint: readOnly },
});

function setup(floorMs: number) {
  const result = validateConfig({
    version: 1,
    workspaces: [
      {
        name: 'demo',
        mcpSources: [
          {
            name: 'up',
            transport: 'streamable-http',
            url: 'http://127.0.0.1:9/mcp',
            callListFloorMs: floorMs,
          },
        ],
      },
    ],
  });
  if (!result.ok) throw new Error(formatProblems(result.problems));
  const source = result.config.workspaces[0]?.mcpSources[0] as McpSourceConfig;
  let now = 1_000_000;
  const world = { tools: [tool('read_page', true), tool('edit_page', false)], lists: 0 };
  const connection: UpstreamConnection = {
    era: 'modern',
    connectedAt: '2026-01-01T00:00:00.000Z',
    relay: undefined,
    callTool: () => Promise.reject(new Error('unused')),
    listResources: () => Promise.resolve({ items: [], ttlMs: undefined }),
    listPrompts: () => Promise.resolve({ items: [], ttlMs: undefined }),
    listResourceTemplates: () => Promise.resolve({ items: [], ttlMs: undefined }),
    complete: () => Promise.resolve({ completion: { values: [] } }),
    readResource: () => Promise.reject(new Error('unused')),
    getPrompt: () => Promise.reject(new Error('unused')),
    // The v2 SDK default: every list is immediately stale.
    listTools: async () => {
      world.lists += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { tools: [...world.tools], ttlMs: 0 };
    },
    close: () => Promise.resolve(),
  };
  const pool = new UpstreamPool(
    {
      secrets: { readEnv: () => undefined, readFile: () => '' },
      clientInfo: { name: 't', version: '0' },
      logger: silentLogger,
    },
    () => Promise.resolve(connection),
  );
  const catalog = new ToolCatalog({
    pool,
    breakers: new BreakerRegistry(),
    cache: new MemoryDiscoveryCache<DiscoveryEntry>(() => now),
    statuses: new SourceStatusRegistry(),
    logger: silentLogger,
    listTtlMs: 30_000,
    now: () => now,
  });
  return { catalog, source, world, advance: (ms: number) => (now += ms), pool };
}

const names = (tools: readonly { name: string }[]) => tools.map((t) => t.name).sort();

describe('tools/call decisions on a ttlMs 0 upstream', () => {
  it('mcp:call-list-floor — within the floor one listing serves every decision; past it, a fresh one', async () => {
    const { catalog, source, world, advance, pool } = setup(2000);
    const first = await catalog.callTools('demo', source);
    expect(first.reused).toBe(false);
    expect(world.lists).toBe(1);
    const concurrent = await Promise.all(Array.from({ length: 20 }, () => catalog.callTools('demo', source)));
    expect(concurrent.every((decision) => decision.reused)).toBe(true);
    expect(world.lists).toBe(1);
    // Past half the floor: still served from the floor, one background refresh for all.
    advance(1200);
    await Promise.all(Array.from({ length: 5 }, () => catalog.callTools('demo', source)));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(world.lists).toBe(2);
    // Past the floor of the refreshed list: a fresh listing before the decision.
    advance(2100);
    expect((await catalog.callTools('demo', source)).reused).toBe(false);
    expect(world.lists).toBe(3);
    // tools/list still honours ttlMs 0: every read lists.
    await catalog.workspaceCatalog({ name: 'demo', mcpSources: [source] } as never);
    await catalog.workspaceCatalog({ name: 'demo', mcpSources: [source] } as never);
    expect(world.lists).toBe(5);
    await pool.close();
  });

  it('mcp:call-list-floor — a fresh list is fetched on request (a denial or an unknown tool is re-checked)', async () => {
    const { catalog, source, world, pool } = setup(2000);
    await catalog.callTools('demo', source);
    world.tools = [tool('read_page', true), tool('edit_page', true), tool('new_tool', true)];
    const reused = await catalog.callTools('demo', source);
    expect(reused.reused).toBe(true);
    expect(names(reused.tools)).toEqual(['up__edit_page', 'up__read_page']);
    expect(reused.tools.find((t) => t.name === 'up__edit_page')?.permission).toBe('write');
    const fresh = await catalog.callTools('demo', source, { fresh: true });
    expect(names(fresh.tools)).toEqual(['up__edit_page', 'up__new_tool', 'up__read_page']);
    expect(fresh.tools.find((t) => t.name === 'up__edit_page')?.permission).toBe('read');
    expect(world.lists).toBe(2);
    await pool.close();
  });

  it('mcp:call-list-floor — a floor of 0 lists before every decision; invalidation drops the floor', async () => {
    const zero = setup(0);
    await zero.catalog.callTools('demo', zero.source);
    await zero.catalog.callTools('demo', zero.source);
    expect(zero.world.lists).toBe(2);
    await zero.pool.close();
    const { catalog, source, world, pool } = setup(60_000);
    await catalog.callTools('demo', source);
    await catalog.invalidate('demo', 'up');
    expect((await catalog.callTools('demo', source)).reused).toBe(false);
    expect(world.lists).toBe(2);
    await pool.close();
  });
});
