// Proves each upstream MCP fixture in test/fixtures/upstreams behaves like a real server of its kind
// by driving it with a real client (v2 SDK for the modern one, v1 SDK for the legacy ones) and
// checking both the client-visible results and the fixture's request log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  everythingStdioParams,
  startEverythingServer,
  type RunningEverythingServer,
} from '../fixtures/upstreams/everything-server.js';
import type { RunningUpstream } from '../fixtures/upstreams/http-bridge.js';
import { startHungServer } from '../fixtures/upstreams/hung-server.js';
import {
  startLegacySessionfulServer,
  type RunningLegacySessionfulServer,
} from '../fixtures/upstreams/legacy-sessionful-server.js';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { startSseLegacyServer } from '../fixtures/upstreams/sse-legacy-server.js';

const clientInfo = { name: 'fixture-test', version: '1.0.0' };

function textOf(result: unknown): string | undefined {
  const content = (result as { content?: { type: string; text?: string }[] }).content;
  return content?.[0]?.text;
}

const until = async (check: () => boolean, timeoutMs = 3_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** A hand-built 2026-07-28 request, for checks below the client SDK. */
function modernPost(
  url: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
  clientCapabilities: Record<string, unknown> = { elicitation: { form: {} } },
) {
  const name = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...name,
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
        },
      },
    }),
  });
}

describe('modern-server (v2 SDK, 2026-07-28 only)', () => {
  let server: RunningModernServer;
  let client: Client;
  const elicitations: unknown[] = [];

  beforeAll(async () => {
    server = await startModernServer();
    client = new Client(clientInfo, {
      versionNegotiation: { mode: 'auto' },
      capabilities: { elicitation: { form: {} } },
    });
    client.setRequestHandler('elicitation/create', (request) => {
      elicitations.push(request.params);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('negotiates the modern era and lists tools with the x-mcp-header annotation and cache hints', async () => {
    expect(client.getProtocolEra()).toBe('modern');
    const list = await client.listTools();
    const names = list.tools.map((tool) => tool.name);
    expect(names).toEqual(['echo', 'regional_lookup', 'confirm_action', 'slow', 'fail', 'write_thing']);
    const regional = list.tools.find((tool) => tool.name === 'regional_lookup');
    expect(regional?.inputSchema.properties?.region).toEqual({ type: 'string', 'x-mcp-header': 'Region' });
    expect(list.tools.find((tool) => tool.name === 'echo')?.annotations?.readOnlyHint).toBe(true);
    expect(list.tools.find((tool) => tool.name === 'write_thing')?.annotations?.readOnlyHint).toBe(false);
    expect(list).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    expect(server.log[0]).toMatchObject({ rpcMethod: 'server/discover', protocolVersion: '2026-07-28' });
  });

  it('answers echo and records the standard headers', async () => {
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(textOf(result)).toBe('hi');
    expect(server.log.at(-1)).toMatchObject({
      httpMethod: 'POST',
      path: '/mcp',
      rpcMethod: 'tools/call',
      name: 'echo',
      mcpMethod: 'tools/call',
      mcpName: 'echo',
      protocolVersion: '2026-07-28',
      status: 200,
    });
    expect(server.log.at(-1)?.sessionId).toBeUndefined();
  });

  it('receives the Mcp-Param-Region header for regional_lookup', async () => {
    const result = await client.callTool({ name: 'regional_lookup', arguments: { region: 'eu-west' } });
    expect(textOf(result)).toBe('region=eu-west');
    expect(server.log.at(-1)?.paramHeaders).toEqual({ 'mcp-param-region': 'eu-west' });
  });

  it('rejects a call whose Mcp-Param-Region header is missing', async () => {
    const response = await modernPost(server.url, 'tools/call', {
      name: 'regional_lookup',
      arguments: { region: 'x' },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32020);
  });

  it('completes confirm_action through an MRTR round trip', async () => {
    const before = server.log.length;
    const result = await client.callTool({ name: 'confirm_action', arguments: { action: 'deploy' } });
    expect(textOf(result)).toBe('confirmed deploy');
    expect(elicitations).toHaveLength(1);
    expect(elicitations[0]).toMatchObject({ message: 'Confirm deploy?' });
    const calls = server.log.slice(before);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.body).toMatchObject({
      params: { inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } },
    });
    expect(typeof (calls[1]?.body as { params: { requestState?: unknown } }).params.requestState).toBe(
      'string',
    );
  });

  it('returns a raw input_required result on the first round', async () => {
    const response = await modernPost(server.url, 'tools/call', {
      name: 'confirm_action',
      arguments: { action: 'x' },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: Record<string, unknown> };
    expect(body.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        confirm: { method: 'elicitation/create', params: { mode: 'form', message: 'Confirm x?' } },
      },
    });
    expect(body.result.requestState).toEqual(expect.any(String));
  });

  it('answers a declined confirmation and refuses MRTR without the elicitation capability', async () => {
    const args = { name: 'confirm_action', arguments: { action: 'y' } };
    const first = (await (await modernPost(server.url, 'tools/call', args)).json()) as {
      result: { requestState: string };
    };
    const retry = await modernPost(server.url, 'tools/call', {
      ...args,
      inputResponses: { confirm: { action: 'decline' } },
      requestState: first.result.requestState,
    });
    expect(textOf(((await retry.json()) as { result: unknown }).result)).toBe('declined y');
    const incapable = await modernPost(server.url, 'tools/call', args, {}, {});
    expect(incapable.status).toBe(400);
    expect(((await incapable.json()) as { error: { code: number } }).error.code).toBe(-32021);
  });

  it('reports a tool error from fail', async () => {
    const result = await client.callTool({ name: 'fail', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('boom');
  });

  it('streams progress from slow and records completion', async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'slow', arguments: { ms: 100, steps: 4 } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(textOf(result)).toContain('4 steps');
    expect(progress).toEqual([1, 2, 3, 4]);
    expect(server.slowRuns.at(-1)).toMatchObject({ outcome: 'completed', progressSent: 4 });
  });

  it('sees a client abort of slow as cancellation', async () => {
    const controller = new AbortController();
    const runsBefore = server.slowRuns.length;
    const call = client.callTool(
      { name: 'slow', arguments: { ms: 5_000, steps: 50 } },
      { signal: controller.signal, onprogress: () => undefined },
    );
    await until(() => (server.slowRuns[runsBefore]?.progressSent ?? 0) >= 1);
    controller.abort();
    await expect(call).rejects.toThrow(/abort/i);
    await until(() => server.slowRuns[runsBefore]?.outcome === 'cancelled');
    expect(server.slowRuns[runsBefore]?.progressSent).toBeLessThan(50);
  });

  it('serves the resource and the prompt', async () => {
    const read = await client.readResource({ uri: 'demo://readme' });
    expect(read.contents[0]).toMatchObject({ uri: 'demo://readme', text: 'Hello from the modern fixture.' });
    expect(server.log.at(-1)).toMatchObject({
      rpcMethod: 'resources/read',
      uri: 'demo://readme',
      mcpName: 'demo://readme',
    });
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    expect(prompt.messages[0]?.content).toMatchObject({ type: 'text', text: 'Please greet Ada.' });
  });

  it('rejects legacy initialize with -32022', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo },
      }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: number; data: { supported: string[] } } };
    expect(body.error.code).toBe(-32022);
    expect(body.error.data.supported).toEqual(['2026-07-28']);
  });
});

