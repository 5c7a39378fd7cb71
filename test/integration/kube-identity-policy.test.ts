// The identity policy on a real kube-apiserver (issue 37 items 1-2, D24), with a real authorization
// server (oidc-provider): the admin lets two tenant namespaces trust the company issuer, with its
// JWKS fixed and a group condition for one of them. The operator refuses a Workspace naming an
// issuer the policy does not list for its namespace (IssuerNotAllowed) and one pairing the issuer
// with keys of its own (KeySourceNotAllowed), with a Warning Event, rendering no identity while the
// workspace's API key keeps working; it renders the policy's JWKS and group condition into an
// allowed one, so a catch-all rule admits only the group. A second gateway whose policy has no
// identity part trusts no issuer for the same rendered workspace (deny by default).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Child } from '../bench/child-process.js';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { get, mcpPost } from '../support/gateway-harness.js';
import type { GatewayProcess } from '../support/gateway-processes.js';
import {
  applyList,
  customResource,
  freshNamespace,
  kubectl,
  kubectlOk,
  readIssuedKey,
  readyCondition,
  renderedConfigMaps,
  startKubeGateway,
  startOperator,
} from '../support/kube-harness.js';
import { clientCredentialsToken, machineClient } from '../support/oauth-clients.js';
import { writeTestPolicy, type TestPolicyFiles } from '../support/test-policy.js';
import { until } from '../support/until.js';

const RESOURCE = 'https://agents.example.test/mcp';
const GROUP = 'team-agents-91c';
let team: string;
let evil: string;
let gatewayNs: string;
let as: AuthServer;
let upstream: RunningModernServer;
let keys: Server;
let keysUrl: string;
let evilJwks = '';
let mintEvil: () => Promise<string>;
let operator: Child | undefined;
let policed: GatewayProcess;
let unbounded: GatewayProcess;
const keyRequests = new Map<string, number>();

const clients = ['member', 'outsider'].map((id) => machineClient(id));

function clientToken(clientId: string): Promise<string> {
  return clientCredentialsToken(as.issuer, { clientId, resource: RESOURCE });
}

function workspace(name: string, issuer: Record<string, unknown>): Record<string, unknown> {
  return customResource('Workspace', name, {
    identity: { issuers: [issuer], rules: [{ name: 'everyone', issuer: issuer['issuer'] }] },
  });
}

async function warningEvent(namespace: string, name: string, reason: string) {
  return until(`a ${reason} event for ${name}`, async () => {
    const out = await kubectlOk([
      'get',
      'events',
      '-n',
      namespace,
      '--field-selector',
      `involvedObject.name=${name}`,
      '-o',
      'json',
    ]);
    const items = (JSON.parse(out) as { items: { reason: string; type: string }[] }).items;
    return items.find((e) => e.reason === reason);
  });
}

/** tools/list at the shared /mcp, or at a workspace's own /w/<workspace>/mcp. */
async function toolsStatus(url: string, token: string, workspace?: string): Promise<number> {
  const endpoint = workspace === undefined ? url : `${url}/w/${workspace}`;
  return (await mcpPost(endpoint, token, { method: 'tools/list' })).status;
}

beforeAll(async () => {
  team = await freshNamespace('idp-team');
  evil = await freshNamespace('idp-evil');
  gatewayNs = await freshNamespace('agw-idp');
  upstream = await startModernServer();
  as = await startAuthServer({
    resources: { [RESOURCE]: { scope: 'mcp:read' } },
    scopes: ['mcp:read'],
    clients,
    tokenClaims: (_account, clientId) => ({ groups: clientId === 'member' ? [GROUP] : ['other-team'] }),
  });
  const evilPair = await generateKeyPair('ES256', { extractable: true });
  evilJwks = JSON.stringify({
    keys: [{ ...(await exportJWK(evilPair.publicKey)), kid: 'evil-1', alg: 'ES256', use: 'sig' }],
  });
  mintEvil = async () => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      iss: as.issuer,
      // For evil's own resource (D24): only its own declaration could ever verify it.
      aud: 'https://agents.example.test/w/idp-evil-ws/mcp',
      sub: 'alice',
      client_id: 'member',
      scope: 'mcp:read',
    })
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'evil-1' })
      .sign(evilPair.privateKey);
  };
  keys = createServer((request, response) => {
    keyRequests.set(request.url ?? '', (keyRequests.get(request.url ?? '') ?? 0) + 1);
    if (request.url === '/evil-keys') response.end(evilJwks);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => keys.listen(0, '127.0.0.1', resolve));
  keysUrl = `http://127.0.0.1:${(keys.address() as AddressInfo).port}`;

  const identity = {
    issuers: [
      {
        issuer: as.issuer,
        jwksUri: `${as.issuer}/jwks`,
        namespaces: [team, evil],
        claims: { [team]: [{ claim: 'groups', contains: GROUP }] },
      },
    ],
  };
  // The shared resource admits tokens for the admin's default workspace only (D24).
  const oauth = { resource: RESOURCE, defaultWorkspace: 'idp-team-ws' };
  const withIdentity: TestPolicyFiles = await writeTestPolicy({ extraBase: { oauth }, identity });
  const withoutIdentity = await writeTestPolicy({ extraBase: { oauth } });
  operator = await startOperator({
    gatewayNamespace: gatewayNs,
    policyPath: withIdentity.policyPath,
    identity: 'identity-policy-operator',
  });
  policed = await startKubeGateway({ namespace: gatewayNs, baseConfigPath: withIdentity.baseConfigPath });
  unbounded = await startKubeGateway({
    namespace: gatewayNs,
    baseConfigPath: withoutIdentity.baseConfigPath,
  });

  const source = (ws: string) =>
    customResource('McpSource', `${ws}-demo`, {
      workspaceRef: { name: ws },
      transport: 'streamable-http',
      url: upstream.url,
    });
  await applyList(team, [
    workspace('idp-team-ws', { issuer: as.issuer, jwks: {} }),
    source('idp-team-ws'),
    customResource('ApiKey', 'team-key', { workspaceRef: { name: 'idp-team-ws' } }),
  ]);
  await applyList(evil, [
    workspace('idp-evil-ws', { issuer: as.issuer, jwks: { uri: `${keysUrl}/evil-keys` } }),
    customResource('ApiKey', 'evil-key', { workspaceRef: { name: 'idp-evil-ws' } }),
    workspace('idp-stray-ws', { issuer: `${keysUrl}/stray`, jwks: {} }),
  ]);
}, 180_000);

