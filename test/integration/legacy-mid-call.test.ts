// What reaches a 2025-era client while its tools/call runs (issue 24): the upstream's log messages
// on the call's SSE stream, and its sampling and elicitation requests under gateway-minted ids,
// answered by a POST of a JSON-RPC response. Real parts: the conformance fixture server (v1 SDK,
// sessionful HTTP) behind the real gateway, the v1 SDK client in both 2025 protocol versions, the
// v2 SDK client on the modern face, and raw HTTP for the ways around.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  startConformanceServer,
  type RunningConformanceServer,
} from '../fixtures/upstreams/conformance-server.js';
import { httpSource, keyRecord, newKey, newKeys } from '../support/gateway-document.js';
import { mcpPost, MODERN_META, startWorkspace, fileHarness } from '../support/gateway-harness.js';
import { LegacyCall, postAnswer } from '../support/legacy-stream.js';
import { runPythonClient } from '../support/python-client.js';
import { until } from '../support/until.js';

const [key, other] = newKeys(2);
const IDLE_MS = 1500;
let conf: RunningConformanceServer;

const h = fileHarness(
  async () => {
    conf = await startConformanceServer();
    return startWorkspace(
      {
        mcpSources: [httpSource('conf', conf.url)],
        keys: [keyRecord(key, { access: 'write' }), keyRecord(other, { access: 'write' })],
      },
      {
        server: {
          host: '127.0.0.1',
          port: 0,
          multiRound: {
            maxPendingPerKey: 4,
            maxPendingPerWorkspace: 100,
            idleTimeoutMs: IDLE_MS,
            // Above the pending cap, so the cap test reaches the cap rather than the session budget.
            legacyCallerSessionsPerSource: 16,
          },
        },
      },
    );
  },
  () => conf.close(),
);