describe('modern-server with a bearer token', () => {
  let server: RunningModernServer;

  beforeAll(async () => {
    server = await startModernServer({ bearerToken: 's3cret' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers 401 without the token and serves with it', async () => {
    const denied = await modernPost(server.url, 'tools/list', {});
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const client = new Client(clientInfo, { versionNegotiation: { mode: 'auto' } });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { authorization: 'Bearer s3cret' } },
        }),
      );
      expect(client.getProtocolEra()).toBe('modern');
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'ok' } }))).toBe('ok');
    } finally {
      await client.close();
    }
    expect(server.log[0]).toMatchObject({ status: 401 });
    expect(server.log[0]?.authorization).toBeUndefined();
    expect(server.log.at(-1)).toMatchObject({ authorization: 'Bearer s3cret', status: 200 });
  });
});

describe('legacy-sessionful-server (v1 SDK, Mcp-Session-Id)', () => {
  let server: RunningLegacySessionfulServer;
  let client: LegacyClient;
  let transport: LegacyHttpTransport;

  beforeAll(async () => {
    server = await startLegacySessionfulServer();
    client = new LegacyClient(clientInfo, { capabilities: { elicitation: {}, sampling: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada' } }));
    client.setRequestHandler(CreateMessageRequestSchema, () => ({
      role: 'assistant',
      content: { type: 'text', text: 'forty-two' },
      model: 'fixture-model',
      stopReason: 'endTurn',
    }));
    transport = new LegacyHttpTransport(new URL(server.url));
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('issues a session on initialize and sees it on later requests', async () => {
    expect(server.sessionsIssued).toHaveLength(1);
    const sessionId = server.sessionsIssued[0];
    expect(transport.sessionId).toBe(sessionId);
    const initialize = server.log.find((entry) => entry.rpcMethod === 'initialize');
    expect(initialize).toMatchObject({ responseSessionId: sessionId, status: 200 });
    expect(initialize?.sessionId).toBeUndefined();
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(textOf(result)).toBe('hi');
    expect(server.log.at(-1)).toMatchObject({ rpcMethod: 'tools/call', name: 'echo', sessionId });
    expect(server.log.at(-1)?.protocolVersion).toMatch(/^2025-/);
  });

  it('runs ask_name through a server-to-client elicitation', async () => {
    expect(textOf(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe('hello Ada');
  });

  it('runs sample through sampling/createMessage', async () => {
    expect(textOf(await client.callTool({ name: 'sample', arguments: { prompt: 'meaning?' } }))).toBe(
      'forty-two',
    );
  });

  it('emits progress from progress_echo', async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'progress_echo', arguments: { text: 'p', steps: 3 } },
      undefined,
      {
        onprogress: (p) => progress.push(p.progress),
      },
    );
    expect(textOf(result)).toBe('p');
    expect(progress).toEqual([1, 2, 3]);
  });

  it('serves a resource and a prompt', async () => {
    const read = await client.readResource({ uri: 'legacy://readme' });
    expect(read.contents[0]).toMatchObject({ text: 'Hello from the legacy fixture.' });
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Bo' } });
    expect(prompt.messages[0]?.content).toMatchObject({ text: 'Please greet Bo.' });
  });

  it('answers 404 for a forgotten session', async () => {
    const sessionId = server.sessionsIssued[0]!;
    await server.forgetSessions();
    expect(server.activeSessions()).toEqual([]);
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(404);
    expect(server.log.at(-1)).toMatchObject({ rpcMethod: 'tools/list', sessionId, status: 404 });
  });
});

describe('legacy-sessionful-server with a bearer token, seen by a v2 auto client', () => {
  let server: RunningLegacySessionfulServer;

  beforeAll(async () => {
    server = await startLegacySessionfulServer({ bearerToken: 'legacy-token' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers 401 without the token and negotiates the legacy era with it', async () => {
    const denied = await fetch(server.url, { method: 'POST', body: '{}' });
    expect(denied.status).toBe(401);
    const client = new Client(clientInfo, { versionNegotiation: { mode: 'auto' } });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { authorization: 'Bearer legacy-token' } },
        }),
      );
      expect(client.getProtocolEra()).toBe('legacy');
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'v2' } }))).toBe('v2');
    } finally {
      await client.close();
    }
    expect(server.sessionsIssued).toHaveLength(1);
    const probe = server.log.find((entry) => entry.rpcMethod === 'server/discover');
    expect(probe).toMatchObject({ status: 400, authorization: 'Bearer legacy-token' });
  });
});

