// Workspace spec.embeddings (issue 22) through the operator: planned with the gateway's own
// EmbeddingsSchema and the tenant reach policy, the API key copied into the workspace's credentials
// Secret, and — the privacy rule — a spec that cannot be used rendered as `embeddings: false`, never
// left to the gateway-wide provider, with the Workspace still served and its Ready message saying why.
// Then the round trip: plan → rendered parts → the gateways' KubeConfigSource → embeddingsFor.
import { describe, expect, it } from 'vitest';
import {
  processSecretReader,
  resolveSecret,
  TenantPolicySchema,
  type GatewayConfig,
} from '../../../gateway/config/index.js';
import {
  credentialSecretName,
  KubeConfigSource,
  MemoryObjectFeed,
  renderWorkspace,
} from '../../../gateway/config/kube/index.js';
import { validateConfig } from '../../../gateway/config/config-loader.js';
import { embeddingsFor } from '../../../gateway/knowledge/index.js';
import { ReachPolicy } from '../../../gateway/reach/index.js';
import { silentLogger } from '../../../gateway/telemetry/index.js';
import { reachCheck } from '../../../operator/controllers/plan/reach-check.js';
import type { WorkspaceEmbeddingsView } from '../../../operator/controllers/plan/resource-views.js';
import type { ControllerCaches } from '../../../operator/controllers/workspace-controller.js';
import type { PlanInput } from '../../../operator/controllers/plan/plan-input.js';
import { planWorkspace } from '../../../operator/controllers/plan/workspace-plan.js';
import { controllerWith, lastStatus, resolverOf } from '../../support/operator-controller.js';
import {
  cachedSecrets,
  meta,
  planInput,
  TENANT as ns,
  workspace as workspaceOf,
  type TenantSecrets,
} from '../../support/operator-objects.js';
const apiKeyRef = { secretKeyRef: { name: 'openai', key: 'api-key' } };
const valid: WorkspaceEmbeddingsView = {
  baseUrl: 'https://api.openai.com/v1',
  model: 'text-embedding-3-small',
  dimensions: 512,
  batchSize: 32,
  apiKey: apiKeyRef,
};

/** The Workspace `demo` (displayed as Demo) with `embeddings` as its spec.embeddings. */
function input(
  embeddings: WorkspaceEmbeddingsView | undefined,
  secrets: TenantSecrets = {},
  overrides: Partial<PlanInput> = {},
): PlanInput {
  return planInput(
    {
      workspace: {
        metadata: meta('demo'),
        spec: { displayName: 'Demo', ...(embeddings === undefined ? {} : { embeddings }) },
      },
      ...overrides,
    },
    secrets,
  );
}

const withKey = { openai: { 'api-key': 'sk-tenant-secret' } };

