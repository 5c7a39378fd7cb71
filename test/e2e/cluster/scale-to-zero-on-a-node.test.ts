// Scale to zero as real pods (issue 40 item 5, D25 and D10): the chart installed with the admin allowing our
// image, an McpSource running the demo server over stdio with spec.run.scaleToZero. After its idle
// period the operator takes the Deployment to zero replicas (no pod left, the Workload column 0/0,
// the condition says so); a client's call through a gateway pod then wakes it — the gateway asks
// the operator's wake endpoint with the source's token, the operator scales the Deployment up — and
// is answered once a pod is Ready. A source whose server cannot start fails the waking call with a
// time-out after its wakeTimeoutSeconds, not a hang. The gateways stay read-only on the API.
import { describe, expect, it } from 'vitest';
import { allPodsReady, helmOk, images, kubectlOk, pods, serviceUrl, waitFor } from './cluster-context.js';
import { callDemoAdd, issuedKey } from './cluster-fixtures.js';

const CHART = 'charts/agent-gateway';
const NS = 'agw-scale-zero';
const DEMO = '/app/dist/examples/demo-mcp-server/main.js';
const gatewayRepo = () => images().gateway.replace(/:[^:/]+$/, '');
const gatewayTag = () => /:([^:/]+)$/.exec(images().gateway)?.[1] ?? '0.1.0';
const tagArgs = () => (gatewayTag() === '0.1.0' ? [] : ['--set', `image.tag=${gatewayTag()}`]);

function imagePrefix(): string {
  const repo = gatewayRepo();
  return repo.includes('/') ? repo.slice(0, repo.lastIndexOf('/') + 1) : 'docker.io/library/';
}

function sleeper(name: string, command: string[], wakeTimeoutSeconds: number): Record<string, unknown> {
  return {
    apiVersion: 'agentgateway.dev/v1alpha1',
    kind: 'McpSource',
    metadata: { name },
    spec: {
      workspaceRef: { name: 'acme' },
      run: {
        image: images().gateway,
        transport: 'stdio',
        command,
        scaleToZero: { idleAfterSeconds: 15, wakeTimeoutSeconds },
      },
    },
  };
}

async function column(name: string): Promise<string> {
  return (await kubectlOk(['-n', NS, 'get', 'mcpsource', name, '-o', 'jsonpath={.status.workload}'])).trim();
}