afterAll(async () => {
  await policed?.child.stop();
  await unbounded?.child.stop();
  await operator?.stop();
  await upstream?.close();
  await as?.stop();
  await new Promise<void>((resolve) => (keys ? keys.close(() => resolve()) : resolve()));
  for (const namespace of [team, evil, gatewayNs])
    if (namespace !== undefined) await kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

describe('the identity policy in the Kubernetes shape', () => {
  it('kube:identity-policy-issuer-not-allowed — a Workspace naming an issuer its namespace may not trust is Ready=False IssuerNotAllowed with a Warning Event', async () => {
    const ready = await readyCondition(evil, 'workspaces', 'idp-stray-ws');
    expect(ready).toMatchObject({ status: 'False', reason: 'IssuerNotAllowed' });
    expect(ready.message).toContain(`spec.identity.issuers[0].issuer: issuer ${keysUrl}/stray is not one`);
    expect((await warningEvent(evil, 'idp-stray-ws', 'IssuerNotAllowed')).type).toBe('Warning');
  });

  it('kube:identity-policy-own-jwks — the company issuer with a JWKS of the tenant’s own is refused (KeySourceNotAllowed): its minted token is not admitted, its API key still works', async () => {
    const ready = await readyCondition(evil, 'workspaces', 'idp-evil-ws');
    expect(ready).toMatchObject({ status: 'False', reason: 'KeySourceNotAllowed' });
    expect(ready.message).toContain('spec.identity.issuers[0].jwks.uri: differs from the JWKS');
    expect((await warningEvent(evil, 'idp-evil-ws', 'KeySourceNotAllowed')).type).toBe('Warning');
    const key = await readIssuedKey(evil, 'evil-key');
    await until('the evil workspace key to be served', async () =>
      (await get(`${policed.url}/agent/sources`, key)).status === 200 ? true : undefined,
    );
    expect(await toolsStatus(policed.url, await mintEvil(), 'idp-evil-ws')).toBe(401);
    expect(keyRequests.get('/evil-keys') ?? 0).toBe(0);
  });

  it('kube:identity-policy-rendered — an allowed Workspace is rendered with the policy’s JWKS and group: its catch-all rule admits the group only', async () => {
    expect(await readyCondition(team, 'workspaces', 'idp-team-ws')).toMatchObject({
      status: 'True',
      reason: 'Rendered',
    });
    const configMaps = await renderedConfigMaps(gatewayNs, 'idp-team-ws');
    const fragment = configMaps.map((c) => c.data['fragment.json'] ?? '').find((f) => f.includes('identity'));
    const identity = (JSON.parse(fragment ?? '{}') as { identity?: { issuers: unknown[]; rules: unknown[] } })
      .identity;
    expect(identity?.issuers).toEqual([expect.objectContaining({ jwksUri: `${as.issuer}/jwks` })]);
    expect(identity?.rules).toEqual([
      expect.objectContaining({ name: 'everyone', when: [{ claim: 'groups', contains: GROUP }] }),
    ]);
    const member = await clientToken('member');
    await until('the member to be admitted', async () =>
      (await toolsStatus(policed.url, member)) === 200 ? true : undefined,
    );
    expect(await toolsStatus(policed.url, await clientToken('outsider'))).toBe(403);
  });

  it('kube:identity-policy-default-deny — a gateway whose policy has no identity part trusts no issuer, whatever was rendered', async () => {
    const member = await clientToken('member');
    await until('the policed gateway to admit the member', async () =>
      (await toolsStatus(policed.url, member)) === 200 ? true : undefined,
    );
    // The same rendered workspace is served there (its API key works), without its identity.
    const key = await readIssuedKey(team, 'team-key');
    await until('the unbounded gateway to serve the same workspace', async () =>
      (await get(`${unbounded.url}/agent/sources`, key)).status === 200 ? true : undefined,
    );
    expect(await toolsStatus(unbounded.url, member)).toBe(401);
  });
});
