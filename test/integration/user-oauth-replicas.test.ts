// Per-user connections (issue 42) in the cluster shape: two gateway replicas (each its own gateway
// from the composition root: its own store handles, locks, caches and seal) sharing ONE real
// PostgreSQL connection store (the unprivileged application role) and the same
// userConnections.encryption.keys, in front of the real SaaS of support/user-source.ts (oidc-provider
// rotating refresh tokens on every use, an audience-bound MCP server). Both replicas have one public
// address, the load balancer's; the test plays the balancer, sending each request (the callback
// the authorization server redirects the browser to, too) to the replica it picks.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../gateway/cli/cli-main.js';
import { freePort } from '../infra/free-port.js';
import { allowAppTables, startPostgres, type PostgresServer } from '../infra/postgres-server.js';
import { capturingIo } from '../support/capturing-io.js';
import { newKeys, startHarness, type Harness } from '../support/gateway-harness.js';
import { approveAt, openCallback, startConsent, ticketOf } from '../support/user-consent.js';
import {
  connectionsOf,
  connectUrlOf,
  pastTime,
  rawCall,
  saasWorkspace,
  servedAs,
  startSaas,
  type Saas,
} from '../support/user-source.js';

const CONNECTION_KEY = 'replica-connection-key-0123456789-abcdefg';
const [alice, bob, carol, dave, erin] = newKeys(5);
let saas: Saas;
let postgres: PostgresServer;
let env: Record<string, string>;
let publicUrl: string;
let a: Harness;
let b: Harness;

beforeAll(async () => {
  postgres = startPostgres();
  // The application role may create the store's tables in the public schema, nothing more.
  await allowAppTables(postgres);
  const { user, password, database, host, port } = postgres.app;
  env = {
    AGW_CONNECTION_KEY: CONNECTION_KEY,
    AGW_CONNECTIONS_PG: `postgresql://${user}:${password}@/${database}?host=${encodeURIComponent(host)}&port=${port}`,
  };
  saas = await startSaas();
  publicUrl = `http://127.0.0.1:${await freePort()}`;
  const document = {
    server: { host: '127.0.0.1', port: 0, publicUrl },
    userConnections: {
      postgres: { connectionString: { env: 'AGW_CONNECTIONS_PG' } },
      encryption: { keys: [{ env: 'AGW_CONNECTION_KEY' }] },
    },
    workspaces: [saasWorkspace(saas, [alice, bob, carol, dave, erin])],
  };
  a = await startHarness(document, env);
  b = await startHarness(document, env);
}, 120_000);

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await saas?.stop();
  postgres?.stop();
});

/** The balancer: `url` (at the public address) as sent to `replica`. */
function at(replica: Harness, url: string | URL): URL {
  const sent = new URL(url);
  sent.host = new URL(replica.url).host;
  return sent;
}

/** A consent begun at replica `start` whose callback the balancer sends to `finish`. */
async function consent(
  start: Harness,
  finish: Harness,
  key: string,
  by: { ticket: string } | { source: string },
  account: string,
) {
  const started = await startConsent(start.url, key, by);
  expect(started.status).toBe(200);
  const callback = await approveAt(started, account);
  expect(callback.origin).toBe(publicUrl);
  const opened = await openCallback(at(finish, callback), started.cookie);
  return { callback, cookie: started.cookie, opened };
}

async function connect(start: Harness, finish: Harness, key: string, account: string): Promise<void> {
  const { opened } = await consent(start, finish, key, { source: 'saas' }, account);
  expect(opened.status).toBe(200);
  expect(opened.text).toContain('Connected');
}

const whoami = (replica: Harness, key: string) => rawCall(replica.url, key, 'saas__whoami');