describe('planWorkspace: spec.embeddings', () => {
  it('operator:embeddings-plan — a valid spec renders the provider, its API key copied into the credentials Secret and referenced', () => {
    const plan = planWorkspace(input(valid, withKey));
    expect(plan.embeddings).toMatchObject({ ready: true });
    const rendered = plan.render.embeddings as Record<string, unknown>;
    expect(rendered).toMatchObject({
      baseUrl: 'https://api.openai.com/v1',
      model: 'text-embedding-3-small',
      dimensions: 512,
      batchSize: 32,
    });
    const ref = rendered['apiKey'] as { kubernetesSecret: { name: string; key: string } };
    expect(ref.kubernetesSecret.name).toBe(credentialSecretName('demo'));
    expect(plan.render.credentials.get(ref.kubernetesSecret.key)).toBe('sk-tenant-secret');
    // The gateway's defaults are applied where it reads the workspace, not written by the operator.
    expect(rendered).not.toHaveProperty('concurrency');
    expect(JSON.stringify(rendered)).not.toContain('sk-tenant-secret');
    // Without an API key (a local server) nothing goes into the credentials.
    const local = planWorkspace(
      input({ baseUrl: 'http://ollama.models:11434/v1', model: 'nomic-embed-text' }),
    );
    expect(local.render.embeddings).toEqual({
      baseUrl: 'http://ollama.models:11434/v1',
      model: 'nomic-embed-text',
    });
    expect(local.render.credentials.size).toBe(0);
  });

  it('operator:embeddings-plan — no spec.embeddings leaves the field out (the gateway-wide provider applies); disabled renders false', () => {
    const none = planWorkspace(input(undefined));
    expect(none.render).not.toHaveProperty('embeddings');
    expect(none.embeddings).toBeUndefined();
    const off = planWorkspace(input({ disabled: true }));
    expect(off.render.embeddings).toBe(false);
    expect(off.embeddings).toMatchObject({ ready: true, reason: 'EmbeddingsDisabled' });
    // Past the CEL rule (an older CRD): disabled still wins, and no Secret is copied.
    const both = planWorkspace(input({ ...valid, disabled: true }, withKey));
    expect(both.render.embeddings).toBe(false);
    expect(both.render.credentials.size).toBe(0);
    expect(both.embeddings?.message).toContain('ignored');
  });

  it('operator:embeddings-not-used — a missing Secret or key renders embeddings false, never the gateway-wide provider, and says why', () => {
    const missing = planWorkspace(input(valid));
    expect(missing.render.embeddings).toBe(false);
    expect(missing.embeddings).toEqual({
      ready: false,
      reason: 'SecretNotFound',
      message: 'Secret openai (embeddings.apiKey) was not found in this namespace',
    });
    const noKey = planWorkspace(input(valid, { openai: { other: 'x' } }));
    expect(noKey.render.embeddings).toBe(false);
    expect(noKey.embeddings).toMatchObject({ ready: false, reason: 'SecretKeyNotFound' });
  });

  it('operator:embeddings-not-used — an invalid field renders embeddings false with a message naming it, and copies no credential', () => {
    for (const [spec, field] of [
      [{ ...valid, baseUrl: 'ftp://models.example/v1' }, 'spec.embeddings.baseUrl: must be an http(s) URL'],
      [
        { ...valid, baseUrl: 'https://user:pw@models.example/v1' },
        'spec.embeddings.baseUrl: must not carry credentials',
      ],
      [{ ...valid, model: '' }, 'spec.embeddings.model: must name the embedding model'],
      [{ baseUrl: 'https://models.example/v1', apiKey: apiKeyRef }, 'spec.embeddings.model'],
      [{ ...valid, concurrency: 64 }, 'spec.embeddings.concurrency: must be a whole number from 1 to 16'],
      [{ ...valid, surprise: true }, 'spec.embeddings'],
    ] as const) {
      const plan = planWorkspace(input(spec, withKey));
      expect(plan.render.embeddings, field).toBe(false);
      expect(plan.embeddings, field).toMatchObject({ ready: false, reason: 'InvalidSpec' });
      expect(plan.embeddings?.message, field).toContain(field);
      expect(plan.render.credentials.size, field).toBe(0);
    }
  });

  it('operator:embeddings-not-used — a host the tenant policy refuses renders embeddings false', () => {
    const policy = new ReachPolicy(TenantPolicySchema.parse({ network: { denyCidrs: ['10.0.0.0/8'] } }));
    const reach = reachCheck(
      policy,
      { namespace: ns, workspace: 'demo' },
      new Map([['models.internal', ['10.1.2.3']]]),
    );
    const plan = planWorkspace(input({ ...valid, baseUrl: 'http://models.internal/v1' }, withKey, { reach }));
    expect(plan.render.embeddings).toBe(false);
    expect(plan.embeddings).toMatchObject({ ready: false, reason: 'AddressNotAllowed' });
    expect(plan.embeddings?.message).toMatch(
      /^spec\.embeddings\.baseUrl: host models\.internal is not allowed/,
    );
    expect(plan.embeddings?.message).not.toContain('10.1.2.3');
    expect(plan.render.credentials.size).toBe(0);
    // The rest of the workspace is rendered as before.
    expect(plan.render).toMatchObject({ name: 'demo', displayName: 'Demo' });
  });
});