describe('sse-legacy-server (2024-11-05 HTTP+SSE)', () => {
  let server: RunningUpstream;
  let client: LegacyClient;

  beforeAll(async () => {
    server = await startSseLegacyServer();
    client = new LegacyClient(clientInfo);
    await client.connect(new SSEClientTransport(new URL(server.url)));
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('calls add over the SSE transport', async () => {
    expect(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    const tools = await client.listTools();
    expect(tools.tools.find((tool) => tool.name === 'echo')?.annotations?.readOnlyHint).toBe(true);
    expect(server.log[0]).toMatchObject({ httpMethod: 'GET', path: '/sse', status: 200 });
    const call = server.log.find((entry) => entry.rpcMethod === 'tools/call');
    expect(call).toMatchObject({ httpMethod: 'POST', path: '/messages', name: 'add', status: 202 });
    expect(call?.query).toMatch(/^sessionId=/);
  });
});

describe('hung-server', () => {
  const started: RunningUpstream[] = [];
  afterAll(async () => {
    await Promise.all(started.map((server) => server.close()));
  });

  it('never answers, so a fetch with a 300 ms timeout aborts', async () => {
    const server = await startHungServer();
    started.push(server);
    const begun = Date.now();
    await expect(
      fetch(server.url, { method: 'POST', body: '{}', signal: AbortSignal.timeout(300) }),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - begun).toBeLessThan(2_000);
    expect(server.log).toHaveLength(1);
    expect(server.log[0]?.status).toBeUndefined();
  });

  it('resets connections in reset mode', async () => {
    const server = await startHungServer({ mode: 'reset' });
    started.push(server);
    await expect(fetch(server.url, { method: 'POST', body: '{}' })).rejects.toThrow();
    expect(server.log).toHaveLength(1);
  });

  it('answers 500 in http500 mode', async () => {
    const server = await startHungServer({ mode: 'http500' });
    started.push(server);
    expect((await fetch(server.url, { method: 'POST', body: '{}' })).status).toBe(500);
  });
});

describe('everything-server (published reference server)', () => {
  let server: RunningEverythingServer;

  beforeAll(async () => {
    server = await startEverythingServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lists tools over Streamable HTTP through the recording proxy', async () => {
    const client = new LegacyClient(clientInfo);
    try {
      await client.connect(new LegacyHttpTransport(new URL(server.url)));
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
      expect(tools.map((tool) => tool.name)).toContain('echo');
    } finally {
      await client.close();
    }
    const initialize = server.log.find((entry) => entry.rpcMethod === 'initialize');
    expect(initialize?.responseSessionId).toEqual(expect.any(String));
    expect(server.log.find((entry) => entry.rpcMethod === 'tools/list')?.sessionId).toBe(
      initialize?.responseSessionId,
    );
  });

  it('also runs over stdio with the exported launch parameters', async () => {
    const client = new LegacyClient(clientInfo);
    try {
      await client.connect(new StdioClientTransport({ ...everythingStdioParams(), stderr: 'ignore' }));
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});
