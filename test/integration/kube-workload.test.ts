// McpSource spec.run on a real kube-apiserver + etcd (issue 40, D25): the operator renders the MCP
// server's Deployment, Service, NetworkPolicy and token Secret in the tenant namespace, owned by the
// McpSource and hardened, and a second reconcile writes nothing; an image outside the admin policy
// is refused with a condition and an Event and nothing of it is created; the CRD's CEL rules refuse
// url with run and stdio without command; a deleted McpSource's objects are removed by the operator
// (this control plane runs no garbage collector). No pod runs here: the apiserver has no kubelet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantPolicySchema } from '../../gateway/config/index.js';
import { createPinoLogger } from '../../gateway/telemetry/index.js';
import { ApiKubeWriter, type KubeWriter } from '../../operator/kube/kube-writer.js';
import { runOperator, type RunningOperator } from '../../operator/operator-main.js';
import {
  applyList,
  customResource,
  freshNamespace,
  kubeConfig,
  kubectl,
  kubectlOk,
  readyCondition,
} from '../support/kube-harness.js';
import { until } from '../support/until.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The real writer, counting every write (idempotence: a second reconcile makes none). */
function countingWriter(inner: KubeWriter): KubeWriter & { writes: string[] } {
  const writes: string[] = [];
  return {
    writes,
    apply: (o) => (writes.push(`apply ${o.kind}/${o.name}`), inner.apply(o)),
    remove: (k, n, name) => (writes.push(`remove ${k}/${name}`), inner.remove(k, n, name)),
    applyWorkload: (o) => (writes.push(`apply ${o.kind}/${o.metadata.name}`), inner.applyWorkload(o)),
    removeWorkload: (k, n, name) => (writes.push(`remove ${k}/${name}`), inner.removeWorkload(k, n, name)),
    patchStatus: (p, n, name, s) => (writes.push(`status ${p}/${name}`), inner.patchStatus(p, n, name, s)),
  };
}

let namespace: string;
let operator: RunningOperator | undefined;
const writer = countingWriter(new ApiKubeWriter(kubeConfig()));

async function get(kind: string, name: string): Promise<Obj> {
  return JSON.parse(await kubectlOk(['get', kind, name, '-n', namespace, '-o', 'json'])) as Obj;
}

beforeAll(async () => {
  namespace = await freshNamespace('wl');
  await applyList(namespace, [
    customResource('Workspace', 'wl', {}),
    customResource('McpSource', 'fetch', {
      workspaceRef: { name: 'wl' },
      run: {
        image: 'registry.example.com/mcp/fetch:1.2',
        transport: 'stdio',
        command: ['mcp-server-fetch'],
        permissions: { egress: [{ cidr: '10.20.0.0/16', ports: [{ port: 443 }] }] },
      },
    }),
    customResource('McpSource', 'evil', {
      workspaceRef: { name: 'wl' },
      run: { image: 'docker.io/evil/miner:latest', transport: 'streamable-http' },
    }),
  ]);
  operator = runOperator({
    kubeConfig: kubeConfig(),
    gatewayNamespace: namespace,
    watchNamespace: namespace,
    policy: TenantPolicySchema.parse({ workloads: { allowedImages: ['registry.example.com/mcp/'] } }),
    logger: createPinoLogger({ level: 'silent' }),
    writer,
    workloads: {
      bridgeImage: 'ghcr.io/agent-gateway/agent-gateway:test',
      gatewayPodLabels: { 'app.kubernetes.io/component': 'gateway' },
      clusterDomain: 'cluster.local',
    },
  });
}, 60_000);

afterAll(async () => {
  await operator?.stop();
});

