// The workspace controller with the tenant reach policy (issue 20): refusals as conditions and
// Events, host names resolved before the policy decides, dangling workspace references reported.
import { describe, expect, it } from 'vitest';
import type { ControllerCaches } from '../../../operator/controllers/workspace-controller.js';
import { MemoryEventRecorder } from '../../../operator/kube/event-recorder.js';
import { DEFAULT_TENANT_POLICY, TenantPolicySchema } from '../../../gateway/config/index.js';
import { ReachPolicy } from '../../../gateway/reach/index.js';
import {
  controllerWith as controllerOver,
  readyOf,
  resolverOf,
  fragmentOf,
} from '../../support/operator-controller.js';
import {
  cachedMeta,
  cachedSecrets,
  dataSource,
  mcpSource,
  apiKey,
  workspace,
} from '../../support/operator-objects.js';

const meta = (name: string, namespace = 'evil') => cachedMeta(name, namespace);

function controllerWith(
  caches: Partial<ControllerCaches>,
  resolved: Record<string, string[]> = {},
  policy = DEFAULT_TENANT_POLICY,
) {
  const events = new MemoryEventRecorder();
  const { controller, writer } = controllerOver(caches, {
    policy: new ReachPolicy(policy),
    resolver: resolverOf(resolved),
    events,
  });
  return { controller, writer, events };
}

