// The NetworkPolicies the operator renders for McpSource spec.run, enforced (issue 40): the node runs
// kube-router's firewall (test/infra/kube-cluster.sh), so the policy `mcp-<name>` is applied to the
// real workload pod. Two tenants (namespaces), each with a stdio server from our image; tenant A's
// server may reach one pod (its permissions.egress), nothing else. Every probe is a TCP connect made
// from inside a pod with `kubectl exec … node -e`; every refusal has a control: the same target
// reached from a pod no policy restricts (or from the gateway), so a probe cannot pass because
// nothing listens. The chart's own NetworkPolicies are on too (networkPolicy.enabled).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allPodsReady,
  helmOk,
  images,
  kubectl,
  kubectlOk,
  pods,
  podReady,
  serviceUrl,
  waitFor,
} from './cluster-context.js';
import { callDemoAdd, issuedKey } from './cluster-fixtures.js';

const CHART = 'charts/agent-gateway';
const GATEWAY_NS = 'agw-np';
const TENANT_A = 'agw-np-a';
const TENANT_B = 'agw-np-b';
/** Pods no policy selects: the probe (unrestricted egress) and the two targets. */
const OUTSIDE = 'agw-np-outside';
const DEMO = '/app/dist/examples/demo-mcp-server/main.js';
const NODE = '/usr/local/bin/node';
const API_SERVICE = { host: '10.215.0.1', port: 443 }; // the `kubernetes` Service (kube-cluster.sh)
const API_NODE = { host: '10.213.0.1', port: 16443 }; // the API server on the node's address

const gatewayRepo = () => images().gateway.replace(/:[^:/]+$/, '');
const gatewayTag = () => /:([^:/]+)$/.exec(images().gateway)?.[1] ?? '0.1.0';
const tagArgs = () => (gatewayTag() === '0.1.0' ? [] : ['--set', `image.tag=${gatewayTag()}`]);
const imagePrefix = () => {
  const repo = gatewayRepo();
  return repo.includes('/') ? repo.slice(0, repo.lastIndexOf('/') + 1) : 'docker.io/library/';
};

/** One TCP connect from inside a pod: `connected`, `error <code>` or `timeout` (after 3 s). */
const CONNECT = `const [host, port] = process.argv.slice(1);
const socket = require('node:net').connect({ host, port: Number(port) });
const done = (what) => { console.log(what); socket.destroy(); process.exit(0); };
setTimeout(() => done('timeout'), 3000);
socket.on('connect', () => done('connected'));
socket.on('error', (e) => done('error ' + e.code));`;

interface Target {
  readonly host: string;
  readonly port: number;
}

interface Probe {
  readonly namespace: string;
  readonly pod: string;
  readonly container?: string;
}

async function connect(from: Probe, to: Target): Promise<string> {
  const args = ['-n', from.namespace, 'exec', from.pod];
  if (from.container !== undefined) args.push('-c', from.container);
  args.push('--', NODE, '-e', CONNECT, to.host, String(to.port));
  return (await kubectlOk(args)).trim();
}

/** What a refusal by the firewall looks like from the caller: a reject or a dropped SYN. */
const REFUSED = /^(timeout|error (ECONNREFUSED|EHOSTUNREACH|ENETUNREACH))$/;

/** Connects and expects the firewall to refuse; prints how, since reject and drop both count. */
async function expectRefused(from: Probe, to: Target, what: string): Promise<void> {
  const outcome = await connect(from, to);
  process.stdout.write(`[cluster] ${from.pod} → ${what} ${to.host}:${to.port}: ${outcome}\n`);
  expect(outcome, `${what} from ${from.pod}`).toMatch(REFUSED);
}

function runSource(name: string, workspace: string, egress?: unknown[]): Record<string, unknown> {
  return {
    apiVersion: 'agentgateway.dev/v1alpha1',
    kind: 'McpSource',
    metadata: { name },
    spec: {
      workspaceRef: { name: workspace },
      run: {
        image: images().gateway,
        transport: 'stdio',
        command: [NODE, DEMO],
        ...(egress === undefined ? {} : { permissions: { egress } }),
      },
    },
  };
}

function tenant(workspace: string, key: string): Record<string, unknown>[] {
  return [
    {
      apiVersion: 'agentgateway.dev/v1alpha1',
      kind: 'Workspace',
      metadata: { name: workspace },
      spec: { displayName: workspace },
    },
    {
      apiVersion: 'agentgateway.dev/v1alpha1',
      kind: 'ApiKey',
      metadata: { name: key },
      spec: { workspaceRef: { name: workspace }, access: 'read', sources: ['*'], tools: ['*'] },
    },
  ];
}

