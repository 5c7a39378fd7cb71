// McpSource spec.run as real pods (issue 40): the chart installed with the admin allowing our image,
// then two McpSources that name an image instead of a url — the demo MCP server of our image over
// stdio (behind the bridge the init container copies in) and the same server serving HTTP itself
// (behind the bridge as a proxy sidecar, which the Service targets). The operator renders each as a hardened
// Deployment, a Service and a NetworkPolicy in the tenant's namespace; the gateway pods list and call
// their tools; the Service itself refuses a caller without the minted token; one of two replicas
// deleted under load loses at most the calls in flight; deleting the McpSources removes the workloads.
// (That the NetworkPolicy is enforced is network-policy-on-a-node.test.ts's part.)
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  allPodsReady,
  helmOk,
  images,
  kubectlOk,
  podReady,
  pods,
  serviceUrl,
  waitFor,
} from './cluster-context.js';
import { callDemoAdd, issuedKey } from './cluster-fixtures.js';

const CHART = 'charts/agent-gateway';
const NS = 'agw-workloads';
const DEMO = '/app/dist/examples/demo-mcp-server/main.js';
const gatewayRepo = () => images().gateway.replace(/:[^:/]+$/, '');
const gatewayTag = () => /:([^:/]+)$/.exec(images().gateway)?.[1] ?? '0.1.0';
const tagArgs = () => (gatewayTag() === '0.1.0' ? [] : ['--set', `image.tag=${gatewayTag()}`]);

/** The prefix policy.workloads.allowedImages needs for our image (a bare name is docker.io/library/). */
function imagePrefix(): string {
  const repo = gatewayRepo();
  return repo.includes('/') ? repo.slice(0, repo.lastIndexOf('/') + 1) : 'docker.io/library/';
}

function runSource(name: string, run: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'agentgateway.dev/v1alpha1',
    kind: 'McpSource',
    metadata: { name },
    spec: { workspaceRef: { name: 'acme' }, run: { image: images().gateway, ...run } },
  };
}

async function callAdd(url: string, key: string, tool: string): Promise<string | undefined> {
  return (await callDemoAdd(url, key, tool)).text;
}

/** A POST straight to a workload's Service, as another pod of the cluster could send it. */
async function direct(namespace: string, service: string, authorization?: string): Promise<number> {
  const url = await serviceUrl(namespace, service);
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    signal: AbortSignal.timeout(15_000),
  });
  await response.body?.cancel();
  return response.status;
}