describe('WorkspaceController under a tenant reach policy', () => {
  it('tenant:events — refuses a loopback McpSource and a link-local http DataSource with conditions and Warning Events, and records KeyIssued', async () => {
    const ws = workspace(meta('ws'));
    const { controller, writer, events } = controllerWith(
      {
        workspaces: () => [ws],
        apiKeys: () => [apiKey(meta('key'), 'ws')],
        mcpSources: () => [
          mcpSource(meta('loop'), 'ws', { url: 'http://127.0.0.1:9/mcp' }),
          mcpSource(meta('named'), 'ws', { url: 'http://internal.example:9/mcp' }),
          mcpSource(meta('fine'), 'ws', { url: 'https://mcp.example.com/mcp' }),
        ],
        dataSources: () => [
          dataSource(meta('meta'), 'ws', {
            type: 'http',
            http: { url: 'http://169.254.169.254/latest', fields: { id: 'id', title: 't', body: 'b' } },
          }),
          dataSource(meta('files'), 'ws', { type: 'files', files: { path: '/etc' } }),
        ],
      },
      { 'internal.example': ['203.0.113.7', '::ffff:127.0.0.1'], 'mcp.example.com': ['203.0.113.8'] },
    );
    await controller.reconcile('evil/ws');
    expect(readyOf(writer, 'loop')).toMatchObject({ status: 'False', reason: 'AddressNotAllowed' });
    expect(readyOf(writer, 'loop')?.message).toContain('spec.url: host 127.0.0.1');
    expect(readyOf(writer, 'named')).toMatchObject({ status: 'False', reason: 'AddressNotAllowed' });
    expect(readyOf(writer, 'named')?.message).not.toContain('127.0.0.1');
    expect(readyOf(writer, 'fine')).toMatchObject({ status: 'True', reason: 'Rendered' });
    expect(readyOf(writer, 'meta')).toMatchObject({ status: 'False', reason: 'AddressNotAllowed' });
    expect(readyOf(writer, 'files')).toMatchObject({ status: 'False', reason: 'PathNotAllowed' });
    const fragment = fragmentOf(writer, 'agw-ws-ws-c0');
    expect(fragment).toContain('mcp.example.com');
    expect(fragment).not.toContain('127.0.0.1');
    expect(fragment).not.toContain('169.254');
    const byName = (name: string) => events.events.filter((e) => e.subject.name === name);
    expect(byName('loop')).toEqual([
      expect.objectContaining({
        type: 'Warning',
        reason: 'AddressNotAllowed',
        subject: expect.objectContaining({ kind: 'McpSource', uid: 'uid-loop' }),
      }),
    ]);
    expect(byName('key').map((e) => e.reason)).toEqual(['KeyIssued', 'KeyIssued']);
    expect(byName('fine').map((e) => e.type)).toEqual(['Normal']);
  });

  it('operator:upstream-oauth-reach-resolved — the host names of token endpoints and issuers are resolved before the policy decides them', async () => {
    const ws = workspace(meta('ws'));
    const clientRefs = {
      clientId: { secretKeyRef: { name: 'client', key: 'id' } },
      clientSecret: { secretKeyRef: { name: 'client', key: 'secret' } },
    };
    const source = (name: string, credential: { tokenEndpoint?: string; issuer?: string }) =>
      mcpSource(meta(name), 'ws', {
        url: 'https://mcp.example.com/mcp',
        credential: { type: 'oauthClientCredentials', ...clientRefs, ...credential },
      });
    const { controller, writer } = controllerWith(
      {
        workspaces: () => [ws],
        mcpSources: () => [
          source('inside', { tokenEndpoint: 'http://token.internal.example/token' }),
          source('outside', { issuer: 'https://login.example.com' }),
        ],
        secret: cachedSecrets({ client: { id: 'gw', secret: 's3' } }),
      },
      {
        'token.internal.example': ['127.0.0.1'],
        'login.example.com': ['203.0.113.9'],
        'mcp.example.com': ['203.0.113.8'],
      },
    );
    await controller.reconcile('evil/ws');
    expect(readyOf(writer, 'inside')).toMatchObject({ status: 'False', reason: 'AddressNotAllowed' });
    expect(readyOf(writer, 'inside')?.message).toContain(
      'spec.credential.tokenEndpoint: host token.internal.example',
    );
    expect(readyOf(writer, 'outside')).toMatchObject({ status: 'True', reason: 'Rendered' });
  });

  it('tenant:workspace-not-found — resources naming a Workspace that is not in their namespace are Ready=False WorkspaceNotFound', async () => {
    const { controller, writer, events } = controllerWith({
      workspaces: () => [workspace(meta('team-ws', 'team'))],
      apiKeys: (namespace) => (namespace === 'evil' ? [apiKey(meta('stolen'), 'team-ws')] : []),
    });
    await controller.reconcile('evil/team-ws');
    expect(readyOf(writer, 'stolen')).toMatchObject({ status: 'False', reason: 'WorkspaceNotFound' });
    expect(readyOf(writer, 'stolen')?.message).toContain('namespace evil');
    expect(writer.applied).toEqual([]);
    expect(events.events.map((e) => [e.subject.name, e.type, e.reason])).toEqual([
      ['stolen', 'Warning', 'WorkspaceNotFound'],
    ]);
  });

  it('tenant:path-not-allowed — a per-namespace root admits its own directory and refuses a neighbour with a shared prefix', async () => {
    const policy = TenantPolicySchema.parse({ files: { allowedRoots: ['/data/{namespace}'] } });
    const ws = workspace(meta('ws'));
    const { controller, writer } = controllerWith(
      {
        workspaces: () => [ws],
        dataSources: () => [
          dataSource(meta('own'), 'ws', { type: 'files', files: { path: '/data/evil/docs' } }),
          dataSource(meta('prefix'), 'ws', { type: 'files', files: { path: '/data/evil-twin/docs' } }),
          dataSource(meta('dots'), 'ws', { type: 'files', files: { path: '/data/evil/../team' } }),
        ],
      },
      {},
      policy,
    );
    await controller.reconcile('evil/ws');
    expect(readyOf(writer, 'own')).toMatchObject({ status: 'True' });
    expect(readyOf(writer, 'prefix')).toMatchObject({ status: 'False', reason: 'PathNotAllowed' });
    expect(readyOf(writer, 'dots')).toMatchObject({ status: 'False', reason: 'PathNotAllowed' });
  });
});
