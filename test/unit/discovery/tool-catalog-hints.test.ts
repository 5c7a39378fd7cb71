// Discovery cache honours upstream hints: the upstream's ttlMs when given (0 = never reuse), the
// configured default when not, and an upstream list-changed signal drops the cached list.
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { validateConfig, type McpSourceConfig } from '../../../gateway/config/index.js';
import {
  type CachedToolList,
  MemoryDiscoveryCache,
  SourceStatusRegistry,
  ToolCatalog,
} from '../../../gateway/discovery/index.js';
import { silentLogger } from '../../../gateway/telemetry/index.js';
import {
  BreakerRegistry,
  UpstreamPool,
  type UpstreamConnection,
  type UpstreamEvents,
} from '../../../gateway/upstream/index.js';

const echo: Tool = {
  name: 'echo',
  inputSchema: { type: 'object', properties: {} },
  annotations: { readOnlyHint: true },
};

function setup(ttlMs: number | undefined, clock: { now: number } = { now: 1_000_000 }) {
  let lists = 0;
  let events: UpstreamEvents | undefined;
  const connector = (
    _source: McpSourceConfig,
    upstreamEvents: UpstreamEvents,
  ): Promise<UpstreamConnection> => {
    events = upstreamEvents;
    const fail = () => Promise.reject(new Error('unused'));
    return Promise.resolve({
      era: 'modern',
      connectedAt: '2026-11-22T00:00:00.000Z',
      relay: undefined,
      listTools: () => {
        lists += 1;
        return Promise.resolve({ tools: [echo], ttlMs });
      },
      listResources: () => Promise.resolve({ items: [], ttlMs: undefined }),
      listPrompts: () => Promise.resolve({ items: [], ttlMs: undefined }),
      listResourceTemplates: () => Promise.resolve({ items: [], ttlMs: undefined }),
      complete: () => Promise.resolve({ completion: { values: [] } }),
      readResource: fail,
      getPrompt: fail,
      callTool: fail,
      close: () => Promise.resolve(),
    });
  };
  const parsed = validateConfig({
    version: 1,
    workspaces: [
      {
        name: 'w',
        mcpSources: [{ name: 'up', transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp' }],
      },
    ],
  });
  if (!parsed.ok) throw new Error('config');
  const workspace = parsed.config.workspaces[0]!;
  const pool = new UpstreamPool(
    {
      secrets: { readEnv: () => undefined, readFile: () => '' },
      clientInfo: { name: 't', version: '0' },
      logger: silentLogger,
    },
    connector,
  );
  const statuses = new SourceStatusRegistry();
  const catalog = new ToolCatalog({
    pool,
    breakers: new BreakerRegistry(),
    cache: new MemoryDiscoveryCache<CachedToolList>(() => clock.now),
    now: () => clock.now,
    statuses,
    logger: silentLogger,
    listTtlMs: 60_000,
  });
  return { catalog, workspace, statuses, lists: () => lists, events: () => events };
}

describe('ToolCatalog cache hints', () => {
  it('reuses a list for the configured default when the upstream gives no ttlMs', async () => {
    const s = setup(undefined);
    await s.catalog.workspaceCatalog(s.workspace);
    await s.catalog.workspaceCatalog(s.workspace);
    expect(s.lists()).toBe(1);
  });
  it('asks again every time when the upstream says ttlMs 0', async () => {
    const s = setup(0);
    await s.catalog.workspaceCatalog(s.workspace);
    await s.catalog.workspaceCatalog(s.workspace);
    expect(s.lists()).toBe(2);
  });
  it('drops the cached list when the upstream signals tools/list_changed', async () => {
    const s = setup(undefined);
    await s.catalog.workspaceCatalog(s.workspace);
    s.events()?.listChanged();
    await s.catalog.workspaceCatalog(s.workspace);
    expect(s.lists()).toBe(2);
  });
  it('records the detected era and when it was detected', async () => {
    const s = setup(undefined);
    await s.catalog.workspaceCatalog(s.workspace);
    expect(s.statuses.get('w', 'up')).toMatchObject({
      status: 'ready',
      era: 'modern',
      eraDetectedAt: '2026-11-22T00:00:00.000Z',
    });
  });
  it('reports the shortest remaining lifetime as the merged list ttlMs', async () => {
    const clock = { now: 1_000_000 };
    const s = setup(5_000, clock);
    expect((await s.catalog.workspaceCatalog(s.workspace)).ttlMs).toBe(5_000);
    clock.now += 2_000;
    expect((await s.catalog.workspaceCatalog(s.workspace)).ttlMs).toBe(3_000);
    expect(s.lists()).toBe(1);
    const uncached = setup(0);
    expect((await uncached.catalog.workspaceCatalog(uncached.workspace)).ttlMs).toBe(0);
  });
});