describe('McpSource spec.run on a node', () => {
  it('workloads:pods — stdio and HTTP servers from an image run as hardened pods and are called through the gateway pods; their Services refuse callers without the token', async () => {
    await kubectlOk(['create', 'namespace', NS]);
    await helmOk([
      'install',
      'agw',
      CHART,
      '-n',
      NS,
      '--set',
      `image.repository=${gatewayRepo()}`,
      ...tagArgs(),
      '--set',
      `policy.workloads.allowedImages={${imagePrefix()}}`,
      '--wait',
      '--timeout',
      '240s',
    ]);
    await allPodsReady(NS, 4, 240_000);
    await kubectlOk([
      '-n',
      NS,
      'apply',
      '-f',
      'examples/kubernetes/workspace.yaml',
      '-f',
      'examples/kubernetes/apikey.yaml',
    ]);
    const sources = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        runSource('runner', { transport: 'stdio', command: ['/usr/local/bin/node', DEMO] }),
        // On all addresses, as HTTP server images do (the kubelet's TCP probe dials the pod's
        // address); the Service targets the sidecar, and the NetworkPolicy admits only its port.
        runSource('web', {
          transport: 'streamable-http',
          port: 9000,
          command: ['/usr/local/bin/node', DEMO, '--http', '9000', '--host', '0.0.0.0'],
        }),
      ],
    };
    await kubectlOk(['-n', NS, 'apply', '-f', '-'], JSON.stringify(sources));
    await kubectlOk([
      '-n',
      NS,
      'wait',
      '--for=condition=Ready',
      '--timeout=120s',
      'workspace/acme',
      'apikey/ci-reader',
      'mcpsource/runner',
      'mcpsource/web',
    ]);
    for (const name of ['mcp-runner', 'mcp-web'])
      await kubectlOk(['-n', NS, 'rollout', 'status', `deployment/${name}`, '--timeout=180s']);

    // The pods run hardened, as rendered.
    for (const source of ['runner', 'web']) {
      const [pod] = await pods(NS, `agentgateway.dev/mcp-source=${source}`);
      expect(pod, `a pod of ${source}`).toBeDefined();
      const spec = JSON.parse(
        await kubectlOk(['-n', NS, 'get', 'pod', pod!.metadata.name, '-o', 'jsonpath={.spec}']),
      ) as {
        automountServiceAccountToken?: boolean;
        securityContext: { runAsNonRoot?: boolean };
        containers: {
          securityContext: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
        }[];
      };
      expect(spec.automountServiceAccountToken).toBe(false);
      expect(spec.securityContext.runAsNonRoot).toBe(true);
      for (const container of spec.containers)
        expect(container.securityContext).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
        });
    }
    // `kubectl get mcpsources` shows the workload's state (ready / desired replicas).
    const workload = await waitFor('the Workload column at 1/1', 60_000, async () => {
      const column = await kubectlOk([
        '-n',
        NS,
        'get',
        'mcpsource',
        'runner',
        'web',
        '-o',
        'jsonpath={.items[*].status.workload}',
      ]);
      return column.trim() === '1/1 1/1' ? column.trim() : undefined;
    });
    expect(workload).toBe('1/1 1/1');

    // Through the gateway pods: listed, then called, with the key the operator issued.
    const key = await issuedKey(NS, 'ci-reader');
    const gateway = await serviceUrl(NS, 'agw-agent-gateway');
    await waitFor('runner__ and web__ tools through the gateway', 120_000, async () => {
      const response = await fetch(`${gateway}/agent/tools?response_format=json`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(15_000),
      });
      const body = await response.text();
      return body.includes('runner__add') && body.includes('web__add') ? true : undefined;
    });
    expect(await callAdd(gateway, key, 'runner__add')).toBe('5');
    expect(await callAdd(gateway, key, 'web__add')).toBe('5');

    // The Services themselves: no token, or the wrong one, is a 401 from the bridge (stdio) and
    // from the proxy sidecar (HTTP); the server behind is never reached.
    for (const service of ['mcp-runner', 'mcp-web']) {
      expect(await direct(NS, service)).toBe(401);
      expect(await direct(NS, service, 'Bearer not-the-minted-token-at-all')).toBe(401);
    }

    // Two replicas of the stdio server (each its own process; a replica no caller initialized is
    // primed by its bridge), one deleted under load: the calls lost are at most those in flight (the
    // bridge keeps serving through its drain delay while the pod leaves the endpoints).
    await kubectlOk([
      '-n',
      NS,
      'patch',
      'mcpsource',
      'runner',
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { run: { replicas: 2 } } }),
    ]);
    await waitFor('two runner replicas', 120_000, async () => {
      const ready = (await pods(NS, 'agentgateway.dev/mcp-source=runner')).filter(podReady);
      return ready.length === 2 ? ready : undefined;
    });
    const concurrency = 4;
    let ok = 0;
    let failed = 0;
    let stop = false;
    const loops = Array.from({ length: concurrency }, async () => {
      while (!stop) {
        const text = await callAdd(gateway, key, 'runner__add').catch(() => undefined);
        if (text === '5') ok += 1;
        else failed += 1;
      }
    });
    await sleep(3_000);
    const [victim] = await pods(NS, 'agentgateway.dev/mcp-source=runner');
    await kubectlOk(['-n', NS, 'delete', 'pod', victim!.metadata.name, '--wait=false']);
    await sleep(12_000);
    stop = true;
    await Promise.all(loops);
    process.stdout.write(`[cluster] runner pod deleted under load: ok ${ok}, failed ${failed}\n`);
    expect(ok).toBeGreaterThan(20);
    expect(failed).toBeLessThanOrEqual(concurrency);

    // Deleting the McpSources removes their workloads.
    await kubectlOk([
      '-n',
      NS,
      'delete',
      'mcpsource/runner',
      'mcpsource/web',
      '--wait=true',
      '--timeout=60s',
    ]);
    await waitFor('the workloads removed', 120_000, async () => {
      const left = (
        await kubectlOk([
          '-n',
          NS,
          'get',
          'deployments,services,networkpolicies,secrets',
          '-l',
          'agentgateway.dev/mcp-source',
          '-o',
          'name',
        ])
      ).trim();
      return left === '' ? true : undefined;
    });
    await kubectlOk([
      '-n',
      NS,
      'delete',
      'apikey/ci-reader',
      'workspace/acme',
      '--wait=true',
      '--timeout=60s',
    ]);
    await helmOk(['uninstall', 'agw', '-n', NS, '--wait', '--timeout', '120s']);
    await kubectlOk(['delete', 'namespace', NS, '--wait=true', '--timeout=120s']);
  });
});
