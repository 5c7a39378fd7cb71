// The Kubernetes config plane end to end on a real kube-apiserver (issue 9): `kubectl apply` of
// examples/kubernetes (pointed at a real MCP server and a real directory) → the operator, a real
// `agent-gateway operator` process, renders → two real `agent-gateway serve --kubernetes` processes
// serve /agent/tools, /mcp tools/call and /agent/search with the key read from the ApiKey's Secret.
// Then revocation, a missing Secret, cross-workspace isolation and leader failover.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Child } from '../bench/child-process.js';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { startAuthServer } from '../infra/oidc-provider.js';
import { get, mcpPost } from '../support/gateway-harness.js';
import type { GatewayProcess } from '../support/gateway-processes.js';
import {
  applyList,
  customResource,
  freshNamespace,
  kubectl,
  kubectlOk,
  readIssuedKey,
  startOperator,
  startOperatorAndGateways,
  type OperatorAndGateways,
} from '../support/kube-harness.js';
import { machineClient } from '../support/oauth-clients.js';
import { until } from '../support/until.js';
import { writeTestPolicy, type TestPolicyFiles } from '../support/test-policy.js';
import { upstreamGate } from '../support/upstream-oauth.js';

const UPSTREAM_TOKEN = 'replace-with-the-upstream-token';
let tenant: string;
let gatewayNs: string;
let upstream: RunningModernServer;
let docs: string;
let plane: OperatorAndGateways;
let gateways: readonly GatewayProcess[] = [];
let key: string;
let policy: TestPolicyFiles;

const operatorAs = (identity: string): Promise<Child> =>
  startOperator({ gatewayNamespace: gatewayNs, policyPath: policy.policyPath, identity });

async function statusOf(url: string, path: string, bearer: string): Promise<number> {
  return (await get(`${url}${path}`, bearer)).status;
}

/** Waits until every gateway answers /agent/tools for `bearer` with `status`. */
async function untilEveryGateway(what: string, bearer: string, status: number): Promise<void> {
  for (const gateway of gateways)
    await until(what, async () =>
      (await statusOf(gateway.url, '/agent/tools', bearer)) === status ? true : undefined,
    );
}

/** Waits until every gateway serves the config revision `revision`. */
async function untilEveryGatewayServes(what: string, revision: string): Promise<void> {
  for (const gateway of gateways)
    await until(what, async () => {
      const body = (await (await get(`${gateway.url}/agent/sources?response_format=json`, key)).json()) as {
        config_revision: string;
      };
      return body.config_revision === revision ? true : undefined;
    });
}

function patchApiKey(name: string, spec: Record<string, unknown>): Promise<string> {
  return kubectlOk([
    'patch',
    'apikey',
    name,
    '-n',
    tenant,
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec }),
  ]);
}

beforeAll(async () => {
  tenant = await freshNamespace('tenant');
  gatewayNs = await freshNamespace('agw');
  upstream = await startModernServer({ bearerToken: UPSTREAM_TOKEN });
  docs = await mkdtemp(join(tmpdir(), 'agw-kube-docs-'));
  policy = await writeTestPolicy({ fileRoots: [docs] });
  await writeFile(
    join(docs, 'onboarding.md'),
    '# Onboarding\n\nThe pelican rota decides who reviews upstream changes each week.\n',
  );
  const examples = await Promise.all(
    ['workspace.yaml', 'apikey.yaml', 'mcpsource.yaml', 'datasource.yaml'].map((f) =>
      readFile(join('examples/kubernetes', f), 'utf8'),
    ),
  );
  const document = examples
    .join('\n---\n')
    .replace('http://docs-mcp.example.svc:8080/mcp', upstream.url)
    .replace('/data/agent-gateway/handbook', docs);
  await kubectlOk(['apply', '-n', tenant, '-f', '-'], document);
  plane = await startOperatorAndGateways({
    gatewayNamespace: gatewayNs,
    policy,
    gateways: 2,
    identity: 'operator-a',
  });
  gateways = plane.gateways;
  key = await readIssuedKey(tenant, 'ci-reader');
  await untilEveryGateway('the key to be served', key, 200);
}, 120_000);

