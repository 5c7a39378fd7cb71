// Trace context in `params._meta` (issue 43, SEP-414) through a real gateway process with
// OpenTelemetry on and a real OTLP receiver: SDK v2 (2026) and v1 (2025) clients send `traceparent`,
// `tracestate` and `baggage` in `_meta` only (no HTTP header, as the SDKs do); the gateway's MCP
// server span is the child of the client's span, the upstream hop and the upstream's own context
// (header and `_meta`, for a 2026 and a 2025 upstream) are in the client's trace below the gateway's
// spans. Malformed values start a fresh trace and are never logged; `_meta` wins over the header
// for the MCP request, the header keeps the HTTP span. With telemetry off (in-process gateway) valid
// client keys pass to the upstream and malformed ones do not.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  startLegacySessionfulServer,
  type RunningLegacySessionfulServer,
} from '../fixtures/upstreams/legacy-sessionful-server.js';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { startTaskServer, type RunningTaskServer } from '../fixtures/upstreams/task-server.js';
import { TASKS_META } from '../support/task-requests.js';
import { legacyHeaders } from '../support/legacy-stream.js';
import type { RecordedRequest } from '../fixtures/upstreams/http-bridge.js';
import { freePort } from '../infra/free-port.js';
import { httpSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { fileHarness, startWorkspace } from '../support/gateway-harness.js';
import { connectClient } from '../support/mcp-clients.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { until } from '../support/until.js';

const [key] = newKeys(1);
const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const TRACESTATE = 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE';
const BAGGAGE = 'tenant=acme,tier=gold;p=1';

let receiver: OtlpReceiver;
let modern: RunningModernServer;
let legacy: RunningLegacySessionfulServer;
let taskUpstream: RunningTaskServer;
let dir: string;
let gateway: ChildProcessWithoutNullStreams;
let url: string;
let logs = '';
const clients: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  modern = await startModernServer();
  legacy = await startLegacySessionfulServer();
  taskUpstream = await startTaskServer();
  dir = await mkdtemp(join(tmpdir(), 'agw-trace-'));
  const port = await freePort();
  const configPath = join(dir, 'gateway.yaml');
  await writeFile(
    configPath,
    stringify({
      version: 1,
      server: { host: '127.0.0.1', port },
      workspaces: [
        {
          name: 'demo',
          mcpSources: [
            httpSource('modern', modern.url),
            httpSource('legacy', legacy.url),
            httpSource('tasks', taskUpstream.url),
          ],
          keys: [keyRecord(key, { access: 'write' })],
        },
      ],
    }),
  );
  gateway = spawn(
    process.execPath,
    ['bin/agent-gateway.js', 'serve', '--config', configPath, '--log-level', 'debug'],
    {
      env: {
        ...process.env,
        OTEL_SDK_DISABLED: 'false',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_TRACES_SAMPLER: 'always_on',
        OTEL_EXPORTER_PROMETHEUS_PORT: String(await freePort()),
        OTEL_SERVICE_NAME: 'agw-trace-test',
      },
    },
  );
  gateway.stdout.on('data', (chunk: Buffer) => (logs += chunk.toString()));
  gateway.stderr.on('data', (chunk: Buffer) => (logs += chunk.toString()));
  url = `http://127.0.0.1:${port}`;
  await until('the gateway to listen', async () =>
    (await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200 ? true : undefined,
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  gateway?.kill('SIGTERM');
  await new Promise((resolve) => gateway?.once('exit', resolve));
  await receiver?.close();
  await modern?.close();
  await legacy?.close();
  await taskUpstream?.close();
  await rm(dir, { recursive: true, force: true });
});

type AnyClient = Pick<Client, 'callTool'> | Pick<LegacyClient, 'callTool'>;

async function modernClient(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client(
    { name: 'trace-client', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key.key}`, ...headers } },
    }),
  );
  clients.push(client);
  return client;
}

async function legacyClient(): Promise<LegacyClient> {
  const client = new LegacyClient({ name: 'trace-client-2025', version: '1.0.0' });
  await client.connect(
    new LegacyTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key.key}` } },
    }),
  );
  clients.push(client);
  return client;
}

