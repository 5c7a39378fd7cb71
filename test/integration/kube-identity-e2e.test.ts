// OAuth sign-in to a workspace defined by custom resources, end to end on a real kube-apiserver
// (issue 29): a Workspace with spec.identity trusting a real authorization server (oidc-provider)
// and an McpSource → the operator process renders them → two `serve --kubernetes` processes whose
// base config has the admin's oauth section (and whose policy lets the tenant trust the issuer) admit
// a client-credentials token the rule matches, and changing the rule's claim condition revokes the
// identity on both within 2 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { mcpPost } from '../support/gateway-harness.js';
import type { GatewayProcess } from '../support/gateway-processes.js';
import {
  freshNamespace,
  kubectlOk,
  startOperatorAndGateways,
  type OperatorAndGateways,
} from '../support/kube-harness.js';
import { clientCredentialsToken, machineClient } from '../support/oauth-clients.js';
import { writeTestPolicy, type TestPolicyFiles } from '../support/test-policy.js';
import { until } from '../support/until.js';

/** The canonical resource URI: the public one clients would reach, not the processes' addresses. */
const RESOURCE = 'https://agents.example.test/mcp';
const CLIENT = { id: 'kube-bot', secret: 'kube-bot-secret-0123456789' };
let tenant: string;
let gatewayNs: string;
let upstream: RunningModernServer;
let as: AuthServer;
let policy: TestPolicyFiles;
let plane: OperatorAndGateways | undefined;
let gateways: readonly GatewayProcess[] = [];

function workspace(clientId: string): string {
  return JSON.stringify({
    apiVersion: 'agentgateway.dev/v1alpha1',
    kind: 'Workspace',
    metadata: { name: 'signin' },
    spec: {
      identity: {
        issuers: [{ issuer: as.issuer, jwks: {} }],
        rules: [{ name: 'bots', issuer: as.issuer, when: [{ claim: 'client_id', equals: clientId }] }],
      },
    },
  });
}

function machineToken(): Promise<string> {
  return clientCredentialsToken(as.issuer, {
    clientId: CLIENT.id,
    clientSecret: CLIENT.secret,
    resource: RESOURCE,
  });
}

async function toolsOf(url: string, token: string): Promise<string[] | number> {
  const response = await mcpPost(url, token, { method: 'tools/list' });
  if (response.status !== 200) return response.status;
  const body = (await response.json()) as { result?: { tools: { name: string }[] } };
  return body.result?.tools.map((t) => t.name) ?? [];
}

beforeAll(async () => {
  tenant = await freshNamespace('ident');
  gatewayNs = await freshNamespace('agw-ident');
  upstream = await startModernServer();
  as = await startAuthServer({
    resources: { [RESOURCE]: { scope: 'mcp:read' } },
    scopes: ['mcp:read'],
    clients: [machineClient(CLIENT.id, CLIENT.secret)],
  });
  // The admin's oauth section names the default workspace, whose rules admit tokens for the shared
  // resource (D24; the chart's oauth.defaultWorkspace), and lets the tenant's namespace trust this
  // issuer (no identity policy: none).
  policy = await writeTestPolicy({
    extraBase: { oauth: { resource: RESOURCE, defaultWorkspace: 'signin' } },
    identity: { issuers: [{ issuer: as.issuer, namespaces: [tenant] }] },
  });
  await kubectlOk(
    ['apply', '-n', tenant, '-f', '-'],
    `${workspace(CLIENT.id)}\n---\n${JSON.stringify({
      apiVersion: 'agentgateway.dev/v1alpha1',
      kind: 'McpSource',
      metadata: { name: 'demo' },
      spec: { workspaceRef: { name: 'signin' }, transport: 'streamable-http', url: upstream.url },
    })}`,
  );
  plane = await startOperatorAndGateways({ gatewayNamespace: gatewayNs, policy, gateways: 2 });
  gateways = plane.gateways;
}, 120_000);

afterAll(async () => {
  await plane?.stop();
  await upstream?.close();
  await as?.stop();
});

describe('OAuth sign-in to a workspace defined by custom resources', () => {
  it('kube:e2e-identity — both gateways admit a client-credentials token by the Workspace’s spec.identity; changing the claim condition revokes it on both within 2 s', async () => {
    const token = await machineToken();
    for (const gateway of gateways) {
      const tools = await until('the identity to be admitted', async () => {
        const found = await toolsOf(gateway.url, token);
        return Array.isArray(found) && found.length > 0 ? found : undefined;
      });
      expect(tools).toContain('demo__echo');
    }
    const status = JSON.parse(
      await kubectlOk(['get', 'workspace', 'signin', '-n', tenant, '-o', 'jsonpath={.status}']),
    ) as { issuers?: number; conditions: { status: string; reason: string }[] };
    expect(status.issuers).toBe(1);
    expect(status.conditions[0]).toMatchObject({ status: 'True', reason: 'Rendered' });

    const changed = performance.now();
    await kubectlOk(['apply', '-n', tenant, '-f', '-'], workspace('another-client'));
    for (const gateway of gateways)
      await until(
        'the identity to be refused',
        async () => ((await toolsOf(gateway.url, token)) === 403 ? true : undefined),
        2000,
        50,
      );
    const revokedMs = performance.now() - changed;
    expect(revokedMs).toBeLessThan(2000);
    console.log(`identity revoked on both gateways ${revokedMs.toFixed(0)} ms after kubectl apply`);
  }, 60_000);
});
