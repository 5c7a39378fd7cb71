// What a 401 challenge asks a client to sign in with (issue 37, least privilege): `oauth.challengeScopes`
// when the admin set it, else the advertised scopes (`scopesSupported`) minus those only write
// rules ask for. An MCP client asks for the challenge's scope, or for every advertised scope when
// the challenge names none, so without this every first sign-in asked for (and often got) write;
// now a read sign-in comes first and a write call gets the 403 step-up for the rest.
import type { GatewayConfig } from '../config/index.js';

type Rule = NonNullable<GatewayConfig['workspaces'][number]['identity']>['rules'][number];

const derived = new WeakMap<GatewayConfig, readonly string[]>();

/** The scopes a rule's conditions ask for (`scope`/`scp` contains). */
function scopesOfRule(rule: Rule): string[] {
  return rule.when.flatMap((condition) =>
    (condition.claim === 'scope' || condition.claim === 'scp') && 'contains' in condition
      ? [condition.contains]
      : [],
  );
}

/** The scope of every 401 challenge: configured, or derived once per config version. Edge cases:
 * a scope a read rule also needs is kept (leaving it out would make that rule unreachable at the
 * first sign-in); rules of every workspace count, since the challenge is the gateway's; when every
 * advertised scope is a write scope, none is named (clients then ask for all of them). */
export function firstChallengeScopes(config: GatewayConfig): readonly string[] {
  const oauth = config.oauth;
  if (oauth === undefined) return [];
  if (oauth.challengeScopes !== undefined) return oauth.challengeScopes;
  let scopes = derived.get(config);
  if (scopes === undefined) {
    const rules = config.workspaces.flatMap((workspace) => workspace.identity?.rules ?? []);
    const readScopes = new Set(rules.filter((rule) => rule.access !== 'write').flatMap(scopesOfRule));
    const writeOnly = new Set(
      rules
        .filter((rule) => rule.access === 'write')
        .flatMap(scopesOfRule)
        .filter((scope) => !readScopes.has(scope)),
    );
    scopes = oauth.scopesSupported.filter((scope) => !writeOnly.has(scope));
    derived.set(config, scopes);
  }
  return scopes;
}
