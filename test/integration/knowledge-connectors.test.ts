// The `http` and `mcp-resources` connectors against real servers: a REST JSON API (paginated by
// page number, cursor and Link header, bearer-authenticated from a secret reference) and the
// resources of real MCP upstreams. Their documents become searchable in the workspace.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { startHarness, type Harness } from '../support/gateway-harness.js';

const key = newKey();
let api: Server;
let apiUrl: string;
let modern: RunningModernServer;
let h: Harness;
const apiLog: { path: string; auth: string | undefined }[] = [];

const TICKETS = Array.from({ length: 7 }, (_, i) => ({
  id: 100 + i,
  fields: {
    summary: `Ticket ${100 + i}`,
    description:
      i === 3 ? 'The pelican importer drops rows with empty dates.' : `Routine ticket number ${i}.`,
  },
  links: { html: `https://tracker.example.com/t/${100 + i}` },
  updated: '2026-11-01T00:00:00Z',
}));

function startApi(): Promise<void> {
  api = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    apiLog.push({ path: url.pathname + url.search, auth: req.headers.authorization });
    if (req.headers.authorization !== 'Bearer api-token') {
      res.writeHead(401).end();
      return;
    }
    res.setHeader('content-type', 'application/json');
    if (url.pathname === '/paged') {
      const page = Number(url.searchParams.get('p') ?? '1');
      res.end(JSON.stringify({ data: { items: TICKETS.slice((page - 1) * 3, page * 3) } }));
    } else if (url.pathname === '/cursor') {
      const at = Number(url.searchParams.get('after') ?? '0');
      const next = at + 3 < TICKETS.length ? String(at + 3) : null;
      res.end(JSON.stringify({ results: TICKETS.slice(at, at + 3), next }));
    } else if (url.pathname === '/linked') {
      const at = Number(url.searchParams.get('offset') ?? '0');
      if (at + 3 < TICKETS.length) res.setHeader('link', `<${apiUrl}/linked?offset=${at + 3}>; rel="next"`);
      res.end(JSON.stringify(TICKETS.slice(at, at + 3)));
    } else res.writeHead(404).end();
  });
  return new Promise((resolve) =>
    api.listen(0, '127.0.0.1', () => {
      const address = api.address();
      apiUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
      resolve();
    }),
  );
}

const fields = {
  id: 'id',
  title: 'fields.summary',
  body: ['fields.summary', 'fields.description'],
  url: 'links.html',
  updatedAt: 'updated',
};

async function ready(source: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const body = (await (
      await fetch(`${h.url}/agent/sources?response_format=json`, {
        headers: { authorization: `Bearer ${key.key}` },
      })
    ).json()) as { sources: Record<string, unknown>[] };
    const state = body.sources.find((s) => s['id'] === source);
    if (state?.['status'] === 'ready' || state?.['status'] === 'unavailable' || Date.now() > deadline)
      return state ?? {};
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function search(query: string, connector: string) {
  const response = await fetch(`${h.url}/agent/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, connector_id: connector, options: { response_format: 'json' } }),
  });
  return (
    (await response.json()) as {
      results: { title: string; url: string; source_type: string; snippet: string }[];
    }
  ).results;
}

beforeAll(async () => {
  await startApi();
  modern = await startModernServer();
  h = await startHarness(
    {
      workspaces: [
        {
          name: 'demo',
          mcpSources: [httpSource('modern', modern.url)],
          dataSources: [
            {
              name: 'paged',
              type: 'http',
              url: `${apiUrl}/paged`,
              credential: { type: 'bearer', secret: { env: 'API_TOKEN' } },
              itemsPath: 'data.items',
              pagination: { type: 'page', pageParam: 'p' },
              fields,
            },
            {
              name: 'cursor',
              type: 'http',
              url: `${apiUrl}/cursor`,
              credential: { type: 'bearer', secret: { env: 'API_TOKEN' } },
              itemsPath: 'results',
              pagination: { type: 'cursor', cursorParam: 'after', nextCursorPath: 'next' },
              fields,
            },
            {
              name: 'linked',
              type: 'http',
              url: `${apiUrl}/linked`,
              credential: { type: 'bearer', secret: { env: 'API_TOKEN' } },
              pagination: { type: 'link' },
              fields,
            },
            { name: 'noauth', type: 'http', url: `${apiUrl}/paged`, itemsPath: 'data.items', fields },
            {
              name: 'capped',
              type: 'http',
              url: `${apiUrl}/linked`,
              credential: { type: 'bearer', secret: { env: 'API_TOKEN' } },
              pagination: { type: 'link' },
              maxPages: 2,
              fields,
            },
            { name: 'upstream-docs', type: 'mcp-resources', mcpSource: 'modern' },
          ],
          keys: [keyRecord(key)],
        },
      ],
    },
    { API_TOKEN: 'api-token' },
  );
});
afterAll(async () => {
  await h.stop();
  await modern.close();
  await new Promise<void>((resolve) => api.close(() => resolve()));
});

describe('http connector', () => {
  it.each(['paged', 'cursor', 'linked'])(
    'knowledge:http-connector — %s pagination reads every item with the mapped fields',
    async (source) => {
      expect(await ready(source)).toMatchObject({ status: 'ready', documents: 7, type: 'http' });
      const results = await search('pelican importer empty dates', source);
      expect(results[0]).toMatchObject({
        title: 'Ticket 103',
        url: 'https://tracker.example.com/t/103',
        source_type: 'http',
      });
    },
  );

  it('knowledge:http-connector — a listing cut short by maxPages fails instead of deleting the rest', async () => {
    expect(await ready('capped')).toMatchObject({
      status: 'unavailable',
      documents: 6,
      last_error: 'stopped after maxPages (2) with pages left; raise maxPages',
    });
  });

  it('knowledge:http-auth — the credential comes from the secret reference; a rejected one fails the sync only', async () => {
    expect(
      apiLog.filter((r) => r.path.startsWith('/cursor')).every((r) => r.auth === 'Bearer api-token'),
    ).toBe(true);
    expect(await ready('noauth')).toMatchObject({ status: 'unavailable', error_code: 'sync_failed' });
    const logs = h.logs.join('\n');
    expect(logs.includes('api-token')).toBe(false);
  });
});

describe('mcp-resources connector', () => {
  it('knowledge:mcp-resources-connector — the text resources of an MCP source become searchable', async () => {
    expect(await ready('upstream-docs')).toMatchObject({
      status: 'ready',
      documents: 1,
      type: 'mcp-resources',
    });
    const results = await search('hello modern fixture', 'upstream-docs');
    expect(results[0]).toMatchObject({ url: 'demo://readme', source_type: 'mcp-resources' });
    expect(results[0]?.snippet).toContain('Hello from the modern fixture');
  });
});
