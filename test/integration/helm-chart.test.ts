// The Helm chart against the real kube-apiserver (issue 11): lint, a checked-in `helm template`
// snapshot per ci/ values file, the values schema refusing wrong types and unknown keys, then
// `helm install --dry-run=server`, a real install, upgrade and uninstall. RBAC is proven both ways:
// `kubectl auth can-i` as the chart's ServiceAccounts shows what they cannot do, and real operator
// and gateway processes, running outside the cluster with tokens of those ServiceAccounts (TokenRequest),
// show that what they may do is enough: a Workspace, ApiKey and McpSource applied with kubectl
// become Ready, and the issued key lists and calls the upstream's tools.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Child } from '../bench/child-process.js';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { get, mcpPost } from '../support/gateway-harness.js';
import {
  freshNamespace,
  kubeconfigPath,
  kubectl,
  kubectlOk,
  operatorMetricsEnv,
  readIssuedKey,
  startKubeGateway,
  startOperator,
} from '../support/kube-harness.js';
import { until } from '../support/until.js';
import {
  EmbeddingsSchema,
  GatewayConfigSchema,
  TenantPolicySchema,
  validateConfig,
} from '../../gateway/config/index.js';
import { embeddingsFor } from '../../gateway/knowledge/index.js';
import { freePort } from '../infra/free-port.js';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { z } from 'zod';

const run = promisify(execFile);
const CHART = 'charts/agent-gateway';
const RELEASE = 'agw';

