// The network guard where connections are made (issue 20, D19), with an injected resolver and real
// loopback listeners: literal and resolved addresses are decided before dialling, a name with any
// denied address is refused, the address checked is the one dialled (the Host header keeps the
// name), redirects are checked hop by hop, and node-postgres sockets and Unix socket paths go
// through the same decision. A "trap" listener on a denied address counts every connection it gets.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, createConnection, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantPolicySchema } from '../../../gateway/config/index.js';
import {
  findReachDenied,
  NetworkGuard,
  ReachDeniedError,
  ReachPolicy,
  type Resolver,
} from '../../../gateway/reach/index.js';

const scope = { namespace: 'team-a', workspace: 'acme' };

// The allowed upstream listens on 127.0.0.1 (an admin's CIDR exception); the trap on 127.0.0.2,
// which stays loopback and denied.
let upstream: Server;
let upstreamPort = 0;
const seen: { host: string; localAddress: string; url: string }[] = [];
let trap: Server;
let trapPort = 0;
let trapConnections = 0;
let wire: TcpServer;
let wirePort = 0;
let wireConnections = 0;
let unixDir: string;
let unixPath: string;
let unixServer: TcpServer;
let unixConnections = 0;

const names: Record<string, string[]> = {
  'made-up.test': ['127.0.0.1'],
  'made-up-v6.test': ['::ffff:127.0.0.1'],
  'trap.test': ['127.0.0.2'],
  'denied.example': ['127.0.0.2'],
  'rebind.test': ['127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['203.0.113.5', '127.0.0.1'],
  'mixed-reversed.test': ['127.0.0.1', '203.0.113.5'],
  'public.test': ['203.0.113.5'],
  'public-v6.test': ['2001:db8::5'],
  localhost: ['127.0.0.1', '::1'],
};
const lookups: string[] = [];
const resolver: Resolver = (host) => {
  lookups.push(host);
  return Promise.resolve(
    (names[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
  );
};

const policyOf = (input: unknown) => new ReachPolicy(TenantPolicySchema.parse(input));
/** The secure defaults: every loopback address is denied. */
const strict = new NetworkGuard(policyOf({}), scope, resolver);
/** 127.0.0.1 is an admin's CIDR exception; 127.0.0.2 (the trap) is not. */
const open = new NetworkGuard(policyOf({ network: { allow: { cidrs: ['127.0.0.1/32'] } } }), scope, resolver);

const listen = (server: Server | TcpServer, host: string) =>
  new Promise<number>((resolve) =>
    server.listen(0, host, () => resolve((server.address() as { port: number }).port)),
  );
const closeServer = (server: Server | TcpServer) =>
  new Promise<void>((resolve) => server.close(() => resolve()));
/** Lets a connection that should not have happened arrive before the count is read. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('expected a refusal'),
    (error: unknown) => error,
  );
const socketError = (socket: Socket) =>
  new Promise<Error>((resolve, reject) => {
    socket.once('error', resolve);
    socket.once('connect', () => reject(new Error('connected')));
  });

beforeAll(async () => {
  upstream = createHttpServer((req, res) => {
    seen.push({
      host: req.headers.host ?? '',
      localAddress: req.socket.localAddress ?? '',
      url: req.url ?? '',
    });
    if (req.url === '/to-trap') res.writeHead(302, { location: `http://trap.test:${trapPort}/` }).end();
    else if (req.url === '/to-trap-literal')
      res.writeHead(302, { location: `http://127.0.0.2:${trapPort}/` }).end();
    else if (req.url === '/to-localhost')
      res.writeHead(302, { location: `http://localhost:${trapPort}/` }).end();
    else if (req.url === '/to-self') res.writeHead(302, { location: '/items' }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  upstreamPort = await listen(upstream, '127.0.0.1');
  trap = createHttpServer((_req, res) => res.end('trapped'));
  trap.on('connection', () => {
    trapConnections += 1;
  });
  trapPort = await listen(trap, '127.0.0.2');
  wire = createServer((socket) => {
    wireConnections += 1;
    socket.end('hello');
  });
  wirePort = await listen(wire, '127.0.0.1');
  unixDir = await mkdtemp(join(tmpdir(), 'agw-guard-'));
  unixPath = join(unixDir, '.s.PGSQL.5432');
  unixServer = createServer((socket) => {
    unixConnections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => unixServer.listen(unixPath, () => resolve()));
});

afterAll(async () => {
  await strict.close();
  await open.close();
  await Promise.all([closeServer(upstream), closeServer(trap), closeServer(wire), closeServer(unixServer)]);
  await rm(unixDir, { recursive: true, force: true });
});

describe('NetworkGuard.resolve', () => {
  it('reach:guard-resolve — literals, names and names with any denied address are decided before dialling', async () => {
    await expect(strict.resolve('127.0.0.1')).rejects.toMatchObject({
      reason: 'loopback',
      target: '127.0.0.1',
    });
    await expect(strict.resolve('[::1]')).rejects.toMatchObject({ reason: 'loopback' });
    await expect(strict.resolve('::ffff:7f00:1')).rejects.toMatchObject({ reason: 'loopback' });
    await expect(strict.resolve('169.254.169.254')).rejects.toMatchObject({ reason: 'link-local' });
    await expect(strict.resolve('[fe80::1%eth0]')).rejects.toMatchObject({ reason: 'link-local' });
    await expect(strict.resolve('rebind.test')).rejects.toMatchObject({
      reason: 'loopback',
      target: 'rebind.test',
    });
    await expect(strict.resolve('metadata.test')).rejects.toMatchObject({ reason: 'link-local' });
    // Any denied address among the answers refuses the name, wherever it sits in the list.
    await expect(strict.resolve('mixed.test')).rejects.toBeInstanceOf(ReachDeniedError);
    await expect(strict.resolve('mixed-reversed.test')).rejects.toBeInstanceOf(ReachDeniedError);
    expect(await strict.resolve('public.test')).toEqual({ address: '203.0.113.5', family: 4 });
    expect(await strict.resolve('public-v6.test')).toEqual({ address: '2001:db8::5', family: 6 });
    expect(await strict.resolve('203.0.113.9')).toEqual({ address: '203.0.113.9', family: 4 });
    expect(await strict.resolve('[2001:db8::9]')).toEqual({ address: '2001:db8::9', family: 6 });
    await expect(strict.resolve('nowhere.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('refuses localhost by name without asking the resolver', async () => {
    lookups.length = 0;
    await expect(strict.resolve('localhost')).rejects.toMatchObject({ reason: 'loopback' });
    await expect(strict.resolve('api.localhost')).rejects.toMatchObject({ reason: 'loopback' });
    expect(lookups).toEqual([]);
  });

  it('refuses with an error that names what the tenant wrote and the reason, never the resolved address', async () => {
    const error = await failure(strict.resolve('rebind.test'));
    expect(error).toBeInstanceOf(ReachDeniedError);
    expect(error).toMatchObject({ code: 'EREACHDENIED', name: 'ReachDeniedError', target: 'rebind.test' });
    expect((error as Error).message).toContain('rebind.test');
    expect((error as Error).message).toContain('loopback');
    expect((error as Error).message).not.toContain('127.0.0.1');
  });

  it('admits the resolved address when an admin CIDR exception names it; the exception opens nothing else', async () => {
    expect(await open.resolve('127.0.0.1')).toEqual({ address: '127.0.0.1', family: 4 });
    expect(await open.resolve('made-up.test')).toEqual({ address: '127.0.0.1', family: 4 });
    expect(await open.resolve('made-up-v6.test')).toEqual({ address: '::ffff:127.0.0.1', family: 6 });
    await expect(open.resolve('trap.test')).rejects.toMatchObject({ reason: 'loopback' });
    await expect(open.resolve('127.0.0.2')).rejects.toMatchObject({ reason: 'loopback' });
    await expect(open.resolve('[::1]')).rejects.toMatchObject({ reason: 'loopback' });
    // localhost is no longer refused by name, but the ::1 it also resolves to still is.
    lookups.length = 0;
    await expect(open.resolve('localhost')).rejects.toMatchObject({ reason: 'loopback' });
    expect(lookups).toEqual(['localhost']);
  });
});

describe('NetworkGuard.fetch', () => {
  it('reach:guard-fetch — fetch dials the checked address with the original Host; a redirect to a denied name is refused and nothing connects', async () => {
    const ok = await open.fetch()(`http://made-up.test:${upstreamPort}/items`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true });
    expect(seen.at(-1)).toEqual({
      host: `made-up.test:${upstreamPort}`,
      localAddress: '127.0.0.1',
      url: '/items',
    });
    // A redirect on the same origin is followed.
    const same = await open.fetch()(`http://made-up.test:${upstreamPort}/to-self`);
    expect(await same.json()).toEqual({ ok: true });
    for (const path of ['/to-trap', '/to-trap-literal', '/to-localhost']) {
      const error = await failure(open.fetch()(`http://made-up.test:${upstreamPort}${path}`));
      expect(findReachDenied(error)?.reason, path).toBe('loopback');
    }
    expect(seen.map((s) => s.url)).toContain('/to-trap');
    await settle();
    expect(trapConnections).toBe(0);
  });

  it('refuses denied literals and names before connecting, in any spelling', async () => {
    for (const url of [
      `http://127.0.0.2:${trapPort}/`,
      `http://trap.test:${trapPort}/`,
      `http://[::ffff:127.0.0.2]:${trapPort}/`,
      `http://0x7f.0.0.2:${trapPort}/`,
      `http://2130706434:${trapPort}/`,
    ]) {
      const error = await failure(open.fetch()(url));
      expect(findReachDenied(error)?.reason, url).toBe('loopback');
    }
    const direct = await failure(strict.fetch()(`http://127.0.0.1:${upstreamPort}/`));
    expect(findReachDenied(direct)?.target).toBe('127.0.0.1');
    await settle();
    expect(trapConnections).toBe(0);
  });

  it('findReachDenied finds the refusal in a cause chain and an AggregateError, and nothing in other errors', () => {
    const denied = new ReachDeniedError('loopback', 'x.test');
    expect(findReachDenied(denied)).toBe(denied);
    expect(findReachDenied(new Error('outer', { cause: new Error('mid', { cause: denied }) }))).toBe(denied);
    expect(findReachDenied(new AggregateError([new Error('a'), denied]))).toBe(denied);
    expect(findReachDenied(new Error('plain'))).toBeUndefined();
    expect(findReachDenied(undefined)).toBeUndefined();
    expect(findReachDenied('text')).toBeUndefined();
  });
});

describe('NetworkGuard.agent', () => {
  it('reach:guard-agent — an undici pool built by the guard refuses a denied literal and serves an allowed name', async () => {
    const agent = open.agent({ headersTimeout: 5000 });
    const refused = await failure(request(`http://127.0.0.2:${trapPort}/`, { dispatcher: agent }));
    expect(findReachDenied(refused)?.reason).toBe('loopback');
    const byName = await failure(request(`http://trap.test:${trapPort}/`, { dispatcher: agent }));
    expect(findReachDenied(byName)?.reason).toBe('loopback');
    const served = await request(`http://made-up.test:${upstreamPort}/agent`, { dispatcher: agent });
    expect(served.statusCode).toBe(200);
    expect(await served.body.json()).toEqual({ ok: true });
    expect(seen.at(-1)).toMatchObject({ host: `made-up.test:${upstreamPort}`, localAddress: '127.0.0.1' });
    await agent.close();
    await settle();
    expect(trapConnections).toBe(0);
  });
});

describe('NetworkGuard.socket', () => {
  it('refuses a Unix socket path, and a denied name under its label, before connecting', async () => {
    const unix = open.socket();
    const unixRefusal = socketError(unix);
    unix.connect(unixPath);
    expect(await unixRefusal).toMatchObject({ reason: 'unix-socket', target: 'the database host' });
    const named = strict.socket('data source docs');
    const namedRefusal = socketError(named);
    named.connect(wirePort, 'rebind.test');
    const error = await namedRefusal;
    expect(error).toBeInstanceOf(ReachDeniedError);
    expect(error).toMatchObject({ reason: 'loopback', target: 'data source docs' });
    expect(error.message).not.toContain('rebind.test');
    expect(error.message).not.toContain('127.0.0.1');
    // No host at all means localhost, which is loopback.
    const local = strict.socket();
    const localRefusal = socketError(local);
    local.connect(wirePort);
    expect(await localRefusal).toMatchObject({ reason: 'loopback' });
    await settle();
    expect(unixConnections).toBe(0);
    expect(wireConnections).toBe(0);
    // The Unix server is really there: a direct connection reaches it.
    await new Promise<void>((resolve, reject) =>
      createConnection(unixPath).once('connect', resolve).once('error', reject),
    );
    await settle();
    expect(unixConnections).toBe(1);
  });

  it('connects an allowed literal or name to the resolved address', async () => {
    const before = wireConnections;
    for (const host of ['127.0.0.1', 'made-up.test']) {
      const socket = open.socket();
      const greeting = new Promise<string>((resolve, reject) => {
        socket.once('data', (chunk: Buffer) => resolve(chunk.toString()));
        socket.once('error', reject);
      });
      socket.connect(wirePort, host);
      expect(await greeting, host).toBe('hello');
      expect(socket.remoteAddress).toBe('127.0.0.1');
      socket.destroy();
    }
    expect(wireConnections).toBe(before + 2);
  });

  it('a socket destroyed while its name is being looked up (pg connection timeout) never connects', async () => {
    let answer: (addresses: { address: string; family: number }[]) => void = () => undefined;
    const slow = new NetworkGuard(
      policyOf({ network: { allow: { cidrs: ['127.0.0.1/32'] } } }),
      scope,
      () => new Promise((resolve) => (answer = resolve)),
    );
    const before = wireConnections;
    const socket = slow.socket();
    socket.on('error', () => undefined);
    socket.connect(wirePort, 'slow.test');
    socket.destroy();
    answer([{ address: '127.0.0.1', family: 4 }]);
    await settle();
    await settle();
    expect(wireConnections).toBe(before);
    expect(socket.destroyed).toBe(true);
  });

  it('reach:guard-postgres — node-postgres through the guard refuses a denied host and a Unix socket path before connecting', async () => {
    const unixBefore = unixConnections;
    const denied = new pg.Client({
      host: 'denied.example',
      port: trapPort,
      user: 'u',
      database: 'd',
      stream: () => open.socket(),
      connectionTimeoutMillis: 2000,
    });
    const refused = await failure(denied.connect());
    expect(findReachDenied(refused)).toBeInstanceOf(ReachDeniedError);
    expect(findReachDenied(refused)?.reason).toBe('loopback');
    expect((refused as Error).message).not.toContain('denied.example');
    const literal = new pg.Client({
      host: '169.254.169.254',
      port: 5432,
      stream: () => open.socket(),
      connectionTimeoutMillis: 2000,
    });
    expect(findReachDenied(await failure(literal.connect()))?.reason).toBe('link-local');
    const unix = new pg.Client({
      host: unixDir,
      port: 5432,
      stream: () => open.socket(),
      connectionTimeoutMillis: 2000,
    });
    expect(findReachDenied(await failure(unix.connect()))?.reason).toBe('unix-socket');
    await settle();
    expect(trapConnections).toBe(0);
    expect(unixConnections).toBe(unixBefore);
  });
});
