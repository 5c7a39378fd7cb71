import { describe, expect, it } from 'vitest';
import { generateKey, principalFor } from '../../../gateway/auth/index.js';
import { validateWorkspace } from '../../../gateway/config/config-loader.js';
import { credentialSecretName } from '../../../gateway/config/kube/index.js';
import {
  planWorkspace,
  type PlanInput,
  type SecretRead,
} from '../../../operator/controllers/workspace-plan.js';
import type {
  ApiKeyView,
  DataSourceView,
  McpSourceView,
  SecretKeyRef,
} from '../../../operator/controllers/resource-views.js';

const ns = 'tenant-a';
const meta = (name: string) => ({ name, namespace: ns, generation: 1 });
const ref = { name: 'demo' };

function withoutCredential(spec: McpSourceView['spec']): McpSourceView['spec'] {
  const copy: Record<string, unknown> = { ...spec };
  delete copy['credential'];
  return copy as McpSourceView['spec'];
}

function input(
  overrides: Partial<PlanInput> = {},
  secrets: Record<string, Record<string, string>> = {},
): PlanInput {
  return {
    workspace: { metadata: meta('demo'), spec: { displayName: 'Demo' } },
    apiKeys: [],
    keyMaterial: new Map(),
    mcpSources: [],
    dataSources: [],
    readSecret: (r: SecretKeyRef): SecretRead => {
      const secret = secrets[r.name];
      if (secret === undefined) return { missing: 'secret' };
      const value = secret[r.key];
      return value === undefined ? { missing: 'key' } : { value };
    },
    ...overrides,
  };
}

const github: McpSourceView = {
  metadata: meta('github'),
  spec: {
    workspaceRef: ref,
    transport: 'streamable-http',
    url: 'https://mcp.example.com/mcp',
    credential: { type: 'bearer', secretKeyRef: { name: 'gh-token', key: 'token' } },
    timeouts: { connectMs: 5000, listMs: 15000, callMs: 60000 },
  },
};

