// The chart's oauth values (issue 29): off by default (no oauth section, so a Workspace's
// spec.identity is refused by the gateways), on they render the gateway-wide oauth section the
// gateway's own schema accepts; the resource URI is required; the default workspace of the shared
// resource is rendered only when the admin names one. Rendered with `helm template`
// (offline) and validated with the gateway's config schema.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../gateway/config/index.js';
import { kubeBinDir } from '../infra/control-plane.js';

const run = promisify(execFile);
const CHART = 'charts/agent-gateway';

interface Rendered {
  kind?: string;
  metadata: { name: string };
  data?: Record<string, string>;
}

async function render(...set: string[]) {
  const { stdout } = await run(join(kubeBinDir(), 'helm'), [
    'template',
    'agw',
    CHART,
    ...set.flatMap((value) => ['--set', value]),
  ]);
  const configMap = parseAllDocuments(stdout)
    .map((d) => d.toJS() as Rendered)
    .find((d) => d?.kind === 'ConfigMap' && d.metadata.name === 'agw-agent-gateway');
  const validated = validateConfig(parse(configMap?.data?.['gateway.yaml'] ?? ''));
  if (!validated.ok) throw new Error(JSON.stringify(validated.problems));
  return validated.config;
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
    const none = await render(
      'oauth.enabled=true',
      'oauth.resource=https://agents.example.com/mcp',
      'oauth.challengeScopes={}',
    );
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
