// How long an RFC 7662 introspection answer is trusted (issue 29, docs/security.md): the config's
// `oauth.introspectionCacheTtlMs` (default 30 s, 0 to 300 s), read at each lookup, so lowering it
// by a reload (to 0 during an incident) applies to answers already cached. A real introspection
// endpoint on loopback answers active until the token is revoked there.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntrospectionCache, Introspector } from '../../../gateway/auth/introspection.js';
import { IntrospectionGate } from '../../../gateway/auth/introspection-gate.js';
import { OAUTH_DEFAULTS } from '../../../gateway/config/oauth-schema.js';
import { parseConfigText } from '../../../gateway/config/index.js';
import type { IssuerConfig } from '../../../gateway/config/oauth-schema.js';

const RESOURCE = 'https://gateway.example/mcp';
const ISSUER = 'https://idp.example';
let server: Server;
let endpoint = '';
let revoked = false;
let calls = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    calls += 1;
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify(
        revoked
          ? { active: false }
          : { active: true, iss: ISSUER, aud: RESOURCE, sub: 'machine', exp: 1_000_086_400 },
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}/introspect`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function introspector(): Introspector {
  const issuer = {
    issuer: ISSUER,
    clockSkewSeconds: 60,
    introspection: { clientId: 'gateway', clientSecret: { env: 'S' }, authMethod: 'client_secret_basic' },
  } as unknown as IssuerConfig;
  return new Introspector('group', {
    issuer,
    endpoint: () => Promise.resolve(endpoint),
    bounds: { fetch, timeoutMs: 2000, maxBytes: 65_536 },
    secrets: { readEnv: () => 'gateway-secret', readFile: () => '' },
    cache: new IntrospectionCache(100),
    refused: new IntrospectionCache(100),
    gate: new IntrospectionGate(),
  });
}

describe('the introspection cache lifetime', () => {
  it('oauth:introspection-ttl-config — default 30 s; 0 to 300 s accepted; outside refused naming the field', () => {
    const oauthOf = (extra: Record<string, unknown>) =>
      parseConfigText(
        JSON.stringify({ version: 1, server: { publicUrl: 'https://gateway.example' }, oauth: extra }),
      );
    const parsed = oauthOf({});
    expect(parsed.ok && parsed.config.oauth?.introspectionCacheTtlMs).toBe(30_000);
    expect(OAUTH_DEFAULTS.introspectionCacheTtlMs).toBe(30_000);
    for (const ok of [0, 1000, 300_000]) {
      const result = oauthOf({ introspectionCacheTtlMs: ok });
      expect(result.ok && result.config.oauth?.introspectionCacheTtlMs).toBe(ok);
    }
    for (const bad of [-1, 300_001, 1.5, '30s']) {
      const result = oauthOf({ introspectionCacheTtlMs: bad });
      expect(result.ok).toBe(false);
      if (!result.ok)
        expect(result.problems.map((problem) => problem.path)).toContain('oauth.introspectionCacheTtlMs');
    }
  });

  it('oauth:introspection-ttl — a revoked token is accepted only while its answer is younger than the TTL; lowering the TTL applies to cached answers', async () => {
    const checker = introspector();
    const at = (ms: number) => new Date(1_000_000_000_000 + ms);
    revoked = false;
    calls = 0;
    expect((await checker.introspect('opaque-1', RESOURCE, at(0), 30_000)).ok).toBe(true);
    revoked = true;
    // Within the TTL the cached answer stands (the documented trade-off)…
    expect((await checker.introspect('opaque-1', RESOURCE, at(29_000), 30_000)).ok).toBe(true);
    expect(calls).toBe(1);
    // …past it the endpoint is asked again and the revocation seen.
    expect(await checker.introspect('opaque-1', RESOURCE, at(30_000), 30_000)).toEqual({
      ok: false,
      reason: 'inactive',
    });
    expect(calls).toBe(2);

    // A shorter TTL (a reload) applies to an answer cached under the longer one.
    revoked = false;
    expect((await checker.introspect('opaque-2', RESOURCE, at(0), 300_000)).ok).toBe(true);
    revoked = true;
    expect((await checker.introspect('opaque-2', RESOURCE, at(5_000), 300_000)).ok).toBe(true);
    expect((await checker.introspect('opaque-2', RESOURCE, at(5_000), 5_000)).ok).toBe(false);
    // TTL 0: every request asks.
    revoked = false;
    const before = calls;
    for (let i = 0; i < 3; i += 1)
      expect((await checker.introspect('opaque-3', RESOURCE, at(10_000), 0)).ok).toBe(true);
    expect(calls - before).toBe(3);
  });
});