describe('per-user connections on two replicas sharing one PostgreSQL store', () => {
  it('user-oauth:replicas-shared-connection — a user connects through replica A; replica B serves them without asking and without a token request', async () => {
    const asked = connectUrlOf(await whoami(a, alice.key));
    expect(asked?.startsWith(`${publicUrl}/connect?ticket=`)).toBe(true);
    const { opened } = await consent(a, a, alice.key, { ticket: ticketOf(asked ?? '') }, 'alice');
    expect(opened.status).toBe(200);
    const tokenRequests = saas.tokenRequests();
    expect(servedAs(await whoami(b, alice.key))).toBe('alice');
    expect(saas.tokenRequests()).toBe(tokenRequests);
    expect(await connectionsOf(b.url, alice.key)).toEqual([
      expect.objectContaining({ source: 'saas', connected: true, issuer: saas.as.issuer }),
    ]);
  });

  it('user-oauth:replicas-revoke-own — the user revokes on A; within a second B asks them to connect again', async () => {
    const revoked = await fetch(`${a.url}/agent/connections/saas`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${alice.key}` },
    });
    expect(await revoked.json()).toEqual({ source: 'saas', revoked: 1, revoked_at_server: true });
    const revokedAt = Date.now();
    let askedAt: number | undefined;
    while (askedAt === undefined && Date.now() - revokedAt < 5_000) {
      const answer = await whoami(b, alice.key);
      if (connectUrlOf(answer) !== undefined) askedAt = Date.now();
      else expect(servedAs(answer)).toBe('alice');
    }
    expect(askedAt).toBeDefined();
    expect((askedAt ?? Infinity) - revokedAt).toBeLessThan(1_000);
    expect(await connectionsOf(b.url, alice.key)).toEqual([{ source: 'saas', connected: false }]);
  });

  it('user-oauth:replicas-admin-revoke — `connections revoke --source` removes every connection of the source; both replicas ask each user again', async () => {
    await connect(a, a, bob.key, 'bob');
    await connect(b, b, carol.key, 'carol');
    expect(servedAs(await whoami(b, bob.key))).toBe('bob');
    expect(servedAs(await whoami(a, carol.key))).toBe('carol');
    const { io, out, err } = capturingIo(env);
    const args = ['--config', a.configPath, '--workspace', 'team', '--source', 'saas'];
    expect(await runCli(['connections', 'revoke', ...args], io), err.join('\n')).toBe(0);
    expect(out).toEqual(['revoked 2 connections (workspace team, source saas)']);
    for (const replica of [a, b])
      for (const key of [bob.key, carol.key])
        expect(connectUrlOf(await whoami(replica, key))).toMatch(/\/connect\?ticket=/);
  });

  it('user-oauth:replicas-one-refresh — concurrent calls on both replicas after the access token expired cause one refresh at the authorization server (a second use of the rotated-out refresh token would revoke the grant)', async () => {
    saas.tokenLifetime(2);
    await connect(a, a, erin.key, 'erin');
    saas.tokenLifetime(3600);
    const [row] = await connectionsOf(a.url, erin.key);
    await pastTime(Date.parse(String(row?.['expires_at'])));
    const before = saas.tokenRequests();
    const calls = await Promise.all(
      Array.from({ length: 8 }, (_, i) => whoami(i % 2 === 0 ? a : b, erin.key)),
    );
    expect(calls.map(servedAs)).toEqual(Array.from({ length: 8 }, () => 'erin'));
    expect(saas.tokenRequests() - before).toBe(1);
    const [after] = await connectionsOf(b.url, erin.key);
    expect(after?.['refreshed_at']).toBeDefined();
    expect(Date.parse(String(after?.['expires_at']))).toBeGreaterThan(Date.now() + 60_000);
  });

  it('user-oauth:replicas-callback-any-replica — a consent started on A completes on B; the same callback replayed on A is refused', async () => {
    const ticket = ticketOf(connectUrlOf(await whoami(b, dave.key)) ?? '');
    const { callback, cookie, opened } = await consent(a, b, dave.key, { ticket }, 'dave');
    expect(opened.status).toBe(200);
    expect(opened.text).toContain('Connected');
    const replay = await openCallback(at(a, callback), cookie);
    expect(replay.status).toBe(400);
    expect(replay.text).toContain('already completed');
    expect(servedAs(await whoami(a, dave.key))).toBe('dave');
    expect(servedAs(await whoami(b, dave.key))).toBe('dave');
    // Consents began on both replicas, with one client registration at the SaaS between them.
    expect(saas.as.requests.get('/reg')).toBe(1);
  });

  it('user-oauth:replicas-tokens-sealed — no token in either replica’s log or anywhere in the shared database', async () => {
    const admin = new pg.Client(postgres.admin);
    await admin.connect();
    try {
      const { rows } = await admin.query<{ dump: string }>(
        `SELECT concat_ws(' ',
           (SELECT string_agg(c::text, ' ') FROM user_connections c),
           (SELECT string_agg(v::text, ' ') FROM user_connection_values v),
           (SELECT string_agg(u::text, ' ') FROM user_connection_consumed u)) AS dump`,
      );
      const dump = rows[0]?.dump ?? '';
      // dave and erin are connected: their rows are there, and nothing of their tokens is readable.
      expect(dump).toContain(dave.id);
      expect(dump).toContain(erin.id);
      for (const text of [dump, a.logs.join('\n'), b.logs.join('\n')]) {
        expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.eyJ/);
        expect(text).not.toContain('refresh_token');
        expect(text).not.toContain('accessToken');
      }
    } finally {
      await admin.end();
    }
  });
});
