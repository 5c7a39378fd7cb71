// McpSource spec.run (issue 40, D25): the admin's bounds as refusal conditions, the hardened
// Deployment, the Service, the NetworkPolicy and the bridge wiring as the operator renders them,
// and the source the gateways get (the Service url, the workload mark, the minted token). Pure.
import { describe, expect, it } from 'vitest';
import { McpSourceSchema, TenantPolicySchema, type TenantPolicy } from '../../../gateway/config/index.js';
import { credentialSecretName } from '../../../gateway/config/kube/index.js';
import { ReachPolicy } from '../../../gateway/reach/index.js';
import type { McpRun } from '../../../operator/api/v1alpha1/index.js';
import type { PlanInput } from '../../../operator/controllers/plan/plan-input.js';
import type { McpSourceView } from '../../../operator/controllers/plan/resource-views.js';
import {
  normaliseImage,
  planRun,
  type RunPlan,
  type WorkloadSettings,
} from '../../../operator/controllers/plan/workload-plan.js';
import { renderWorkload } from '../../../operator/controllers/plan/workload-render.js';
import { planWorkspace } from '../../../operator/controllers/plan/workspace-plan.js';
import { meta, planInput, secretReader, TENANT as ns } from '../../support/operator-objects.js';

const settings: WorkloadSettings = {
  bridgeImage: 'ghcr.io/agent-gateway/agent-gateway:1.0.0',
  gatewayNamespace: 'agw-system',
  gatewayPodLabels: { 'app.kubernetes.io/name': 'agent-gateway', 'app.kubernetes.io/component': 'gateway' },
  clusterDomain: 'cluster.local',
};

function policy(
  workloads: Record<string, unknown> = {},
  network: Record<string, unknown> = {},
): TenantPolicy {
  return TenantPolicySchema.parse({
    workloads: { allowedImages: ['registry.example.com/mcp/'], ...workloads },
    network,
  });
}

const STDIO: McpRun = {
  image: 'registry.example.com/mcp/fetch:1.2',
  transport: 'stdio',
  command: ['mcp-server-fetch'],
  args: ['--ignore-robots-txt'],
};

function source(run: McpRun, name = 'fetch', extra: Record<string, unknown> = {}): McpSourceView {
  return {
    metadata: { ...meta(name), uid: `uid-${name}` },
    spec: { workspaceRef: { name: 'demo' }, run, ...extra },
  };
}

function plan(run: McpRun, tenantPolicy = policy(), secrets = {}): RunPlan {
  const planned = planRun(source(run), run, {
    settings,
    policy: tenantPolicy.workloads,
    reach: new ReachPolicy(tenantPolicy, { gateway: [], apiServer: ['10.0.0.1'] }),
    readSecret: secretReader(secrets),
  });
  if ('ready' in planned) throw new Error(`refused: ${planned.reason}: ${planned.message}`);
  return planned;
}