describe('WorkspaceController: spec.embeddings', () => {
  const workspace = (embeddings: WorkspaceEmbeddingsView) =>
    workspaceOf({ ...meta('demo'), creationTimestamp: '2026-01-01T00:00:00Z' }, { embeddings });
  async function reconcile(
    embeddings: WorkspaceEmbeddingsView,
    secret: ControllerCaches['secret'] = () => undefined,
    resolved: Record<string, string[]> = {},
  ) {
    const resource = workspace(embeddings);
    const { controller, writer } = controllerWith(
      { workspaces: () => [resource], secret },
      {
        policy: new ReachPolicy(TenantPolicySchema.parse({ network: { denyCidrs: ['10.0.0.0/8'] } })),
        resolver: resolverOf(resolved),
      },
    );
    await controller.reconcile(`${ns}/demo`);
    // The Workspace is the only resource: its one status patch is the last one.
    const status = lastStatus(writer, 'demo');
    const fragment = writer.applied.find((o) => o.kind === 'ConfigMap')?.data?.['fragment.json'] ?? '{}';
    return { ready: status?.conditions[0], head: JSON.parse(fragment) as Record<string, unknown> };
  }

  it('operator:embeddings-not-used — the Workspace stays served and its Ready message says spec.embeddings is not used and why', async () => {
    const { ready, head } = await reconcile(valid);
    expect(ready).toMatchObject({ status: 'True', reason: 'Rendered' });
    expect(ready?.message).toBe(
      'served by the gateways; spec.embeddings not used (lexical search only): Secret openai (embeddings.apiKey) was not found in this namespace',
    );
    expect(head['embeddings']).toBe(false);
    // The host name is resolved before the policy decides, as for sources.
    const refused = await reconcile({ baseUrl: 'https://models.internal/v1', model: 'm' }, undefined, {
      'models.internal': ['10.0.0.7'],
    });
    expect(refused.ready?.message).toMatch(
      /^served by the gateways; spec\.embeddings not used \(lexical search only\): spec\.embeddings\.baseUrl: host models\.internal is not allowed/,
    );
    expect(refused.head['embeddings']).toBe(false);
    const served = await reconcile(valid, cachedSecrets({ openai: { 'api-key': 'sk-1' } }));
    expect(served.ready?.message).toBe('served by the gateways');
    expect(served.head['embeddings']).toMatchObject({ model: 'text-embedding-3-small' });
  });
});

describe('spec.embeddings round trip (operator → rendered parts → gateway)', () => {
  const gatewayWide = { baseUrl: 'http://embeddings.platform:8080/v1', model: 'gateway-wide-model' };

  async function served(embeddings: WorkspaceEmbeddingsView | undefined) {
    const plan = planWorkspace(input(embeddings, withKey));
    const rendered = renderWorkspace(plan.render);
    const feed = new MemoryObjectFeed(rendered.parts.map((part) => ({ ...part, resourceVersion: '1' })));
    const source = new KubeConfigSource({
      feed,
      base: { version: 1, knowledge: { embeddings: gatewayWide } },
      logger: silentLogger,
      origin: 'test',
    });
    await source.start();
    await source.synced();
    const config: GatewayConfig = source.current().config;
    expect(config.workspaces.map((w) => w.name)).toEqual(['demo']);
    // What the gateways serve is a whole config their own loader accepts.
    expect(validateConfig(JSON.parse(JSON.stringify(config))).ok).toBe(true);
    return { settings: embeddingsFor(config, 'demo'), secrets: source.secretReader(processSecretReader({})) };
  }

  it('operator:embeddings-round-trip — the gateways serve the tenant’s provider with their defaults and its key; false and unusable specs come back off', async () => {
    const tenant = await served(valid);
    expect(tenant.settings).toMatchObject({
      baseUrl: 'https://api.openai.com/v1',
      model: 'text-embedding-3-small',
      dimensions: 512,
      batchSize: 32,
      concurrency: 2,
      queryTimeoutMs: 2000,
    });
    const key = tenant.settings?.apiKey;
    expect(key).toBeDefined();
    if (key !== undefined) expect(resolveSecret(key, tenant.secrets)).toBe('sk-tenant-secret');

    expect((await served({ disabled: true })).settings).toBeUndefined();
    // Unusable: off for this workspace, not the gateway-wide provider.
    expect(
      (await served({ ...valid, apiKey: { secretKeyRef: { name: 'gone', key: 'k' } } })).settings,
    ).toBeUndefined();
    expect((await served({ ...valid, model: '' })).settings).toBeUndefined();
    // No spec: the gateway-wide provider.
    expect((await served(undefined)).settings).toMatchObject(gatewayWide);
  });
});
