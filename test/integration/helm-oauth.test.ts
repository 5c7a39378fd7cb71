// The chart's oauth values (issue 29): off by default (no oauth section, so a Workspace's
// spec.identity is refused by the gateways), on they render the gateway-wide oauth section the
// gateway's own schema accepts; the resource URI is required; the default workspace of the shared
// resource is rendered only when the admin names one. The issuers tenants may trust are the
// policy's `identity` part (issue 37), rendered the same for the gateways and the operator.
// Rendered with `helm template` (offline) and validated with the gateway's config schema.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { TenantPolicySchema, validateConfig } from '../../gateway/config/index.js';
import { kubeBinDir } from '../infra/control-plane.js';

const run = promisify(execFile);
const CHART = 'charts/agent-gateway';

interface Rendered {
  kind?: string;
  metadata: { name: string };
  data?: Record<string, string>;
}

async function renderDocs(args: string[]) {
  const { stdout } = await run(join(kubeBinDir(), 'helm'), ['template', 'agw', CHART, ...args]);
  const docs = parseAllDocuments(stdout).map((d) => d.toJS() as Rendered);
  const configMap = (name: string) => docs.find((d) => d?.kind === 'ConfigMap' && d.metadata.name === name);
  const validated = validateConfig(parse(configMap('agw-agent-gateway')?.data?.['gateway.yaml'] ?? ''));
  if (!validated.ok) throw new Error(JSON.stringify(validated.problems));
  const operatorPolicy = parse(
    configMap('agw-agent-gateway-operator-policy')?.data?.['policy.yaml'] ?? '',
  ) as unknown;
  return { config: validated.config, operatorPolicy };
}

async function render(...set: string[]) {
  return (await renderDocs(set.flatMap((value) => ['--set', value]))).config;
}

describe('the chart’s oauth values', () => {
  it('helm:oauth-values — off by default; on, the oauth section the gateway schema accepts, bounds passed through', async () => {
    expect((await render()).oauth).toBeUndefined();
    const on = await render(
      'oauth.enabled=true',
      'oauth.resource=https://agents.example.com/mcp',
      'oauth.scopesSupported={mcp:read,mcp:write}',
      'oauth.challengeScopes={mcp:read}',
      'oauth.jwksCooldownMs=60000',
      'oauth.defaultWorkspace=payments',
    );
    expect(on.oauth).toEqual({
      resource: 'https://agents.example.com/mcp',
      defaultWorkspace: 'payments',
      scopesSupported: ['mcp:read', 'mcp:write'],
      challengeScopes: ['mcp:read'],
      maxTokenBytes: 8192,
      fetchTimeoutMs: 5000,
      jwksMaxBytes: 262_144,
      jwksMaxKeys: 50,
      jwksCooldownMs: 60_000,
      jwksMaxAgeMs: 600_000,
      introspectionCacheTtlMs: 30_000,
      introspectionCacheEntries: 10_000,
      introspectionNegativeTtlMs: 60_000,
      introspectionMaxPerSecond: 50,
      introspectionMaxConcurrent: 16,
    });
    // helm:oauth-default-workspace — no default workspace unless the admin names one (D24).
    // challengeScopes is unset by default too: the gateway derives the least scope (issue 37).
    const least = await render('oauth.enabled=true', 'oauth.resource=https://agents.example.com/mcp');
    expect(least.oauth?.defaultWorkspace).toBeUndefined();
    expect(least.oauth).not.toHaveProperty('challengeScopes');
    // An empty list (`--set x={}` is a list of one empty string to helm 4, which the schema refuses).
    const none = (
      await renderDocs([
        '--set',
        'oauth.enabled=true',
        '--set',
        'oauth.resource=https://agents.example.com/mcp',
        '--set-json',
        'oauth.challengeScopes=[]',
      ])
    ).config;
    expect(none.oauth?.challengeScopes).toEqual([]);
  });

  it('helm:oauth-refusals — enabled without a resource fails naming it; the schema refuses a scope with a space and an unknown key', async () => {
    await expect(render('oauth.enabled=true')).rejects.toThrow(/oauth.resource is required/);
    await expect(
      render('oauth.enabled=true', 'oauth.resource=https://a.example.com/mcp', 'oauth.challengeScopes={a b}'),
    ).rejects.toThrow(/challengeScopes/);
    await expect(render('oauth.issuer=https://x.example.com')).rejects.toThrow(/issuer/);
    await expect(
      render(
        'oauth.enabled=true',
        'oauth.resource=https://a.example.com/mcp',
        'oauth.defaultWorkspace=No_Such',
      ),
    ).rejects.toThrow(/defaultWorkspace/);
    // A resource the gateway would refuse (http off loopback) fails its schema here too.
    await expect(
      render('oauth.enabled=true', 'oauth.resource=http://agents.example.com/mcp'),
    ).rejects.toThrow(/https/);
  });
});

describe('the chart’s identity policy values', () => {
  const issuers = [
    {
      issuer: 'https://login.example.com/realms/acme',
      jwksUri: 'https://login.example.com/realms/acme/protocol/openid-connect/certs',
      namespaces: ['team-a', 'team-b'],
      claims: { 'team-a': [{ claim: 'groups', contains: 'team-a' }] },
    },
  ];

  it('helm:policy-identity — no issuer by default; the values render the same identity policy for the gateways and the operator, as the schema parses it', async () => {
    const defaults = await renderDocs([]);
    expect(defaults.config.policy?.identity).toEqual({ issuers: [] });
    const { config, operatorPolicy } = await renderDocs([
      '--set-json',
      `policy.identity.issuers=${JSON.stringify(issuers)}`,
    ]);
    expect(config.policy?.identity.issuers).toEqual(issuers);
    const parsed = TenantPolicySchema.safeParse(operatorPolicy);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data?.identity).toEqual(config.policy?.identity);
  });

  it('helm:policy-identity-refusals — an issuer without namespaces, an unknown key and claims for a namespace it is not allowed in are refused', async () => {
    const entry = issuers[0] as Record<string, unknown>;
    const { namespaces: _namespaces, ...withoutNamespaces } = entry;
    await expect(
      renderDocs(['--set-json', `policy.identity.issuers=${JSON.stringify([withoutNamespaces])}`]),
    ).rejects.toThrow(/namespaces/);
    await expect(
      renderDocs(['--set-json', `policy.identity.issuers=${JSON.stringify([{ ...entry, keys: 'x' }])}`]),
    ).rejects.toThrow(/keys/);
    await expect(
      renderDocs([
        '--set-json',
        `policy.identity.issuers=${JSON.stringify([{ ...entry, claims: { 'team-c': [{ claim: 'groups', contains: 'x' }] } }])}`,
      ]),
    ).rejects.toThrow(/team-c/);
  });
});
