// Issue 28 against a real gateway process with telemetry on and a recording 2026 upstream: what an
// outside prober found, each as a regression test. Methods the routes don't know never give 500 or a
// silent close; Node-refused requests and CONNECT answer in the documented body; duplicate
// Authorization/Host are refused; ids are echoed exactly or refused; deep arguments are the caller's
// error and never reach the upstream or its health; no metric series grows from caller input; the
// metrics port is loopback by default; in-band failures are visible in the request log; sync
// metrics are per workspace.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { METHODS } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { freePort } from '../infra/free-port.js';
import { httpSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { MODERN_META } from '../support/gateway-harness.js';
import { rawExchange } from '../support/raw-http.js';
import { until } from '../support/until.js';

const [alpha, beta] = newKeys(2);
let upstream: RunningModernServer;
let gateway: ChildProcessWithoutNullStreams;
let logs = '';
let port = 0;
let promPort = 0;
let url = '';
let dir = '';

beforeAll(async () => {
  upstream = await startModernServer();
  dir = await mkdtemp(join(tmpdir(), 'agw-attacker-'));
  await writeFile(join(dir, 'a.md'), '# A\n\nThe curlew notes.\n');
  port = await freePort();
  promPort = await freePort();
  const config = {
    version: 1,
    server: { host: '127.0.0.1', port },
    workspaces: [
      {
        name: 'alpha',
        mcpSources: [
          httpSource('up', upstream.url),
          { name: 'broken', transport: 'streamable-http', url: `http://127.0.0.1:${await freePort()}/mcp` },
        ],
        dataSources: [{ name: 'docs', type: 'files', path: dir, watch: false }],
        keys: [keyRecord(alpha, { access: 'write' })],
      },
      {
        name: 'beta',
        dataSources: [{ name: 'docs', type: 'files', path: dir, watch: false }],
        keys: [keyRecord(beta)],
      },
    ],
  };
  const configPath = join(dir, 'gateway.yaml');
  await writeFile(configPath, stringify(config));
  const inherited = { ...process.env };
  delete inherited['OTEL_EXPORTER_PROMETHEUS_HOST'];
  gateway = spawn(process.execPath, ['bin/agent-gateway.js', 'serve', '--config', configPath], {
    env: {
      ...inherited,
      OTEL_SDK_DISABLED: 'false',
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_EXPORTER_PROMETHEUS_PORT: String(promPort),
    },
  });
  gateway.stdout.on('data', (chunk: Buffer) => (logs += chunk.toString()));
  gateway.stderr.on('data', (chunk: Buffer) => (logs += chunk.toString()));
  url = `http://127.0.0.1:${port}`;
  await until('the gateway to listen', async () =>
    (await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200 ? true : undefined,
  );
}, 60_000);

afterAll(async () => {
  gateway?.kill('SIGTERM');
  await new Promise((resolve) => gateway?.once('exit', resolve));
  await upstream?.close();
  await rm(dir, { recursive: true, force: true });
});

const auth = (key = alpha.key) => ({ authorization: `Bearer ${key}` });

function mcpHeaders(method: string, name?: string): Record<string, string> {
  return {
    ...auth(),
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  };
}

function raw(head: string, body = ''): Promise<{ status: number | undefined; text: string }> {
  return rawExchange(
    port,
    `${head}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

async function scrapeSeries(): Promise<string[]> {
  const text = await (await fetch(`http://127.0.0.1:${promPort}/metrics`)).text();
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

describe('what an outside prober found (issue 28)', () => {
  it('attacker:unknown-methods — unknown and body-less methods answer 405 with Allow (JSON-RPC on /mcp), never 500 or a silent close', async () => {
    for (const method of ['QUERY', 'OPTIONS', 'PUT', 'DELETE', 'PATCH', 'PROPFIND', 'M-SEARCH']) {
      for (const path of ['/agent/search', '/agent/tools', '/mcp']) {
        for (const contentType of [undefined, 'application/json']) {
          const response = await raw(
            `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${alpha.key}\r\n${contentType === undefined ? '' : `Content-Type: ${contentType}\r\n`}`,
            contentType === undefined ? '' : '{}',
          );
          const where = `${method} ${path} ${contentType ?? 'no content-type'}`;
          expect(response.status, where).toBe(405);
          expect(response.text, where).toMatch(/\r\nallow: (POST|GET, HEAD)\r\n/i);
          expect(response.text, where).toContain(
            path === '/mcp' ? '"jsonrpc":"2.0"' : '"code":"method_not_allowed"',
          );
        }
      }
    }
    const unknownPath = await raw(
      `QUERY /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${alpha.key}\r\n`,
    );
    // QUERY needs a Content-Type (RFC 10008): a request error in the documented body, never 5xx.
    expect(unknownPath.status).toBe(400);
    expect(unknownPath.text).toContain('"code":"invalid_request"');
    const unknownWithType = await raw(
      `QUERY /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${alpha.key}\r\nContent-Type: application/json\r\n`,
      '{}',
    );
    expect(unknownWithType.status).toBe(404);
    // Without a key the answer is 401 whatever the method (nothing about routes is learnt).
    expect((await raw('QUERY /agent/search HTTP/1.1\r\nHost: 127.0.0.1\r\n')).status).toBe(401);
    const connectResponse = await raw('CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(connectResponse.status).toBe(405);
    expect(connectResponse.text).toContain('"code":"method_not_allowed"');
  });

  it('attacker:malformed-http — a NUL or a folded header answers 400 in the documented error body', async () => {
    for (const header of ['X-A: a\u0000b\r\n', 'X-A: a\r\n  folded\r\n']) {
      const response = await raw(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n${header}`);
      expect(response.status).toBe(400);
      const body = response.text.slice(response.text.indexOf('\r\n\r\n') + 4);
      expect(JSON.parse(body)).toMatchObject({ error: { code: 'invalid_request', class: 'request' } });
    }
  });

  it('attacker:duplicate-headers — two Authorization or two Host headers are refused with 400', async () => {
    const twoKeys = await raw(
      `GET /agent/tools HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${alpha.key}\r\nAuthorization: Bearer ${beta.key}\r\n`,
    );
    expect(twoKeys.status).toBe(400);
    expect(twoKeys.text).toContain('Authorization header appears more than once');
    const twoHosts = await raw(
      `GET /agent/tools HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nAuthorization: Bearer ${alpha.key}\r\n`,
    );
    expect(twoHosts.status).toBe(400);
    const one = await raw(
      `GET /agent/tools HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${alpha.key}\r\n`,
    );
    expect(one.status).toBe(200);
  });

  it('attacker:exact-ids-http — ids beyond 2^53 get id null and -32600, with or without a key; exact ids are echoed', async () => {
    for (const [id, key] of [
      ['123456789012345678901234567890', alpha.key],
      ['9007199254741925', alpha.key],
      ['9007199254741925', undefined],
    ] as const) {
      const body = `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"_meta":${JSON.stringify(MODERN_META)}}}`;
      const headers = mcpHeaders('tools/list');
      if (key === undefined) delete headers['authorization'];
      const response = await fetch(`${url}/mcp`, { method: 'POST', headers, body });
      const text = await response.text();
      expect(text, id).toMatch(/^\{"jsonrpc":"2\.0","id":null,/);
      if (key !== undefined) expect(text).toContain('"code":-32600');
    }
    const exact = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: mcpHeaders('tools/list'),
      body: `{"jsonrpc":"2.0","id":9007199254740991,"method":"tools/list","params":{"_meta":${JSON.stringify(MODERN_META)}}}`,
    });
    expect(await exact.text()).toMatch(/^\{"jsonrpc":"2\.0","id":9007199254740991,/);
  });

  it('attacker:deep-arguments — 5,000 levels of arguments are invalid params; the upstream never sees them and its health is untouched', async () => {
    const before = upstream.log.filter((e) => e.rpcMethod === 'tools/call').length;
    for (let i = 0; i < 20; i += 1) {
      // Half the bodies hold a backslash (an escaped name), so the id's text can only be read back
      // by a full parse, which this nesting defeats.
      const escaped = i % 2 === 1;
      const body = `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"up__echo","arguments":{"text":${'['.repeat(5000)}${']'.repeat(5000)}${escaped ? ',"note":"a\\u0041"' : ''}},"_meta":${JSON.stringify(MODERN_META)}}}`;
      const response = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: mcpHeaders('tools/call', 'up__echo'),
        body,
      });
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { id: number | null; error: { code: number } };
      // A plain body's id is read from its text without parsing (issue 45) and echoed exactly; one
      // too deep to read back carries id null, never a guess.
      expect(answer).toMatchObject({ id: escaped ? null : i, error: { code: -32602 } });
    }
    expect(upstream.log.filter((e) => e.rpcMethod === 'tools/call').length).toBe(before);
    const sources = (await (
      await fetch(`${url}/agent/sources`, { headers: { ...auth(), accept: 'application/json' } })
    ).json()) as {
      sources: { id: string; status: string; breaker: string | null }[];
    };
    const up = sources.sources.find((s) => s.id === 'up');
    expect(up?.breaker ?? 'closed').toBe('closed');
    const series = await scrapeSeries();
    expect(
      series.filter((line) => line.startsWith('agw_upstream_calls_total') && line.includes('error_type')),
    ).toEqual([]);
  });

  it('attacker:metrics-cardinality — 10k random methods, paths, tool names and session ids add no metric series', async () => {
    const methods = METHODS.filter((m) => m !== 'CONNECT');
    const shapes = async (i: number) => {
      switch (i % 4) {
        case 0:
          return raw(
            `${methods[Math.floor(i / 4) % methods.length] ?? 'GET'} /agent/search HTTP/1.1\r\nHost: 127.0.0.1\r\n`,
          );
        case 1:
          return fetch(`${url}/r/${i}/${Math.random().toString(36).slice(2)}`, { headers: auth() }).then(
            (r) => r.arrayBuffer(),
          );
        case 2:
          return fetch(`${url}/mcp`, {
            method: 'POST',
            headers: mcpHeaders('tools/call', `up__t${i}`),
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: i,
              method: 'tools/call',
              params: { name: `up__t${i}`, arguments: {}, _meta: MODERN_META },
            }),
          }).then((r) => r.arrayBuffer());
        default:
          return fetch(`${url}/mcp`, {
            method: 'POST',
            headers: { ...mcpHeaders('tools/list'), 'mcp-session-id': `s-${i}-${Math.random()}` },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: i,
              method: 'tools/list',
              params: { _meta: MODERN_META },
            }),
          }).then((r) => r.arrayBuffer());
      }
    };
    const run = async (from: number, to: number) => {
      let next = from;
      const worker = async () => {
        while (next < to) await shapes(next++);
      };
      await Promise.all(Array.from({ length: 16 }, worker));
    };
    // Every shape with every method first, so the bounded series they create exist before the baseline.
    await run(0, methods.length * 4 * 2);
    const baseline = await scrapeSeries();
    // target_info describes the process (its resource attributes settle asynchronously), not requests.
    const names = (lines: string[]) =>
      new Set(
        lines.filter((line) => !line.startsWith('target_info')).map((line) => line.replace(/ [^ ]+$/, '')),
      );
    await run(methods.length * 8, methods.length * 8 + 10_000);
    const after = await scrapeSeries();
    const added = [...names(after)].filter((series) => !names(baseline).has(series));
    expect(added).toEqual([]);
    // No label anywhere carries a caller's path, tool name or session id.
    expect(
      after.filter((line) => line.startsWith('agw_') && /="[^"]*(up__t\d|\/r\/\d|s-\d)/.test(line)),
    ).toEqual([]);
    expect(after.some((line) => line.includes('http_request_method="_OTHER"'))).toBe(true);
  }, 180_000);

  it('attacker:metrics-loopback — the Prometheus port listens on loopback unless configured', async () => {
    expect((await fetch(`http://127.0.0.1:${promPort}/metrics`)).status).toBe(200);
    const outside = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .find((info) => !info.internal && info.family === 'IPv4')?.address;
    if (outside === undefined) return;
    const reached = await new Promise<boolean>((resolve) => {
      const socket = connect(promPort, outside);
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    expect(reached).toBe(false);
  });

  it('attacker:in-band-logged — an upstream failure answered in-band (HTTP 200) logs its class and code, never content', async () => {
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: mcpHeaders('tools/call', 'broken__anything'),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 77,
        method: 'tools/call',
        params: { name: 'broken__anything', arguments: { secret: 'plover-argument' }, _meta: MODERN_META },
      }),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as {
      id: number;
      error?: { code: number; data?: { class?: string } };
    };
    expect(answer.id).toBe(77);
    expect(answer.error?.code).toBeTypeOf('number');
    const line = await until('the request log line', () =>
      Promise.resolve(
        logs
          .split('\n')
          .find(
            (l) =>
              l.includes('"request completed"') && l.includes('"status":200') && l.includes('"errorClass"'),
          ),
      ),
    );
    expect(line).toMatch(/"errorClass":"[a-z_]+"/);
    expect(line).toMatch(/"errorCode":"[a-z_0-9-]+"/);
    expect(logs).not.toContain('plover-argument');
  });

  it('attacker:sync-metric-workspace — two workspaces with a data source of the same name keep two series', async () => {
    const series = await until('both sync series', async () => {
      const lines = (await scrapeSeries()).filter((l) => l.startsWith('agw_sync_documents_total'));
      return lines.length >= 2 ? lines : undefined;
    });
    expect(series.some((l) => l.includes('agw_workspace="alpha"'))).toBe(true);
    expect(series.some((l) => l.includes('agw_workspace="beta"'))).toBe(true);
  });
});
