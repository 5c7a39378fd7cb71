// Acting as the user upstream (issue 42), end to end with real parts: oidc-provider as the SaaS
// authorization server (dynamic client registration, authorization code with PKCE and `resource`,
// refresh tokens rotated on use), a real MCP server that accepts only tokens for its own audience
// (test/fixtures/upstreams/audience-bound-server.ts; both started by support/user-source.ts), the
// gateway from its composition root with a SQLite connection store, and the TS SDK v2 client in both
// eras. Each key is a different user; `headlessConsent` is the person at the authorization server's
// login and consent pages.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../infra/free-port.js';
import { newKeys, startHarness, type Harness } from '../support/gateway-harness.js';
import { approveAt, connectAccount, openCallback, startConsent, ticketOf } from '../support/user-consent.js';
import {
  connectionsOf as connectionsAt,
  pastTime,
  rawCall as rawCallAt,
  rawRequest,
  saasWorkspace,
  startSaas,
  type Saas,
} from '../support/user-source.js';

const CONNECTION_KEY = 'user-connection-key-0123456789-abcdefghij';
const [alice, bob, carol, dave, erin, frank] = newKeys(6);
let saas: Saas;
let h: Harness;
let sqlitePath: string;
let port: number;

function documentFor(gatewayPort: number, path: string): Record<string, unknown> {
  return {
    server: { host: '127.0.0.1', port: gatewayPort, publicUrl: `http://127.0.0.1:${gatewayPort}` },
    userConnections: { sqlitePath: path, encryption: { keys: [{ env: 'AGW_CONNECTION_KEY' }] } },
    workspaces: [saasWorkspace(saas, [alice, bob, carol, dave, erin, frank])],
  };
}

beforeAll(async () => {
  saas = await startSaas();
  port = await freePort();
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  sqlitePath = join(await mkdtemp(join(tmpdir(), 'agw-conn-')), 'connections.db');
  h = await startHarness(documentFor(port, sqlitePath), { AGW_CONNECTION_KEY: CONNECTION_KEY });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await saas?.stop();
});