/** A v1 SDK client speaking `version` (the SDK asks for its latest; the body is rewritten). */
async function v1Client(
  version: string,
  handlers: { sampling?: boolean; elicitation?: boolean } = { sampling: true, elicitation: true },
) {
  const logs: Record<string, unknown>[] = [];
  const asked: Record<string, unknown>[] = [];
  const client = new Client(
    { name: 'v1-test', version: '1.0.0' },
    {
      capabilities: {
        ...(handlers.sampling === true ? { sampling: {} } : {}),
        ...(handlers.elicitation === true ? { elicitation: { form: {} } } : {}),
      },
    },
  );
  if (handlers.sampling === true)
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      asked.push(request.params);
      const prompt = request.params.messages[0]?.content;
      const text = prompt !== undefined && 'text' in prompt ? String(prompt.text) : '';
      return {
        role: 'assistant',
        content: { type: 'text', text: `echo: ${text}` },
        model: 'test-model',
      };
    });
  if (handlers.elicitation === true)
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
    });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logs.push(notification.params);
  });
  const rewrite: typeof fetch = (input, init) => {
    if (typeof init?.body === 'string' && init.body.includes('"initialize"'))
      init = { ...init, body: init.body.replace('"2025-11-25"', JSON.stringify(version)) };
    return fetch(input, init);
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key.key}` } },
    fetch: rewrite,
  });
  await client.connect(transport);
  expect(client.getServerVersion()).toBeDefined();
  return { client, logs, asked, protocolVersion: transport.protocolVersion };
}

function textOf(result: unknown): string {
  return JSON.stringify((result as { content?: unknown }).content ?? result);
}

describe.each(['2025-11-25', '2025-06-18'])('a %s client through the gateway', (version) => {
  it('mcp:legacy-log-relay — upstream log messages arrive during the call, before its result', async () => {
    const { client, logs, protocolVersion } = await v1Client(version);
    expect(protocolVersion).toBe(version);
    const result = await client.callTool({ name: 'conf__test_tool_with_logging', arguments: {} });
    expect(textOf(result)).toContain('Tool with logging executed successfully');
    expect(logs.map((log) => log['data'])).toEqual([
      'Tool execution started',
      'Tool processing data',
      'Tool execution completed',
    ]);
    expect(logs[0]?.['level']).toBe('info');
    await client.close();
  });

  it('mcp:legacy-sampling-mid-call — the upstream asks the client model on the call stream', async () => {
    const { client, asked } = await v1Client(version);
    const result = await client.callTool({
      name: 'conf__test_sampling',
      arguments: { prompt: 'Capital of France?' },
    });
    expect(textOf(result)).toContain('LLM response: echo: Capital of France?');
    expect(asked).toHaveLength(1);
    await client.close();
  });

  it('mcp:legacy-elicitation-mid-call — the upstream asks the user on the call stream', async () => {
    const { client } = await v1Client(version);
    const result = await client.callTool({ name: 'conf__test_elicitation', arguments: { message: 'Who?' } });
    expect(textOf(result)).toContain('action=accept');
    expect(textOf(result)).toContain('ada@example.com');
    for (const name of ['conf__test_elicitation_sep1034_defaults', 'conf__test_elicitation_sep1330_enums']) {
      const answered = await client.callTool({ name, arguments: {} });
      expect(textOf(answered)).toContain('action=accept');
    }
    await client.close();
  });
});

describe('the ways around', () => {
  it('mcp:legacy-no-capability — a client without sampling answers method-not-found, relayed upstream', async () => {
    const { client } = await v1Client('2025-11-25', {});
    // The fixture's tool lets the client's error escape: the call fails with it, as the upstream said.
    await expect(
      client.callTool({ name: 'conf__test_sampling', arguments: { prompt: 'hello' } }),
    ).rejects.toThrow(/-32601.*Method not found/);
    await client.close();
  });

  it('mcp:legacy-answer-bound — another key, a forged or replayed id, a modern response: one refusal', async () => {
    const call = new LegacyCall(h.url, key.key, {
      name: 'conf__test_elicitation',
      arguments: { message: 'Who?' },
    });
    const question = await call.question();
    expect(question.method).toBe('elicitation/create');
    expect(typeof question.id).toBe('string');
    const id = question.id as string;
    const answer = { action: 'accept', content: { username: 'eve', email: 'eve@example.com' } };
    const refused = await postAnswer(h.url, other.key, { id, result: answer });
    expect(refused.status).toBe(400);
    const [prefix, body, mac] = id.split('.');
    const state = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
    const forgedBody = Buffer.from(JSON.stringify({ ...state, keyId: other.id })).toString('base64url');
    const attempts = [
      await postAnswer(h.url, other.key, { id: `${prefix}.${forgedBody}.${mac}`, result: answer }),
      await postAnswer(h.url, key.key, { id: `${id}x`, result: answer }),
      await postAnswer(h.url, key.key, { id: 7, result: answer }),
      await postAnswer(h.url, key.key, { id: 'agwb1.unknown.x', result: answer }),
      // The modern face never asks its clients anything: a response there matches nothing.
      await postAnswer(h.url, key.key, { id, result: answer }, { 'mcp-protocol-version': '2026-07-28' }),
    ];
    for (const attempt of [refused, ...attempts]) {
      expect(attempt.status).toBe(400);
      expect(attempt.body).toBe(refused.body);
    }
    const tooLarge = await postAnswer(h.url, key.key, {
      id,
      result: { action: 'accept', content: { username: 'x'.repeat(600 * 1024) } },
    });
    expect(tooLarge.status).toBe(413);
    const accepted = await postAnswer(h.url, key.key, {
      id,
      result: { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } },
    });
    expect(accepted).toEqual({ status: 202, body: '' });
    const final = await call.final();
    expect(textOf((final as { result?: unknown }).result)).toContain('ada@example.com');
    const replay = await postAnswer(h.url, key.key, { id, result: answer });
    expect(replay).toEqual(refused);
  });

  it('mcp:legacy-answer-timeout — a client that never answers: the call ends and its upstream session goes', async () => {
    const before = conf.activeSessions().length;
    const call = new LegacyCall(h.url, key.key, { name: 'conf__test_sampling', arguments: { prompt: 'x' } });
    const question = await call.question();
    expect(question.method).toBe('sampling/createMessage');
    const final = (await call.final(IDLE_MS + 5000)) as { error?: { message: string } };
    expect(final.error?.message).toMatch(/did not answer/);
    await until(
      'the session ended',
      () => Promise.resolve(conf.activeSessions().length <= before ? true : undefined),
      5000,
    );
    const late = await postAnswer(h.url, key.key, {
      id: question.id,
      result: { role: 'assistant', content: { type: 'text', text: 'late' }, model: 'm' },
    });
    expect(late.status).toBe(400);
  });

  it('mcp:legacy-client-gone — a client that goes away releases the call and its upstream session', async () => {
    const before = conf.activeSessions().length;
    const call = new LegacyCall(h.url, key.key, {
      name: 'conf__test_elicitation',
      arguments: { message: 'x' },
    });
    const question = await call.question();
    call.abort();
    await until(
      'the session ended',
      () => Promise.resolve(conf.activeSessions().length <= before ? true : undefined),
      5000,
    );
    const late = await postAnswer(h.url, key.key, { id: question.id, result: { action: 'decline' } });
    expect(late.status).toBe(400);
  });

  it('mcp:legacy-pending-cap — waiting calls of one key are capped like MRTR flows', async () => {
    const calls = Array.from(
      { length: 4 },
      () => new LegacyCall(h.url, key.key, { name: 'conf__test_elicitation', arguments: { message: 'x' } }),
    );
    await Promise.all(calls.map((call) => call.question()));
    const fifth = new LegacyCall(h.url, key.key, {
      name: 'conf__test_elicitation',
      arguments: { message: 'x' },
    });
    const refused = (await fifth.final()) as { error?: { data?: { code?: string } } };
    expect(refused.error?.data?.code).toBe('rate_limited');
    for (const call of calls) call.abort();
    // Their slots are free again once they are released.
    await until(
      'a slot',
      async () => {
        const next = new LegacyCall(h.url, key.key, {
          name: 'conf__test_elicitation',
          arguments: { message: 'x' },
        });
        const first = await next.next(() => true);
        next.abort();
        return first.method === 'elicitation/create' ? true : undefined;
      },
      5000,
    );
  });
});

describe('the modern face', () => {
  it('mcp:modern-log-relay — log messages at or above the request logLevel, none without one', async () => {
    const call = async (meta: Record<string, unknown>) => {
      const response = await mcpPost(h.url, key.key, {
        method: 'tools/call',
        params: { _meta: meta, name: 'conf__test_tool_with_logging', arguments: {} },
      });
      return { type: response.headers.get('content-type') ?? '', text: await response.text() };
    };
    const withLevel = await call({ ...MODERN_META, 'io.modelcontextprotocol/logLevel': 'info' });
    expect(withLevel.type).toContain('text/event-stream');
    expect(withLevel.text.match(/notifications\/message/g)).toHaveLength(3);
    const tooHigh = await call({ ...MODERN_META, 'io.modelcontextprotocol/logLevel': 'error' });
    expect(tooHigh.text).not.toContain('notifications/message');
    const none = await call(MODERN_META);
    expect(none.text).not.toContain('notifications/message');
    expect(none.text).toContain('Tool with logging executed successfully');
  });
});

describe.each(['legacy', 'auto'] as const)('the Python SDK client (%s)', (mode) => {
  it('mcp:python-mid-call — logging, sampling and elicitation through the gateway', async () => {
    const seen = await runPythonClient<{
      protocol_version: string;
      logs: { level: string; data: string }[];
      asked: string[];
      logging: string;
      sampling: string;
      elicitation: string;
    }>('mid_call.py', h.url, key.key, mode, [
      '--logging',
      'conf__test_tool_with_logging',
      '--sampling',
      'conf__test_sampling',
      '--elicitation',
      'conf__test_elicitation',
    ]);
    expect(seen.protocol_version).toMatch(mode === 'legacy' ? /^2025-/ : /^2026-/);
    expect(seen.logs.map((log) => log.data)).toEqual([
      'Tool execution started',
      'Tool processing data',
      'Tool execution completed',
    ]);
    expect(seen.logging).toContain('Tool with logging executed successfully');
    expect(seen.sampling).toContain('LLM response: python says: Capital of France?');
    expect(seen.elicitation).toContain('grace@example.com');
    expect(seen.asked).toEqual(['sampling/createMessage', 'elicitation/create']);
  }, 60_000);
});

describe('the dedicated-session budget', () => {
  it('mcp:legacy-session-budget — past legacyCallerSessionsPerSource concurrent calls, a 2025 call runs on the shared session, where the upstream hears no sampling capability; a freed place is used again', async () => {
    const budgetKey = newKey();
    const small = await startWorkspace(
      {
        name: 'budget',
        mcpSources: [httpSource('conf', conf.url)],
        keys: [keyRecord(budgetKey, { access: 'write' })],
      },
      {
        server: {
          host: '127.0.0.1',
          port: 0,
          multiRound: { idleTimeoutMs: 10_000, legacyCallerSessionsPerSource: 1 },
        },
      },
    );
    try {
      const holding = new LegacyCall(small.url, budgetKey.key, {
        name: 'conf__test_elicitation',
        arguments: { message: 'hold the place' },
      });
      expect((await holding.question()).method).toBe('elicitation/create');
      const shared = new LegacyCall(small.url, budgetKey.key, {
        name: 'conf__test_sampling',
        arguments: { prompt: 'x' },
      });
      const answer = (await shared.final()) as {
        result?: { isError?: boolean; content?: { text?: string }[] };
      };
      expect(answer.result?.isError).toBe(true);
      expect(answer.result?.content?.[0]?.text).toBe('The client does not support sampling');
      holding.abort();
      await until(
        'the place is free again',
        async () => {
          const next = new LegacyCall(small.url, budgetKey.key, {
            name: 'conf__test_sampling',
            arguments: { prompt: 'y' },
          });
          const first = await next.next(() => true);
          next.abort();
          return first.method === 'sampling/createMessage' ? true : undefined;
        },
        5000,
      );
    } finally {
      await small.stop();
    }
  });
});