/** A pod of our image in OUTSIDE: the demo server on 9000 (a target) or an idle node (the probe). */
function outsidePod(name: string, serve: boolean): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: name } },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'main',
          image: images().gateway,
          imagePullPolicy: 'IfNotPresent',
          command: serve
            ? [NODE, DEMO, '--http', '9000', '--host', '0.0.0.0']
            : [NODE, '-e', 'setInterval(() => {}, 1 << 30)'],
          ...(serve ? { readinessProbe: { tcpSocket: { port: 9000 }, periodSeconds: 2 } } : {}),
        },
      ],
    },
  };
}

const list = (items: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });

async function podIp(namespace: string, name: string): Promise<string> {
  return (await kubectlOk(['-n', namespace, 'get', 'pod', name, '-o', 'jsonpath={.status.podIP}'])).trim();
}

async function readyPod(namespace: string, selector: string): Promise<string> {
  const pod = (await pods(namespace, selector)).find(podReady);
  if (pod === undefined) throw new Error(`no Ready pod ${selector} in ${namespace}`);
  return pod.metadata.name;
}

async function serviceTarget(namespace: string, service: string): Promise<Target> {
  const svc = JSON.parse(await kubectlOk(['-n', namespace, 'get', 'service', service, '-o', 'json'])) as {
    spec: { clusterIP: string; ports: { port: number }[] };
  };
  return { host: svc.spec.clusterIP, port: svc.spec.ports[0]?.port ?? 0 };
}