async function modernClient(key: string, onUrl: (url: string) => Promise<void>): Promise<Client> {
  const client = new Client(
    { name: 'it-user-oauth', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { url: {} } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params as { mode?: string; url?: string };
    expect(params.mode).toBe('url');
    await onUrl(params.url as string);
    return { action: 'accept' };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

async function legacyClient(key: string): Promise<Client> {
  const client = new Client(
    { name: 'it-user-oauth-legacy', version: '1.0.0' },
    { versionNegotiation: { mode: 'legacy' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

function textOf(result: { content?: unknown }): string {
  return JSON.stringify(result.content);
}

const rawCall = (key: string, name: string, extra: Record<string, unknown> = {}, urlMode = true) =>
  rawCallAt(h.url, key, name, extra, urlMode);
const connectionsOf = (key: string) => connectionsAt(h.url, key);

describe('per-user upstream connections', () => {
  it('user-oauth:modern-url-elicitation — a 2026 client is asked to connect, the user consents, the SDK retries and the upstream sees that user', async () => {
    const links: string[] = [];
    const client = await modernClient(alice.key, async (url) => {
      links.push(url);
      expect(url.startsWith(`http://127.0.0.1:${port}/connect?ticket=`)).toBe(true);
      // The link itself is a page (this gateway has no console: it says how to start by hand).
      const opened = await fetch(url, { redirect: 'manual' });
      expect(opened.status).toBe(200);
      expect(opened.headers.get('cache-control')).toBe('no-store');
      expect(await opened.text()).toContain('POST /agent/connections/start');
      const done = await connectAccount(h.url, alice.key, { ticket: ticketOf(url) }, 'alice');
      expect(done.status).toBe(200);
      expect(done.text).toContain('Connected');
    });
    const result = await client.callTool({ name: 'saas__whoami', arguments: {} });
    expect(textOf(result)).toContain('alice');
    expect(links).toHaveLength(1);
    expect(saas.upstream.accepted.at(-1)).toMatchObject({ sub: 'alice', tool: 'whoami' });
    // Connected now: the next call goes straight through.
    const again = await client.callTool({ name: 'saas__echo', arguments: { text: 'hi' } });
    expect(textOf(again)).toContain('hi');
    expect(links).toHaveLength(1);
    await client.close();
  });

  it('user-oauth:legacy-url-elicitation — a 2025 client gets -32042 with the link, connects, retries and is served as itself', async () => {
    const client = await legacyClient(bob.key);
    const refused = await client.callTool({ name: 'saas__whoami', arguments: {} }).then(
      () => undefined,
      (error: unknown) =>
        error as {
          code?: number;
          data?: { elicitations?: { mode: string; url: string; elicitationId: string }[] };
        },
    );
    expect(refused?.code).toBe(-32042);
    const elicitation = refused?.data?.elicitations?.[0];
    expect(elicitation?.mode).toBe('url');
    expect(elicitation?.elicitationId).toMatch(/^[0-9a-f-]{36}$/);
    const done = await connectAccount(h.url, bob.key, { ticket: ticketOf(elicitation?.url ?? '') }, 'bob');
    expect(done.status).toBe(200);
    const result = await client.callTool({ name: 'saas__whoami', arguments: {} });
    expect(textOf(result)).toContain('bob');
    expect(saas.upstream.accepted.at(-1)).toMatchObject({ sub: 'bob' });
    await client.close();
  });

  it('user-oauth:each-user-their-own — alice stays alice and bob bob; a third user is not connected and is asked', async () => {
    const asAlice = await rawCall(alice.key, 'saas__whoami');
    expect(JSON.stringify(asAlice.result)).toContain('alice');
    const asBob = await rawCall(bob.key, 'saas__whoami');
    expect(JSON.stringify(asBob.result)).toContain('bob');
    const carolCall = await rawCall(carol.key, 'saas__whoami');
    expect(carolCall.result?.['resultType']).toBe('input_required');
    const request = (
      carolCall.result?.['inputRequests'] as Record<
        string,
        { method: string; params: Record<string, unknown> }
      >
    )['agw_connect'];
    expect(request?.method).toBe('elicitation/create');
    expect(request?.params['mode']).toBe('url');
    expect(String(carolCall.result?.['requestState'])).toMatch(/^agwc1\./);
    // Without URL elicitation the link comes as a tool error instead of an input request.
    const plain = await rawCall(carol.key, 'saas__whoami', {}, false);
    expect(plain.result?.['isError']).toBe(true);
    expect(JSON.stringify(plain.result?.['content'])).toContain(`http://127.0.0.1:${port}/connect?ticket=`);
    expect(await connectionsOf(alice.key)).toEqual([
      expect.objectContaining({
        source: 'saas',
        connected: true,
        issuer: saas.as.issuer,
        scope: 'tools:read',
      }),
    ]);
    expect(await connectionsOf(carol.key)).toEqual([{ source: 'saas', connected: false }]);
  });

  it('user-oauth:reads-need-a-connection — resources/read and prompts/get of a user source ask the same way, in both eras, and then read as that user', async () => {
    const uri = `agw://saas/${encodeURIComponent('memo://profile/me')}`;
    const modern = await modernClient(bob.key, () => Promise.reject(new Error('bob is connected')));
    const resource = await modern.readResource({ uri });
    expect(JSON.stringify(resource.contents)).toContain('sub=bob');
    const prompt = await modern.getPrompt({ name: 'saas__introduce' });
    expect(JSON.stringify(prompt.messages)).toContain('I am bob');
    await modern.close();
    // Frank has no connection: asked on a read and a prompt, in both eras.
    const asked = await rawRequest(h.url, frank.key, 'prompts/get', { name: 'saas__introduce' });
    expect(asked.result?.['resultType']).toBe('input_required');
    const read = await rawRequest(h.url, frank.key, 'resources/read', { uri });
    expect(read.result?.['resultType']).toBe('input_required');
    const legacy = await legacyClient(frank.key);
    const refused = await legacy.getPrompt({ name: 'saas__introduce' }).then(
      () => undefined,
      (error: unknown) => error as { code?: number },
    );
    expect(refused?.code).toBe(-32042);
    await legacy.close();
  });

  it('user-oauth:retry-state-bound — the retry state works for its own caller and tool only; once connected the retry is relayed without it', async () => {
    const first = await rawCall(carol.key, 'saas__whoami');
    const requestState = first.result?.['requestState'];
    const inputResponses = { agw_connect: { action: 'accept' } };
    // Another user's retry with carol's state, and carol's retry for another tool: refused.
    const stolen = await rawCall(dave.key, 'saas__whoami', { requestState, inputResponses });
    expect(stolen.error?.code).toBe(-32602);
    const otherTool = await rawCall(carol.key, 'saas__echo', { requestState, inputResponses });
    expect(otherTool.error?.code).toBe(-32602);
    // Not connected yet: asked again.
    const early = await rawCall(carol.key, 'saas__whoami', { requestState, inputResponses });
    expect(early.result?.['resultType']).toBe('input_required');
    await connectAccount(h.url, carol.key, { source: 'saas' }, 'carol');
    const before = saas.upstream.accepted.length;
    const retried = await rawCall(carol.key, 'saas__whoami', { requestState, inputResponses });
    expect(JSON.stringify(retried.result)).toContain('carol');
    expect(saas.upstream.accepted.length).toBeGreaterThan(before);
  });

  it('user-oauth:callback-refusals — another browser, a replay, a forged state and a ticket for someone else are refused', async () => {
    const ticket = ticketOf(
      String(
        (
          (await rawCall(dave.key, 'saas__whoami')).result?.['inputRequests'] as Record<
            string,
            { params: { url: string } }
          >
        )['agw_connect']?.params.url,
      ),
    );
    // A ticket made for dave, used with erin's key.
    const foreign = await startConsent(h.url, erin.key, { ticket });
    expect(foreign.status).toBe(403);
    const tampered = await startConsent(h.url, dave.key, {
      ticket: `${ticket.slice(0, 30)}${ticket[30] === 'x' ? 'y' : 'x'}${ticket.slice(31)}`,
    });
    expect(tampered.status).toBe(400);
    const started = await startConsent(h.url, dave.key, { ticket });
    expect(started.status).toBe(200);
    expect(started.cookie).toMatch(/^agw_consent=[A-Za-z0-9_-]{20,}$/);
    const callback = await approveAt(started, 'dave');
    // Opened in another browser (no cookie, or another one): refused, nothing stored.
    expect((await openCallback(callback, undefined)).status).toBe(400);
    expect(
      (await openCallback(callback, 'agw_consent=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).text,
    ).toContain('another browser');
    // A forged state (altered) with the right cookie: refused.
    const forged = new URL(callback);
    forged.searchParams.set('state', `${callback.searchParams.get('state')?.slice(0, -4) ?? ''}AAAA`);
    expect((await openCallback(forged, started.cookie)).status).toBe(400);
    // The real one completes once; its replay is refused.
    expect((await openCallback(callback, started.cookie)).status).toBe(200);
    const replay = await openCallback(callback, started.cookie);
    expect(replay.status).toBe(400);
    expect(replay.text).toContain('already completed');
    expect(JSON.stringify((await rawCall(dave.key, 'saas__whoami')).result)).toContain('dave');
  });

  it('user-oauth:revoke-own — a user revokes their connection, here and at the server that granted it (RFC 7009); the next call asks again', async () => {
    const revocations = saas.as.requests.get('/token/revocation') ?? 0;
    const grantsRevoked = saas.as.revokedGrants.length;
    const revoked = await fetch(`${h.url}/agent/connections/saas`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${carol.key}` },
    });
    expect(await revoked.json()).toEqual({ source: 'saas', revoked: 1, revoked_at_server: true });
    expect(saas.as.requests.get('/token/revocation') ?? 0).toBe(revocations + 1);
    // The grant ended at the server too (oidc-provider revokes the grant with its refresh token).
    expect(saas.as.revokedGrants.length).toBe(grantsRevoked + 1);
    expect((await rawCall(carol.key, 'saas__whoami')).result?.['resultType']).toBe('input_required');
    // Others keep theirs.
    expect(JSON.stringify((await rawCall(dave.key, 'saas__whoami')).result)).toContain('dave');
    const unknown = await fetch(`${h.url}/agent/connections/nope`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${carol.key}` },
    });
    expect(unknown.status).toBe(404);
  });

  it('user-oauth:refresh-rotation — an expired access token is refreshed once for concurrent calls, the rotated refresh token replaces the old', async () => {
    saas.tokenLifetime(2);
    await connectAccount(h.url, erin.key, { source: 'saas' }, 'erin');
    saas.tokenLifetime(3600);
    const [row] = await connectionsOf(erin.key);
    expect(row?.['connected']).toBe(true);
    const firstExpiry = Date.parse(String(row?.['expires_at']));
    await pastTime(firstExpiry);
    const tokenRequests = saas.as.requests.get('/token') ?? 0;
    const calls = await Promise.all(Array.from({ length: 5 }, () => rawCall(erin.key, 'saas__whoami')));
    for (const call of calls) expect(JSON.stringify(call.result)).toContain('erin');
    expect((saas.as.requests.get('/token') ?? 0) - tokenRequests).toBe(1);
    const [after] = await connectionsOf(erin.key);
    expect(after?.['refreshed_at']).toBeDefined();
    expect(Date.parse(String(after?.['expires_at']))).toBeGreaterThan(Date.now() + 60_000);
  });

  it('user-oauth:revoked-grant — a grant revoked at the server: the refresh is refused, the connection goes and the user is asked again', async () => {
    saas.tokenLifetime(2);
    await connectAccount(h.url, dave.key, { source: 'saas' }, 'dave');
    saas.tokenLifetime(3600);
    expect(await saas.as.revokeGrants('dave')).toBeGreaterThan(0);
    const [row] = await connectionsOf(dave.key);
    await pastTime(Date.parse(String(row?.['expires_at'])));
    const asked = await rawCall(dave.key, 'saas__whoami');
    expect(asked.result?.['resultType']).toBe('input_required');
    expect(await connectionsOf(dave.key)).toEqual([{ source: 'saas', connected: false }]);
  });

  it('user-oauth:tokens-stay-secret — no token in the logs, the audit trail or the store file; the consent answer is audited', async () => {
    const logs = h.logs.join('\n');
    const audit = await readFile(h.auditPath, 'utf8');
    const store = (await readFile(sqlitePath)).toString('latin1');
    for (const text of [logs, audit, store]) {
      // JWT access tokens start eyJ; refresh tokens and codes are never echoed either.
      expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.eyJ/);
      expect(text).not.toContain('refresh_token');
    }
    expect(audit).toContain('"error_code":"upstream_consent_required"');
  });

  it('user-oauth:survives-restart — a second gateway on the same store and keys serves alice without asking', async () => {
    const port2 = await freePort();
    const second = await startHarness(documentFor(port2, sqlitePath), { AGW_CONNECTION_KEY: CONNECTION_KEY });
    try {
      const response = await fetch(`${second.url}/agent/connections?response_format=json`, {
        headers: { authorization: `Bearer ${alice.key}` },
      });
      expect(((await response.json()) as { connections: unknown[] }).connections).toEqual([
        expect.objectContaining({ connected: true }),
      ]);
    } finally {
      await second.stop();
    }
  });
});
