// The audit trail through a real gateway (issue 29, docs/audit.md): real modern (v2 SDK) and legacy
// (v1 SDK) upstreams, a files data source, both MCP eras (raw wire and the v2 SDK client in legacy
// mode) and REST. Each action and each refusal leaves exactly one record in the audit file, checked
// field by field against the response's x-request-id; a scan of the file finds no argument, result,
// snippet, query or key; a streamed and a bridged call leave one record per client request; and a
// gateway whose audit path cannot be written still answers every request.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditRecordSchema } from '../../gateway/telemetry/audit-record.js';
import { httpSource, keyRecord, newKey, newKeys } from '../support/gateway-document.js';
import {
  mcpPost,
  MODERN_META,
  slowModernCall,
  startHarnessIn,
  startWorkspace,
} from '../support/gateway-harness.js';
import { connectClient } from '../support/mcp-clients.js';
import { findLeaks } from '../support/leak-scan.js';
import { auditRecordOf, auditRecords } from '../support/audit-records.js';
import { pairHarness } from '../support/fixture-pair.js';
import { until } from '../support/until.js';

const [writer, reader, modernOnly, limited, quota, revoked, expired] = newKeys(7);
const ARGUMENT = 'Qz7xK2pW9mLr4Tn8';
const PROMPT_ARGUMENT = 'Wb3nHv8cXr5Lq2Ze';
const QUERY = 'where does the heliotrope ledger live';
const DOC_SECRET = 'heliotrope ledger lives in the cobalt vault';
const ELICITED = 'Ym4Rt7Kq1Vz9Pd6X';

const [h, upstreams] = pairHarness((pair) =>
  startHarnessIn(async (dir) => {
    await mkdir(join(dir, 'docs'));
    await writeFile(join(dir, 'docs', 'ledger.md'), `# Ledger\n\nThe ${DOC_SECRET}.\n`);
    return {
      workspaces: [
        {
          name: 'acme',
          mcpSources: pair.sources,
          dataSources: [{ name: 'handbook', type: 'files', path: join(dir, 'docs') }],
          keys: [
            keyRecord(writer, { access: 'write' }),
            keyRecord(reader),
            keyRecord(modernOnly, { sources: ['modern'] }),
            keyRecord(limited, { limits: { requestsPerMinute: 1 } }),
            keyRecord(quota, { limits: { toolCallsPerDay: 1, requestsPerMinute: 1000 } }),
            keyRecord(revoked, { revoked: true }),
            keyRecord(expired, { expiresAt: '2020-01-01T00:00:00Z' }),
          ],
        },
      ],
    };
  }),
);

const records = () => auditRecords(h.auditPath);
const recordOf = (response: Response) => auditRecordOf(h.auditPath, response);

const apiKey = (key: { id: string; hash: string }) => ({
  kind: 'api_key',
  key_id: key.id,
  key_fingerprint: key.hash.slice('sha256:'.length, 'sha256:'.length + 12),
});