async function helm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      join(inject('kubeBin'), 'helm'),
      [...args, '--kubeconfig', kubeconfigPath()],
      {
        maxBuffer: 16 << 20,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { code: Number(failure.code ?? 1), stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

/** `helm template` of the chart as the release in namespace agent-gateway: the values follow. */
const TEMPLATE = ['template', RELEASE, CHART, '--namespace', 'agent-gateway'];

async function helmOk(args: string[]): Promise<string> {
  const result = await helm(args);
  if (result.code !== 0) throw new Error(`helm ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

const valuesFiles = async () =>
  (await readdir(join(CHART, 'ci'))).filter((f) => f.endsWith('-values.yaml')).sort();

describe('the chart, offline', () => {
  it('helm:lint — helm lint --strict passes with the defaults and every ci/*-values.yaml', async () => {
    const files = await valuesFiles();
    expect(files).toEqual(['ha-values.yaml', 'ingress-values.yaml', 'minimal-values.yaml']);
    for (const file of [undefined, ...files]) {
      const result = await helm([
        'lint',
        '--strict',
        CHART,
        ...(file === undefined ? [] : ['-f', join(CHART, 'ci', file)]),
      ]);
      expect(result.code, `${file ?? 'defaults'}: ${result.stdout}${result.stderr}`).toBe(0);
    }
  });

  it('helm:template-snapshot — the rendered objects match the checked-in snapshots', async () => {
    for (const file of ['default', ...(await valuesFiles())]) {
      const rendered = await helmOk([
        ...TEMPLATE,
        ...(file === 'default' ? [] : ['-f', join(CHART, 'ci', file)]),
      ]);
      // The generated Redis encryption key is random on every render: compared as a placeholder.
      const stable = rendered.replace(/(redis-encryption[\s\S]*?\ndata:\n\s+key: )"[^"]+"/, '$1"<random>"');
      await expect(stable).toMatchFileSnapshot(`../snapshots/helm/${file.replace('-values.yaml', '')}.yaml`);
    }
  });

  it('helm:redis-encryption — with shared Redis the chart makes an encryption key Secret, wires it, and the gateway accepts the rendered config', async () => {
    const docs = parseAllDocuments(await helmOk([...TEMPLATE, '-f', join(CHART, 'ci', 'ha-values.yaml')]))
      .map((d) => d.toJS() as { kind?: string; metadata: { name: string }; data?: Record<string, string> })
      .filter((d) => d?.kind !== undefined);
    const secret = docs.find(
      (d) => d.kind === 'Secret' && d.metadata.name === 'agw-agent-gateway-redis-encryption',
    );
    expect(Buffer.from(secret?.data?.['key'] ?? '', 'base64').toString('utf8')).toMatch(/^[A-Za-z0-9]{48}$/);
    const configMap = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'agw-agent-gateway');
    const parsed = GatewayConfigSchema.safeParse(parse(configMap?.data?.['gateway.yaml'] ?? ''));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data?.sharedState.encryption?.keys).toEqual([{ env: 'AGW_REDIS_ENCRYPTION_KEY_0' }]);
  });

  it('helm:user-connections — publicUrl and the PostgreSQL connection store with a chart-made key Secret render a config the gateway accepts (issue 42)', async () => {
    const docs = parseAllDocuments(
      await helmOk([
        ...TEMPLATE,
        '--set',
        'gateway.publicUrl=https://gw.example.com',
        '--set',
        'userConnections.postgres.enabled=true',
        '--set',
        'userConnections.postgres.connectionStringSecret.name=conn-pg',
      ]),
    )
      .map(
        (d) =>
          d.toJS() as {
            kind?: string;
            metadata: { name: string };
            data?: Record<string, string>;
            spec?: unknown;
          },
      )
      .filter((d) => d?.kind !== undefined);
    const secret = docs.find(
      (d) => d.kind === 'Secret' && d.metadata.name === 'agw-agent-gateway-connection-keys',
    );
    expect(Buffer.from(secret?.data?.['key'] ?? '', 'base64').toString('utf8')).toMatch(/^[A-Za-z0-9]{48}$/);
    const configMap = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'agw-agent-gateway');
    const parsed = GatewayConfigSchema.safeParse(parse(configMap?.data?.['gateway.yaml'] ?? ''));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data?.server.publicUrl).toBe('https://gw.example.com');
    expect(parsed.data?.userConnections).toMatchObject({
      postgres: { connectionString: { env: 'AGW_CONNECTIONS_POSTGRES_URL' } },
      encryption: { keys: [{ env: 'AGW_CONNECTION_KEY_0' }] },
    });
    const deployment = JSON.stringify(
      docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'agw-agent-gateway'),
    );
    expect(deployment).toContain(
      '"name":"AGW_CONNECTIONS_POSTGRES_URL","valueFrom":{"secretKeyRef":{"name":"conn-pg","key":"url"}}',
    );
    expect(deployment).toContain(
      '"name":"AGW_CONNECTION_KEY_0","valueFrom":{"secretKeyRef":{"name":"agw-agent-gateway-connection-keys","key":"key"}}',
    );
    const missing = await helm([...TEMPLATE, '--set', 'userConnections.postgres.enabled=true']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('userConnections.postgres.connectionStringSecret.name is required');
  });

  it('helm:values-schema — wrong types and unknown keys are refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agw-helm-values-'));
    try {
      for (const [name, values, complaint] of [
        ['type', { gateway: { replicas: 'two' } }, '/gateway/replicas'],
        ['unknown', { gateway: { replicaCount: 2 } }, "additional properties 'replicaCount'"],
        ['top-level', { redis: { url: 'redis://x' } }, "additional properties 'redis'"],
        ['enum', { operator: { scope: 'everything' } }, '/operator/scope'],
        ['policy', { policy: { network: { defaultAction: 'maybe' } } }, '/policy/network/defaultAction'],
        ['policy-root', { policy: { files: { allowedRoots: ['data'] } } }, '/policy/files/allowedRoots/0'],
        ['policy-cidr', { policy: { network: { denyCidrs: ['ten/8'] } } }, '/policy/network/denyCidrs/0'],
        ['policy-key', { policy: { network: { deny: ['10.0.0.0/8'] } } }, "additional properties 'deny'"],
        ['prestop', { gateway: { preStopSleepSeconds: -1 } }, '/gateway/preStopSleepSeconds'],
        ['drain', { gateway: { drainDelayMs: 'soon' } }, '/gateway/drainDelayMs'],
        // NODE_OPTIONS takes flags only (--name or --name=value), no other text.
        [
          'node-options',
          { gateway: { nodeOptions: '--max-old-space-size=256; id' } },
          '/gateway/nodeOptions',
        ],
        ['node-options-op', { operator: { nodeOptions: 'max-old-space-size=1' } }, '/operator/nodeOptions'],
      ] as const) {
        const path = join(dir, `${name}.yaml`);
        await writeFile(path, stringify(values));
        const result = await helm(['template', RELEASE, CHART, '-f', path]);
        expect(result.code, name).not.toBe(0);
        expect(result.stderr).toContain(complaint);
      }
      // A feature turned on without the Secret it needs is refused with the value's name.
      const path = join(dir, 'redis.yaml');
      await writeFile(path, stringify({ sharedState: { redis: { enabled: true } } }));
      expect((await helm(['template', RELEASE, CHART, '-f', path])).stderr).toContain(
        'sharedState.redis.urlSecret.name',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('helm:graceful-termination — the preStop sleep, the drain and the grace period fit together; the gateway accepts the drain config', async () => {
    interface Rendered {
      kind?: string;
      metadata: { name: string };
      data?: Record<string, string>;
      spec?: {
        template: {
          spec: {
            terminationGracePeriodSeconds: number;
            containers: {
              name: string;
              lifecycle?: { preStop?: { sleep?: { seconds: number } } };
              readinessProbe?: { periodSeconds: number; failureThreshold: number };
            }[];
          };
        };
      };
    }
    const render = async (...set: string[]) => {
      const docs = parseAllDocuments(
        await helmOk(['template', RELEASE, CHART, ...set.flatMap((value) => ['--set', value])]),
      )
        .map((d) => d.toJS() as Rendered)
        .filter((d) => d?.kind !== undefined);
      const pod = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'agw-agent-gateway')?.spec
        ?.template.spec;
      const configMap = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'agw-agent-gateway');
      const config = GatewayConfigSchema.parse(parse(configMap?.data?.['gateway.yaml'] ?? ''));
      return { pod, gateway: pod?.containers.find((c) => c.name === 'gateway'), server: config.server };
    };
    const defaults = await render();
    expect(defaults.gateway?.lifecycle).toEqual({ preStop: { sleep: { seconds: 5 } } });
    expect(defaults.server).toMatchObject({ drainDelayMs: 3000, shutdownGraceMs: 10_000 });
    // Sleep, then the whole shutdown, then time to exit: the kubelet never kills a drain.
    expect(defaults.pod?.terminationGracePeriodSeconds).toBe(5 + 10 + 5);
    expect(defaults.gateway?.readinessProbe).toMatchObject({ periodSeconds: 5, failureThreshold: 2 });

    const tuned = await render(
      'gateway.preStopSleepSeconds=12',
      'gateway.shutdownGraceMs=30500',
      'gateway.drainDelayMs=8000',
    );
    expect(tuned.gateway?.lifecycle?.preStop?.sleep?.seconds).toBe(12);
    expect(tuned.server).toMatchObject({ drainDelayMs: 8000, shutdownGraceMs: 30_500 });
    expect(tuned.pod?.terminationGracePeriodSeconds).toBe(12 + 31 + 5);

    const noSleep = await render('gateway.preStopSleepSeconds=0');
    expect(noSleep.gateway?.lifecycle).toBeUndefined();
    expect(noSleep.pod?.terminationGracePeriodSeconds).toBe(10 + 5);

    // A drain as long as the grace is refused with the values' names, not by a crashing pod.
    const refused = await helm(['template', RELEASE, CHART, '--set', 'gateway.drainDelayMs=10000']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('gateway.drainDelayMs must be less than gateway.shutdownGraceMs');
  });

  it('helm:embeddings — off by default; enabled renders the gateway-wide provider with the gateway’s own defaults and its key from a Secret; a missing model or baseUrl fails with the value’s name', async () => {
    interface Rendered {
      kind?: string;
      metadata: { name: string };
      data?: Record<string, string>;
      spec?: { template: { spec: { containers: { name: string; env?: { name: string }[] }[] } } };
    }
    const render = async (...set: string[]) => {
      const docs = parseAllDocuments(
        await helmOk(['template', RELEASE, CHART, ...set.flatMap((value) => ['--set', value])]),
      )
        .map((d) => d.toJS() as Rendered)
        .filter((d) => d?.kind !== undefined);
      const gateway = docs
        .find((d) => d.kind === 'Deployment' && d.metadata.name === 'agw-agent-gateway')
        ?.spec?.template.spec.containers.find((c) => c.name === 'gateway');
      const configMap = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'agw-agent-gateway');
      const validated = validateConfig(parse(configMap?.data?.['gateway.yaml'] ?? ''));
      if (!validated.ok) throw new Error(JSON.stringify(validated.problems));
      return { config: validated.config, env: gateway?.env ?? [] };
    };
    const off = await render();
    expect(off.config.knowledge.embeddings).toBeUndefined();
    expect(off.env.map((e) => e.name)).not.toContain('AGW_EMBEDDINGS_API_KEY');

    const on = await render(
      'knowledge.embeddings.enabled=true',
      'knowledge.embeddings.baseUrl=https://api.openai.com/v1',
      'knowledge.embeddings.model=text-embedding-3-small',
      'knowledge.embeddings.apiKeySecret.name=openai',
    );
    // The chart's defaults are the gateway's (values.yaml would otherwise pin stale ones).
    expect(on.config.knowledge.embeddings).toEqual(
      EmbeddingsSchema.parse({
        baseUrl: 'https://api.openai.com/v1',
        model: 'text-embedding-3-small',
        apiKey: { env: 'AGW_EMBEDDINGS_API_KEY' },
      }),
    );
    expect(embeddingsFor(on.config, 'any-workspace')?.model).toBe('text-embedding-3-small');
    expect(on.env).toContainEqual({
      name: 'AGW_EMBEDDINGS_API_KEY',
      valueFrom: { secretKeyRef: { name: 'openai', key: 'api-key' } },
    });
    const tuned = await render(
      'knowledge.embeddings.enabled=true',
      'knowledge.embeddings.baseUrl=http://ollama.models:11434/v1',
      'knowledge.embeddings.model=nomic-embed-text',
      'knowledge.embeddings.dimensions=768',
      'knowledge.embeddings.requestsPerMinute=600',
      'knowledge.embeddings.cacheMaxEntries=1000000',
    );
    expect(tuned.config.knowledge.embeddings).toMatchObject({
      dimensions: 768,
      requestsPerMinute: 600,
      cacheMaxEntries: 1_000_000,
    });
    expect(tuned.config.knowledge.embeddings?.apiKey).toBeUndefined();
    expect(tuned.env.map((e) => e.name)).not.toContain('AGW_EMBEDDINGS_API_KEY');

    for (const [set, complaint] of [
      [['knowledge.embeddings.baseUrl=https://x.example/v1'], 'knowledge.embeddings.model is required'],
      [['knowledge.embeddings.model=m'], 'knowledge.embeddings.baseUrl is required'],
      [['knowledge.embeddings.baseUrl=https://u:p@x.example/v1'], '/knowledge/embeddings/baseUrl'],
      [['knowledge.embeddings.concurrency=99'], '/knowledge/embeddings/concurrency'],
    ] as const) {
      const result = await helm([
        'template',
        RELEASE,
        CHART,
        ...['knowledge.embeddings.enabled=true', ...set].flatMap((value) => ['--set', value]),
      ]);
      expect(result.code, complaint).not.toBe(0);
      expect(result.stderr).toContain(complaint);
    }

    // The values schema bounds are the config contract's (0 means unset where the contract has none).
    const schema = JSON.parse(await readFile(join(CHART, 'values.schema.json'), 'utf8')) as {
      properties: { knowledge: { properties: { embeddings: { properties: Record<string, Bounds> } } } };
    };
    interface Bounds {
      readonly minimum?: number;
      readonly maximum?: number;
    }
    const contract = z.toJSONSchema(EmbeddingsSchema, { io: 'input' }) as {
      properties: Record<string, Bounds>;
    };
    const values = schema.properties.knowledge.properties.embeddings.properties;
    for (const [field, bounds] of Object.entries(contract.properties)) {
      if (bounds.minimum === undefined) continue;
      const optional = ['dimensions', 'requestsPerMinute', 'passTimeoutMs'].includes(field);
      expect(values[field], field).toMatchObject({
        minimum: optional ? 0 : bounds.minimum,
        maximum: bounds.maximum,
      });
    }
  });

  it('helm:least-privilege — rendered RBAC: the gateway only reads Secrets and ConfigMaps of its namespace', async () => {
    const docs = parseAllDocuments(await helmOk(['template', RELEASE, CHART, '--namespace', 'agent-gateway']))
      .map(
        (d) =>
          d.toJS() as {
            kind?: string;
            metadata: { name: string };
            rules?: { verbs: string[]; resources: string[] }[];
          },
      )
      .filter((d) => d?.kind !== undefined);
    // Namespace scope binds one thing cluster-wide: the operator may create TokenReviews (a
    // cluster-scoped kind) to check the gateways' pinning reports (issue 41), and nothing else. The
    // other ClusterRoles are the tenant roles the built-in admin/edit/view aggregate (bound to
    // nobody by the chart).
    const bindings = docs.filter((d) => d.kind === 'ClusterRoleBinding') as unknown as {
      roleRef: { name: string };
      subjects: { kind: string; name: string }[];
    }[];
    expect(bindings.map((b) => [b.roleRef.name, b.subjects])).toEqual([
      [
        'agent-gateway-agw-agent-gateway-operator-tokenreview',
        [{ kind: 'ServiceAccount', name: 'agw-agent-gateway-operator', namespace: 'agent-gateway' }],
      ],
    ]);
    const allClusterRoles = docs.filter((d) => d.kind === 'ClusterRole') as unknown as {
      metadata: { name: string; labels: Record<string, string> };
      rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    }[];
    expect(allClusterRoles.find((r) => r.metadata.name.endsWith('-tokenreview'))?.rules).toEqual([
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
    ]);
    const clusterRoles = allClusterRoles.filter((r) => !r.metadata.name.endsWith('-tokenreview'));
    expect(clusterRoles.map((r) => r.metadata.name).sort()).toEqual([
      'agent-gateway-agw-agent-gateway-tenant-edit',
      'agent-gateway-agw-agent-gateway-tenant-view',
    ]);
    const edit = clusterRoles.find((r) => r.metadata.name.endsWith('tenant-edit'));
    const view = clusterRoles.find((r) => r.metadata.name.endsWith('tenant-view'));
    expect(edit?.metadata.labels).toMatchObject({
      'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
      'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
    });
    expect(view?.metadata.labels).toMatchObject({ 'rbac.authorization.k8s.io/aggregate-to-view': 'true' });
    // Tenants never write status (the operator owns it), nor anything outside the four kinds.
    for (const role of clusterRoles)
      for (const rule of role.rules) {
        expect(rule.apiGroups).toEqual(['agentgateway.dev']);
        if (rule.resources.some((r) => r.endsWith('/status')))
          expect(rule.verbs).toEqual(['get', 'list', 'watch']);
      }
    expect(edit?.rules.flatMap((r) => r.resources)).toEqual([
      'workspaces',
      'apikeys',
      'mcpsources',
      'datasources',
    ]);
    // The operator may record Events (key issued, rendered, refused).
    const operatorWatch = docs.find(
      (d) => d.kind === 'Role' && d.metadata.name === 'agw-agent-gateway-operator-watch',
    );
    expect(operatorWatch?.rules).toContainEqual({
      apiGroups: [''],
      resources: ['events'],
      verbs: ['create', 'patch'],
    });
    // The policy reaches both: the operator's --policy file and the gateway's base config.
    const operatorDeployment = docs.find(
      (d) => d.kind === 'Deployment' && d.metadata.name.endsWith('-operator'),
    ) as unknown as {
      spec: { template: { spec: { containers: { args: string[] }[] } } };
    };
    expect(operatorDeployment.spec.template.spec.containers[0]?.args).toContain('--policy');
    const gatewayConfig = docs.find(
      (d) => d.kind === 'ConfigMap' && d.metadata.name === 'agw-agent-gateway',
    ) as unknown as {
      data: Record<string, string>;
    };
    expect((parse(gatewayConfig.data['gateway.yaml'] ?? '') as { policy?: unknown }).policy).toMatchObject({
      files: { allowedRoots: ['/data/{namespace}'] },
      stdio: 'deny',
    });
    const gatewayRole = docs.find((d) => d.kind === 'Role' && d.metadata.name === 'agw-agent-gateway');
    expect(gatewayRole?.rules).toEqual([
      { apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ['get', 'list', 'watch'] },
    ]);
  });

  it('helm:tenant-policy — one policy for the operator file and the gateway config, tenant roles and Events per scope', async () => {
    interface Doc {
      kind?: string;
      metadata: { name: string; labels?: Record<string, string> };
      data?: Record<string, string>;
      rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
      spec?: {
        template: {
          metadata: { annotations?: Record<string, string> };
          spec: {
            containers: { args: string[]; volumeMounts: { name: string; mountPath: string }[] }[];
            volumes: { name: string; configMap?: { name: string } }[];
          };
        };
      };
    }
    const render = async (...set: string[]) =>
      parseAllDocuments(await helmOk([...TEMPLATE, ...set.flatMap((s) => ['--set', s])]))
        .map((d) => d.toJS() as Doc)
        .filter((d) => d?.kind !== undefined);
    const find = (docs: Doc[], kind: string, name: string) =>
      docs.find((d) => d.kind === kind && d.metadata.name === name);

    const docs = await render('policy.network.denyCidrs={10.96.0.0/12}', 'policy.stdio=deny');
    // The operator reads the file the ConfigMap holds, mounted where --policy points.
    const deployment = find(docs, 'Deployment', 'agw-agent-gateway-operator');
    const pod = deployment?.spec?.template;
    const args = pod?.spec.containers[0]?.args ?? [];
    expect(args[args.indexOf('--policy') + 1]).toBe('/etc/agent-gateway/policy/policy.yaml');
    expect(pod?.spec.containers[0]?.volumeMounts).toContainEqual(
      expect.objectContaining({ name: 'policy', mountPath: '/etc/agent-gateway/policy' }),
    );
    expect(pod?.spec.volumes).toContainEqual({
      name: 'policy',
      configMap: { name: 'agw-agent-gateway-operator-policy' },
    });
    expect(pod?.metadata.annotations?.['checksum/policy']).toMatch(/^[0-9a-f]{64}$/);
    // Both read the same block, and it is what the gateway's own schema accepts.
    const operatorPolicy = parse(
      find(docs, 'ConfigMap', 'agw-agent-gateway-operator-policy')?.data?.['policy.yaml'] ?? '',
    ) as unknown;
    const gatewayConfig = parse(
      find(docs, 'ConfigMap', 'agw-agent-gateway')?.data?.['gateway.yaml'] ?? '',
    ) as {
      policy?: unknown;
    };
    expect(gatewayConfig.policy).toEqual(operatorPolicy);
    const policy = TenantPolicySchema.safeParse(operatorPolicy);
    expect(policy.success, JSON.stringify(policy.error?.issues)).toBe(true);
    expect(policy.data?.network.denyCidrs).toEqual(['10.96.0.0/12']);
    // A policy change rolls the operator (and, through the base config's checksum, the gateways).
    const changed = await render('policy.network.denyCidrs={10.96.0.0/12,10.244.0.0/16}');
    const checksum = (d: Doc[], name: string, key: string) =>
      find(d, 'Deployment', name)?.spec?.template.metadata.annotations?.[key];
    expect(checksum(changed, 'agw-agent-gateway-operator', 'checksum/policy')).not.toBe(
      checksum(docs, 'agw-agent-gateway-operator', 'checksum/policy'),
    );
    expect(checksum(changed, 'agw-agent-gateway', 'checksum/config')).not.toBe(
      checksum(docs, 'agw-agent-gateway', 'checksum/config'),
    );

    // The tenant roles: every write verb on the four kinds for admin/edit, reads for view, no
    // status writes for anyone.
    const edit = find(docs, 'ClusterRole', 'agent-gateway-agw-agent-gateway-tenant-edit');
    const view = find(docs, 'ClusterRole', 'agent-gateway-agw-agent-gateway-tenant-view');
    expect(edit?.rules).toEqual([
      {
        apiGroups: ['agentgateway.dev'],
        resources: ['workspaces', 'apikeys', 'mcpsources', 'datasources'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
      },
    ]);
    expect(view?.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-edit']).toBeUndefined();
    expect(view?.rules).toHaveLength(1);
    expect(view?.rules?.[0]?.verbs).toEqual(['get', 'list', 'watch']);
    expect([...(view?.rules?.[0]?.resources ?? [])].sort()).toEqual(
      ['workspaces', 'apikeys', 'mcpsources', 'datasources'].flatMap((r) => [r, `${r}/status`]).sort(),
    );
    // Off: no tenant roles at all (the admin grants rights some other way).
    const off = await render('rbac.aggregateToDefaultRoles=false');
    expect(off.filter((d) => d.metadata.name.includes('tenant-'))).toEqual([]);

    // Cluster scope: the operator records Events in every tenant namespace (a ClusterRole).
    const cluster = await render('operator.scope=cluster');
    expect(find(cluster, 'ClusterRole', 'agent-gateway-agw-agent-gateway-operator')?.rules).toContainEqual({
      apiGroups: [''],
      resources: ['events'],
      verbs: ['create', 'patch'],
    });
    expect(find(cluster, 'Role', 'agw-agent-gateway-operator-watch')).toBeUndefined();
  });
});

describe('the chart on a real API server', () => {
  let ns: string;
  let other: string;
  let dir: string;
  let upstream: RunningModernServer;
  let operator: Child | undefined;
  let gateway: { child: Child; url: string } | undefined;
  let operatorMetricsPort = 0;
  const gatewaySa = () => `system:serviceaccount:${ns}:agw-agent-gateway`;
  const operatorSa = () => `system:serviceaccount:${ns}:agw-agent-gateway-operator`;

  beforeAll(async () => {
    ns = await freshNamespace('helm');
    other = await freshNamespace('helm-other');
    dir = await mkdtemp(join(tmpdir(), 'agw-helm-'));
    upstream = await startModernServer({ bearerToken: 'replace-with-the-upstream-token' });
  }, 60_000);

  afterAll(async () => {
    await gateway?.child.stop();
    await operator?.stop();
    await upstream?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const canI = async (as: string, verb: string, resource: string, namespace: string) => {
    const [plural, subresource] = resource.split('/');
    const args = ['auth', 'can-i', verb, plural as string, '-n', namespace, `--as=${as}`];
    if (subresource !== undefined) args.push(`--subresource=${subresource}`);
    return (await kubectl(args)).stdout.trim();
  };

  /** A kubeconfig for a ServiceAccount: the API server and CA of the admin's, a TokenRequest token. */
  async function serviceAccountKubeconfig(serviceAccount: string): Promise<string> {
    const token = (await kubectlOk(['create', 'token', serviceAccount, '-n', ns, '--duration', '1h'])).trim();
    const admin = parse(await readFile(kubeconfigPath(), 'utf8')) as {
      clusters: { name: string; cluster: Record<string, unknown> }[];
    };
    const cluster = admin.clusters[0] as { cluster: Record<string, unknown> };
    const path = join(dir, `${serviceAccount}.kubeconfig`);
    await writeFile(
      path,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'test', cluster: cluster.cluster }],
        users: [{ name: serviceAccount, user: { token } }],
        contexts: [{ name: 'sa', context: { cluster: 'test', user: serviceAccount, namespace: ns } }],
        'current-context': 'sa',
      }),
    );
    return path;
  }

  it('helm:install — dry-run=server, then install: the objects exist, with the expected RBAC', async () => {
    const dry = await helm(['install', RELEASE, CHART, '-n', ns, '--dry-run=server']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(await kubectl(['get', 'deployment', 'agw-agent-gateway', '-n', ns])).toMatchObject({ code: 1 });

    // This test's upstream listens on loopback, which the default policy denies: an admin's
    // explicit exception, as a cluster admin would add one for a sidecar.
    const values = join(dir, 'loopback-values.yaml');
    await writeFile(
      values,
      stringify({ policy: { network: { allow: { cidrs: ['127.0.0.0/8'], hosts: [] } } } }),
    );
    await helmOk(['install', RELEASE, CHART, '-n', ns, '-f', values]);
    const names = (kind: string) =>
      kubectlOk([
        'get',
        kind,
        '-n',
        ns,
        '-l',
        'app.kubernetes.io/instance=agw',
        '-o',
        'jsonpath={.items[*].metadata.name}',
      ]);
    expect((await names('deployments')).split(' ').sort()).toEqual([
      'agw-agent-gateway',
      'agw-agent-gateway-operator',
    ]);
    expect(await names('services')).toBe('agw-agent-gateway agw-agent-gateway-operator-wake');
    expect((await names('serviceaccounts')).split(' ').sort()).toEqual([
      'agw-agent-gateway',
      'agw-agent-gateway-operator',
    ]);
    expect(await names('poddisruptionbudgets')).toBe('agw-agent-gateway');
    expect((await names('configmaps')).split(' ').sort()).toEqual([
      'agw-agent-gateway',
      'agw-agent-gateway-operator-policy',
    ]);
    const operatorReplicas = await kubectlOk([
      'get',
      'deployment',
      'agw-agent-gateway-operator',
      '-n',
      ns,
      '-o',
      'jsonpath={.spec.replicas}',
    ]);
    expect(operatorReplicas).toBe('2');

    // The gateway: reads Secrets and ConfigMaps of its namespace, nothing else anywhere.
    expect(await canI(gatewaySa(), 'get', 'secrets', ns)).toBe('yes');
    expect(await canI(gatewaySa(), 'watch', 'configmaps', ns)).toBe('yes');
    for (const [verb, resource] of [
      ['create', 'secrets'],
      ['patch', 'configmaps'],
      ['delete', 'secrets'],
      ['list', 'workspaces.agentgateway.dev'],
      ['list', 'pods'],
    ] as const)
      expect(await canI(gatewaySa(), verb, resource, ns), `${verb} ${resource}`).toBe('no');
    expect(await canI(gatewaySa(), 'get', 'secrets', other)).toBe('no');
    expect(await canI(gatewaySa(), 'list', 'secrets', 'kube-system')).toBe('no');
    // The operator (scope: namespace): its resources and Secrets here, nothing in other namespaces.
    expect(await canI(operatorSa(), 'create', 'secrets', ns)).toBe('yes');
    expect(await canI(operatorSa(), 'patch', 'workspaces.agentgateway.dev/status', ns)).toBe('yes');
    expect(await canI(operatorSa(), 'update', 'leases.coordination.k8s.io', ns)).toBe('yes');
    expect(await canI(operatorSa(), 'list', 'secrets', other)).toBe('no');
    expect(await canI(operatorSa(), 'list', 'workspaces.agentgateway.dev', other)).toBe('no');
    expect(await canI(operatorSa(), 'update', 'workspaces.agentgateway.dev', ns)).toBe('no');
    // McpSource spec.run (issue 40): its server's Deployment, Service and NetworkPolicy here, by
    // Server-Side Apply; nothing else of workloads (no pods, no update, not elsewhere).
    expect(await canI(operatorSa(), 'create', 'deployments.apps', ns)).toBe('yes');
    expect(await canI(operatorSa(), 'patch', 'services', ns)).toBe('yes');
    expect(await canI(operatorSa(), 'delete', 'networkpolicies.networking.k8s.io', ns)).toBe('yes');
    expect(await canI(operatorSa(), 'get', 'services', ns)).toBe('no');
    expect(await canI(operatorSa(), 'update', 'deployments.apps', ns)).toBe('no');
    expect(await canI(operatorSa(), 'create', 'pods', ns)).toBe('no');
    expect(await canI(operatorSa(), 'create', 'deployments.apps', other)).toBe('no');
    // Events on the resources it reconciles: create and patch here, nothing more, nowhere else.
    expect(await canI(operatorSa(), 'create', 'events', ns)).toBe('yes');
    expect(await canI(operatorSa(), 'patch', 'events', ns)).toBe('yes');
    expect(await canI(operatorSa(), 'delete', 'events', ns)).toBe('no');
    expect(await canI(operatorSa(), 'create', 'events', other)).toBe('no');

    // The tenant roles. This API server runs no controller-manager, so nothing aggregates them into
    // admin/edit/view here; bound directly in a tenant namespace, they show what those roles gain.
    for (const [user, role] of [
      ['tenant-editor', 'tenant-edit'],
      ['tenant-viewer', 'tenant-view'],
    ] as const)
      await kubectlOk([
        'create',
        'rolebinding',
        user,
        '-n',
        other,
        `--clusterrole=${ns}-agw-agent-gateway-${role}`,
        `--user=${user}`,
      ]);
    expect(await canI('tenant-editor', 'create', 'workspaces.agentgateway.dev', other)).toBe('yes');
    expect(await canI('tenant-editor', 'deletecollection', 'apikeys.agentgateway.dev', other)).toBe('yes');
    expect(await canI('tenant-editor', 'update', 'datasources.agentgateway.dev', other)).toBe('yes');
    expect(await canI('tenant-editor', 'patch', 'workspaces.agentgateway.dev/status', other)).toBe('no');
    expect(await canI('tenant-editor', 'update', 'mcpsources.agentgateway.dev/status', other)).toBe('no');
    expect(await canI('tenant-editor', 'create', 'workspaces.agentgateway.dev', ns)).toBe('no');
    expect(await canI('tenant-editor', 'get', 'secrets', other)).toBe('no');
    expect(await canI('tenant-viewer', 'get', 'apikeys.agentgateway.dev/status', other)).toBe('yes');
    expect(await canI('tenant-viewer', 'list', 'datasources.agentgateway.dev', other)).toBe('yes');
    expect(await canI('tenant-viewer', 'create', 'mcpsources.agentgateway.dev', other)).toBe('no');
    expect(await canI('tenant-viewer', 'patch', 'apikeys.agentgateway.dev/status', other)).toBe('no');
  }, 120_000);

  it("helm:serviceaccount-tokens — operator and gateway with the chart ServiceAccounts' tokens: a first agent call works", async () => {
    // The base config exactly as the chart renders it, with the paths of a pod made local.
    const base = await kubectlOk([
      'get',
      'configmap',
      'agw-agent-gateway',
      '-n',
      ns,
      '-o',
      'jsonpath={.data.gateway\\.yaml}',
    ]);
    const config = parse(base) as { knowledge: { sqlitePath?: string } };
    expect(config.knowledge.sqlitePath).toBe('/var/lib/agent-gateway/knowledge.db');
    config.knowledge.sqlitePath = join(dir, 'knowledge.db');
    const configPath = join(dir, 'gateway.yaml');
    await writeFile(configPath, stringify(config));

    // The operator's --policy file exactly as the chart mounts it.
    const policyPath = join(dir, 'policy.yaml');
    await writeFile(
      policyPath,
      await kubectlOk([
        'get',
        'configmap',
        'agw-agent-gateway-operator-policy',
        '-n',
        ns,
        '-o',
        'jsonpath={.data.policy\\.yaml}',
      ]),
    );
    operator = await startOperator({
      gatewayNamespace: ns,
      policyPath,
      kubeconfig: await serviceAccountKubeconfig('agw-agent-gateway-operator'),
      extraArgs: ['--scope', 'namespace', '--health-port', '0', '--health-host', '127.0.0.1'],
      // The operator's metrics, as the chart's otel values would turn them on (no trace collector here).
      env: operatorMetricsEnv((operatorMetricsPort = await freePort())),
    });
    const healthPort = /probes on port (\d+)/.exec(operator.line)?.[1];
    expect(healthPort).toBeDefined();
    await until('the operator to be ready', async () =>
      (await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status === 200 ? true : undefined,
    );

    // The README's commands on the example files, with two changes: the McpSource's url points at
    // the test's upstream, and the workspace is named helm-acme. Workspace names are cluster-wide,
    // and the Kubernetes e2e test's cluster-scoped operator shares this API server and its own acme.
    const example = async (file: string) => {
      const path = join(dir, file);
      const text = (await readFile(join('examples/kubernetes', file), 'utf8'))
        .replace('http://docs-mcp.example.svc:8080/mcp', upstream.url)
        .replace(/name: acme$/gm, 'name: helm-acme');
      await writeFile(path, text);
      return path;
    };
    await kubectlOk([
      '-n',
      ns,
      'apply',
      '-f',
      await example('workspace.yaml'),
      '-f',
      await example('apikey.yaml'),
      '-f',
      await example('mcpsource.yaml'),
    ]);
    await kubectlOk([
      'wait',
      '-n',
      ns,
      '--for=condition=Ready',
      '--timeout=60s',
      'workspace/helm-acme',
      'apikey/ci-reader',
      'mcpsource/docs',
    ]);
    // Events are best effort (a refused write is only logged), so seeing one is the proof that the
    // chart's Role lets the operator record them.
    await until('the KeyIssued Event', async () => {
      const reasons = await kubectlOk([
        'get',
        'events',
        '-n',
        ns,
        '--field-selector',
        'involvedObject.kind=ApiKey,involvedObject.name=ci-reader',
        '-o',
        'jsonpath={.items[*].reason}',
      ]);
      return reasons.split(' ').includes('KeyIssued') ? true : undefined;
    });

    gateway = await startKubeGateway({
      namespace: ns,
      kubeconfig: await serviceAccountKubeconfig('agw-agent-gateway'),
      baseConfigPath: configPath,
      extraArgs: ['--host', '127.0.0.1'],
    });
    const key = await readIssuedKey(ns, 'ci-reader');
    const url = gateway.url;
    const tools = await until('the first /agent/tools', async () => {
      const response = await get(`${url}/agent/tools?response_format=json`, key);
      if (response.status !== 200) return undefined;
      const body = (await response.json()) as { tools: { name: string }[] };
      return body.tools.length > 0 ? body.tools : undefined;
    });
    expect(tools.map((t) => t.name)).toContain('docs__echo');
    const call = (await (
      await mcpPost(url, key, {
        method: 'tools/call',
        params: { name: 'docs__echo', arguments: { text: 'via the chart' } },
      })
    ).json()) as { result?: { content: { text: string }[] } };
    expect(call.result?.content[0]?.text).toBe('via the chart');
  }, 120_000);

  it('otel:operator-metrics — the operator started with the chart ServiceAccount exports leader status, queue depth and reconcile durations', async () => {
    // The operator's own metrics: it leads, its queue drained, and reconciles were timed.
    const families = new Map(
      parsePrometheusTextFormat(
        await (await fetch(`http://127.0.0.1:${operatorMetricsPort}/metrics`)).text(),
      ).map((family) => [family.name, family] as const),
    );
    expect(families.get('agw_operator_leader')?.metrics[0]?.value).toBe('1');
    expect(families.get('agw_operator_queue_depth')?.type).toBe('GAUGE');
    expect(families.get('agw_operator_reconcile_duration')?.type).toBe('HISTOGRAM');
  });

  it('helm:upgrade-uninstall — upgrade to the HA values (cluster scope), then uninstall removes the release', async () => {
    await helmOk(['upgrade', RELEASE, CHART, '-n', ns, '-f', join(CHART, 'ci', 'ha-values.yaml')]);
    expect(
      await kubectlOk(['get', 'hpa', 'agw-agent-gateway', '-n', ns, '-o', 'jsonpath={.spec.minReplicas}']),
    ).toBe('3');
    expect(
      await kubectlOk(['get', 'networkpolicy', '-n', ns, '-o', 'jsonpath={.items[*].metadata.name}']),
    ).toContain('agw-agent-gateway');
    // Cluster scope: the operator now watches every namespace; the gateway still reads only its own.
    expect(await canI(operatorSa(), 'list', 'secrets', other)).toBe('yes');
    expect(await canI(operatorSa(), 'list', 'workspaces.agentgateway.dev', other)).toBe('yes');
    expect(await canI(operatorSa(), 'create', 'events', other)).toBe('yes');
    expect(await canI(gatewaySa(), 'get', 'secrets', other)).toBe('no');
    const status = parse(await helmOk(['status', RELEASE, '-n', ns, '-o', 'yaml'])) as { version: number };
    expect(status.version).toBe(2);

    await helmOk(['uninstall', RELEASE, '-n', ns, '--wait']);
    expect(
      await kubectlOk([
        'get',
        'deployments,services,roles,rolebindings,serviceaccounts',
        '-n',
        ns,
        '-l',
        'app.kubernetes.io/instance=agw',
        '-o',
        'name',
      ]),
    ).toBe('');
    expect((await kubectl(['get', 'clusterrole', `${ns}-agw-agent-gateway-operator`])).code).not.toBe(0);
    expect((await kubectl(['get', 'clusterrole', `${ns}-agw-agent-gateway-tenant-edit`])).code).not.toBe(0);
    // CRDs stay (Helm never deletes crds/), and so do the users' resources.
    expect((await kubectl(['get', 'crd', 'workspaces.agentgateway.dev'])).code).toBe(0);
    expect((await kubectl(['get', 'workspace', 'helm-acme', '-n', ns])).code).toBe(0);
    // Leave nothing a cluster-scoped operator of another test could pick up.
    await kubectl([
      'delete',
      '-n',
      ns,
      'workspace/helm-acme',
      'apikey/ci-reader',
      'mcpsource/docs',
      '--wait=false',
    ]);
  }, 120_000);
});
