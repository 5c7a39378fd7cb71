// What may enter a WWW-Authenticate header (issue 37, item 6): only RFC 6749 §3.3 scope tokens
// (%x21 / %x23-5B / %x5D-7E) as scopes, only RFC 6750 §3 characters in quoted values; the config
// refuses a scope condition outside that charset, naming its path. A scope with NUL, CR/LF or
// U+2028 once made the step-up challenge throw ERR_INVALID_CHAR in setHeader (a 500 with no
// request id); `é` came out as mojibake.
import { validateHeaderValue } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { insufficientScopeChallenge, unauthorizedChallenge } from '../../../gateway/auth/bearer-challenge.js';
import { parseConfigText, type GatewayConfig } from '../../../gateway/config/index.js';

const ISSUER = 'https://idp.example';

function configWith(rules: unknown[], oauth: Record<string, unknown> = {}) {
  return parseConfigText(
    JSON.stringify({
      version: 1,
      server: { publicUrl: 'https://gateway.example' },
      oauth: { scopesSupported: ['mcp:read', 'mcp:write'], ...oauth },
      workspaces: [{ name: 'a', identity: { issuers: [{ issuer: ISSUER }], rules } }],
    }),
  );
}

function validConfig(): GatewayConfig {
  const parsed = configWith([{ name: 'anyone', issuer: ISSUER }]);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config;
}

/** Node's own check, plus nothing outside printable ASCII (a byte above 0x7E is read as Latin-1
 * by some clients and UTF-8 by others: the mojibake). */
function expectValidHeader(value: string): void {
  expect(() => validateHeaderValue('www-authenticate', value)).not.toThrow();
  expect(value).toMatch(/^[\x20-\x7E]*$/);
}

describe('the config refuses scopes that cannot go into a header', () => {
  it('oauth:scope-charset-config — a scope condition with NUL, CR/LF, U+2028, é, a space, " or \\ is refused naming its path', () => {
    for (const bad of [
      'mcp:write\u0000',
      'mcp:\r\nwrite',
      'mcp:write\u2028',
      'café',
      'mcp write',
      'a"b',
      'a\\b',
    ])
      for (const claim of ['scope', 'scp']) {
        const parsed = configWith([
          { name: 'writers', issuer: ISSUER, when: [{ claim, contains: bad }], access: 'write' },
        ]);
        expect(parsed.ok, JSON.stringify(bad)).toBe(false);
        if (!parsed.ok)
          expect(parsed.problems.map((p) => p.path)).toContain(
            'workspaces[0].identity.rules[0].when[0].contains',
          );
      }
    // Other claims keep any value (group names, e-mail addresses).
    const groups = configWith([
      { name: 'g', issuer: ISSUER, when: [{ claim: 'groups', contains: 'Zahlungsverkehr – café' }] },
    ]);
    expect(groups.ok).toBe(true);
  });

  it('oauth:scope-charset-config — scopesSupported and challengeScopes keep refusing such scopes', () => {
    for (const field of ['scopesSupported', 'challengeScopes']) {
      const parsed = configWith([{ name: 'anyone', issuer: ISSUER }], { [field]: ['mcp:read', 'x\u2028y'] });
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.problems.map((p) => p.path)).toContain(`oauth.${field}[1]`);
    }
  });
});

describe('the challenge builder', () => {
  it('oauth:challenge-header-valid — for any scopes and descriptions the challenges are valid header values (fast-check)', () => {
    const config = validConfig();
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string());
    fc.assert(
      fc.property(
        fc.array(text, { maxLength: 8 }),
        text,
        fc.constantFrom('mcp', 'rest'),
        (scopes, description, face) => {
          expectValidHeader(insufficientScopeChallenge(config, scopes, face));
          expectValidHeader(unauthorizedChallenge(config, face, { description }) ?? '');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('oauth:challenge-header-valid — scope tokens outside the charset are left out, the rest kept in order', () => {
    const header = insufficientScopeChallenge(
      validConfig(),
      ['mcp:read', 'a\u0000b', 'caf\u00e9', 'x\r\ny', 'p\u2028q', 'mcp:write', 'mcp:read'],
      'mcp',
    );
    expectValidHeader(header);
    expect(header).toContain('scope="mcp:read mcp:write"');
  });
});