/** Calls `<source>__echo` with a unique text and `meta` in `_meta`; returns the text. */
async function echo(client: AnyClient, source: string, meta: Record<string, unknown>): Promise<string> {
  const text = `trace-${hex(6)}`;
  const result = (await client.callTool({ name: `${source}__echo`, arguments: { text }, _meta: meta })) as {
    content?: { text?: string }[];
  };
  expect(result.content?.[0]?.text).toBe(text);
  return text;
}

/** What the upstream received for the call whose text is `text`. */
function received(upstream: { log: RecordedRequest[] }, text: string): RecordedRequest {
  const entry = upstream.log.find(
    (request) => request.rpcMethod === 'tools/call' && JSON.stringify(request.body).includes(text),
  );
  expect(entry, `the upstream received ${text}`).toBeDefined();
  return entry as RecordedRequest;
}

function metaOf(entry: RecordedRequest): Record<string, unknown> {
  return (entry.body as { params?: { _meta?: Record<string, unknown> } }).params?._meta ?? {};
}

const parts = (traceparent: unknown) => {
  const [, traceId = '', spanId = ''] = String(traceparent).split('-');
  return { traceId, spanId };
};

const inTrace = (traceId: string) => receiver.spans.filter((span) => span.traceId === traceId);
const span = (spanId: string) => receiver.spans.find((s) => s.spanId === spanId);

/** Waits for the gateway's spans of a continued call: the MCP server span and the hop below it. */
async function continuedSpans(traceId: string, parentId: string, upstreamName: string) {
  return until(`the spans of trace ${traceId}`, () => {
    const server = inTrace(traceId).find((s) => s.kind === 2 && s.parentSpanId === parentId);
    const hop = inTrace(traceId).find(
      (s) => s.name === `tools/call ${upstreamName}` && s.parentSpanId === server?.spanId,
    );
    return Promise.resolve(server !== undefined && hop !== undefined ? { server, hop } : undefined);
  });
}

/** The client's span, the gateway's MCP server span under it, the hop, and the HTTP span it links. */
async function expectContinued(
  client: AnyClient,
  source: 'modern' | 'legacy',
  upstream: { log: RecordedRequest[] },
): Promise<{ server: ReceivedSpan; hop: ReceivedSpan; text: string; traceId: string }> {
  const traceId = hex(16);
  const parentId = hex(8);
  const text = await echo(client, source, {
    traceparent: `00-${traceId}-${parentId}-01`,
    tracestate: TRACESTATE,
    baggage: BAGGAGE,
  });
  const { server, hop } = await continuedSpans(traceId, parentId, 'echo');
  expect(server.name).toBe(`tools/call ${source}__echo`);
  expect(server.attributes).toMatchObject({
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': `${source}__echo`,
  });
  expect(hop.kind).toBe(3);
  expect(hop.attributes['agw.source']).toBe(source);
  // The transport's span (no header came: a trace of its own) is linked, and links back.
  const http = span(server.links[0]?.spanId ?? '') as ReceivedSpan;
  expect(http.name).toBe('POST /mcp');
  expect(http.traceId).not.toBe(traceId);
  expect(http.links).toContainEqual({ traceId, spanId: server.spanId });
  // Every span of the call below the client's is the gateway's, in the client's trace.
  for (const s of inTrace(traceId)) expect(s.service).toBe('agw-trace-test');
  expect(received(upstream, text)).toBeDefined();
  return { server, hop, text, traceId };
}

