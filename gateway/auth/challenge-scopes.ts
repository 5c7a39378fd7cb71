// What a 401 challenge asks a client to sign in with (issue 37, least privilege): `oauth.challengeScopes`
// when the admin set it, else the advertised scopes (`scopesSupported`) minus those only write
// rules ask for. An MCP client asks for the challenge's scope, or for every advertised scope when
// the challenge names none, so without this every first sign-in asked for (and often got) write;
// now a read sign-in comes first and a write call gets the 403 step-up for the rest.
import type { GatewayConfig, WorkspaceConfig } from '../config/index.js';

type Rule = NonNullable<WorkspaceConfig['identity']>['rules'][number];

/** Per workspace object (one per config version), and per config for a resource with none. */
const derived = new WeakMap<WorkspaceConfig | GatewayConfig, readonly string[]>();

/** The scopes a rule's conditions ask for (`scope`/`scp` contains). */
function scopesOfRule(rule: Rule): string[] {
  return rule.when.flatMap((condition) =>
    (condition.claim === 'scope' || condition.claim === 'scp') && 'contains' in condition
      ? [condition.contains]
      : [],
  );
}

/** The scope of a 401 challenge for the resource of `workspace` (D24: only the rules of the
 * workspace that resource admits to count, so no tenant's rules change another's sign-in):
 * configured, or derived once per config version. Edge cases: a scope a read rule also needs is
 * kept (leaving it out would make that rule unreachable at the first sign-in); a resource with no
 * workspace (shared, no default) has no rules, so every advertised scope stays; when every advertised
 * scope is a write scope, none is named (clients then ask for all of them). */
export function firstChallengeScopes(
  config: GatewayConfig,
  workspace: WorkspaceConfig | undefined,
): readonly string[] {
  const oauth = config.oauth;
  if (oauth === undefined) return [];
  if (oauth.challengeScopes !== undefined) return oauth.challengeScopes;
  const owner = workspace ?? config;
  let scopes = derived.get(owner);
  if (scopes === undefined) {
    const rules = workspace?.identity?.rules ?? [];
    const readScopes = new Set(rules.filter((rule) => rule.access !== 'write').flatMap(scopesOfRule));
    const writeOnly = new Set(
      rules
        .filter((rule) => rule.access === 'write')
        .flatMap(scopesOfRule)
        .filter((scope) => !readScopes.has(scope)),
    );
    scopes = oauth.scopesSupported.filter((scope) => !writeOnly.has(scope));
    derived.set(owner, scopes);
  }
  return scopes;
}