function post(path: string, key: string | undefined, body: unknown): Promise<Response> {
  return fetch(`${h.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
    },
    body: JSON.stringify(body),
  });
}

describe('audit records of allowed actions', () => {
  it('audit:tools-call — a modern tools/call: who, what by both names, decision, outcome, duration', async () => {
    const response = await mcpPost(h.url, writer.key, {
      id: 1,
      method: 'tools/call',
      params: { name: 'modern__echo', arguments: { text: ARGUMENT } },
    });
    expect(response.status).toBe(200);
    const record = await recordOf(response);
    expect(record).toMatchObject({
      schema: 'agw.audit.v5',
      face: 'mcp',
      method: 'tools/call',
      era: 'modern',
      workspace: 'acme',
      principal: apiKey(writer),
      source: 'modern',
      target: { kind: 'tool', name: 'modern__echo', requested: 'modern__echo' },
      decision: 'allowed',
      outcome: 'ok',
      status: 200,
    });
    expect(record.reason).toBeUndefined();
    expect(record.trace_id).toBeUndefined();
    expect(record.duration_ms).toBeGreaterThan(0);
    expect(Math.abs(Date.parse(record.time) - Date.now())).toBeLessThan(60_000);
  });

  it('a tool result with isError is outcome tool_execution', async () => {
    const record = await recordOf(
      await mcpPost(h.url, writer.key, {
        id: 2,
        method: 'tools/call',
        params: { name: 'modern__fail', arguments: {} },
      }),
    );
    expect(record).toMatchObject({ decision: 'allowed', outcome: 'tool_execution', source: 'modern' });
  });

  it('prompts/get, resources/read and completion/complete name the source and item, never values or URIs', async () => {
    const prompt = await recordOf(
      await mcpPost(h.url, reader.key, {
        id: 3,
        method: 'prompts/get',
        params: { name: 'modern__greet', arguments: { name: PROMPT_ARGUMENT } },
      }),
    );
    expect(prompt).toMatchObject({
      method: 'prompts/get',
      source: 'modern',
      target: { kind: 'prompt', name: 'modern__greet', requested: 'modern__greet' },
      decision: 'allowed',
      outcome: 'ok',
    });
    const read = await recordOf(
      await mcpPost(h.url, reader.key, {
        id: 4,
        method: 'resources/read',
        params: { uri: `agw://modern/${encodeURIComponent('demo://note/secret-key-value')}` },
      }),
    );
    expect(read).toMatchObject({ method: 'resources/read', source: 'modern', target: { kind: 'resource' } });
    expect(JSON.stringify(read)).not.toContain('secret-key-value');
    const completion = await recordOf(
      await mcpPost(h.url, reader.key, {
        id: 5,
        method: 'completion/complete',
        params: {
          ref: { type: 'ref/prompt', name: 'modern__greet' },
          argument: { name: 'name', value: PROMPT_ARGUMENT },
        },
      }),
    );
    expect(completion).toMatchObject({
      method: 'completion/complete',
      source: 'modern',
      target: { kind: 'prompt', requested: 'modern__greet' },
      outcome: 'ok',
    });
  });

  it('audit:rest-actions — source refresh, search and query are recorded without the query text', async () => {
    // A data source's refresh is accepted at once (202) and syncs in the background (issue 39).
    const refresh = await post('/agent/sources/handbook/refresh', writer.key, {});
    expect(refresh.status).toBe(202);
    expect(await recordOf(refresh)).toMatchObject({
      face: 'rest',
      method: 'POST /agent/sources/:id/refresh',
      source: 'handbook',
      target: { kind: 'source', requested: 'handbook' },
      decision: 'allowed',
      outcome: 'ok',
      status: 202,
    });
    const search = await post('/agent/search', reader.key, {
      query: QUERY,
      options: { response_format: 'json' },
    });
    expect(search.status).toBe(200);
    const searched = await recordOf(search);
    expect(searched).toMatchObject({
      face: 'rest',
      method: 'POST /agent/search',
      principal: apiKey(reader),
      decision: 'allowed',
      outcome: 'ok',
    });
    const query = await post('/agent/query', reader.key, {
      query: QUERY,
      options: { response_format: 'json' },
    });
    expect(query.status).toBe(200);
    expect(await recordOf(query)).toMatchObject({ method: 'POST /agent/query', outcome: 'ok' });
  });

  it('audit:legacy-era — a 2025-era SDK client: every request of its session is recorded with era legacy', async () => {
    const before = (await records()).length;
    const client = await connectClient(h.url, writer.key, 'legacy', 'audit-legacy');
    const called = await client.callTool({ name: 'legacy__echo', arguments: { text: ARGUMENT } });
    expect(JSON.stringify(called)).toContain(ARGUMENT);
    await client.close();
    const mine = await until('the legacy session records', async () => {
      const found = (await records()).slice(before).filter((r) => r.principal?.kind === 'api_key');
      return found.some((r) => r.method === 'tools/call') ? found : undefined;
    });
    expect(mine.map((r) => r.method)).toContain('initialize');
    const call = mine.find((r) => r.method === 'tools/call');
    expect(call).toMatchObject({
      era: 'legacy',
      source: 'legacy',
      target: { kind: 'tool', name: 'legacy__echo', requested: 'legacy__echo' },
      decision: 'allowed',
      outcome: 'ok',
    });
  });
});

