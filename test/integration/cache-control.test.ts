// What the gateway's answers say about caching, and which requests the audit trail records
// (issue 37.10): every route the app lists answers `Cache-Control: no-store` — API answers, /mcp
// answers in JSON or as an event stream, errors, health — except the console's static files
// (`no-cache`, revalidated by ETag) and the public RFC 9728 metadata (`public, max-age=300`, only
// with an `oauth` section). The route list comes from the running app, so a new route without the
// header fails here. Console requests leave audit records like every route but the health probes.
import { describe, expect, it } from 'vitest';
import { demoSource, httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { get, mcpPost, startWorkspace, fileHarness, slowModernCall } from '../support/gateway-harness.js';
import { auditRecords } from '../support/audit-records.js';
import { until } from '../support/until.js';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';

const writer = newKey();
let modern: RunningModernServer;

const h = fileHarness(
  async () => {
    modern = await startModernServer();
    return startWorkspace(
      {
        mcpSources: [demoSource('demo'), httpSource('modern', modern.url)],
        keys: [keyRecord(writer, { access: 'write' })],
      },
      {
        server: { host: '127.0.0.1', port: 0, console: { enabled: true } },
      },
    );
  },
  () => modern.close(),
);

/** A concrete path for a route pattern: `:id` is the demo source, `*` a console file. */
function pathOf(pattern: string): string {
  return pattern.replace(/:[A-Za-z]+/g, 'demo').replace(/\*$/, 'app.js');
}

/** One request to a route as a caller with a write key would send it; the body is read or dropped. */
async function send(method: string, path: string): Promise<Response> {
  const abort = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${writer.key}` };
  let body: string | undefined;
  if (path === '/mcp' && method === 'POST')
    return mcpPost(h.url, writer.key, { id: 1, method: 'tools/list' });
  if (path === '/mcp') {
    Object.assign(headers, { accept: 'text/event-stream', 'mcp-protocol-version': '2025-06-18' });
  } else if (method === 'POST') {
    headers['content-type'] = 'application/json';
    body = path.endsWith('/refresh') ? '{}' : JSON.stringify({ query: 'demo' });
  }
  // Streams (GET /mcp, subscriptions) answer their headers first: read them, then hang up.
  const response = await fetch(`${h.url}${path}`, {
    method,
    headers,
    signal: abort.signal,
    ...(body === undefined ? {} : { body }),
  });
  setTimeout(() => abort.abort(), 200).unref();
  await response.arrayBuffer().catch(() => undefined);
  return response;
}

const records = () => auditRecords(h.auditPath);

describe('Cache-Control', () => {
  it('api:no-store-every-route — every route the app lists answers no-store (console files: no-cache), errors included', async () => {
    const routes = h.gateway.routes.filter((route) => route.method !== 'OPTIONS');
    // The app's own list, not a copy: the API, /mcp, the console, health and the metadata are in it.
    const urls = new Set(routes.map((route) => route.url));
    for (const url of ['/agent/tools', '/agent/sources', '/agent/search', '/mcp', '/console/*', '/healthz'])
      expect(urls.has(url), url).toBe(true);
    for (const route of routes) {
      const path = pathOf(route.url);
      const response = await send(route.method, path);
      const label = `${route.method} ${route.url} → ${response.status}`;
      const value = response.headers.get('cache-control') ?? '';
      // The console's page and files, shared (/console) or a workspace's (/w/<name>/console, D24).
      const consoleFile = /^(\/w\/[^/]+)?\/console/.test(path);
      if (consoleFile && (response.status === 200 || response.status === 304))
        expect(value, label).toBe('no-cache');
      else
        expect(
          value.split(',').map((part) => part.trim()),
          label,
        ).toContain('no-store');
    }
  });

  it('api:no-store-errors — refusals, unknown paths, bad bodies and streamed /mcp answers are no-store too', async () => {
    const answers = [
      await get(`${h.url}/agent/tools`),
      await get(`${h.url}/agent/nothing-here`, writer.key),
      await fetch(`${h.url}/agent/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${writer.key}`, 'content-type': 'application/json' },
        body: '{"query": ',
      }),
      await mcpPost(h.url, writer.key, { id: 2, method: 'no/such/method' }),
      await get(`${h.url}/.well-known/oauth-protected-resource`, writer.key),
    ];
    for (const response of answers)
      expect(response.headers.get('cache-control') ?? '', `${response.url} ${response.status}`).toContain(
        'no-store',
      );
    // A tools/call answered as an event stream (progress notifications first).
    const streamed = await slowModernCall(h.url, writer.key, 3, { ms: 100, steps: 2 });
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    await streamed.text();
    expect(streamed.headers.get('cache-control')).toContain('no-store');
  });
});

describe('the console in the audit trail', () => {
  it('audit:console-requests — the console page, its files and its metadata leave one record each; health probes none', async () => {
    const responses = [
      await get(`${h.url}/console`),
      await get(`${h.url}/console/app.js`),
      await get(`${h.url}/console/sign-in-options.json`),
      await get(`${h.url}/console/missing.js`),
    ];
    await get(`${h.url}/healthz`);
    await get(`${h.url}/readyz`);
    const ids = responses.map((response) => response.headers.get('x-request-id') ?? '');
    await until(
      'four console records',
      async () =>
        (await records()).filter((r) => ids.includes(r.request_id)).length === 4 ? true : undefined,
      5000,
    ).catch(() => undefined);
    const found = (await records()).filter((r) => ids.includes(r.request_id));
    expect(found.map((r) => [r.method, r.status, r.decision, r.principal]).sort()).toEqual(
      [
        ['GET /console', 200, 'allowed', undefined],
        ['GET /console/*', 200, 'allowed', undefined],
        ['GET /console/sign-in-options.json', 200, 'allowed', undefined],
        ['GET /console/*', 404, 'allowed', undefined],
      ].sort(),
    );
    expect((await records()).some((r) => r.method === 'GET /healthz' || r.method === 'GET /readyz')).toBe(
      false,
    );
  });
});
