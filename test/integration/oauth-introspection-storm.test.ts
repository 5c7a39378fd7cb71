// The introspection storm (issue 37, item 4): random opaque bearer tokens, with no other credential,
// once made the gateway call the authorization server's introspection endpoint once each with its
// own client credentials (3,000 tokens, 3,000 calls). Now only a token of the shape an issuer's
// declaration gives is sent, at most `introspectionMaxPerSecond` new calls per issuer (and
// `introspectionMaxConcurrent` at once; the excess is 503 identity_provider_unavailable with
// Retry-After), and an inactive answer is kept by the token's digest, apart from active answers, so
// a repeat costs nothing and a storm cannot push a signed-in caller's answer out. Counted at a real
// introspection endpoint (oidc-provider's), never timed.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../infra/free-port.js';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { get, startHarness, type Harness } from '../support/gateway-harness.js';
import { findLeaks } from '../support/leak-scan.js';
import {
  clientCredentialsToken,
  introspectingWorkspace,
  introspectionClient,
  machineClient,
} from '../support/oauth-clients.js';

const INTROSPECTION_SECRET = 'storm-introspection-secret-0123456789';
const PER_SECOND = 20;
const CONCURRENT = 4;
let as: AuthServer;
let h: Harness;
let gatewayUrl: string;
let resource: string;
let legit = '';
const presented: string[] = [];

function introspections(): number {
  return as.requests.get('/token/introspection') ?? 0;
}

/** A random token of exactly oidc-provider's opaque shape (43 base64url characters). */
function randomOpaque(): string {
  const token = randomBytes(32).toString('base64url');
  presented.push(token);
  return token;
}

/** Sends every token to /agent/tools, `concurrency` at a time; returns the statuses in order. */
async function storm(tokens: readonly string[], concurrency: number): Promise<number[]> {
  const statuses: number[] = new Array<number>(tokens.length);
  let next = 0;
  const worker = async () => {
    while (next < tokens.length) {
      const index = next;
      next += 1;
      const response = await get(`${gatewayUrl}/agent/tools`, tokens[index]);
      await response.arrayBuffer();
      statuses[index] = response.status;
      if (response.status === 503) expect(response.headers.get('retry-after')).toBeTruthy();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}

beforeAll(async () => {
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  resource = `${gatewayUrl}/mcp`;
  as = await startAuthServer({
    resources: { [resource]: { scope: 'mcp:read', format: 'opaque' } },
    clients: [machineClient('opaque'), introspectionClient('gateway', INTROSPECTION_SECRET)],
  });
  h = await startHarness(
    {
      server: { host: '127.0.0.1', port, publicUrl: gatewayUrl },
      oauth: {
        // The shared resource admits tokens for the default workspace only (D24).
        defaultWorkspace: 'machines',
        introspectionMaxPerSecond: PER_SECOND,
        introspectionMaxConcurrent: CONCURRENT,
        // Long enough that the signed-in caller's answer outlives the storm on a loaded machine,
        // small enough that one shared LRU would lose it to the storm's inactive answers.
        introspectionCacheTtlMs: 300_000,
        introspectionCacheEntries: 1000,
      },
      workspaces: [
        introspectingWorkspace('machines', as.issuer, 'any', { tokenLength: { min: 43, max: 43 } }),
      ],
    },
    { AGW_INTROSPECTION_SECRET: INTROSPECTION_SECRET },
  );
  legit = await clientCredentialsToken(as.issuer, { clientId: 'opaque', resource });
  presented.push(legit);
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await as?.stop();
});

describe('an introspection storm', () => {
  it('oauth:introspection-storm — 3,000 random opaque tokens cost at most the per-second budget in calls; a signed-in caller is unaffected', async () => {
    expect(legit).toHaveLength(43);
    expect((await get(`${gatewayUrl}/agent/tools`, legit)).status).toBe(200);
    const before = introspections();
    const tokens = Array.from({ length: 3000 }, randomOpaque);
    const started = performance.now();
    const statuses = await storm(tokens, 64);
    const seconds = (performance.now() - started) / 1000;
    const calls = introspections() - before;
    // A token bucket of PER_SECOND, full at the start: never more calls than this.
    expect(calls).toBeLessThanOrEqual(PER_SECOND + Math.ceil(PER_SECOND * seconds));
    expect(calls).toBeLessThan(3000);
    expect(new Set(statuses)).toEqual(new Set([401, 503]));
    expect(statuses.filter((status) => status === 401).length).toBe(calls);
    // The signed-in caller's answer is still cached: no call, still 200.
    const legitBefore = introspections();
    expect((await get(`${gatewayUrl}/agent/tools`, legit)).status).toBe(200);
    expect(introspections()).toBe(legitBefore);
    // Every token the endpoint called inactive is refused again from the negative cache.
    const refused = tokens.filter((_, index) => statuses[index] === 401);
    const repeatBefore = introspections();
    expect(new Set(await storm(refused, 16))).toEqual(new Set([401]));
    expect(introspections()).toBe(repeatBefore);
  }, 240_000);

  it('oauth:introspection-shape — tokens no declaration could have issued are never sent', async () => {
    const before = introspections();
    const shapes = [
      ...Array.from({ length: 200 }, () => randomBytes(16).toString('base64url')), // 22 characters
      ...Array.from({ length: 200 }, () => randomBytes(48).toString('base64url')), // 64 characters
      ...Array.from({ length: 100 }, () => `${randomBytes(31).toString('base64url')}!@#$%^&*()`.slice(0, 43)),
    ];
    presented.push(...shapes);
    const statuses = await storm(shapes, 32);
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(introspections()).toBe(before);
  }, 120_000);

  it('oauth:introspection-storm-no-leak — no presented token and not the introspection secret reaches the log', () => {
    const needles = [legit, ...presented.slice(-50)].map((value, i) => ({
      label: `token ${i}`,
      value,
      windows: false,
    }));
    needles.push({ label: 'introspection secret', value: INTROSPECTION_SECRET, windows: false });
    expect(findLeaks(h.logs, needles)).toEqual([]);
  });
});