describe('audit records of refusals', () => {
  it('audit:auth-failures — missing, malformed, unknown, revoked and expired keys: denied with their reason', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'modern__echo', arguments: { text: ARGUMENT } },
    };
    const unknown = newKey();
    const cases: [string | undefined, string][] = [
      [undefined, 'credential_missing'],
      ['agw_not-a-key', 'credential_malformed'],
      [unknown.key, 'credential_unknown'],
      [revoked.key, 'credential_revoked'],
      [expired.key, 'credential_expired'],
    ];
    for (const [key, reason] of cases) {
      const response = await post('/mcp', key, body);
      expect(response.status).toBe(401);
      const record = await recordOf(response);
      expect(record).toMatchObject({
        face: 'mcp',
        // The body of an unauthenticated request is only peeked at for its id and method.
        method: 'tools/call',
        decision: 'denied',
        reason,
        outcome: 'proxy_authorization',
        error_code: 'unauthenticated',
        status: 401,
      });
      expect(record.workspace).toBeUndefined();
      expect(record.principal).toBeUndefined();
    }
    const rest = await fetch(`${h.url}/agent/tools`);
    expect(await recordOf(rest)).toMatchObject({
      face: 'rest',
      method: 'GET /agent/tools',
      decision: 'denied',
      reason: 'credential_missing',
      status: 401,
    });
  });

  it('audit:permission-denials — write needed, and an invisible tool told to the auditor but not the caller', async () => {
    const write = await mcpPost(h.url, reader.key, {
      id: 10,
      method: 'tools/call',
      params: { name: 'modern__write_thing', arguments: { thing: ARGUMENT } },
    });
    expect(await recordOf(write)).toMatchObject({
      decision: 'denied',
      reason: 'write_required',
      outcome: 'proxy_authorization',
      error_code: 'forbidden',
      source: 'modern',
      target: { kind: 'tool', name: 'modern__write_thing' },
    });
    const hidden = await mcpPost(h.url, modernOnly.key, {
      id: 11,
      method: 'tools/call',
      params: { name: 'legacy__echo', arguments: { text: ARGUMENT } },
    });
    const hiddenRecord = await recordOf(hidden.clone());
    const missing = await mcpPost(h.url, modernOnly.key, {
      id: 11,
      method: 'tools/call',
      params: { name: 'legacy__no_such_tool', arguments: { text: ARGUMENT } },
    });
    const missingRecord = await recordOf(missing.clone());
    // The caller cannot tell them apart (no oracle)…
    const answer = async (response: Response) => {
      const parsed = (await response.json()) as { error: { code: number; message: string } };
      return { code: parsed.error.code, message: parsed.error.message.replace(/legacy__\w+/, '<name>') };
    };
    expect(await answer(hidden)).toEqual(await answer(missing));
    // …the auditor can.
    expect(hiddenRecord).toMatchObject({
      decision: 'denied',
      reason: 'not_visible',
      source: 'legacy',
      outcome: 'request',
      error_code: '-32602',
    });
    expect(missingRecord).toMatchObject({ decision: 'denied', reason: 'not_visible', source: 'legacy' });
    const unknown = await recordOf(
      await mcpPost(h.url, writer.key, { id: 12, method: 'tools/call', params: { name: 'modern__nope' } }),
    );
    expect(unknown).toMatchObject({ decision: 'allowed', outcome: 'request', error_code: '-32602' });
    expect(unknown.reason).toBeUndefined();
    const refresh = await post('/agent/sources/handbook/refresh', reader.key, {});
    expect(refresh.status).toBe(403);
    expect(await recordOf(refresh)).toMatchObject({
      decision: 'denied',
      reason: 'write_required',
      status: 403,
    });
  });

  /** Calls modern__echo twice with the key: the first call passes, the second is refused (429). */
  async function secondCallRefused(key: string, id: number): Promise<Response> {
    const call = () =>
      mcpPost(h.url, key, {
        id,
        method: 'tools/call',
        params: { name: 'modern__echo', arguments: { text: ARGUMENT } },
      });
    expect((await call()).status).toBe(200);
    const refused = await call();
    expect(refused.status).toBe(429);
    return refused;
  }

  it('audit:rate-limited — a rate-limit refusal names the tool the client asked for', async () => {
    const refused = await secondCallRefused(limited.key, 13);
    expect(await recordOf(refused)).toMatchObject({
      method: 'tools/call',
      principal: apiKey(limited),
      target: { kind: 'tool', requested: 'modern__echo' },
      decision: 'denied',
      reason: 'rate_limited',
      status: 429,
    });
  });

  it('audit:quota-exceeded — a daily quota refusal is told apart from a rate refusal', async () => {
    const refused = await secondCallRefused(quota.key, 15);
    expect(await recordOf(refused)).toMatchObject({
      reason: 'quota_exceeded',
      method: 'tools/call',
      principal: apiKey(quota),
      decision: 'denied',
      error_code: 'rate_limited',
      status: 429,
    });
    // Other requests of the key are within its rate: not refused at all.
    const listed = await mcpPost(h.url, quota.key, { id: 16, method: 'tools/list' });
    expect(listed.status).toBe(200);
    expect(await recordOf(listed)).toMatchObject({ decision: 'allowed', method: 'tools/list' });
  });

  it('audit:unauthenticated-method — a 401 records the method a body or Mcp-Method names, only from the known list', async () => {
    const refusedWith = async (body: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${h.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer agw_not-a-key', ...headers },
        body,
      });
      expect(response.status).toBe(401);
      const record = await recordOf(response);
      expect(record).toMatchObject({ face: 'mcp', decision: 'denied', reason: 'credential_malformed' });
      return record.method;
    };
    const rpc = (method: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} });
    expect(await refusedWith(rpc('prompts/get'))).toBe('prompts/get');
    expect(await refusedWith(rpc('resources/read'), { 'mcp-method': 'resources/read' })).toBe(
      'resources/read',
    );
    // A name outside the list, however it is spelled, is `unknown`, never echoed.
    expect(await refusedWith(rpc('tools/call\n{"decision":"allowed"}'))).toBe('unknown');
    expect(await refusedWith(rpc('x'.repeat(500)))).toBe('unknown');
    expect(await refusedWith(rpc(42))).toBe('unknown');
    expect(await refusedWith('not json')).toBe('unknown');
    // A body too large to peek at: the header names it.
    const large = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', pad: 'x'.repeat(70_000) });
    expect(await refusedWith(large, { 'mcp-method': 'tools/call' })).toBe('tools/call');
    expect(await refusedWith(large, { 'mcp-method': 'evil/method' })).toBe('unknown');
    expect(await refusedWith(large)).toBe('unknown');
  });

  it('a caller-chosen name with control characters cannot forge a record', async () => {
    const forged = `x\n{"schema":"agw.audit.v5","decision":"allowed","request_id":"forged"}\u2028`;
    const response = await mcpPost(
      h.url,
      writer.key,
      { id: 14, method: 'tools/call', params: { name: forged } },
      { 'mcp-name': 'x' },
    );
    const record = await recordOf(response);
    expect(record.target?.requested ?? '').not.toMatch(/[\n\u2028]/);
    const text = await readFile(h.auditPath, 'utf8');
    expect(
      text
        .split('\n')
        .filter(
          (line) =>
            line.includes('"request_id":"forged"') && line.startsWith('{"schema":"agw.audit.v5","decision"'),
        ),
    ).toEqual([]);
  });
});

