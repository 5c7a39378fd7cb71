// The API server goes away for 30 s under load (issue 9 e2e 4), on a control plane of this file's
// own (so stopping it disturbs no other test): two gateway processes keep serving the last good
// config with zero failed requests, and once the apiserver is back they pick up a change made after
// it (a new ApiKey rendered by the operator, which also rode out the outage).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../infra/control-plane.js';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { get, mcpPost } from '../support/gateway-harness.js';
import type { GatewayProcess } from '../support/gateway-processes.js';
import {
  readIssuedKey,
  startOperatorAndGateways,
  type OperatorAndGateways,
} from '../support/kube-harness.js';
import { until } from '../support/until.js';
import { writeTestPolicy } from '../support/test-policy.js';

const run = promisify(execFile);
const OUTAGE_MS = 30_000;
let plane: ControlPlane;
let upstream: RunningModernServer;
let deployed: OperatorAndGateways | undefined;
let gateways: readonly GatewayProcess[] = [];

async function kubectl(args: readonly string[], input?: string): Promise<string> {
  const child = run(join(plane.bin, 'kubectl'), ['--kubeconfig', plane.kubeconfig, ...args]);
  if (input !== undefined) child.child.stdin?.end(input);
  return (await child).stdout;
}

const issuedKey = (name: string): Promise<string> => readIssuedKey('tenant', name, kubectl);

function apiKey(name: string): string {
  return JSON.stringify({
    apiVersion: 'agentgateway.dev/v1alpha1',
    kind: 'ApiKey',
    metadata: { name },
    spec: { workspaceRef: { name: 'acme' } },
  });
}

beforeAll(async () => {
  plane = await startControlPlane();
  upstream = await startModernServer();
  await kubectl(['create', 'namespace', 'tenant']);
  await kubectl(['create', 'namespace', 'agw']);
  await kubectl(
    ['apply', '-n', 'tenant', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'agentgateway.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'acme' }, spec: {} },
        {
          apiVersion: 'agentgateway.dev/v1alpha1',
          kind: 'McpSource',
          metadata: { name: 'up' },
          spec: { workspaceRef: { name: 'acme' }, transport: 'streamable-http', url: upstream.url },
        },
        JSON.parse(apiKey('before')) as unknown,
      ],
    }),
  );
  const policy = await writeTestPolicy();
  deployed = await startOperatorAndGateways({
    gatewayNamespace: 'agw',
    policy,
    gateways: 2,
    kubeconfig: plane.kubeconfig,
    logLevel: 'silent',
  });
  gateways = deployed.gateways;
}, 120_000);

afterAll(async () => {
  await deployed?.stop();
  await upstream?.close();
  await plane?.stop();
});

it('kube:apiserver-outage — 30 s without the apiserver under load: zero failed requests, and a later change is picked up', async () => {
  const key = await issuedKey('before');
  for (const gateway of gateways)
    await until('the key', async () =>
      (await get(`${gateway.url}/agent/tools`, key)).status === 200 ? true : undefined,
    );
  let ok = 0;
  let loading = true;
  let servedDuringOutage = 0;
  let outageS = 0;
  const failures: string[] = [];
  const once = async (url: string, index: number) => {
    const response =
      index % 2 === 0
        ? await get(`${url}/agent/tools`, key)
        : await mcpPost(url, key, {
            method: 'tools/call',
            params: { name: 'up__echo', arguments: { text: 'x' } },
          });
    const body = await response.text();
    if (response.status === 200 && !body.includes('"error"')) ok += 1;
    else failures.push(`${response.status} ${body.slice(0, 120)}`);
  };
  const worker = async (url: string, index: number) => {
    while (loading)
      await once(url, index).catch((error: unknown) => failures.push(`thrown ${(error as Error).message}`));
  };
  const load = gateways.flatMap((g) => [0, 1].map((i) => worker(g.url, i)));
  try {
    await plane.apiserverStop();
    const stoppedAt = Date.now();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    servedDuringOutage = ok;
    await plane.apiserverStart();
    outageS = (Date.now() - stoppedAt) / 1000;
    await kubectl(['apply', '-n', 'tenant', '-f', '-'], apiKey('after'));
    const fresh = await issuedKey('after');
    for (const gateway of gateways)
      await until('the key created after the outage', async () =>
        (await get(`${gateway.url}/agent/tools`, fresh)).status === 200 ? true : undefined,
      );
  } finally {
    loading = false;
    await Promise.all(load);
  }
  console.log(
    `apiserver outage ${outageS.toFixed(1)} s: ${ok} requests served (${servedDuringOutage} by its end), ${failures.length} failed`,
  );
  expect(failures).toEqual([]);
  expect(servedDuringOutage).toBeGreaterThan(100);
}, 120_000);