/** A POST to a workload's Service from this process (the node): 401 means its bridge answers. */
async function bridgeStatus(namespace: string, service: string): Promise<number> {
  const response = await fetch(`${await serviceUrl(namespace, service)}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    signal: AbortSignal.timeout(15_000),
  });
  await response.body?.cancel();
  return response.status;
}

let alpha: Probe; // tenant A's workload pod (operator-rendered policy: egress to `allowed` only)
let probe: Probe; // a pod no policy selects
let gatewayPod: Probe;
let allowed: Target; // in alpha's permissions.egress
let unlisted: Target; // the same kind of pod, not listed
let betaService: Target; // tenant B's mcp-beta Service
let alphaService: Target;
let gateway: string;

describe('NetworkPolicies of McpSource spec.run, enforced on the node', () => {
  beforeAll(async () => {
    for (const ns of [GATEWAY_NS, TENANT_A, TENANT_B, OUTSIDE]) await kubectlOk(['create', 'namespace', ns]);
    await kubectlOk(
      ['-n', OUTSIDE, 'apply', '-f', '-'],
      list([outsidePod('allowed', true), outsidePod('unlisted', true), outsidePod('probe', false)]),
    );
    await helmOk([
      'install',
      'agw',
      CHART,
      '-n',
      GATEWAY_NS,
      '--set',
      `image.repository=${gatewayRepo()}`,
      ...tagArgs(),
      '--set',
      `policy.workloads.allowedImages={${imagePrefix()}}`,
      '--set',
      'operator.scope=cluster',
      '--set',
      'networkPolicy.enabled=true',
      '--wait',
      '--timeout',
      '240s',
    ]);
    await allPodsReady(GATEWAY_NS, 4, 240_000);
    await allPodsReady(OUTSIDE, 3, 120_000);
    allowed = { host: await podIp(OUTSIDE, 'allowed'), port: 9000 };
    unlisted = { host: await podIp(OUTSIDE, 'unlisted'), port: 9000 };

    await kubectlOk(
      ['-n', TENANT_A, 'apply', '-f', '-'],
      list([
        ...tenant('np-a', 'np-a-reader'),
        runSource('alpha', 'np-a', [{ cidr: `${allowed.host}/32`, ports: [{ port: 9000 }] }]),
      ]),
    );
    await kubectlOk(
      ['-n', TENANT_B, 'apply', '-f', '-'],
      list([...tenant('np-b', 'np-b-reader'), runSource('beta', 'np-b')]),
    );
    for (const [ns, source] of [
      [TENANT_A, 'alpha'],
      [TENANT_B, 'beta'],
    ] as const) {
      await kubectlOk(['-n', ns, 'wait', '--for=condition=Ready', '--timeout=120s', `mcpsource/${source}`]);
      await kubectlOk(['-n', ns, 'rollout', 'status', `deployment/mcp-${source}`, '--timeout=180s']);
    }
    alpha = {
      namespace: TENANT_A,
      pod: await readyPod(TENANT_A, 'agentgateway.dev/mcp-source=alpha'),
      container: 'server',
    };
    probe = { namespace: OUTSIDE, pod: 'probe' };
    gatewayPod = {
      namespace: GATEWAY_NS,
      pod: await readyPod(GATEWAY_NS, 'app.kubernetes.io/component=gateway'),
    };
    alphaService = await serviceTarget(TENANT_A, 'mcp-alpha');
    betaService = await serviceTarget(TENANT_B, 'mcp-beta');
    gateway = await serviceUrl(GATEWAY_NS, 'agw-agent-gateway');

    // The policy engine writes a new pod's rules shortly after the pod starts: wait until one of
    // the refusals below holds before any case looks (each case then asserts at once).
    const t0 = Date.now();
    await waitFor('alpha policy in force', 60_000, async () =>
      (await connect(alpha, unlisted)) === 'connected' ? undefined : true,
    );
    process.stdout.write(`[cluster] alpha's NetworkPolicy in force ${Date.now() - t0} ms after rollout\n`);
  }, 900_000);

  afterAll(async () => {
    for (const [ns, source] of [
      [TENANT_A, 'alpha'],
      [TENANT_B, 'beta'],
    ] as const)
      await kubectl(['-n', ns, 'delete', `mcpsource/${source}`, '--wait=true', '--timeout=60s']);
    for (const ns of [TENANT_A, TENANT_B])
      await kubectl(['-n', ns, 'delete', 'apikeys,workspaces', '--all', '--wait=true', '--timeout=60s']);
    await helmOk(['uninstall', 'agw', '-n', GATEWAY_NS, '--wait', '--timeout', '120s']);
    for (const ns of [OUTSIDE, TENANT_A, TENANT_B, GATEWAY_NS])
      await kubectl(['delete', 'namespace', ns, '--wait=true', '--timeout=120s']);
  }, 600_000);

  it('netpol:workload-egress-outside-profile — a pod not in permissions.egress is refused from the workload, reached from an unrestricted pod', async () => {
    expect(await connect(probe, unlisted)).toBe('connected');
    await expectRefused(alpha, unlisted, 'the unlisted pod');
  });

  it('netpol:workload-egress-api-server — the kube API server (Service and node address) is refused from the workload, reached from an unrestricted pod', async () => {
    for (const api of [API_SERVICE, API_NODE]) {
      expect(await connect(probe, api), `${api.host}:${api.port} from the probe`).toBe('connected');
      await expectRefused(alpha, api, 'the API server');
    }
  });

  it("netpol:workload-cross-tenant — tenant B's workload Service is refused from tenant A's workload, reached by the gateway", async () => {
    expect(await connect(gatewayPod, betaService)).toBe('connected');
    const keyB = await issuedKey(TENANT_B, 'np-b-reader');
    await waitFor('beta__add through the gateway', 120_000, async () => {
      const { text } = await callDemoAdd(gateway, keyB, 'beta__add');
      return text === '5' ? true : undefined;
    });
    await expectRefused(alpha, betaService, "tenant B's mcp-beta Service");
  });

  it('netpol:workload-egress-in-profile — the CIDR and port in permissions.egress are reached from the workload, and the cluster DNS answers it', async () => {
    expect(await connect(alpha, allowed)).toBe('connected');
    // Port 53 at the kube-dns pods: a name resolved through the cluster DNS from inside the workload.
    const resolved = await kubectlOk([
      '-n',
      alpha.namespace,
      'exec',
      alpha.pod,
      '-c',
      'server',
      '--',
      NODE,
      '-e',
      "require('node:dns').promises.resolve4('kubernetes.default.svc.cluster.local').then((a) => console.log(a.join(',')), (e) => console.log('error ' + e.code))",
    ]);
    expect(resolved.trim()).toBe(API_SERVICE.host);
  });

  it("netpol:workload-ingress — a pod that is not a gateway cannot reach the workload's Service port; the gateway pod can and calls through", async () => {
    await expectRefused(probe, alphaService, 'the mcp-alpha Service');
    // The bridge is there: the node gets its 401, a gateway pod connects, the gateway calls through.
    expect(await bridgeStatus(TENANT_A, 'mcp-alpha')).toBe(401);
    expect(await connect(gatewayPod, alphaService)).toBe('connected');
    const keyA = await issuedKey(TENANT_A, 'np-a-reader');
    await waitFor('alpha__add through the gateway', 120_000, async () => {
      const { text } = await callDemoAdd(gateway, keyA, 'alpha__add');
      return text === '5' ? true : undefined;
    });
    // The chart's own policy admits every peer to the gateway's http port (gatewayIngressFrom empty).
    const gatewayService = await serviceTarget(GATEWAY_NS, 'agw-agent-gateway');
    expect(await connect(probe, gatewayService)).toBe('connected');
  });
});