describe('one record per client request', () => {
  it('audit:streamed — a tools/call answered as an SSE stream leaves one record, marked streamed', async () => {
    const response = await slowModernCall(h.url, writer.key, 20, { ms: 200, steps: 3 });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const record = await recordOf(response);
    expect(record).toMatchObject({ method: 'tools/call', streamed: true, outcome: 'ok', status: 200 });
    expect(record.client_gone).toBeUndefined();
  });

  it('audit:bridged — a bridged legacy elicitation: one record for the first request and one for the retry', async () => {
    const meta = {
      ...MODERN_META,
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    };
    const first = await mcpPost(h.url, writer.key, {
      id: 21,
      method: 'tools/call',
      params: { _meta: meta, name: 'legacy__ask_name', arguments: {} },
    });
    const firstRecord = await recordOf(first.clone());
    const started = (await first.json()) as {
      result: { inputRequests: Record<string, unknown>; requestState: string };
    };
    const inputKey = Object.keys(started.result.inputRequests)[0]!;
    const second = await mcpPost(h.url, writer.key, {
      id: 22,
      method: 'tools/call',
      params: {
        _meta: meta,
        name: 'legacy__ask_name',
        arguments: {},
        inputResponses: { [inputKey]: { action: 'accept', content: { name: ELICITED } } },
        requestState: started.result.requestState,
      },
    });
    const secondRecord = await recordOf(second.clone());
    expect(JSON.stringify(await second.json())).toContain(ELICITED);
    for (const record of [firstRecord, secondRecord])
      expect(record).toMatchObject({
        method: 'tools/call',
        source: 'legacy',
        decision: 'allowed',
        outcome: 'ok',
      });
    expect(firstRecord.request_id).not.toBe(secondRecord.request_id);
    // Nothing more arrives for either request once the bridged call has ended.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const all = await records();
    for (const id of [firstRecord.request_id, secondRecord.request_id])
      expect(all.filter((record) => record.request_id === id)).toHaveLength(1);
  });

  it('audit:client-gone — a client that leaves mid-stream leaves one record, marked client_gone', async () => {
    const response = await slowModernCall(h.url, writer.key, 23, { ms: 3000, steps: 30 });
    const id = response.headers.get('x-request-id')!;
    const stream = response.body!.getReader();
    await stream.read();
    await stream.cancel();
    const record = await until('the record of the abandoned stream', async () =>
      (await records()).find((r) => r.request_id === id),
    );
    expect(record).toMatchObject({ method: 'tools/call', streamed: true, client_gone: true });
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect((await records()).filter((r) => r.request_id === id)).toHaveLength(1);
  });
});

