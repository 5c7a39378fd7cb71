// Another tenant's slow key server (issue 37 item 3; D24), measured: workspaces `a` and `evil` both
// declare issuer A's URL; evil's declaration points at a JWKS that answers after 4.5 s. One gateway
// (a child process, as in production) serves both; ten fresh tokens of A's user, one after the
// other, each presented once, and the latency of each first request is taken, with how often
// evil's key server was asked. `AGW_SLOW_KEYS_SHAPE` picks how the token reaches `a`: `workspace`
// (aud = <base>/w/a/mcp, POST /w/a/mcp), `default` (aud = the shared resource, POST /mcp, with
// oauth.defaultWorkspace: a) or `shared` (aud = the shared resource, POST /mcp, no default: the
// shape before D24, for a build of the code before it). Prints numbers and conditions; never asserts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startBenchGateway } from './bench-gateway.js';

const EVIL_DELAY_MS = 4500;
const TOKENS = 10;

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

export async function slowKeysBench(): Promise<void> {
  const shape = process.env['AGW_SLOW_KEYS_SHAPE'] ?? 'workspace';
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'a-key', alg: 'ES256', use: 'sig' };
  let issuer = '';
  const issuerServer = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const json = (value: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (path === '/jwks') return json({ keys: [jwk] });
    if (path.startsWith('/.well-known/')) return json({ issuer, jwks_uri: `${issuer}/jwks` });
    res.writeHead(404).end();
  });
  issuer = await listen(issuerServer);
  const evilKeys = (await generateKeyPair('ES256')).publicKey;
  const evilJwk = { ...(await exportJWK(evilKeys)), kid: 'evil-key', alg: 'ES256', use: 'sig' };
  let evilRequests = 0;
  const evilServer = createServer((_req, res) => {
    evilRequests += 1;
    setTimeout(
      () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [evilJwk] })),
      EVIL_DELAY_MS,
    );
  });
  const evilUrl = await listen(evilServer);

  const dir = await mkdtemp(join(tmpdir(), 'agw-bench-slow-keys-'));
  // The gateway's port is only known once it listens; the resource is a name in `aud`, not dialled.
  const publicUrl = 'http://127.0.0.1:8080';
  const catchAll = [{ name: 'everyone', issuer, access: 'read' }];
  const gateway = await startBenchGateway(dir, 'slow-keys', {
    version: 1,
    server: { host: '127.0.0.1', port: 0, publicUrl },
    oauth: shape === 'default' ? { defaultWorkspace: 'a' } : {},
    workspaces: [
      { name: 'a', identity: { issuers: [{ issuer }], rules: catchAll } },
      { name: 'evil', identity: { issuers: [{ issuer, jwksUri: `${evilUrl}/jwks` }], rules: catchAll } },
    ],
  });
  const audience = shape === 'workspace' ? `${publicUrl}/w/a/mcp` : `${publicUrl}/mcp`;
  const endpoint = shape === 'workspace' ? `${gateway.url}/w/a/mcp` : `${gateway.url}/mcp`;
  const latencies: number[] = [];
  const statuses: number[] = [];
  try {
    for (let i = 0; i < TOKENS; i += 1) {
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({ scope: 'mcp:read' })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'a-key' })
        .setIssuer(issuer)
        .setSubject(`alice-${i}`)
        .setAudience(audience)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(privateKey);
      const started = performance.now();
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/list',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/list',
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      });
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      statuses.push(response.status);
    }
  } finally {
    await gateway.stop();
    await close(issuerServer);
    await close(evilServer);
  }
  const sorted = [...latencies].sort((x, y) => x - y);
  const ms = (value: number | undefined) => `${(value ?? 0).toFixed(1)} ms`;
  console.log(`\n== slow key server of another workspace (issue 37.3), shape ${shape} ==`);
  console.log(
    `conditions: ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(
        '/',
      )}; evil's JWKS answers after ${EVIL_DELAY_MS} ms; ${TOKENS} fresh tokens of issuer A, sequential, first request each (tools/list, no sources)`,
  );
  console.log(`statuses: ${statuses.join(' ')}`);
  console.log(
    `first request: ${ms(latencies[0])}; median ${ms(sorted[Math.floor(TOKENS / 2)])}; max ${ms(sorted.at(-1))}; all: ${latencies.map((l) => l.toFixed(0)).join(' ')} ms`,
  );
  console.log(`evil's key server asked: ${evilRequests} time(s)`);
}
