// Spec §4.1: GET /agent/sources, /agent/tools, /agent/mcp/config against the real gateway and the
// real demo MCP server; TOON by default, JSON on request; request ids and the error format.
import { decode } from '@toon-format/toon';
import { describe, expect, it } from 'vitest';
import { demoSource, httpSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { get, startWorkspace, fileHarness } from '../support/gateway-harness.js';

const [reader, writer, downOnly] = newKeys(3);

const h = fileHarness(() =>
  startWorkspace({
    mcpSources: [
      demoSource('demo', {
        permissions: { list_notes: 'write' },
        tools: { include: ['*'], exclude: ['current_time'] },
      }),
      httpSource('down', 'http://127.0.0.1:9/mcp', {
        timeouts: { connectMs: 2000, listMs: 2000, callMs: 2000 },
        // This file checks plain unreachability; the breaker has its own tests.
        breaker: { minimumCalls: 1000 },
      }),
    ],
    keys: [
      keyRecord(reader, { name: 'reader' }),
      keyRecord(writer, { access: 'write' }),
      keyRecord(downOnly, { sources: ['down'] }),
    ],
  }),
);

interface ToolsBody {
  tools: { name: string; source: string; permission: string; callable: boolean; description: string }[];
  unavailable_sources?: { id: string; error_code: string }[];
}

describe('GET /agent/tools', () => {
  it('rest:tools-toon-default — answers TOON with namespaced names and permissions', async () => {
    const response = await get(`${h.url}/agent/tools`, reader.key);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/toon; charset=utf-8');
    const body = decode(await response.text()) as unknown as ToolsBody;
    expect(body.tools.map((t) => t.name)).toEqual([
      'demo__add',
      'demo__create_note',
      'demo__delete_note',
      'demo__echo',
      'demo__list_notes',
    ]);
    const byName = new Map(body.tools.map((t) => [t.name, t]));
    expect(byName.get('demo__echo')).toMatchObject({
      source: 'demo',
      permission: 'read',
      callable: true,
      description: 'Returns the given text unchanged.',
    });
    expect(byName.get('demo__create_note')).toMatchObject({ permission: 'write', callable: false });
    expect(byName.get('demo__list_notes')).toMatchObject({ permission: 'write', callable: false });
  });

  it('rest:tools-json — JSON via Accept or ?response_format=json; a write key may call write tools', async () => {
    const viaAccept = await get(`${h.url}/agent/tools`, writer.key, { accept: 'application/json' });
    expect(viaAccept.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await viaAccept.json()) as ToolsBody;
    expect(body.tools.every((t) => t.callable)).toBe(true);
    const viaQuery = await get(`${h.url}/agent/tools?response_format=json`, writer.key);
    expect(await viaQuery.json()).toEqual(body);
  });

  it('rest:partial-failure — a source that is down is left out and named', async () => {
    const body = (await (
      await get(`${h.url}/agent/tools?response_format=json`, reader.key)
    ).json()) as ToolsBody;
    expect(body.tools.some((t) => t.source === 'down')).toBe(false);
    expect(body.unavailable_sources).toEqual([{ id: 'down', error_code: 'upstream_unreachable' }]);
  });

  it('rest:format-invalid — an unknown response_format is a 400 naming the field', async () => {
    const response = await get(`${h.url}/agent/tools?response_format=xml`, reader.key);
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      error: { code: string; class: string; details: { path: string }[] };
    };
    expect(body.error).toMatchObject({ code: 'invalid_request', class: 'request' });
    expect(body.error.details[0]?.path).toBe('response_format');
  });
});

describe('GET /agent/sources', () => {
  it('rest:sources — lists id, type, transport and live status of each source', async () => {
    const body = (await (await get(`${h.url}/agent/sources?response_format=json`, reader.key)).json()) as {
      workspace: string;
      sources: Record<string, unknown>[];
    };
    expect(body.workspace).toBe('demo');
    expect(body.sources).toHaveLength(2);
    expect(body.sources[0]).toMatchObject({
      id: 'demo',
      type: 'mcp',
      transport: 'stdio',
      status: 'ready',
      tool_count: 5,
      error_code: null,
      breaker: 'closed',
    });
    expect(body.sources[1]).toMatchObject({
      id: 'down',
      type: 'mcp',
      transport: 'streamable-http',
      status: 'unavailable',
      error_code: 'upstream_unreachable',
      error_class: 'upstream_reachability',
    });
  });
});

