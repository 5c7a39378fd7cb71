// Issue 8 (outside probe), inbound side: every spelling of a protected path meets the same gate,
// Host is parsed strictly, mirrored headers are checked in both protocol eras, /mcp bodies must be
// UTF-8, slow or abandoned requests cannot hold sockets, and the log line names the key fingerprint.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { httpSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { get, startWorkspace, fileHarness } from '../support/gateway-harness.js';
import { gatewayPort, rawExchange, rawJson } from '../support/raw-http.js';

const [reader, writer] = newKeys(2);
let modern: RunningModernServer;

const h = fileHarness(
  async () => {
    modern = await startModernServer();
    return startWorkspace(
      {
        mcpSources: [httpSource('modern', modern.url)],
        keys: [keyRecord(reader), keyRecord(writer, { access: 'write' })],
      },
      {
        server: {
          host: '127.0.0.1',
          port: 0,
          timeouts: { headersMs: 1000, requestMs: 2000, keepAliveMs: 500 },
        },
      },
    );
  },
  () => modern.close(),
);

const errorLines = () => h.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
const upstreamCalls = () => modern.log.filter((entry) => entry.rpcMethod === 'tools/call').length;

function legacyPost(body: unknown, headers: Record<string, string>, key = writer.key) {
  return fetch(`${h.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
}

describe('the gate follows the matched route, not the raw URL', () => {
  it('auth:canonical-path — percent-encoded and doubled spellings of protected paths are authenticated, never 500', async () => {
    const spellings = ['/%61gent/tools', '/agent/%74ools', '/%61gent/sources', '/agent/tools/', '/%6dcp'];
    for (const path of spellings) {
      const anonymous = await get(`${h.url}${path}`);
      expect(anonymous.status, path).toBe(401);
      const keyed = await get(`${h.url}${path}`, reader.key);
      expect([200, 404, 405], path).toContain(keyed.status);
    }
    const encoded = await get(`${h.url}/%61gent/tools?response_format=json`, reader.key);
    expect(encoded.status).toBe(200);
    expect(errorLines()).toEqual([]);
  });

  it('auth:canonical-path — an encoded /mcp with a foreign Origin is refused like /mcp, notification or not', async () => {
    for (const path of ['/mcp', '/%6dcp', '/%6D%63%70']) {
      const response = await fetch(`${h.url}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${writer.key}`,
          origin: 'https://evil.example',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
      expect(response.status, path).toBe(403);
      expect(((await response.json()) as { jsonrpc: string }).jsonrpc).toBe('2.0');
    }
  });

  it('auth:absolute-form — an absolute-form or scheme-relative request target is a 400, not a 500', async () => {
    const port = gatewayPort(h.url);
    for (const target of ['http://evil.example/agent/tools', '//evil.example/agent/tools']) {
      const exchange = await rawExchange(
        port,
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${reader.key}\r\nConnection: close\r\n\r\n`,
      );
      expect(exchange.status, target).toBe(400);
      expect(rawJson(exchange)).toMatchObject({ error: { code: 'invalid_request' } });
    }
    expect(errorLines()).toEqual([]);
  });

  it('auth:host-strict — no Host header, or a Host with userinfo, fails the loopback Host check', async () => {
    const port = gatewayPort(h.url);
    const auth = `Authorization: Bearer ${reader.key}\r\nConnection: close\r\n`;
    const noHost = await rawExchange(port, `GET /agent/tools HTTP/1.0\r\n${auth}\r\n`);
    expect(noHost.status).toBe(403);
    for (const host of ['127.0.0.1:80@evil.com', 'evil.com#127.0.0.1', '127.0.0.1 evil.com']) {
      const exchange = await rawExchange(port, `GET /agent/tools HTTP/1.1\r\nHost: ${host}\r\n${auth}\r\n`);
      expect([400, 403], host).toContain(exchange.status);
    }
    const good = await rawExchange(
      port,
      `GET /agent/tools HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${auth}\r\n`,
    );
    expect(good.status).toBe(200);
  });
});

