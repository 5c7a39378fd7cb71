import { describe, expect, it } from 'vitest';
import { generateKey, principalFor } from '../../../gateway/auth/index.js';
import { validateWorkspace } from '../../../gateway/config/config-loader.js';
import { DEFAULT_TENANT_POLICY } from '../../../gateway/config/index.js';
import { credentialSecretName } from '../../../gateway/config/kube/index.js';
import { renderedWorkspaceProblems } from '../../../gateway/config/kube/rendered-workspace-rules.js';
import { ReachPolicy } from '../../../gateway/reach/index.js';
import { reachCheck } from '../../../operator/controllers/plan/reach-check.js';
import type { PlanInput } from '../../../operator/controllers/plan/plan-input.js';
import { planWorkspace } from '../../../operator/controllers/plan/workspace-plan.js';
import type {
  CredentialView,
  DataSourceView,
  McpSourceView,
} from '../../../operator/controllers/plan/resource-views.js';
import {
  apiKey,
  dataSource,
  mcpSource,
  meta,
  planInput,
  TENANT as ns,
  type TenantSecrets,
} from '../../support/operator-objects.js';

function withoutCredential(spec: McpSourceView['spec']): McpSourceView['spec'] {
  const copy: Record<string, unknown> = { ...spec };
  delete copy['credential'];
  return copy as McpSourceView['spec'];
}

/** The Workspace `demo` (displayed as Demo) with `overrides` and `secrets` in its namespace. */
function input(overrides: Partial<PlanInput> = {}, secrets: TenantSecrets = {}): PlanInput {
  return planInput(
    { workspace: { metadata: meta('demo'), spec: { displayName: 'Demo' } }, ...overrides },
    secrets,
  );
}

const github = mcpSource(meta('github'), 'demo', {
  url: 'https://mcp.example.com/mcp',
  credential: { type: 'bearer', secretKeyRef: { name: 'gh-token', key: 'token' } },
  timeouts: { connectMs: 5000, listMs: 15000, callMs: 60000 },
});