describe('McpSource spec.run on a real apiserver', () => {
  it('kube:workload-e2e — owned, hardened Deployment, Service, NetworkPolicy and token Secret; idempotent; a disallowed image refused with an Event', async () => {
    expect(await readyCondition(namespace, 'mcpsources', 'fetch')).toMatchObject({
      status: 'True',
      reason: 'Rendered',
    });
    const source = await get('mcpsource', 'fetch');
    const owner = {
      apiVersion: 'agentgateway.dev/v1alpha1',
      kind: 'McpSource',
      name: 'fetch',
      uid: source['metadata'].uid as string,
      controller: true,
    };
    const deployment = await get('deployment', 'mcp-fetch');
    expect(deployment['metadata'].ownerReferences).toEqual([owner]);
    const pod = deployment['spec'].template.spec;
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    for (const container of [...pod.containers, ...pod.initContainers]) {
      expect(container.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(container.resources.limits).toMatchObject({
        cpu: expect.any(String),
        memory: expect.any(String),
      });
    }
    expect(pod.initContainers[0].image).toBe('ghcr.io/agent-gateway/agent-gateway:test');
    expect((pod.containers[0].command as string[]).slice(0, 6)).toEqual([
      '/agw/bridge',
      '--port',
      '8080',
      '--token-file',
      '/agw-token/token',
      '--',
    ]);
    const service = await get('service', 'mcp-fetch');
    expect(service['metadata'].ownerReferences).toEqual([owner]);
    expect(service['spec'].ports).toMatchObject([{ port: 8080, targetPort: 'mcp' }]);
    const policy = await get('networkpolicy', 'mcp-fetch');
    expect(policy['metadata'].ownerReferences).toEqual([owner]);
    expect(policy['spec'].ingress[0].from[0]).toEqual({
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
      podSelector: { matchLabels: { 'app.kubernetes.io/component': 'gateway' } },
    });
    expect(policy['spec'].egress[1]).toEqual({
      to: [{ ipBlock: { cidr: '10.20.0.0/16' } }],
      ports: [{ protocol: 'TCP', port: 443 }],
    });
    const secret = await get('secret', 'mcp-fetch-token');
    expect(secret['metadata'].ownerReferences).toEqual([owner]);
    const token = Buffer.from(secret['data'].token as string, 'base64').toString('utf8');
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    // The rendered workspace carries it as the source's bearer credential, with the Service URL.
    const rendered = await get('configmap', 'agw-ws-wl-c0');
    const fragment = JSON.parse(rendered['data']['fragment.json'] as string) as Obj;
    expect(fragment['mcpSources'][0]).toMatchObject({
      name: 'fetch',
      url: `http://mcp-fetch.${namespace}.svc.cluster.local:8080/mcp`,
      workload: { host: `mcp-fetch.${namespace}.svc.cluster.local`, port: 8080 },
      credential: { type: 'bearer' },
    });
    const credentials = await get('secret', 'agw-ws-wl-s0');
    expect(
      Object.values(credentials['data'] as Record<string, string>).map((v) =>
        Buffer.from(v, 'base64').toString(),
      ),
    ).toContain(token);

    // The disallowed image: refused, an Event says why, and nothing of it exists.
    expect(await readyCondition(namespace, 'mcpsources', 'evil')).toMatchObject({
      status: 'False',
      reason: 'ImageNotAllowed',
    });
    const events = await until('the ImageNotAllowed Event', async () => {
      const out = await kubectlOk([
        'get',
        'events',
        '-n',
        namespace,
        '--field-selector',
        'involvedObject.name=evil,reason=ImageNotAllowed',
        '-o',
        'json',
      ]);
      const items = (JSON.parse(out) as { items: Obj[] }).items;
      return items.length > 0 ? items : undefined;
    });
    expect(events[0]?.['type']).toBe('Warning');
    expect((await kubectl(['get', 'deployment', 'mcp-evil', '-n', namespace])).code).not.toBe(0);
    expect((await kubectl(['get', 'secret', 'mcp-evil-token', '-n', namespace])).code).not.toBe(0);

    // Status shows the workload (no kubelet here: 0 of 1 ready), then a reconcile writes nothing.
    await until('status.workload', async () => {
      const workload = (await get('mcpsource', 'fetch'))['status']?.workload as string | undefined;
      return workload === '0/1' ? workload : undefined;
    });
    await operator?.idle();
    writer.writes.length = 0;
    await kubectlOk(['annotate', 'workspace', 'wl', '-n', namespace, 'touch=1', '--overwrite']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await operator?.idle();
    expect(writer.writes).toEqual([]);
    const again = await get('secret', 'mcp-fetch-token');
    expect(again['data'].token).toBe(secret['data'].token);
  });

  it('kube:workload-crd-rules — the CRD refuses url with run, stdio without command, env with value and secretKeyRef, and scaleToZero outside its bounds', async () => {
    const attempt = async (spec: Record<string, unknown>) =>
      kubectl(
        ['apply', '--dry-run=server', '-n', namespace, '-f', '-'],
        JSON.stringify(customResource('McpSource', 'bad', { workspaceRef: { name: 'wl' }, ...spec })),
      );
    const both = await attempt({
      transport: 'streamable-http',
      url: 'https://mcp.example.com/mcp',
      run: { image: 'registry.example.com/mcp/x:1', transport: 'streamable-http' },
    });
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('give exactly one of url');
    const noCommand = await attempt({ run: { image: 'registry.example.com/mcp/x:1', transport: 'stdio' } });
    expect(noCommand.stderr).toContain('run.command is required');
    const env = await attempt({
      run: {
        image: 'registry.example.com/mcp/x:1',
        transport: 'streamable-http',
        env: [{ name: 'A', value: '1', secretKeyRef: { name: 's', key: 'k' } }],
      },
    });
    expect(env.stderr).toContain('give exactly one of value and secretKeyRef');
    const ok = await attempt({
      run: { image: 'registry.example.com/mcp/x:1', transport: 'stdio', command: ['x'] },
    });
    expect(ok.stderr).toBe('');
    // scaleToZero: an idle period of at least 10 s, a wake time-out of 5–600 s.
    const sleeper = (scaleToZero: Record<string, unknown>) =>
      attempt({
        run: { image: 'registry.example.com/mcp/x:1', transport: 'stdio', command: ['x'], scaleToZero },
      });
    expect((await sleeper({ idleAfterSeconds: 900, wakeTimeoutSeconds: 60 })).stderr).toBe('');
    expect((await sleeper({ idleAfterSeconds: 5 })).stderr).toContain('idleAfterSeconds');
    expect((await sleeper({ idleAfterSeconds: 60, wakeTimeoutSeconds: 601 })).stderr).toContain(
      'wakeTimeoutSeconds',
    );
    expect((await sleeper({})).stderr).toContain('idleAfterSeconds');
  });

  it('operator:workload-removed — a deleted McpSource takes its workload with it (no garbage collector here)', async () => {
    await kubectlOk(['delete', 'mcpsource', 'fetch', '-n', namespace]);
    await until('the workload removed', async () => {
      const results = await Promise.all(
        [
          ['deployment', 'mcp-fetch'],
          ['service', 'mcp-fetch'],
          ['networkpolicy', 'mcp-fetch'],
          ['secret', 'mcp-fetch-token'],
        ].map(([kind, name]) => kubectl(['get', kind as string, name as string, '-n', namespace])),
      );
      return results.every((r) => r.code !== 0) ? true : undefined;
    });
  });
});