describe('mirrored headers in every era', () => {
  it('mcp:mirror-every-era — a 2025-era request whose Mcp-Method/Mcp-Name lie about the body is refused and never executed', async () => {
    const before = upstreamCalls();
    const body = {
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'modern__write_thing', arguments: {} },
    };
    for (const version of [{ 'mcp-protocol-version': '2025-06-18' }, {}]) {
      const lying = await legacyPost(body, {
        ...version,
        'mcp-method': 'tools/list',
        'mcp-name': 'modern__echo',
      });
      expect(lying.status).toBe(400);
      expect(await lying.json()).toMatchObject({ id: 9, error: { code: -32020 } });
      const wrongName = await legacyPost(body, {
        ...version,
        'mcp-method': 'tools/call',
        'mcp-name': 'modern__echo',
      });
      expect(wrongName.status).toBe(400);
      expect(((await wrongName.json()) as { error: { code: number } }).error.code).toBe(-32020);
    }
    const nameOnList = await legacyPost(
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} },
      { 'mcp-protocol-version': '2025-06-18', 'mcp-name': 'modern__echo' },
    );
    expect(nameOnList.status).toBe(400);
    expect(upstreamCalls()).toBe(before);
    // Matching headers on the 2025 face are fine.
    const honest = await legacyPost(
      {
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'modern__echo', arguments: { text: 'hi' } },
      },
      { 'mcp-protocol-version': '2025-06-18', 'mcp-method': 'tools/call', 'mcp-name': 'modern__echo' },
    );
    expect(honest.status).toBe(200);
    expect(upstreamCalls()).toBe(before + 1);
  });

  it('mcp:mirror-every-era — an Mcp-Param-* header sent by a 2025-era client must mirror its argument', async () => {
    const call = (region: string) => ({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'modern__regional_lookup', arguments: { region } },
    });
    const before = upstreamCalls();
    const lying = await legacyPost(call('eu-west'), {
      'mcp-protocol-version': '2025-06-18',
      'mcp-param-region': 'us-east',
    });
    expect(lying.status).toBe(400);
    expect(((await lying.json()) as { error: { code: number } }).error.code).toBe(-32020);
    expect(upstreamCalls()).toBe(before);
    const absent = await legacyPost(call('eu-west'), { 'mcp-protocol-version': '2025-06-18' });
    expect(absent.status).toBe(200);
    const matching = await legacyPost(call('eu-west'), {
      'mcp-protocol-version': '2025-06-18',
      'mcp-param-region': 'eu-west',
    });
    expect(matching.status).toBe(200);
  });

  it('ladder:invalid-utf8 — a /mcp body that is not UTF-8 is -32700 and nothing is forwarded', async () => {
    const before = upstreamCalls();
    const prefix = Buffer.from(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"modern__echo","arguments":{"text":"',
    );
    const body = Buffer.concat([prefix, Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}}')]);
    const response = await legacyPost(new Uint8Array(body), { 'mcp-protocol-version': '2025-06-18' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
    expect(upstreamCalls()).toBe(before);
  });
});

describe('slow and abandoned requests', () => {
  const port = () => gatewayPort(h.url);
  const slowHead = (key?: string) =>
    `POST /agent/search HTTP/1.1\r\nHost: 127.0.0.1:${port()}\r\nContent-Type: application/json\r\n` +
    `${key === undefined ? '' : `Authorization: Bearer ${key}\r\n`}Content-Length: 100000\r\n\r\n{`;

  it('limits:slow-body — an authenticated body trickled a byte at a time is cut off at requestMs', async () => {
    const exchange = await rawExchange(port(), slowHead(reader.key), {
      chunks: Array.from({ length: 100 }, () => ' '),
      intervalMs: 200,
      maxWaitMs: 10_000,
    });
    expect(exchange.status).toBe(408);
  });

  it('limits:slow-headers — headers that never finish are cut off at headersMs', async () => {
    const exchange = await rawExchange(port(), `GET /agent/tools HTTP/1.1\r\nHost: 127.0.0.1\r\n`, {
      chunks: Array.from({ length: 100 }, (_, i) => `X-Pad-${i}: y\r\n`),
      intervalMs: 200,
      maxWaitMs: 10_000,
    });
    expect(exchange.status).toBe(408);
  });

  it('limits:silent-connection — a connection that never sends a byte is closed at headersMs', async () => {
    const exchange = await rawExchange(port(), '', { maxWaitMs: 10_000 });
    expect(exchange.status).toBeUndefined();
    expect(exchange.text).toBe('');
  });

  it('limits:silent-response-not-cut — a tool call silent for longer than headersMs still gets its answer', async () => {
    const response = await legacyPost(
      {
        jsonrpc: '2.0',
        id: 11,
        method: 'tools/call',
        params: { name: 'modern__slow', arguments: { ms: 2500, steps: 1 } },
      },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result?: unknown }).result).toBeDefined();
  });

  it('limits:unauthenticated-no-pin — an unauthenticated trickled body gets its 401 and the socket is closed at once', async () => {
    const exchange = await rawExchange(port(), slowHead(), {
      chunks: Array.from({ length: 100 }, () => ' '),
      intervalMs: 200,
      maxWaitMs: 10_000,
    });
    expect(exchange.status).toBe(401);
    // Closed by the 401 (Connection: close), long before the client would have finished.
    expect(exchange.text.toLowerCase()).toContain('connection: close');
  });

  it('logs:client-abort-not-error — a client that disconnects mid-body is not logged as an error', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(port(), '127.0.0.1', () => {
        socket.write(slowHead(reader.key));
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
    });
    const deadline = Date.now() + 5000;
    while (!h.logs.some((line) => line.includes('client closed the connection')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(h.logs.some((line) => line.includes('client closed the connection'))).toBe(true);
    expect(errorLines()).toEqual([]);
  });
});

describe('request log line', () => {
  it('logs:key-fingerprint — the request line carries the key fingerprint `key list` shows, unredacted', async () => {
    const response = await get(`${h.url}/agent/tools`, reader.key);
    expect(response.status).toBe(200);
    const id = response.headers.get('x-request-id');
    const fingerprint = reader.hash.slice('sha256:'.length, 'sha256:'.length + 12);
    const deadline = Date.now() + 2000;
    let line: Record<string, unknown> | undefined;
    while (line === undefined && Date.now() < deadline) {
      line = h.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l['reqId'] === id && l['msg'] === 'request completed');
      if (line === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    expect(line?.['keyFingerprint']).toBe(fingerprint);
    expect(JSON.stringify(line)).not.toContain(reader.key);
  });
});