describe('planWorkspace (operator reconcile core)', () => {
  it('operator:plan-valid — renders keys and sources into a document the gateway config contract accepts', () => {
    const key = generateKey();
    const ciBot = apiKey(meta('ci-bot'), 'demo', { access: 'write', tools: ['github__*'] });
    const docs = dataSource(meta('handbook'), 'demo', { type: 'files', files: { path: '/data/handbook' } });
    const plan = planWorkspace(
      input(
        {
          apiKeys: [ciBot],
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
    const resources = dataSource(meta('wiki'), 'demo', {
      type: 'mcp-resources',
      mcpResources: { mcpSourceRef: { name: 'github' } },
    });
    const clash = dataSource(meta('github'), 'demo', { type: 'files', files: { path: '/x' } });
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
    const keys = [
      apiKey(meta('revoked'), 'demo', { revoked: true }),
      apiKey(meta('expired'), 'demo', { expiresAt: '2020-01-01T00:00:00Z' }),
      apiKey(meta('pending'), 'demo'),
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
    const pg = dataSource(meta('crm'), 'demo', {
      type: 'postgres',
      postgres: {
        connectionString: { secretKeyRef: { name: 'crm-db', key: 'url' } },
        query: 'select 1 as id',
      },
    });
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
        apiKeys: [apiKey(meta('ci'), 'demo', { limits: { requestsPerSecond: 5 } })],
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
          apiKey(meta('agent'), 'demo'),
          apiKey(meta('ide'), 'demo', { toolDisclosure: 'all' }),
          // Not admitted by the CRD schema; were it to arrive, it is left out (the default), not rendered.
          apiKey(meta('odd'), 'demo', { toolDisclosure: 'some' }),
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

describe('upstream OAuth credentials (issue 29)', () => {
  const clientRefs = {
    clientId: { secretKeyRef: { name: 'oauth-client', key: 'id' } },
    clientSecret: { secretKeyRef: { name: 'oauth-client', key: 'secret' } },
  };
  const client = { 'oauth-client': { id: 'gateway-client', secret: 'cs_top_secret_value' } };
  const machine: McpSourceView = {
    metadata: meta('machine'),
    spec: {
      ...withoutCredential(github.spec),
      credential: {
        type: 'oauthClientCredentials',
        issuer: 'https://login.example.com',
        ...clientRefs,
        authMethod: 'client_secret_post',
        scopes: ['repo.read'],
      },
    },
  };
  const exchange: McpSourceView = {
    metadata: meta('exchange'),
    spec: {
      ...withoutCredential(github.spec),
      credential: {
        type: 'tokenExchange',
        tokenEndpoint: 'https://login.example.com/token',
        ...clientRefs,
        audience: 'crm',
      },
    },
  };
  const api = dataSource(meta('api'), 'demo', {
    type: 'http',
    http: {
      url: 'https://api.example.com/items',
      credential: {
        type: 'oauthClientCredentials',
        tokenEndpoint: 'https://login.example.com/token',
        ...clientRefs,
      },
      fields: { id: 'id', title: 'title', body: ['body'] },
    },
  });
  /** `source` with another spec.credential. */
  const mcpWith = (source: McpSourceView, credential: CredentialView): McpSourceView => ({
    ...source,
    spec: { ...source.spec, credential },
  });
  /** The http DataSource `api` with another spec.http.credential. */
  const apiWith = (credential: CredentialView): DataSourceView => ({
    ...api,
    spec: { ...api.spec, http: { ...api.spec.http, credential } },
  });

  it('operator:upstream-oauth-render — client-credentials and token-exchange credentials render as references to the workspace Secret that the gateway contract and its Kubernetes rules accept', () => {
    const plan = planWorkspace(input({ mcpSources: [machine, exchange], dataSources: [api] }, client));
    expect(plan.mcpSources.get('machine')).toMatchObject({ ready: true, reason: 'Rendered' });
    expect(plan.mcpSources.get('exchange')).toMatchObject({ ready: true, reason: 'Rendered' });
    expect(plan.dataSources.get('api')).toMatchObject({ ready: true, reason: 'Rendered' });
    const { namespace: _ns, credentials, ...document } = plan.render;
    const validated = validateWorkspace(document);
    expect(validated.ok).toBe(true);
    if (!validated.ok) return;
    expect(renderedWorkspaceProblems(validated.workspace)).toEqual([]);
    const own = credentialSecretName('demo');
    const [machineSource, exchangeSource] = [...validated.workspace.mcpSources].sort((a, b) =>
      b.name.localeCompare(a.name),
    );
    expect(machineSource?.credential).toMatchObject({
      type: 'oauthClientCredentials',
      issuer: 'https://login.example.com',
      authMethod: 'client_secret_post',
      scopes: ['repo.read'],
      clientId: { kubernetesSecret: { name: own } },
      clientSecret: { kubernetesSecret: { name: own } },
    });
    expect(exchangeSource?.credential).toMatchObject({
      type: 'tokenExchange',
      tokenEndpoint: 'https://login.example.com/token',
      audience: 'crm',
      authMethod: 'client_secret_basic',
    });
    const httpSource = validated.workspace.dataSources[0];
    expect(httpSource?.type === 'http' ? httpSource.credential?.type : undefined).toBe(
      'oauthClientCredentials',
    );
    const credential = machineSource?.credential as {
      clientId: { kubernetesSecret: { key: string } };
      clientSecret: { kubernetesSecret: { key: string } };
    };
    expect(credentials.get(credential.clientId.kubernetesSecret.key)).toBe('gateway-client');
    expect(credentials.get(credential.clientSecret.kubernetesSecret.key)).toBe('cs_top_secret_value');
    expect(credential.clientSecret.kubernetesSecret.key).toMatch(
      /^cred\.machine\.credential\.clientSecret\./,
    );
    const rendered = JSON.stringify(document);
    expect(rendered).not.toContain('cs_top_secret_value');
    expect(rendered).not.toContain('gateway-client');
    expect(rendered).not.toContain('secretKeyRef');
  });

  it('operator:user-credential-render — a user credential (issue 42) renders with or without a client of its own; its client id and secret become references to the workspace Secret', () => {
    const personal = mcpWith({ ...machine, metadata: meta('personal') }, { type: 'user', scopes: ['repo'] });
    const registered = mcpWith(
      { ...machine, metadata: meta('registered') },
      { type: 'user', issuer: 'https://login.example.com', ...clientRefs },
    );
    const plan = planWorkspace(input({ mcpSources: [personal, registered] }, client));
    expect(plan.mcpSources.get('personal')).toMatchObject({ ready: true, reason: 'Rendered' });
    expect(plan.mcpSources.get('registered')).toMatchObject({ ready: true, reason: 'Rendered' });
    const { namespace: _ns, credentials, ...document } = plan.render;
    const validated = validateWorkspace(document);
    expect(validated.ok).toBe(true);
    if (!validated.ok) return;
    const byName = new Map(validated.workspace.mcpSources.map((source) => [source.name, source.credential]));
    expect(byName.get('personal')).toEqual({
      type: 'user',
      scopes: ['repo'],
      authMethod: 'client_secret_basic',
    });
    const withClient = byName.get('registered') as { clientId: { kubernetesSecret: { key: string } } };
    expect(withClient).toMatchObject({ type: 'user', issuer: 'https://login.example.com' });
    expect(credentials.get(withClient.clientId.kubernetesSecret.key)).toBe('gateway-client');
    expect(JSON.stringify(document)).not.toContain('cs_top_secret_value');
  });

  it('operator:upstream-oauth-missing-secret — a missing client secret Secret or key leaves only that source out, with a condition naming the field', () => {
    const onlyId = { 'oauth-client': { id: 'gateway-client' } };
    const plan = planWorkspace(input({ mcpSources: [machine, github], dataSources: [api] }, onlyId));
    expect(plan.mcpSources.get('machine')).toEqual({
      ready: false,
      reason: 'SecretKeyNotFound',
      message: 'Secret oauth-client has no key secret (credential.clientSecret)',
    });
    expect(plan.dataSources.get('api')?.reason).toBe('SecretKeyNotFound');
    const none = planWorkspace(
      input({ mcpSources: [machine, github], dataSources: [api] }, { 'gh-token': { token: 't' } }),
    );
    expect(none.mcpSources.get('machine')).toEqual({
      ready: false,
      reason: 'SecretNotFound',
      message: 'Secret oauth-client (credential.clientId) was not found in this namespace',
    });
    expect(none.mcpSources.get('github')?.ready).toBe(true);
    expect(none.render.mcpSources).toEqual([expect.objectContaining({ name: 'github' })]);
    expect(none.render.dataSources).toEqual([]);
  });

  it('operator:upstream-oauth-reach — a token endpoint or issuer the tenant policy denies is refused with AddressNotAllowed before any Secret is read', () => {
    const reach = reachCheck(
      new ReachPolicy(DEFAULT_TENANT_POLICY),
      { namespace: ns, workspace: 'demo' },
      new Map([['idp.internal.example', ['169.254.169.254']]]),
    );
    const loopback = mcpWith(machine, {
      ...clientRefs,
      type: 'oauthClientCredentials',
      tokenEndpoint: 'http://127.0.0.1:9/token',
    });
    const metadataIssuer = apiWith({
      ...clientRefs,
      type: 'oauthClientCredentials',
      issuer: 'https://idp.internal.example',
    });
    const reads: string[] = [];
    const base = input({ mcpSources: [loopback], dataSources: [metadataIssuer], reach }, client);
    const plan = planWorkspace({
      ...base,
      readSecret: (r) => {
        reads.push(r.name);
        return base.readSecret(r);
      },
    });
    expect(plan.mcpSources.get('machine')).toMatchObject({ ready: false, reason: 'AddressNotAllowed' });
    expect(plan.mcpSources.get('machine')?.message).toMatch(
      /^spec\.credential\.tokenEndpoint: host 127\.0\.0\.1 /,
    );
    expect(plan.dataSources.get('api')).toMatchObject({ ready: false, reason: 'AddressNotAllowed' });
    expect(plan.dataSources.get('api')?.message).toMatch(
      /^spec\.http\.credential\.issuer: host idp\.internal\.example /,
    );
    expect(plan.dataSources.get('api')?.message).not.toContain('169.254');
    expect(reads).toEqual([]);
    expect(plan.render.credentials.size).toBe(0);
    const allowed = planWorkspace(input({ mcpSources: [machine], reach }, client));
    expect(allowed.mcpSources.get('machine')?.ready).toBe(true);
  });

  it('operator:upstream-oauth-invalid — what the CEL rules refuse at apply is still refused by the gateway contract in the plan (InvalidSpec naming the field)', () => {
    const both = mcpWith(machine, {
      ...clientRefs,
      type: 'oauthClientCredentials',
      issuer: 'https://login.example.com',
      tokenEndpoint: 'https://login.example.com/token',
    });
    const exchanging = apiWith({
      ...clientRefs,
      type: 'tokenExchange',
      tokenEndpoint: 'https://login.example.com/token',
    });
    const noSecret = mcpWith(exchange, {
      type: 'tokenExchange',
      issuer: 'https://login.example.com',
      clientId: clientRefs.clientId,
    });
    const plan = planWorkspace(input({ mcpSources: [both, noSecret], dataSources: [exchanging] }, client));
    expect(plan.mcpSources.get('machine')).toMatchObject({ ready: false, reason: 'InvalidSpec' });
    expect(plan.mcpSources.get('machine')?.message).toContain(
      'spec.credential.tokenEndpoint: give exactly one',
    );
    expect(plan.mcpSources.get('exchange')).toEqual({
      ready: false,
      reason: 'InvalidSpec',
      message: 'spec.credential.clientSecret: is required',
    });
    expect(plan.dataSources.get('api')).toMatchObject({ ready: false, reason: 'InvalidSpec' });
    expect(plan.render.mcpSources).toEqual([]);
    expect(plan.render.dataSources).toEqual([]);
  });
});