afterAll(async () => {
  await plane?.stop();
  await upstream?.close();
  await rm(docs, { recursive: true, force: true });
});

describe('kubectl apply → operator → gateways', () => {
  it('kube:e2e-serve — both gateways serve tools, a tools/call and search with the key from the ApiKey Secret', async () => {
    for (const gateway of gateways) {
      const tools = (await (await get(`${gateway.url}/agent/tools?response_format=json`, key)).json()) as {
        tools: { name: string }[];
      };
      expect(tools.tools.map((t) => t.name)).toContain('docs__echo');
      const call = (await (
        await mcpPost(gateway.url, key, {
          method: 'tools/call',
          params: { name: 'docs__echo', arguments: { text: 'through the operator' } },
        })
      ).json()) as { result: { content: { text: string }[] } };
      expect(call.result.content[0]?.text).toBe('through the operator');
      const hits = await until('the handbook to be indexed', async () => {
        const response = await fetch(`${gateway.url}/agent/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'pelican rota', options: { response_format: 'json' } }),
        });
        const body = (await response.json()) as { results: { title: string }[] };
        return body.results.length > 0 ? body.results : undefined;
      });
      expect(hits[0]?.title).toBe('Onboarding');
    }
    // Every gateway reports the revision the operator rendered (Workspace status.revision).
    const rendered = await until('the Workspace revision', async () => {
      const out = await kubectlOk([
        'get',
        'workspace',
        'acme',
        '-n',
        tenant,
        '-o',
        'jsonpath={.status.revision}',
      ]);
      return /^[0-9a-f]{16}$/.test(out) ? out : undefined;
    });
    await untilEveryGatewayServes('the gateway to serve that revision', rendered);
    // The upstream saw the credential from the Secret, never the caller's key.
    expect(upstream.log.every((entry) => entry.authorization === `Bearer ${UPSTREAM_TOKEN}`)).toBe(true);
    const status = JSON.parse(
      await kubectlOk(['get', 'apikey', 'ci-reader', '-n', tenant, '-o', 'json']),
    ) as { status: { conditions: { type: string; status: string; reason: string }[] } };
    expect(status.status.conditions.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'KeyIssued',
    });
  });

  it('kube:e2e-revoke — revoking the ApiKey makes every gateway refuse the key; un-revoking restores it', async () => {
    await patchApiKey('ci-reader', { revoked: true });
    await untilEveryGateway('401 after revocation', key, 401);
    await patchApiKey('ci-reader', { revoked: false });
    await untilEveryGateway('200 after un-revocation', key, 200);
  });

  it('kube:e2e-missing-secret — a source whose Secret is missing is Ready=False; the rest keeps serving; creating the Secret recovers it', async () => {
    await applyList(tenant, [
      customResource('McpSource', 'later', {
        workspaceRef: { name: 'acme' },
        transport: 'streamable-http',
        url: upstream.url,
        credential: { type: 'bearer', secretKeyRef: { name: 'later-token', key: 'token' } },
      }),
    ]);
    const reason = await until('the SecretNotFound condition', async () => {
      const out = await kubectlOk([
        'get',
        'mcpsource',
        'later',
        '-n',
        tenant,
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Ready")].reason}',
      ]);
      return out === 'SecretNotFound' ? out : undefined;
    });
    expect(reason).toBe('SecretNotFound');
    for (const gateway of gateways) expect(await statusOf(gateway.url, '/agent/tools', key)).toBe(200);
    await kubectlOk([
      'create',
      'secret',
      'generic',
      'later-token',
      '-n',
      tenant,
      `--from-literal=token=${UPSTREAM_TOKEN}`,
    ]);
    for (const gateway of gateways)
      await until('the recovered source to be served', async () => {
        const body = (await (await get(`${gateway.url}/agent/tools?response_format=json`, key)).json()) as {
          tools: { name: string }[];
        };
        return body.tools.some((t) => t.name === 'later__echo') ? true : undefined;
      });
  });

  it('kube:e2e-isolation — a key of another workspace never sees this workspace’s tools or documents', async () => {
    await applyList(tenant, [
      customResource('Workspace', 'globex', {}),
      customResource('ApiKey', 'globex-writer', { workspaceRef: { name: 'globex' }, access: 'write' }),
    ]);
    const otherKey = await readIssuedKey(tenant, 'globex-writer');
    for (const gateway of gateways) {
      await until('the other key to be served', async () =>
        (await statusOf(gateway.url, '/agent/tools', otherKey)) === 200 ? true : undefined,
      );
      const tools = (await (
        await get(`${gateway.url}/agent/tools?response_format=json`, otherKey)
      ).json()) as {
        tools: unknown[];
      };
      expect(tools.tools).toEqual([]);
      const call = (await (
        await mcpPost(gateway.url, otherKey, {
          method: 'tools/call',
          params: { name: 'docs__echo', arguments: { text: 'x' } },
        })
      ).json()) as { error?: { message: string } };
      expect(call.error?.message).toContain('Unknown tool');
      const search = (await (
        await fetch(`${gateway.url}/agent/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${otherKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'pelican rota', options: { response_format: 'json' } }),
        })
      ).json()) as { results: unknown[] };
      expect(search.results).toEqual([]);
    }
  });

  it('kube:e2e-bring-your-own-key — an ApiKey with keyId + keyHash is served without any plaintext in the cluster', async () => {
    const { generateKey } = await import('../../gateway/auth/index.js');
    const own = generateKey();
    await applyList(tenant, [
      customResource('ApiKey', 'own-key', {
        workspaceRef: { name: 'acme' },
        keyId: own.id,
        keyHash: own.hash,
      }),
    ]);
    await untilEveryGateway('the own key to be served', own.key, 200);
    const secrets = await kubectlOk(['get', 'secrets', '-n', tenant, '-o', 'name']);
    expect(secrets).not.toContain('own-key-key');
    const everything = await kubectlOk(['get', 'secrets,configmaps', '-A', '-o', 'json']);
    expect(everything).not.toContain(Buffer.from(own.key).toString('base64'));
    expect(everything).not.toContain(own.key);
  });

  it('kube:e2e-secret-rotation — rotating a referenced Secret re-renders the workspace within seconds', async () => {
    const revision = async () =>
      kubectlOk(['get', 'workspace', 'acme', '-n', tenant, '-o', 'jsonpath={.status.revision}']);
    const before = await revision();
    await kubectlOk([
      'create',
      'secret',
      'generic',
      'later-token',
      '-n',
      tenant,
      '--from-literal=token=rotated-value',
      '--dry-run=client',
      '-o',
      'yaml',
    ]).then((yaml) => kubectlOk(['apply', '-n', tenant, '-f', '-'], yaml));
    const after = await until('a new revision', async () => {
      const now = await revision();
      return now !== before && now !== '' ? now : undefined;
    });
    await untilEveryGatewayServes('the gateways to serve it', after);
  });

  it('kube:e2e-upstream-oauth — an McpSource with oauthClientCredentials from a Secret: both gateways get a token of their own from a real authorization server for an upstream that checks its audience; no client secret outside the Secrets', async () => {
    const clientSecret = 'kube-e2e-client-secret-Vq3';
    const guarded = await startModernServer({
      authorize: (authorization) => gate.authorize(authorization),
    });
    const as = await startAuthServer({
      resources: { [guarded.url]: { scope: 'tools:read' } },
      scopes: ['tools:read'],
      clients: [
        machineClient('kube-gateway', clientSecret, { token_endpoint_auth_method: 'client_secret_basic' }),
      ],
    });
    const gate = upstreamGate(as.issuer, guarded.url);
    try {
      await kubectlOk([
        'create',
        'secret',
        'generic',
        'oauth-client',
        '-n',
        tenant,
        '--from-literal=id=kube-gateway',
        `--from-literal=secret=${clientSecret}`,
      ]);
      await applyList(tenant, [
        customResource('McpSource', 'guarded', {
          workspaceRef: { name: 'acme' },
          transport: 'streamable-http',
          url: guarded.url,
          credential: {
            type: 'oauthClientCredentials',
            issuer: as.issuer,
            clientId: { secretKeyRef: { name: 'oauth-client', key: 'id' } },
            clientSecret: { secretKeyRef: { name: 'oauth-client', key: 'secret' } },
            scopes: ['tools:read'],
          },
        }),
      ]);
      for (const gateway of gateways) {
        const answer = await until('the guarded source to answer', async () => {
          const body = (await (
            await mcpPost(gateway.url, key, {
              method: 'tools/call',
              params: { name: 'guarded__echo', arguments: { text: 'with a token of its own' } },
            })
          ).json()) as { result?: { content: { text: string }[] } };
          return body.result?.content[0]?.text;
        });
        expect(answer).toBe('with a token of its own');
      }
      expect(gate.accepted.length).toBeGreaterThan(0);
      expect(gate.accepted.every((claims) => claims['client_id'] === 'kube-gateway')).toBe(true);
      expect(as.requests.get('/token') ?? 0).toBeGreaterThanOrEqual(gateways.length);
      expect(guarded.log.some((entry) => entry.authorization?.includes(key) === true)).toBe(false);
      const rendered = await kubectlOk(['get', 'configmaps', '-n', gatewayNs, '-o', 'json']);
      expect(rendered).toContain('oauthClientCredentials');
      expect(rendered).not.toContain(clientSecret);
      expect(rendered).not.toContain(Buffer.from(clientSecret).toString('base64'));
    } finally {
      await kubectl(['delete', 'mcpsource', 'guarded', '-n', tenant]);
      await guarded.close();
      await as.stop();
    }
  });

  it('kube:e2e-workspace-deleted — deleting a Workspace takes its keys out of service and removes what was rendered', async () => {
    const otherKey = await readIssuedKey(tenant, 'globex-writer');
    for (const gateway of gateways) expect(await statusOf(gateway.url, '/agent/tools', otherKey)).toBe(200);
    await kubectlOk(['delete', 'workspace', 'globex', '-n', tenant]);
    await untilEveryGateway('the deleted workspace key to be refused', otherKey, 401);
    const left = await until('the rendered objects to go', async () => {
      const out = await kubectlOk([
        'get',
        'secrets,configmaps',
        '-n',
        gatewayNs,
        '-l',
        'agentgateway.dev/workspace=globex',
        '-o',
        'name',
      ]);
      return out.trim() === '' ? 'none' : undefined;
    });
    expect(left).toBe('none');
    // The other workspace is untouched.
    for (const gateway of gateways) expect(await statusOf(gateway.url, '/agent/tools', key)).toBe(200);
  });

  it('operator:leader-failover — with two operators one leads; when it dies the other takes over and keeps rendering', async () => {
    const standby = await operatorAs('operator-b');
    const holder = async () =>
      (
        await kubectl([
          'get',
          'lease',
          'agent-gateway-operator',
          '-n',
          gatewayNs,
          '-o',
          'jsonpath={.spec.holderIdentity}',
        ])
      ).stdout;
    expect(await holder()).toBe('operator-a');
    plane.operator.process.kill('SIGKILL');
    await until(
      'operator-b to hold the lease',
      async () => ((await holder()) === 'operator-b' ? true : undefined),
      40_000,
    );
    plane.operator = standby;
    await patchApiKey('ci-reader', { rotation: 1 });
    const rotated = await until('a rotated key', async () => {
      const next = await readIssuedKey(tenant, 'ci-reader');
      return next !== key ? next : undefined;
    });
    for (const gateway of gateways) {
      await until('the rotated key to be served', async () =>
        (await statusOf(gateway.url, '/agent/tools', rotated)) === 200 ? true : undefined,
      );
      expect(await statusOf(gateway.url, '/agent/tools', key)).toBe(401);
    }
    key = rotated;
  }, 90_000);
});