describe('scale to zero on a node', () => {
  it('workloads:scale-to-zero — an idle server goes to zero pods, a call through the gateway wakes it and is answered; one that cannot start fails in its wake time-out', async () => {
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
      // One operator replica: the wake must work whichever replica the Service picks; one keeps
      // this test about scale to zero (leader failover has tests of its own).
      '--set',
      'operator.replicas=1',
      '--wait',
      '--timeout',
      '240s',
    ]);
    await allPodsReady(NS, 3, 240_000);
    await kubectlOk([
      '-n',
      NS,
      'apply',
      '-f',
      'examples/kubernetes/workspace.yaml',
      '-f',
      'examples/kubernetes/apikey.yaml',
    ]);
    await kubectlOk(
      ['-n', NS, 'apply', '-f', '-'],
      JSON.stringify(sleeper('sleepy', ['/usr/local/bin/node', DEMO], 90)),
    );
    await kubectlOk([
      '-n',
      NS,
      'wait',
      '--for=condition=Ready',
      '--timeout=120s',
      'workspace/acme',
      'apikey/ci-reader',
      'mcpsource/sleepy',
    ]);
    // A new source starts awake: its first call is not a cold start.
    await kubectlOk(['-n', NS, 'rollout', 'status', 'deployment/mcp-sleepy', '--timeout=180s']);
    const key = await issuedKey(NS, 'ci-reader');
    const gateway = await serviceUrl(NS, 'agw-agent-gateway');
    await waitFor('sleepy__add through the gateway', 120_000, async () => {
      const answer = await callDemoAdd(gateway, key, 'sleepy__add').catch(() => undefined);
      return answer?.text === '5' ? true : undefined;
    });

    // Idle for 15 s: zero replicas, no pod, and the column and the condition say so.
    await waitFor('sleepy scaled to zero', 120_000, async () =>
      (await column('sleepy')) === '0/0' ? true : undefined,
    );
    await waitFor('no sleepy pod left', 60_000, async () =>
      (await pods(NS, 'agentgateway.dev/mcp-source=sleepy')).length === 0 ? true : undefined,
    );
    const message = await kubectlOk([
      '-n',
      NS,
      'get',
      'mcpsource',
      'sleepy',
      '-o',
      'jsonpath={.status.conditions[?(@.type=="Ready")].message}',
    ]);
    expect(message).toContain('scaled to zero while idle');

    // A client's call wakes it through the operator and is answered once a pod is Ready.
    const started = Date.now();
    const woken = await callDemoAdd(gateway, key, 'sleepy__add');
    const wakeMs = Date.now() - started;
    process.stdout.write(`[cluster] call that woke a scaled-to-zero server answered in ${wakeMs} ms\n`);
    expect(woken).toEqual({ status: 200, text: '5' });
    expect(await column('sleepy')).toMatch(/^1\/1$|^0\/1$/);
    const lastActive = await kubectlOk([
      '-n',
      NS,
      'get',
      'mcpsource',
      'sleepy',
      '-o',
      'jsonpath={.status.lastActiveTime}',
    ]);
    expect(Date.now() - Date.parse(lastActive.trim())).toBeLessThan(120_000);
    // Awake calls after it are plain calls.
    expect((await callDemoAdd(gateway, key, 'sleepy__add')).text).toBe('5');

    // A server that exits at once is never Ready: a listing that reaches it waits at most its 8 s
    // wake time-out, then answers with the other source's tools (partial failure, D14), naming
    // nothing of the cluster. Background probes of it then neither wake it nor keep it awake: it
    // goes to zero replicas like an idle one.
    await kubectlOk(
      ['-n', NS, 'apply', '-f', '-'],
      JSON.stringify(sleeper('broken', ['/usr/local/bin/node', '/nonexistent.js'], 8)),
    );
    await kubectlOk(['-n', NS, 'wait', '--for=condition=Ready', '--timeout=60s', 'mcpsource/broken']);
    const listed = await waitFor('a listing that reached broken', 120_000, async () => {
      const brokenStarted = Date.now();
      const response = await fetch(`${gateway}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/list',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'cluster-test', version: '1.0.0' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
        signal: AbortSignal.timeout(120_000),
      });
      const body = await response.text();
      const elapsed = Date.now() - brokenStarted;
      // Until the gateways have loaded the new source, the listing does not reach it at all.
      return elapsed >= 5_000 ? { status: response.status, body, elapsed } : undefined;
    });
    process.stdout.write(`[cluster] listing that reached a server that cannot start: ${listed.elapsed} ms\n`);
    expect(listed.status).toBe(200);
    expect(listed.elapsed).toBeLessThan(60_000);
    expect(listed.body).toContain('sleepy__add');
    expect(listed.body).not.toContain('broken__');
    expect(listed.body).not.toContain('svc.cluster.local');
    await waitFor('broken scaled to zero while probed', 120_000, async () =>
      (await column('broken')) === '0/0' ? true : undefined,
    );

    await kubectlOk([
      '-n',
      NS,
      'delete',
      'mcpsource/sleepy',
      'mcpsource/broken',
      'apikey/ci-reader',
      'workspace/acme',
      '--wait=true',
      '--timeout=60s',
    ]);
    await helmOk(['uninstall', 'agw', '-n', NS, '--wait', '--timeout', '120s']);
    await kubectlOk(['delete', 'namespace', NS, '--wait=true', '--timeout=120s']);
  });
});