describe('trace context in _meta', () => {
  it('trace:meta-continues-modern — an SDK v2 client (auto) with _meta trace context and no header: the gateway continues it, to a 2026 and a 2025 upstream', async () => {
    const client = await modernClient();
    await expectContinued(client, 'modern', modern);
    await expectContinued(client, 'legacy', legacy);
  });

  it('trace:meta-continues-legacy — a 2025 client (SDK v1) with _meta trace context: the same, to a 2026 and a 2025 upstream', async () => {
    const client = await legacyClient();
    await expectContinued(client, 'modern', modern);
    await expectContinued(client, 'legacy', legacy);
  });

  it("trace:meta-upstream-child — both upstream eras get the gateway's context in _meta and the header: the client's trace, the gateway's span as parent, the client's tracestate and baggage", async () => {
    for (const [connect, source, upstream] of [
      [() => modernClient(), 'modern', modern],
      [() => modernClient(), 'legacy', legacy],
      [() => legacyClient(), 'modern', modern],
      [() => legacyClient(), 'legacy', legacy],
    ] as const) {
      const { hop, text, traceId } = await expectContinued(await connect(), source, upstream);
      const entry = received(upstream, text);
      const meta = metaOf(entry);
      // `_meta`: the hop (the gateway's client span) is the parent, never the client's span.
      expect(parts(meta['traceparent']), `${source} _meta`).toEqual({ traceId, spanId: hop.spanId });
      expect(meta['tracestate']).toBe(TRACESTATE);
      expect(meta['baggage']).toBe(BAGGAGE);
      // The header: the HTTP client span below the hop, also in the client's trace.
      const header = parts(entry.traceparent);
      expect(header.traceId, `${source} header`).toBe(traceId);
      const httpClient = await until('the HTTP client span', () => Promise.resolve(span(header.spanId)));
      expect(httpClient.kind).toBe(3);
      expect(httpClient.parentSpanId).toBe(hop.spanId);
    }
  });

  it("trace:meta-over-header — _meta and the traceparent header disagree: _meta parents the MCP request and the upstream's context, the header the HTTP span", async () => {
    const headerTrace = hex(16);
    const headerParent = hex(8);
    const client = await modernClient({ traceparent: `00-${headerTrace}-${headerParent}-01` });
    const { server, text, traceId } = await expectContinued(client, 'modern', modern);
    const http = span(server.links[0]?.spanId ?? '') as ReceivedSpan;
    expect(http.traceId).toBe(headerTrace);
    expect(http.parentSpanId).toBe(headerParent);
    const entry = received(modern, text);
    expect(parts(metaOf(entry)['traceparent']).traceId).toBe(traceId);
    expect(parts(entry.traceparent).traceId).toBe(traceId);
  });

  it('trace:meta-malformed-ignored — malformed or oversized trace context: a fresh trace, the call succeeds, nothing of it is logged or exported', async () => {
    const client = await modernClient();
    const marker = hex(16);
    const cases: Record<string, unknown>[] = [
      { traceparent: `00-${marker.toUpperCase()}-${hex(8)}-01` },
      { traceparent: `00-${marker}-${hex(8)}-01${'0'.repeat(20_000)}` },
      { traceparent: `ff-${marker}-${hex(8)}-01` },
      { traceparent: `00-${marker}-${'0'.repeat(16)}-01` },
      { traceparent: { traceId: marker } },
      { traceparent: `00-${marker}-${hex(8)}`, tracestate: TRACESTATE },
    ];
    for (const meta of cases) {
      const text = await echo(client, 'modern', meta);
      const entry = received(modern, text);
      const { traceId, spanId } = parts(metaOf(entry)['traceparent']);
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(traceId).not.toBe(marker);
      expect(metaOf(entry)['tracestate']).toBeUndefined();
      // A fresh trace: the HTTP server span is its root, with no MCP server span of a client's.
      const root = await until('the fresh trace', () => {
        const found = inTrace(traceId).find((s) => s.kind === 2 && s.parentSpanId === '');
        return Promise.resolve(found !== undefined && span(spanId) !== undefined ? found : undefined);
      });
      expect(root.name).toBe('POST /mcp');
      expect(span(spanId)?.name).toBe('tools/call echo');
      expect(inTrace(traceId).filter((s) => s.kind === 2)).toHaveLength(1);
    }
    // Invalid tracestate or baggage next to a valid traceparent: the trace goes on, they do not.
    const traceId = hex(16);
    const parentId = hex(8);
    const text = await echo(client, 'modern', {
      traceparent: `00-${traceId}-${parentId}-01`,
      tracestate: `${marker}=${'v'.repeat(600)}`,
      baggage: `${marker}=a b`,
    });
    await continuedSpans(traceId, parentId, 'echo');
    const meta = metaOf(received(modern, text));
    expect(parts(meta['traceparent']).traceId).toBe(traceId);
    expect(meta['tracestate']).toBeUndefined();
    expect(meta['baggage']).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.spans.some((s) => s.traceId === marker)).toBe(false);
    for (const [where, text] of [
      ['logs', logs],
      ['exported spans', receiver.raw.join('\n')],
    ] as const) {
      expect(text.toLowerCase(), where).not.toContain(marker);
    }
  });
});