describe('planWorkspace (operator reconcile core)', () => {
  it('operator:plan-valid — renders keys and sources into a document the gateway config contract accepts', () => {
    const key = generateKey();
    const apiKey: ApiKeyView = {
      metadata: meta('ci-bot'),
      spec: { workspaceRef: ref, access: 'write', tools: ['github__*'] },
    };
    const docs: DataSourceView = {
      metadata: meta('handbook'),
      spec: { workspaceRef: ref, type: 'files', files: { path: '/data/handbook' } },
    };
    const plan = planWorkspace(
      input(
        {
          apiKeys: [apiKey],
          keyMaterial: new Map([['ci-bot', { id: key.id, hash: key.hash }]]),
          mcpSources: [github],
          dataSources: [docs],
        },
        { 'gh-token': { token: 'ghp_secret' } },
      ),
    );
    expect([...plan.apiKeys.values()].every((c) => c.ready)).toBe(true);
    expect(plan.mcpSources.get('github')).toMatchObject({ ready: true, reason: 'Rendered' });
    expect(plan.dataSources.get('handbook')).toMatchObject({ ready: true });
    const { namespace: _ns, credentials, ...document } = plan.render;
    const validated = validateWorkspace(document);
    expect(validated.ok).toBe(true);
    if (!validated.ok) return;
    expect(validated.workspace.keys[0]).toMatchObject({
      id: key.id,
      hash: key.hash,
      access: 'write',
      tools: ['github__*'],
    });
    const credential = validated.workspace.mcpSources[0]?.credential;
    expect(credential?.type).toBe('bearer');
    const secret = (credential as { secret: unknown }).secret as {
      kubernetesSecret: { name: string; key: string };
    };
    expect(secret.kubernetesSecret.name).toBe(credentialSecretName('demo'));
    expect(credentials.get(secret.kubernetesSecret.key)).toBe('ghp_secret');
    expect(JSON.stringify(document)).not.toContain('ghp_secret');
  });

  it('operator:plan-prefix — an McpSource spec.prefix reaches the rendered source; unset means always', () => {
    const { credential: _credential, ...spec } = github.spec;
    const own: McpSourceView = { metadata: meta('own'), spec: { ...spec, prefix: 'never' } };
    const plain: McpSourceView = { metadata: meta('plain'), spec };
    const plan = planWorkspace(input({ mcpSources: [own, plain] }));
    const { namespace: _ns, credentials: _c, ...document } = plan.render;
    const validated = validateWorkspace(document);
    expect(validated.ok).toBe(true);
    if (!validated.ok) return;
    expect(validated.workspace.mcpSources.map((s) => [s.name, s.prefix])).toEqual([
      ['own', 'never'],
      ['plain', 'always'],
    ]);
  });

  it('operator:missing-secret-condition — a missing Secret leaves only that source out, with a condition naming it', () => {
    const other: McpSourceView = {
      ...github,
      metadata: meta('docs'),
      spec: withoutCredential(github.spec),
    };
    const plan = planWorkspace(input({ mcpSources: [github, other] }));
    expect(plan.mcpSources.get('github')).toEqual({
      ready: false,
      reason: 'SecretNotFound',
      message: 'Secret gh-token (credential) was not found in this namespace',
    });
    expect(plan.mcpSources.get('docs')?.ready).toBe(true);
    expect(plan.render.mcpSources).toHaveLength(1);
    const missingKey = planWorkspace(input({ mcpSources: [github] }, { 'gh-token': { other: 'x' } }));
    expect(missingKey.mcpSources.get('github')?.reason).toBe('SecretKeyNotFound');
  });

  it('operator:invalid-spec-condition — an invalid spec is reported by field and left out', () => {
    const bad: McpSourceView = {
      ...github,
      spec: { ...withoutCredential(github.spec), url: 'ftp://nope' },
    };
    const plan = planWorkspace(input({ mcpSources: [bad] }));
    const condition = plan.mcpSources.get('github');
    expect(condition).toMatchObject({ ready: false, reason: 'InvalidSpec' });
    expect(condition?.message).toMatch(/^spec\.url: /);
    expect(plan.render.mcpSources).toEqual([]);
  });

  it('operator:data-source-refs — mcp-resources needs a ready McpSource; names are shared across kinds', () => {
    const resources: DataSourceView = {
      metadata: meta('wiki'),
      spec: { workspaceRef: ref, type: 'mcp-resources', mcpResources: { mcpSourceRef: { name: 'github' } } },
    };
    const clash: DataSourceView = {
      metadata: meta('github'),
      spec: { workspaceRef: ref, type: 'files', files: { path: '/x' } },
    };
    const withoutSecret = planWorkspace(input({ mcpSources: [github], dataSources: [resources, clash] }));
    expect(withoutSecret.dataSources.get('wiki')?.reason).toBe('McpSourceNotFound');
    expect(withoutSecret.dataSources.get('github')?.reason).toBe('NameConflict');
    const ready = planWorkspace(
      input({ mcpSources: [github], dataSources: [resources] }, { 'gh-token': { token: 't' } }),
    );
    expect(ready.dataSources.get('wiki')?.ready).toBe(true);
    expect(ready.render.dataSources[0]).toMatchObject({
      name: 'wiki',
      type: 'mcp-resources',
      mcpSource: 'github',
    });
  });

  it('operator:key-conditions — revoked, expired and pending keys say so; revoked keys stay rendered so gateways refuse them', () => {
    const a = generateKey();
    const b = generateKey();
    const keys: ApiKeyView[] = [
      { metadata: meta('revoked'), spec: { workspaceRef: ref, revoked: true } },
      { metadata: meta('expired'), spec: { workspaceRef: ref, expiresAt: '2020-01-01T00:00:00Z' } },
      { metadata: meta('pending'), spec: { workspaceRef: ref } },
    ];
    const plan = planWorkspace(
      input({
        apiKeys: keys,
        keyMaterial: new Map([
          ['revoked', { id: a.id, hash: a.hash }],
          ['expired', { id: b.id, hash: b.hash }],
        ]),
      }),
    );
    expect(plan.apiKeys.get('revoked')?.reason).toBe('Revoked');
    expect(plan.apiKeys.get('expired')?.reason).toBe('Expired');
    expect(plan.apiKeys.get('pending')).toMatchObject({ ready: false, reason: 'KeyPending' });
    expect(plan.render.keys).toHaveLength(2);
    expect(plan.render.keys.find((k) => (k as { id: string }).id === a.id)).toMatchObject({ revoked: true });
  });

  it('operator:postgres-connection-secret — a postgres DataSource takes its connection string from a Secret', () => {
    const pg: DataSourceView = {
      metadata: meta('crm'),
      spec: {
        workspaceRef: ref,
        type: 'postgres',
        postgres: {
          connectionString: { secretKeyRef: { name: 'crm-db', key: 'url' } },
          query: 'select 1 as id',
        },
      },
    };
    const plan = planWorkspace(
      input({ dataSources: [pg] }, { 'crm-db': { url: 'postgresql://u:p@db/crm' } }),
    );
    expect(plan.dataSources.get('crm')?.ready).toBe(true);
    expect(JSON.stringify(plan.render.dataSources)).not.toContain('u:p@db');
    expect([...plan.render.credentials.values()]).toEqual(['postgresql://u:p@db/crm']);
  });
});

