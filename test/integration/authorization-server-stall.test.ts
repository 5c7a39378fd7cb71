// Connections to authorization servers are bounded (issue 29, docs/security.md): against real TCP
// servers on loopback, a token endpoint or key server that never answers, or answers headers and then
// stalls its body, fails the request within its deadline and its socket is closed; one that asks to
// keep an idle connection for 10 minutes (`Keep-Alive: timeout=600`) has it closed after the pool's
// idle time. Both the unguarded pool and a tenant-guarded workspace's pool are checked, through the
// gateway's own token request (client credentials) and its JWKS/metadata fetch.
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TenantPolicySchema } from '../../gateway/config/index.js';
import {
  AUTHORIZATION_SERVER_IDLE_MS,
  AuthorizationServerPool,
  NetworkGuard,
  ReachPolicy,
} from '../../gateway/reach/index.js';
import { fetchJsonObject, OAuthFetchError } from '../../gateway/auth/oauth-fetch.js';
import { requestToken, UpstreamTokenError } from '../../gateway/connections/index.js';
import { until } from '../support/until.js';

/** Server-side sockets, to see when the gateway's side closes them. */
class Sockets {
  readonly open = new Set<Socket>();
  accepted = 0;
  track(socket: Socket): void {
    this.accepted += 1;
    this.open.add(socket);
    socket.on('close', () => this.open.delete(socket));
  }
}

let pool: AuthorizationServerPool;
const guard = new NetworkGuard(
  new ReachPolicy(TenantPolicySchema.parse({ network: { allow: { cidrs: ['127.0.0.1/32'] } } })),
  { namespace: 'ns', workspace: 'w' },
);
const servers: (HttpServer | TcpServer)[] = [];

const listen = async <T extends HttpServer | TcpServer>(server: T): Promise<string> => {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
};

/** Accepts connections, reads what is sent, never answers. */
async function silentServer(sockets: Sockets): Promise<string> {
  return listen(
    createTcpServer((socket) => {
      sockets.track(socket);
      socket.on('data', () => undefined);
    }),
  );
}

/** Answers the headers of a JSON body and then trickles nothing more. */
async function stalledBodyServer(sockets: Sockets): Promise<string> {
  return listen(
    createTcpServer((socket) => {
      sockets.track(socket);
      socket.once('data', () =>
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a'),
      );
    }),
  );
}

/** A well-behaved server that asks its clients to keep idle connections for 10 minutes. */
async function lingeringServer(sockets: Sockets): Promise<string> {
  const server = createHttpServer((request, response) => {
    request.resume();
    response.setHeader('keep-alive', 'timeout=600');
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ access_token: 'at-1', token_type: 'Bearer', expires_in: 60, keys: [] }));
  });
  server.keepAliveTimeout = 700_000;
  server.on('connection', (socket) => sockets.track(socket));
  return listen(server);
}

const client = { method: 'client_secret_basic' as const, clientId: 'gw', clientSecret: 'gw-secret' };
const token = (url: string, fetch: typeof globalThis.fetch, timeoutMs = 300) =>
  requestToken(`${url}/token`, { grant_type: 'client_credentials' }, client, {
    fetch,
    timeoutMs,
    now: Date.now,
  });
const jwks = (url: string, fetch: typeof globalThis.fetch, timeoutMs = 300) =>
  fetchJsonObject(`${url}/jwks`, { fetch, timeoutMs, maxBytes: 65_536 });

beforeAll(() => {
  pool = new AuthorizationServerPool();
});
afterEach(async () => {
  for (const server of servers.splice(0)) {
    if ('closeAllConnections' in server) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
afterAll(async () => {
  await pool.close();
  await guard.close();
});

describe('a stalled authorization server cannot hold the gateway’s sockets', () => {
  it('oauth:as-stall-timeout — no answer, or headers then a stalled body: the request fails at its deadline and its socket is closed', async () => {
    for (const fetch of [pool.fetch, pool.fetchFor(guard)]) {
      for (const serve of [silentServer, stalledBodyServer]) {
        const sockets = new Sockets();
        const url = await serve(sockets);
        let started = Date.now();
        const refused = await token(url, fetch).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(UpstreamTokenError);
        expect((refused as UpstreamTokenError).failure).toBe('timeout');
        expect(Date.now() - started).toBeLessThan(1500);
        started = Date.now();
        const failed = await jwks(url, fetch).catch((error: unknown) => error);
        expect(failed).toBeInstanceOf(OAuthFetchError);
        expect((failed as OAuthFetchError).failure).toBe('timeout');
        expect(Date.now() - started).toBeLessThan(1500);
        expect(sockets.accepted).toBe(2);
        await until(
          'the stalled connections are closed',
          () => Promise.resolve(sockets.open.size === 0 || undefined),
          2000,
        );
      }
    }
  });

  it('oauth:as-idle-closed — an idle connection is closed after the pool’s idle time, not the 10 minutes the server asks for', async () => {
    for (const fetch of [pool.fetch, pool.fetchFor(guard)]) {
      const sockets = new Sockets();
      const url = await lingeringServer(sockets);
      expect((await token(url, fetch, 2000)).value).toBe('at-1');
      expect(await jwks(url, fetch, 2000)).toMatchObject({ keys: [] });
      // The kept-alive connections stay open while they may be reused…
      expect(sockets.accepted).toBeGreaterThanOrEqual(1);
      await new Promise((resolve) => setTimeout(resolve, AUTHORIZATION_SERVER_IDLE_MS / 2));
      expect(sockets.open.size).toBeGreaterThanOrEqual(1);
      // …then the gateway closes them.
      const idleSince = Date.now();
      await until(
        'the idle connection is closed',
        () => Promise.resolve(sockets.open.size === 0 || undefined),
        AUTHORIZATION_SERVER_IDLE_MS + 3000,
      );
      expect(Date.now() - idleSince).toBeLessThan(AUTHORIZATION_SERVER_IDLE_MS + 2000);
    }
  }, 30_000);
});
