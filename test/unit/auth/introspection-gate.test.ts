// The per-issuer introspection budget (issue 37, item 4) and which opaque tokens may be sent at all.
import { describe, expect, it } from 'vitest';
import { IntrospectionGate } from '../../../gateway/auth/introspection-gate.js';
import { fitsIntrospection } from '../../../gateway/auth/opaque-token-shape.js';
import type { IssuerConfig } from '../../../gateway/config/oauth-schema.js';

type Introspection = NonNullable<IssuerConfig['introspection']>;
const declaration = (extra: Partial<Introspection> = {}): Introspection => ({
  clientId: 'gateway',
  clientSecret: { env: 'S' },
  authMethod: 'client_secret_basic',
  ...extra,
});

describe('IntrospectionGate', () => {
  it('oauth:introspection-gate — at most maxConcurrent calls in flight per issuer; a release frees one', () => {
    const gate = new IntrospectionGate();
    const limits = { perSecond: 1000, maxConcurrent: 3 };
    const held = [1, 2, 3].map(() => gate.tryEnter('https://a.example', 0, limits));
    expect(held.every((release) => release !== undefined)).toBe(true);
    expect(gate.tryEnter('https://a.example', 0, limits)).toBeUndefined();
    // Another issuer has its own budget.
    expect(gate.tryEnter('https://b.example', 0, limits)).toBeDefined();
    held[0]?.();
    held[0]?.(); // a second release of the same call frees nothing more
    expect(gate.inFlight('https://a.example')).toBe(2);
    expect(gate.tryEnter('https://a.example', 0, limits)).toBeDefined();
    expect(gate.tryEnter('https://a.example', 0, limits)).toBeUndefined();
  });

  it('oauth:introspection-gate — at most perSecond new calls a second, a second’s worth at once', () => {
    const gate = new IntrospectionGate();
    const limits = { perSecond: 10, maxConcurrent: 1000 };
    let admitted = 0;
    // 10 seconds, 100 attempts a second: 10 at first, then 10 a second.
    for (let ms = 0; ms < 10_000; ms += 10) if (gate.tryEnter('https://a.example', ms, limits)) admitted += 1;
    expect(admitted).toBeGreaterThanOrEqual(100);
    expect(admitted).toBeLessThanOrEqual(10 + 100);
    // Idle for a minute: still only a second's worth at once.
    let burst = 0;
    for (let i = 0; i < 50; i += 1) if (gate.tryEnter('https://a.example', 70_000, limits)) burst += 1;
    expect(burst).toBe(10);
  });
});

describe('fitsIntrospection', () => {
  it('oauth:introspection-shape-rule — an RFC 6750 b64token of the declared length and prefix, at least 16 characters by default', () => {
    const oidcProvider = 'A'.repeat(43);
    expect(fitsIntrospection(oidcProvider, declaration())).toBe(true);
    expect(fitsIntrospection('A'.repeat(15), declaration())).toBe(false);
    expect(fitsIntrospection(`${'A'.repeat(20)}!`, declaration())).toBe(false);
    expect(fitsIntrospection(`${'A'.repeat(20)} x`, declaration())).toBe(false);
    expect(fitsIntrospection(`${'a-._~+/9'.repeat(3)}==`, declaration())).toBe(true);
    const exact = declaration({ tokenLength: { min: 43, max: 43 } });
    expect(fitsIntrospection(oidcProvider, exact)).toBe(true);
    expect(fitsIntrospection('A'.repeat(44), exact)).toBe(false);
    const hydra = declaration({ tokenPrefix: 'ory_at_' });
    expect(fitsIntrospection(`ory_at_${'x'.repeat(43)}.${'y'.repeat(43)}`, hydra)).toBe(true);
    expect(fitsIntrospection('x'.repeat(60), hydra)).toBe(false);
  });
});