describe('GET /agent/sources/{id}', () => {
  const one = async (id: string, key: string) => {
    const response = await get(`${h.url}/agent/sources/${id}?response_format=json`, key);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('rest:source-one — one source, the same record the list shows; unknown and hidden ids answer alike', async () => {
    const listed = (await (await get(`${h.url}/agent/sources?response_format=json`, reader.key)).json()) as {
      sources: Record<string, unknown>[];
    };
    const demo = await one('demo', reader.key);
    expect(demo.status).toBe(200);
    const { checked_at: _checked, ...record } = demo.body['source'] as Record<string, unknown>;
    const { checked_at: _listedAt, ...fromList } = listed.sources[0] as Record<string, unknown>;
    expect(record).toEqual(fromList);
    // Percent-encoding names the same source; it cannot name a path beside it.
    expect((await one('de%6Do', reader.key)).status).toBe(200);
    const unknown = await one('nosuch', reader.key);
    const traversal = await one('..%2Fdemo', reader.key);
    // A key limited to `down` gets for `demo` exactly what an id that exists nowhere gets.
    const hidden = await one('demo', downOnly.key);
    for (const refused of [unknown, traversal, hidden]) {
      expect(refused.status).toBe(404);
      const { requestId: _id, ...error } = refused.body['error'] as Record<string, unknown>;
      expect(error).toEqual({
        code: 'not_found',
        class: 'request',
        message: 'No source with this id in your workspace.',
      });
    }
    expect((await one('down', downOnly.key)).body['source']).toMatchObject({
      id: 'down',
      status: 'unavailable',
    });
  });
});

describe('GET /agent/mcp/config', () => {
  it('rest:mcp-config — client configs for the credential without echoing the secret', async () => {
    const response = await get(`${h.url}/agent/mcp/config?response_format=json`, reader.key);
    const text = await response.text();
    expect(response.status).toBe(200);
    const secretPart = reader.key.slice(`agw_${reader.id}_`.length);
    expect(text.includes(secretPart)).toBe(false);
    expect(text.includes(reader.key)).toBe(false);
    const body = JSON.parse(text) as {
      endpoint: string;
      auth: { key_id: string; env_var: string };
      clients: Record<string, unknown>;
    };
    expect(body.endpoint).toBe(`${h.url}/mcp`);
    expect(body.auth.key_id).toBe(reader.id);
    expect(Object.keys(body.clients).sort()).toEqual([
      'claude_code',
      'claude_desktop',
      'cursor',
      'vscode',
      'windsurf',
    ]);
    expect(JSON.stringify(body.clients)).toContain(body.auth.env_var);
  });

  it('rest:mcp-config-client-syntax — each client gets its own variable syntax and a note saying where the key comes from', async () => {
    const body = (await (await get(`${h.url}/agent/mcp/config?response_format=json`, reader.key)).json()) as {
      clients: Record<string, { note: string; command?: string; json?: unknown }>;
    };
    const text = (client: string) =>
      JSON.stringify(body.clients[client]?.json ?? body.clients[client]?.command);
    expect(text('windsurf')).toContain('Bearer ${env:AGENT_GATEWAY_API_KEY}');
    expect(text('cursor')).toContain('Bearer ${env:AGENT_GATEWAY_API_KEY}');
    expect(text('vscode')).toContain('${input:agent-gateway-key}');
    expect(text('claude_code')).toContain('Bearer $AGENT_GATEWAY_API_KEY');
    expect(text('claude_desktop')).toContain('Bearer ${AGENT_GATEWAY_API_KEY}');
    for (const client of Object.values(body.clients)) expect(client.note.length).toBeGreaterThan(20);
    expect(body.clients['claude_code']?.note).toContain('stores the key itself');
    expect(body.clients['vscode']?.note).toContain('prompts');
  });

  it('rest:mcp-config-toon — the TOON form decodes to the same document', async () => {
    const toon = decode(await (await get(`${h.url}/agent/mcp/config`, reader.key)).text());
    const json = await (await get(`${h.url}/agent/mcp/config?response_format=json`, reader.key)).json();
    expect(toon).toEqual(json);
  });
});

describe('request ids, errors and open endpoints', () => {
  it('errors:request-id — every response carries one the gateway minted; a client id is never taken as it (issue 37.7)', async () => {
    const kept = await get(`${h.url}/agent/tools`, reader.key, { 'x-request-id': 'client-123' });
    expect(kept.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const replaced = await get(`${h.url}/agent/tools`, undefined, { 'x-request-id': 'bad id with spaces' });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const health = await get(`${h.url}/healthz`);
    expect(health.headers.get('x-request-id')).toBeTruthy();
  });

  it('errors:body-shape — a REST error is {error:{code,class,message,requestId}} as JSON', async () => {
    const response = await fetch(`${h.url}/agent/sources/demo/refresh`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer.key}`, 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(Object.keys(body.error).sort()).toEqual(['class', 'code', 'message', 'requestId']);
    expect(body.error['code']).toBe('invalid_json');
  });

  it('errors:415 — a body that is not JSON is refused', async () => {
    const response = await fetch(`${h.url}/agent/sources/demo/refresh`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer.key}`, 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(response.status).toBe(415);
  });

  it('health:open — liveness and readiness need no key', async () => {
    expect((await get(`${h.url}/healthz`)).status).toBe(200);
    const ready = await get(`${h.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { status: string }).status).toBe('ready');
  });
});