describe('what the audit trail never holds', () => {
  it('audit:no-content — no argument, result, snippet, query text or key in the audit file', async () => {
    const text = await readFile(h.auditPath, 'utf8');
    expect(text.length).toBeGreaterThan(0);
    const keys = [writer, reader, modernOnly, limited, quota, revoked, expired];
    const leaks = findLeaks(
      [text],
      [
        { label: 'argument', value: ARGUMENT, windows: true },
        { label: 'prompt argument', value: PROMPT_ARGUMENT, windows: true },
        { label: 'elicited answer', value: ELICITED, windows: true },
        { label: 'query', value: QUERY },
        { label: 'document', value: DOC_SECRET },
        { label: 'result', value: 'Please greet' },
        { label: 'resource text', value: 'note secret' },
        ...keys.map((key) => ({
          label: `key ${key.id}`,
          value: key.key.slice(key.key.length - 40),
          windows: true,
        })),
        ...keys.map((key) => ({ label: `hash ${key.id}`, value: key.hash.slice(20) })),
      ],
    );
    expect(leaks).toEqual([]);
    for (const line of text.trimEnd().split('\n')) AuditRecordSchema.parse(JSON.parse(line));
  });
});

describe('a sink that cannot be written', () => {
  it('audit:sink-failure — requests are answered as usual when the audit path is unwritable', async () => {
    const key = newKey();
    const broken = await startWorkspace(
      {
        name: 'w',
        mcpSources: [httpSource('modern', upstreams.modern.url)],
        keys: [keyRecord(key)],
      },
      {
        telemetry: { audit: { sink: 'file', path: '/proc/agw-audit-cannot-exist/audit.log' } },
      },
    );
    try {
      for (let i = 0; i < 20; i += 1) {
        const started = performance.now();
        const response = await mcpPost(broken.url, key.key, {
          id: i,
          method: 'tools/call',
          params: { name: 'modern__echo', arguments: { text: 'x' } },
        });
        expect(response.status).toBe(200);
        await response.arrayBuffer();
        expect(performance.now() - started).toBeLessThan(5000);
      }
      expect((await fetch(`${broken.url}/agent/tools`)).status).toBe(401);
    } finally {
      await broken.stop();
    }
  });
});