function refusal(run: McpRun, tenantPolicy = policy(), secrets = {}) {
  const planned = planRun(source(run), run, {
    settings,
    policy: tenantPolicy.workloads,
    reach: new ReachPolicy(tenantPolicy, { gateway: [], apiServer: ['10.0.0.1'] }),
    readSecret: secretReader(secrets),
  });
  if (!('ready' in planned)) throw new Error('was not refused');
  return planned;
}

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('McpSource spec.run rendering', () => {
  it('operator:workload-hardening — every rendered pod is hardened by default', () => {
    for (const run of [
      STDIO,
      { image: 'registry.example.com/mcp/web:2', transport: 'streamable-http' } as McpRun,
    ]) {
      const { deployment } = renderWorkload(plan(run));
      const pod = (deployment as Obj)['spec'].template.spec;
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.enableServiceLinks).toBe(false);
      expect(pod.securityContext).toEqual({
        runAsNonRoot: true,
        runAsUser: 65532,
        runAsGroup: 65532,
        fsGroup: 65532,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
        expect(container.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
          runAsUser: 65532,
          runAsGroup: 65532,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        });
        expect(container.resources.limits.cpu).toBeDefined();
        expect(container.resources.limits.memory).toBeDefined();
      }
      const server = pod.containers[0];
      expect(server.resources).toEqual({
        requests: { cpu: '50m', memory: '64Mi' },
        limits: { cpu: '500m', memory: '256Mi' },
      });
      expect(server.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
      expect(pod.volumes).toContainEqual({ name: 'tmp', emptyDir: { sizeLimit: '64Mi' } });
      expect(deployment['metadata']).toMatchObject({
        name: 'mcp-fetch',
        namespace: ns,
        ownerReferences: [
          {
            apiVersion: 'agentgateway.dev/v1alpha1',
            kind: 'McpSource',
            name: 'fetch',
            uid: 'uid-fetch',
            controller: true,
          },
        ],
      });
    }
    // The writable volume is an emptyDir with its size limit; a small limit lowers the default request.
    const withVolume = renderWorkload(
      plan({
        ...STDIO,
        resources: { limits: { cpu: '20m', memory: '32Mi' } },
        permissions: { writableVolume: { mountPath: '/data', sizeLimit: '128Mi' } },
      }),
    ).deployment as Obj;
    const pod = withVolume['spec'].template.spec;
    expect(pod.volumes).toContainEqual({ name: 'writable', emptyDir: { sizeLimit: '128Mi' } });
    expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'writable', mountPath: '/data' });
    expect(pod.containers[0].resources).toEqual({
      requests: { cpu: '20m', memory: '32Mi' },
      limits: { cpu: '20m', memory: '32Mi' },
    });
  });

  it('operator:workload-bridge — a stdio server runs behind the bridge our own image copies in, with the token mounted', () => {
    const { deployment, service } = renderWorkload(plan({ ...STDIO, env: [{ name: 'A', value: '1' }] }));
    const pod = (deployment as Obj)['spec'].template.spec;
    const [init] = pod.initContainers;
    expect(init.image).toBe(settings.bridgeImage);
    expect(init.command).toEqual(['/usr/local/bin/agw-bridge', '--install', '/agw-install/bridge']);
    expect(init.volumeMounts).toEqual([{ name: 'bridge', mountPath: '/agw-install' }]);
    const server = pod.containers[0];
    expect(server.image).toBe(STDIO.image);
    expect(server.command).toEqual([
      '/agw/bridge',
      '--port',
      '8080',
      '--token-file',
      '/agw-token/token',
      '--',
      'mcp-server-fetch',
      '--ignore-robots-txt',
    ]);
    expect(server.args).toBeUndefined();
    expect(server.env).toEqual([{ name: 'A', value: '1' }]);
    expect(server.volumeMounts).toContainEqual({ name: 'bridge', mountPath: '/agw', readOnly: true });
    expect(server.volumeMounts).toContainEqual({ name: 'token', mountPath: '/agw-token', readOnly: true });
    expect(pod.volumes).toContainEqual({
      name: 'token',
      secret: { secretName: 'mcp-fetch-token', defaultMode: 0o440, items: [{ key: 'token', path: 'token' }] },
    });
    expect(server.readinessProbe.httpGet).toEqual({ path: '/healthz', port: 'mcp' });
    expect(server.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'mcp' });
    expect(server.ports).toEqual([{ name: 'mcp', containerPort: 8080, protocol: 'TCP' }]);
    expect((service as Obj)['spec']).toEqual({
      type: 'ClusterIP',
      selector: {
        'agentgateway.dev/mcp-source': 'fetch',
        'app.kubernetes.io/managed-by': 'agent-gateway-operator',
      },
      ports: [{ name: 'mcp', port: 8080, targetPort: 'mcp', protocol: 'TCP' }],
    });
  });

  it('operator:workload-http — an image serving HTTP gets the bridge as a proxy sidecar that checks the token; the Service and policy reach only the sidecar', () => {
    const run: McpRun = {
      image: 'registry.example.com/mcp/web:2',
      transport: 'streamable-http',
      port: 3000,
      path: '/rpc',
      args: ['--verbose'],
      env: [{ name: 'KEY', secretKeyRef: { name: 'web-secret', key: 'key' } }],
    };
    const planned = plan(run, policy(), { 'web-secret': { key: 'x' } });
    const { deployment, service, networkPolicy } = renderWorkload(planned);
    const pod = (deployment as Obj)['spec'].template.spec;
    expect(pod.initContainers).toBeUndefined();
    const [server, sidecar] = pod.containers;
    expect(server.command).toBeUndefined();
    expect(server.args).toEqual(['--verbose']);
    expect(server.env).toEqual([
      { name: 'KEY', valueFrom: { secretKeyRef: { name: 'web-secret', key: 'key' } } },
    ]);
    expect(server.readinessProbe.tcpSocket).toEqual({ port: 'server' });
    expect(server.ports).toEqual([{ name: 'server', containerPort: 3000, protocol: 'TCP' }]);
    // The token reaches the sidecar only, never the server.
    expect((server.volumeMounts as { name: string }[]).map((m) => m.name)).not.toContain('token');
    expect(sidecar).toMatchObject({ name: 'bridge', image: settings.bridgeImage });
    expect(sidecar.command).toEqual([
      '/usr/local/bin/agw-bridge',
      '--port',
      '18080',
      '--token-file',
      '/agw-token/token',
      '--upstream',
      'http://127.0.0.1:3000',
    ]);
    expect(sidecar.ports).toEqual([{ name: 'mcp', containerPort: 18080, protocol: 'TCP' }]);
    expect(sidecar.volumeMounts).toEqual([{ name: 'token', mountPath: '/agw-token', readOnly: true }]);
    expect(sidecar.securityContext).toMatchObject({ readOnlyRootFilesystem: true, runAsNonRoot: true });
    expect(sidecar.resources.limits).toBeDefined();
    expect((pod.volumes as { name: string }[]).map((v) => v.name)).toEqual(['tmp', 'token']);
    // The Service keeps the server's port for the gateways but targets the sidecar; the policy lets
    // the gateways reach the sidecar's port and nothing else of the pod.
    expect((service as Obj)['spec'].ports).toEqual([
      { name: 'mcp', port: 3000, targetPort: 'mcp', protocol: 'TCP' },
    ]);
    expect((networkPolicy as Obj)['spec'].ingress[0].ports).toEqual([{ protocol: 'TCP', port: 18080 }]);
    // A server that itself listens on 18080 gets the sidecar on 18081.
    const clash = renderWorkload(plan({ ...run, port: 18080 }, policy(), { 'web-secret': { key: 'x' } }));
    expect((clash.deployment as Obj)['spec'].template.spec.containers[1].ports[0].containerPort).toBe(18081);
  });

  it('operator:workload-network-policy — ingress only from the gateway pods to the port; egress only to cluster DNS and the listed CIDRs', () => {
    const { networkPolicy } = renderWorkload(
      plan({
        ...STDIO,
        permissions: {
          egress: [
            { cidr: '10.20.0.0/16', ports: [{ port: 443 }] },
            {
              cidr: '192.168.4.7/32',
              ports: [
                { port: 5432, protocol: 'TCP' },
                { port: 9999, protocol: 'UDP' },
              ],
            },
          ],
        },
      }),
    );
    expect((networkPolicy as Obj)['spec']).toEqual({
      podSelector: {
        matchLabels: {
          'agentgateway.dev/mcp-source': 'fetch',
          'app.kubernetes.io/managed-by': 'agent-gateway-operator',
        },
      },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          from: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'agw-system' } },
              podSelector: { matchLabels: settings.gatewayPodLabels },
            },
          ],
          ports: [{ protocol: 'TCP', port: 8080 }],
        },
      ],
      egress: [
        {
          to: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
              podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
            },
          ],
          ports: [
            { protocol: 'UDP', port: 53 },
            { protocol: 'TCP', port: 53 },
          ],
        },
        { to: [{ ipBlock: { cidr: '10.20.0.0/16' } }], ports: [{ protocol: 'TCP', port: 443 }] },
        {
          to: [{ ipBlock: { cidr: '192.168.4.7/32' } }],
          ports: [
            { protocol: 'TCP', port: 5432 },
            { protocol: 'UDP', port: 9999 },
          ],
        },
      ],
    });
  });

  it('operator:workload-hash — the same spec renders the same objects and hash; a change changes the hash', () => {
    const a = renderWorkload(plan(STDIO));
    const b = renderWorkload(plan({ ...STDIO }));
    expect(a).toEqual(b);
    expect(a.hash).toMatch(/^[0-9a-f]{16}$/);
    expect((a.deployment as Obj)['metadata'].annotations).toEqual({
      'agentgateway.dev/workload-hash': a.hash,
    });
    expect(renderWorkload(plan({ ...STDIO, replicas: 2 })).hash).not.toBe(a.hash);
  });

  it('operator:workload-refusals — the admin bounds refuse with a reason naming the field and the policy', () => {
    expect(refusal(STDIO, TenantPolicySchema.parse({})).reason).toBe('WorkloadsNotAllowed');
    const image = refusal({ ...STDIO, image: 'registry.example.com/mcpevil/x:1' });
    expect(image).toMatchObject({ reason: 'ImageNotAllowed' });
    expect(image.message).toContain('spec.run.image');
    // A bare name is docker.io/library/<name>: a prefix for another registry does not admit it.
    expect(normaliseImage('alpine:3')).toBe('docker.io/library/alpine:3');
    expect(normaliseImage('me/tool')).toBe('docker.io/me/tool');
    expect(normaliseImage('localhost:5000/x')).toBe('localhost:5000/x');
    expect(refusal({ ...STDIO, image: 'registry.example.com' }).reason).toBe('ImageNotAllowed');
    expect(refusal(STDIO, policy({ requireDigest: true })).message).toContain('digest');
    plan(
      { ...STDIO, image: `registry.example.com/mcp/fetch@sha256:${'a'.repeat(64)}` },
      policy({ requireDigest: true }),
    );
    expect(refusal({ ...STDIO, replicas: 4 }).reason).toBe('ReplicasOverLimit');
    plan({ ...STDIO, replicas: 3 });
    const cpu = refusal({ ...STDIO, resources: { limits: { cpu: '1500m' } } });
    expect(cpu).toMatchObject({ reason: 'ResourcesOverLimit' });
    expect(cpu.message).toContain('spec.run.resources.limits.cpu');
    expect(refusal({ ...STDIO, resources: { limits: { memory: '2Gi' } } }).reason).toBe('ResourcesOverLimit');
    expect(
      refusal({ ...STDIO, resources: { requests: { cpu: '400m' }, limits: { cpu: '200m' } } }).reason,
    ).toBe('InvalidSpec');
    const egress = (cidr: string) => ({
      ...STDIO,
      permissions: { egress: [{ cidr, ports: [{ port: 443 }] }] },
    });
    // Leaving the private ranges needs externalEgress: allow; then the reach policy still decides.
    expect(refusal(egress('203.0.113.0/24')).reason).toBe('EgressNotAllowed');
    plan(egress('203.0.113.0/24'), policy({ externalEgress: 'allow' }));
    expect(refusal(egress('0.0.0.0/0'), policy({ externalEgress: 'allow' })).message).toContain(
      'unspecified',
    );
    expect(refusal(egress('169.254.0.0/16'), policy({ externalEgress: 'allow' })).reason).toBe(
      'EgressNotAllowed',
    );
    expect(refusal(egress('10.0.0.0/24')).message).toContain('Kubernetes API server');
    const denied = policy({}, { denyCidrs: ['10.96.0.0/12'] });
    expect(refusal(egress('10.96.4.0/24'), denied).message).toContain('denyCidrs');
    expect(refusal(egress('10.0.0.0/8'), denied).reason).toBe('EgressNotAllowed');
    plan(egress('10.200.0.0/16'), denied);
    expect(refusal(egress('not-a-cidr')).reason).toBe('InvalidSpec');
    const envSecret = { ...STDIO, env: [{ name: 'T', secretKeyRef: { name: 'missing', key: 'k' } }] };
    expect(refusal(envSecret).reason).toBe('SecretNotFound');
    expect(refusal(envSecret, policy(), { missing: { other: 'x' } }).reason).toBe('SecretKeyNotFound');
  });
});

