// The scope of the 401 challenge when `oauth.challengeScopes` is not set (issue 37, item 9): the
// advertised scopes no write rule alone needs, among the rules of the workspace the challenged
// resource admits to (D24: another tenant's rules never change it).
import { describe, expect, it } from 'vitest';
import { firstChallengeScopes } from '../../../gateway/auth/challenge-scopes.js';
import { parseConfigText, type GatewayConfig } from '../../../gateway/config/index.js';

const ISSUER = 'https://idp.example';

function config(oauth: Record<string, unknown>, ...workspaces: Record<string, unknown>[][]): GatewayConfig {
  const parsed = parseConfigText(
    JSON.stringify({
      version: 1,
      server: { publicUrl: 'https://gateway.example' },
      oauth,
      workspaces: workspaces.map((rules, i) => ({
        name: `w${i}`,
        identity: { issuers: [{ issuer: ISSUER }], rules: rules.map((r) => ({ issuer: ISSUER, ...r })) },
      })),
    }),
  );
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config;
}

const scope = (contains: string, claim = 'scope') => ({ claim, contains });
/** The scopes challenged for workspace `index`'s resource. */
const first = (config: GatewayConfig, index = 0) => firstChallengeScopes(config, config.workspaces[index]);
const SUPPORTED = { scopesSupported: ['mcp:read', 'mcp:write'] };

describe('firstChallengeScopes', () => {
  it('oauth:least-scope-rule — examples/oidc.yaml: mcp:read (mcp:write only makes writers)', () => {
    const rules = [
      { name: 'writers', when: [scope('mcp:write')], access: 'write' },
      { name: 'everyone', access: 'read' },
    ];
    expect(first(config(SUPPORTED, rules))).toEqual(['mcp:read']);
  });

  it('oauth:least-scope-rule — an explicit challengeScopes wins, [] included', () => {
    const rules = [{ name: 'writers', when: [scope('mcp:write')], access: 'write' }];
    expect(first(config({ ...SUPPORTED, challengeScopes: [] }, rules))).toEqual([]);
    expect(first(config({ ...SUPPORTED, challengeScopes: ['mcp:write'] }, rules))).toEqual(['mcp:write']);
  });

  it('oauth:least-scope-rule — edge cases: shared scopes kept, scp counts, only the resource workspace counts, all-write names none', () => {
    // A scope a read rule needs too stays (mcp:read gates both rules here).
    const both = [
      { name: 'writers', when: [scope('mcp:read'), scope('mcp:write', 'scp')], access: 'write' },
      { name: 'readers', when: [scope('mcp:read')] },
    ];
    expect(first(config(SUPPORTED, both))).toEqual(['mcp:read']);
    // Another workspace reads with mcp:write: its own resource's challenge names it, this one's not.
    const other = [{ name: 'odd', when: [scope('mcp:write')], access: 'read' }];
    const two = config(SUPPORTED, both, other);
    expect(first(two, 0)).toEqual(['mcp:read']);
    expect(first(two, 1)).toEqual(['mcp:read', 'mcp:write']);
    // A resource with no workspace (shared, no default) has no rules: every advertised scope.
    expect(firstChallengeScopes(two, undefined)).toEqual(['mcp:read', 'mcp:write']);
    // Every advertised scope only makes writers: none is named.
    const onlyWrite = [{ name: 'w', when: [scope('mcp:read'), scope('mcp:write')], access: 'write' }];
    expect(first(config(SUPPORTED, onlyWrite))).toEqual([]);
    // Equality conditions and other claims are not scopes; advertised scopes no rule names stay.
    const groups = [
      { name: 'w', when: [{ claim: 'groups', contains: 'mcp:write' }], access: 'write' },
      { name: 'e', when: [{ claim: 'scope', equals: 'mcp:write' }], access: 'write' },
    ];
    expect(first(config({ scopesSupported: ['openid', 'mcp:read', 'mcp:write'] }, groups))).toEqual([
      'openid',
      'mcp:read',
      'mcp:write',
    ]);
    expect(first(config({}, both))).toEqual([]);
  });
});
