// The network guard where connections are made (issue 20, D19), with an injected resolver and real
// loopback listeners: literal and resolved addresses are decided before dialling, a name with any
// denied address is refused, the address checked is the one dialled (TLS-free here), redirects are
// checked hop by hop, and node-postgres sockets and Unix socket paths go through the same decision.
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type Server as TcpServer } from 'node:net';
import pg from 'pg';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantPolicySchema } from '../../../gateway/config/index.js';
import {
  findReachDenied,
  NetworkGuard,
  ReachDeniedError,
  ReachPolicy,
} from '../../../gateway/reach/index.js';

let http: Server;
let httpPort = 0;
let wire: TcpServer;
let wirePort = 0;
let wireConnections = 0;
const hostHeaders: string[] = [];

const names: Record<string, string[]> = {
  'api.allowed.test': ['127.0.0.2'],
  'rebind.test': ['127.0.0.1'],
  'mixed.test': ['203.0.113.5', '127.0.0.1'],
};
const resolver = (host: string) =>
  Promise.resolve((names[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

// Loopback is denied except 127.0.0.2, where the allowed server listens.
const guard = new NetworkGuard(
  new ReachPolicy(TenantPolicySchema.parse({ network: { allow: { cidrs: ['127.0.0.2/32'] } } })),
  { namespace: 'team-a', workspace: 'acme' },
  resolver,
);

beforeAll(async () => {
  http = createHttpServer((req, res) => {
    hostHeaders.push(req.headers.host ?? '');
    if (req.url === '/redirect') res.writeHead(302, { location: `http://rebind.test:${wirePort}/x` }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.2', () => resolve()));
  httpPort = (http.address() as { port: number }).port;
  wire = createServer((socket) => {
    wireConnections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => wire.listen(0, '127.0.0.1', () => resolve()));
  wirePort = (wire.address() as { port: number }).port;
});

afterAll(async () => {
  await guard.close();
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await new Promise<void>((resolve) => wire.close(() => resolve()));
});

describe('NetworkGuard', () => {
  it('reach:guard-resolve — literals, names and names with any denied address are decided before dialling', async () => {
    await expect(guard.resolve('127.0.0.1')).rejects.toMatchObject({ reason: 'loopback' });
    await expect(guard.resolve('[::1]')).rejects.toMatchObject({ reason: 'loopback' });
    await expect(guard.resolve('rebind.test')).rejects.toMatchObject({
      reason: 'loopback',
      target: 'rebind.test',
    });
    await expect(guard.resolve('mixed.test')).rejects.toBeInstanceOf(ReachDeniedError);
    await expect(guard.resolve('localhost')).rejects.toMatchObject({ reason: 'loopback' });
    expect(await guard.resolve('api.allowed.test')).toEqual({ address: '127.0.0.2', family: 4 });
    await expect(guard.resolve('nowhere.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    // The refusal names what the tenant wrote, never the address a name resolved to.
    const error = (await guard.resolve('rebind.test').catch((e: unknown) => e)) as Error;
    expect(error.message).not.toContain('127.0.0.1');
  });

  it('reach:guard-fetch — fetch dials the checked address with the original Host; a redirect to a denied name is refused and nothing connects', async () => {
    const ok = await guard.fetch()(`http://api.allowed.test:${httpPort}/items`);
    expect(await ok.json()).toEqual({ ok: true });
    expect(hostHeaders.at(-1)).toBe(`api.allowed.test:${httpPort}`);
    const redirected = await guard
      .fetch()(`http://api.allowed.test:${httpPort}/redirect`)
      .catch((e: unknown) => e);
    expect(findReachDenied(redirected)?.reason).toBe('loopback');
    const direct = await guard
      .fetch()(`http://127.0.0.1:${wirePort}/`)
      .catch((e: unknown) => e);
    expect(findReachDenied(direct)?.target).toBe('127.0.0.1');
    expect(wireConnections).toBe(0);
  });

  it('reach:guard-agent — an undici pool built by the guard refuses a denied literal and serves an allowed name', async () => {
    const agent = guard.agent();
    const refused = await request(`http://127.0.0.1:${wirePort}/`, { dispatcher: agent }).catch(
      (e: unknown) => e,
    );
    expect(findReachDenied(refused)?.reason).toBe('loopback');
    const served = await request(`http://api.allowed.test:${httpPort}/`, { dispatcher: agent });
    expect(served.statusCode).toBe(200);
    await served.body.dump();
    await agent.close();
    expect(wireConnections).toBe(0);
  });

  it('reach:guard-postgres — node-postgres through the guard refuses a denied host and a Unix socket path before connecting', async () => {
    const denied = new pg.Client({
      host: 'rebind.test',
      port: wirePort,
      stream: () => guard.socket(),
      connectionTimeoutMillis: 2000,
    });
    const refused = await denied.connect().catch((e: unknown) => e);
    expect(findReachDenied(refused)?.reason).toBe('loopback');
    expect((refused as Error).message).not.toContain('rebind.test');
    const unix = new pg.Client({
      host: '/var/run/postgresql',
      stream: () => guard.socket(),
      connectionTimeoutMillis: 2000,
    });
    expect(findReachDenied(await unix.connect().catch((e: unknown) => e))?.reason).toBe('unix-socket');
    expect(wireConnections).toBe(0);
  });
});