describe('task follow-ups link to the call that created the task', () => {
  /** One JSON-RPC request on the wire; the parsed answer. */
  async function rpc(
    headers: Record<string, string>,
    body: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...body }),
    });
    const text = await response.text();
    const data = text.startsWith('{')
      ? text
      : (text.split('\n').find((l) => l.startsWith('data:')) ?? '').slice(5);
    return JSON.parse(data) as Record<string, unknown>;
  }
  const modernHeaders = (method: string, name: string) => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    'mcp-name': name,
    authorization: `Bearer ${key.key}`,
  });

  /** The gateway's MCP server span continuing the client's span `parentId` of trace `traceId`. */
  const serverSpanUnder = (traceId: string, parentId: string) =>
    until(`the server span under ${parentId}`, () =>
      Promise.resolve(inTrace(traceId).find((s) => s.kind === 2 && s.parentSpanId === parentId)),
    );

  it('trace:task-links — tasks/get and tasks/cancel (2026) and tasks/get (2025) link to the span of the tools/call that created the task; the link is sealed in the id, never shown', async () => {
    const [createTrace, createParent] = [hex(16), hex(8)];
    const created = await rpc(modernHeaders('tools/call', 'tasks__slow'), {
      method: 'tools/call',
      params: {
        name: 'tasks__slow',
        arguments: { ms: 30_000, text: 'linked' },
        _meta: { ...TASKS_META, traceparent: `00-${createTrace}-${createParent}-01` },
      },
    });
    const taskId = (created['result'] as { taskId: string }).taskId;
    expect(taskId).toMatch(/^agwt1\./);
    expect(taskId).not.toContain(createTrace);
    const creator = await serverSpanUnder(createTrace, createParent);
    const follow = async (
      headers: Record<string, string>,
      method: string,
      params: Record<string, unknown>,
    ) => {
      const [traceId, parentId] = [hex(16), hex(8)];
      const answer = await rpc(headers, {
        method,
        params: {
          ...params,
          taskId,
          _meta: { ...(params['_meta'] as object), traceparent: `00-${traceId}-${parentId}-01` },
        },
      });
      expect(answer['error'], method).toBeUndefined();
      const server = await serverSpanUnder(traceId, parentId);
      expect(server.links, method).toContainEqual({ traceId: createTrace, spanId: creator.spanId });
    };
    await follow(modernHeaders('tasks/get', taskId), 'tasks/get', { _meta: TASKS_META });
    await follow(legacyHeaders(key.key), 'tasks/get', { _meta: {} });
    await follow(modernHeaders('tasks/cancel', taskId), 'tasks/cancel', { _meta: TASKS_META });
  });
});

describe('trace context in _meta with telemetry off', () => {
  let passModern: RunningModernServer;
  const h = fileHarness(
    async () => {
      passModern = await startModernServer();
      return startWorkspace({
        mcpSources: [httpSource('modern', passModern.url)],
        keys: [keyRecord(key, { access: 'write' })],
      });
    },
    () => passModern.close(),
  );

  it('trace:meta-untraced-passthrough — the gateway takes no part: valid keys reach the upstream as sent, malformed ones do not', async () => {
    const client = await connectClient(h.url, key.key, 'auto');
    try {
      const traceparent = `00-${hex(16)}-${hex(8)}-01`;
      const valid = await echo(client, 'modern', { traceparent, tracestate: TRACESTATE, baggage: BAGGAGE });
      expect(metaOf(received(passModern, valid))).toMatchObject({
        traceparent,
        tracestate: TRACESTATE,
        baggage: BAGGAGE,
      });
      expect(received(passModern, valid).traceparent).toBeUndefined();
      const marker = hex(16);
      const bad = await echo(client, 'modern', {
        traceparent: `00-${marker.toUpperCase()}-${hex(8)}-01`,
        tracestate: TRACESTATE,
      });
      const meta = metaOf(received(passModern, bad));
      for (const name of ['traceparent', 'tracestate', 'baggage']) expect(meta[name]).toBeUndefined();
      expect(h.logs.join('\n').toLowerCase()).not.toContain(marker);
    } finally {
      await client.close();
    }
  });
});