describe('McpSource spec.run as the gateways see it', () => {
  function workspacePlan(
    sources: McpSourceView[],
    tokens: Record<string, string>,
    extra: Partial<PlanInput> = {},
  ) {
    return planWorkspace(
      planInput({
        workspace: { metadata: meta('demo'), spec: {} },
        mcpSources: sources,
        workloads: {
          context: { settings, policy: policy().workloads },
          tokens: new Map(Object.entries(tokens)),
        },
        ...extra,
      }),
    );
  }

  it('operator:workload-rendered-source — the Service url, the workload mark and the minted token as bearer credential', () => {
    const result = workspacePlan(
      [source(STDIO, 'fetch', { description: 'Fetches pages', prefix: 'never' })],
      {
        fetch: 'minted-token-value',
      },
    );
    expect(result.mcpSources.get('fetch')).toMatchObject({ ready: true, reason: 'Rendered' });
    const document = result.render.mcpSources[0] as Record<string, unknown>;
    const host = `mcp-fetch.${ns}.svc.cluster.local`;
    expect(document).toMatchObject({
      name: 'fetch',
      description: 'Fetches pages',
      prefix: 'never',
      transport: 'streamable-http',
      url: `http://${host}:8080/mcp`,
      workload: { host, port: 8080 },
      credential: { type: 'bearer', secret: { kubernetesSecret: { name: credentialSecretName('demo') } } },
    });
    expect(document).not.toHaveProperty('run');
    expect(McpSourceSchema.safeParse(document).success).toBe(true);
    expect([...result.render.credentials.values()]).toEqual(['minted-token-value']);
    expect(result.workloads.get('fetch')?.image).toBe(STDIO.image);
  });

  it('operator:workload-http-status — an HTTP image is reached with the minted token too (its sidecar checks it)', () => {
    const run: McpRun = { image: 'registry.example.com/mcp/web:2', transport: 'streamable-http', port: 3000 };
    expect(workspacePlan([source(run, 'web')], {}).mcpSources.get('web')).toMatchObject({
      ready: false,
      reason: 'TokenPending',
    });
    const result = workspacePlan([source(run, 'web')], { web: 'minted-token-of-web' });
    const condition = result.mcpSources.get('web');
    expect(condition?.ready).toBe(true);
    expect(condition?.message).toContain("proxy sidecar, which checks the gateways' token");
    expect(result.render.mcpSources[0]).toMatchObject({
      url: `http://mcp-web.${ns}.svc.cluster.local:3000/mcp`,
      credential: { type: 'bearer' },
    });
  });

  it('operator:workload-refused-not-rendered — a refused or token-less source is left out with its reason', () => {
    const result = workspacePlan([source({ ...STDIO, replicas: 9 }, 'big'), source(STDIO, 'fresh')], {});
    expect(result.mcpSources.get('big')).toMatchObject({ ready: false, reason: 'ReplicasOverLimit' });
    expect(result.mcpSources.get('fresh')).toMatchObject({ ready: false, reason: 'TokenPending' });
    expect(result.render.mcpSources).toEqual([]);
    expect(result.workloads.size).toBe(0);
    // Without a workloads context (the default policy) spec.run is refused.
    const none = planWorkspace(
      planInput({ workspace: { metadata: meta('demo'), spec: {} }, mcpSources: [source(STDIO)] }),
    );
    expect(none.mcpSources.get('fetch')?.reason).toBe('WorkloadsNotAllowed');
  });

  it('operator:workload-mark-not-from-tenant — a workload field in a tenant url source never reaches the gateways', () => {
    const forged: McpSourceView = {
      metadata: meta('sneaky'),
      spec: {
        workspaceRef: { name: 'demo' },
        transport: 'streamable-http',
        url: 'http://redis.agw-system.svc.cluster.local:6379/mcp',
        workload: { host: 'redis.agw-system.svc.cluster.local', port: 6379 },
      },
    };
    const result = workspacePlan([forged], {});
    expect(result.render.mcpSources[0]).not.toHaveProperty('workload');
  });
});