describe('limits', () => {
  it('operator:limits-passthrough — Workspace and ApiKey limits reach the rendered workspace and pass the config contract', () => {
    const key = generateKey();
    const plan = planWorkspace(
      input({
        workspace: {
          metadata: meta('demo'),
          spec: { displayName: 'Demo', limits: { requestsPerMinute: 600, searchesPerDay: 1000 } },
        },
        apiKeys: [
          {
            metadata: meta('ci'),
            spec: { workspaceRef: { name: 'demo' }, limits: { requestsPerSecond: 5 } },
          },
        ],
        keyMaterial: new Map([['ci', { id: key.id, hash: key.hash }]]),
      }),
    );
    expect(plan.render.limits).toEqual({ requestsPerMinute: 600, searchesPerDay: 1000 });
    const { credentials: _credentials, namespace: _namespace, ...document } = plan.render;
    const result = validateWorkspace(document);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.workspace.limits).toEqual({ requestsPerMinute: 600, searchesPerDay: 1000 });
      expect(result.workspace.keys[0]?.limits).toEqual({ requestsPerSecond: 5 });
    }
  });

  it('operator:tool-disclosure-passthrough — Workspace and ApiKey toolDisclosure reach the rendered workspace and the gateway principal', () => {
    const searching = generateKey();
    const listing = generateKey();
    const plan = planWorkspace(
      input({
        workspace: { metadata: meta('demo'), spec: { toolDisclosure: 'search' } },
        apiKeys: [
          { metadata: meta('agent'), spec: { workspaceRef: { name: 'demo' } } },
          { metadata: meta('ide'), spec: { workspaceRef: { name: 'demo' }, toolDisclosure: 'all' } },
          // Not admitted by the CRD schema; were it to arrive, it is left out (the default), not rendered.
          { metadata: meta('odd'), spec: { workspaceRef: { name: 'demo' }, toolDisclosure: 'some' } },
        ],
        keyMaterial: new Map([
          ['agent', { id: searching.id, hash: searching.hash }],
          ['ide', { id: listing.id, hash: listing.hash }],
          ['odd', { id: generateKey().id, hash: generateKey().hash }],
        ]),
      }),
    );
    const { credentials: _credentials, namespace: _namespace, ...document } = plan.render;
    const result = validateWorkspace(document);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.workspace.toolDisclosure).toBe('search');
    const byId = new Map(result.workspace.keys.map((k) => [k.id, k]));
    expect(principalFor(byId.get(searching.id)!, result.workspace).toolDisclosure).toBe('search');
    expect(principalFor(byId.get(listing.id)!, result.workspace).toolDisclosure).toBe('all');
    expect(result.workspace.keys.filter((k) => k.toolDisclosure !== undefined)).toHaveLength(1);
  });
});
