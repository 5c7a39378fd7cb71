// Spec §5 and §7 against the running gateway: every 401 and 403 case, the challenge header, the
// error body, and workspace isolation (the workspace always comes from the key).
import { describe, expect, it } from 'vitest';
import { demoSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { get, startHarness, fileHarness } from '../support/gateway-harness.js';

const [reader, writer, revoked, expired, otherWorkspace, notesOnly, stranger] = newKeys(7);

const h = fileHarness(() =>
  startHarness({
    server: { host: '127.0.0.1', port: 0, allowedOrigins: ['https://agents.example.com'] },
    workspaces: [
      {
        name: 'alpha',
        mcpSources: [demoSource('demo'), demoSource('second')],
        keys: [
          keyRecord(reader),
          keyRecord(writer, { access: 'write' }),
          keyRecord(revoked, { revoked: true }),
          keyRecord(expired, { expiresAt: '2020-01-01T00:00:00Z' }),
          keyRecord(notesOnly, { sources: ['second'], tools: ['second__*note*'] }),
        ],
      },
      { name: 'beta', mcpSources: [demoSource('betasrc')], keys: [keyRecord(otherWorkspace)] },
    ],
  }),
);

async function expect401(response: Response, invalidToken: boolean) {
  expect(response.status).toBe(401);
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/^Bearer realm="agent-gateway"/);
  expect(challenge.includes('error="invalid_token"')).toBe(invalidToken);
  const body = (await response.json()) as { error: { code: string; class: string; requestId: string } };
  expect(body.error.code).toBe('unauthenticated');
  expect(body.error.class).toBe('proxy_authorization');
  expect(body.error.requestId).toBe(response.headers.get('x-request-id'));
}

describe('401 for every bad credential', () => {
  it('auth:401-missing — no Authorization header', async () => {
    await expect401(await get(`${h.url}/agent/tools`), false);
  });
  it('auth:401-not-bearer — Basic credentials', async () => {
    await expect401(
      await get(`${h.url}/agent/tools`, undefined, { authorization: 'Basic dXNlcjpwYXNz' }),
      false,
    );
  });
  it('auth:401-malformed — wrong checksum', async () => {
    const tampered = reader.key.slice(0, -1) + (reader.key.endsWith('A') ? 'B' : 'A');
    await expect401(await get(`${h.url}/agent/tools`, tampered), true);
  });
  it('auth:401-unknown — well-formed key that was never issued', async () => {
    await expect401(await get(`${h.url}/agent/tools`, stranger.key), true);
  });
  it('auth:401-revoked — revoked key', async () => {
    const response = await get(`${h.url}/agent/tools`, revoked.key);
    await expect401(response, true);
  });
  it('auth:401-expired — expired key', async () => {
    await expect401(await get(`${h.url}/agent/sources`, expired.key), true);
  });
  it('auth:401-mcp — the MCP endpoint is protected too and answers in JSON-RPC, echoing the id', async () => {
    const cases = [
      { key: undefined, id: 1, message: /API key/ },
      { key: revoked.key, id: 'req-7', message: /API key has been revoked/ },
      { key: stranger.key, id: 42, message: /API key is not valid/ },
    ];
    for (const { key, id, message } of cases) {
      const response = await fetch(`${h.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: {} }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="agent-gateway"/);
      const body = (await response.json()) as { error: { message: string } };
      expect(body).toMatchObject({
        jsonrpc: '2.0',
        id,
        error: { code: -31001, data: { code: 'unauthenticated', class: 'proxy_authorization' } },
      });
      expect(body.error.message).toMatch(message);
    }
  });
  it('auth:401-mcp — a body that is not JSON, or too slow, gets id null', async () => {
    const garbage = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'not json',
    });
    expect(garbage.status).toBe(401);
    expect(((await garbage.json()) as { id: unknown }).id).toBeNull();
  });
  it('auth:401-before-routing — unknown /agent paths do not reveal which routes exist', async () => {
    await expect401(await get(`${h.url}/agent/does-not-exist`), false);
    const known = await get(`${h.url}/agent/does-not-exist`, reader.key);
    expect(known.status).toBe(404);
  });
});

describe('403 for a valid key lacking permission', () => {
  it('auth:403-write-needed — a read key cannot refresh a source', async () => {
    const response = await fetch(`${h.url}/agent/sources/demo/refresh`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reader.key}` },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="write"');
    const body = (await response.json()) as { error: { code: string; class: string } };
    expect(body.error).toMatchObject({ code: 'forbidden', class: 'proxy_authorization' });
  });
  it('auth:403-write-needed — the same request with a write key succeeds', async () => {
    const response = await fetch(`${h.url}/agent/sources/demo/refresh?response_format=json`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer.key}` },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { source: { id: string; status: string } }).source).toMatchObject({
      id: 'demo',
      status: 'ready',
    });
  });
  it('auth:403-origin — a browser Origin that is not allowed is refused even with a valid key', async () => {
    const response = await get(`${h.url}/agent/tools`, reader.key, { origin: 'https://evil.example.net' });
    expect(response.status).toBe(403);
    const allowed = await get(`${h.url}/agent/tools`, reader.key, { origin: 'https://agents.example.com' });
    expect(allowed.status).toBe(200);
  });
  it('auth:no-oracle — a write key refreshing a source outside its view gets the same 404 as a missing one', async () => {
    const foreign = await fetch(`${h.url}/agent/sources/betasrc/refresh`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer.key}` },
    });
    const missing = await fetch(`${h.url}/agent/sources/nope/refresh`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer.key}` },
    });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    const a = (await foreign.json()) as { error: { message: string } };
    const b = (await missing.json()) as { error: { message: string } };
    expect(a.error.message).toBe(b.error.message);
  });
});

describe('workspace isolation and key scoping', () => {
  it('auth:workspace-from-key — each key sees only its own workspace', async () => {
    const alpha = (await (await get(`${h.url}/agent/sources?response_format=json`, reader.key)).json()) as {
      workspace: string;
      sources: { id: string }[];
    };
    const beta = (await (
      await get(`${h.url}/agent/sources?response_format=json`, otherWorkspace.key)
    ).json()) as { workspace: string; sources: { id: string }[] };
    expect(alpha.workspace).toBe('alpha');
    expect(alpha.sources.map((s) => s.id)).toEqual(['demo', 'second']);
    expect(beta.workspace).toBe('beta');
    expect(beta.sources.map((s) => s.id)).toEqual(['betasrc']);
  });
  it('auth:workspace-not-from-request — a workspace named in the request is ignored', async () => {
    const response = await get(`${h.url}/agent/sources?response_format=json&workspace=beta`, reader.key, {
      'x-workspace': 'beta',
    });
    expect(((await response.json()) as { workspace: string }).workspace).toBe('alpha');
  });
  it('auth:key-patterns — source and tool patterns narrow what a key sees', async () => {
    const tools = (await (await get(`${h.url}/agent/tools?response_format=json`, notesOnly.key)).json()) as {
      tools: { name: string }[];
    };
    expect(tools.tools.map((t) => t.name)).toEqual([
      'second__create_note',
      'second__delete_note',
      'second__list_notes',
    ]);
    const sources = (await (
      await get(`${h.url}/agent/sources?response_format=json`, notesOnly.key)
    ).json()) as { sources: { id: string }[] };
    expect(sources.sources.map((s) => s.id)).toEqual(['second']);
  });
});
