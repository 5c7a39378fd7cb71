// The workspace controller with the tenant reach policy (issue 20): refusals as conditions and
// Events, host names resolved before the policy decides, dangling workspace references reported.
import { describe, expect, it } from 'vitest';
import type { ControllerCaches, Resource } from '../../../operator/controllers/workspace-controller.js';
import { WorkspaceController } from '../../../operator/controllers/workspace-controller.js';
import type { KubeWriter, ObjectToApply } from '../../../operator/kube/kube-writer.js';
import { MemoryEventRecorder } from '../../../operator/kube/event-recorder.js';
import { DEFAULT_TENANT_POLICY, TenantPolicySchema } from '../../../gateway/config/index.js';
import { ReachPolicy } from '../../../gateway/reach/index.js';
import { createPinoLogger } from '../../../gateway/telemetry/index.js';

class RecordingWriter implements KubeWriter {
  readonly applied: ObjectToApply[] = [];
  readonly statuses: { plural: string; name: string; status: Record<string, unknown> }[] = [];
  apply(object: ObjectToApply): Promise<void> {
    this.applied.push(object);
    return Promise.resolve();
  }
  remove(): Promise<void> {
    return Promise.resolve();
  }
  patchStatus(plural: string, _ns: string, name: string, status: Record<string, unknown>): Promise<void> {
    this.statuses.push({ plural, name, status });
    return Promise.resolve();
  }
}

const logger = createPinoLogger({ level: 'silent' });
const meta = (name: string, namespace = 'evil') => ({
  name,
  namespace,
  uid: `uid-${name}`,
  generation: 1,
  creationTimestamp: '2026-01-01T00:00:00Z',
});

function readyOf(writer: RecordingWriter, name: string) {
  const status = writer.statuses.filter((s) => s.name === name).at(-1)?.status as
    { conditions: { status: string; reason: string; message: string }[] } | undefined;
  return status?.conditions[0];
}

function controllerWith(
  caches: Partial<ControllerCaches>,
  resolved: Record<string, string[]> = {},
  policy = DEFAULT_TENANT_POLICY,
) {
  const writer = new RecordingWriter();
  const events = new MemoryEventRecorder();
  const controller = new WorkspaceController({
    caches: {
      workspaces: () => [],
      apiKeys: () => [],
      mcpSources: () => [],
      dataSources: () => [],
      secret: () => undefined,
      rendered: () => [],
      ...caches,
    },
    writer,
    gatewayNamespace: 'agw',
    logger,
    policy: new ReachPolicy(policy),
    resolver: (host) => Promise.resolve(resolved[host] ?? []),
    events,
  });
  return { controller, writer, events };
}

describe('WorkspaceController under a tenant reach policy', () => {
  it('tenant:events — refuses a loopback McpSource and a link-local http DataSource with conditions and Warning Events, and records KeyIssued', async () => {
    const ws: Resource<Record<string, never>> = { metadata: meta('ws'), spec: {} };
    const { controller, writer, events } = controllerWith(
      {
        workspaces: () => [ws],
        apiKeys: () => [{ metadata: meta('key'), spec: { workspaceRef: { name: 'ws' } } }],
        mcpSources: () => [
          {
            metadata: meta('loop'),
            spec: {
              workspaceRef: { name: 'ws' },
              transport: 'streamable-http',
              url: 'http://127.0.0.1:9/mcp',
            },
          },
          {
            metadata: meta('named'),
            spec: {
              workspaceRef: { name: 'ws' },
              transport: 'streamable-http',
              url: 'http://internal.example:9/mcp',
            },
          },
          {
            metadata: meta('fine'),
            spec: {
              workspaceRef: { name: 'ws' },
              transport: 'streamable-http',
              url: 'https://mcp.example.com/mcp',
            },
          },
        ],
        dataSources: () => [
          {
            metadata: meta('meta'),
            spec: {
              workspaceRef: { name: 'ws' },
              type: 'http',
              http: { url: 'http://169.254.169.254/latest', fields: { id: 'id', title: 't', body: 'b' } },
            },
          },
          {
            metadata: meta('files'),
            spec: { workspaceRef: { name: 'ws' }, type: 'files', files: { path: '/etc' } },
          },
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
    const fragment = writer.applied.find((o) => o.name === 'agw-ws-ws-c0')?.data['fragment.json'] ?? '';
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
    const ws: Resource<Record<string, never>> = { metadata: meta('ws'), spec: {} };
    const clientRefs = {
      clientId: { secretKeyRef: { name: 'client', key: 'id' } },
      clientSecret: { secretKeyRef: { name: 'client', key: 'secret' } },
    };
    const source = (name: string, credential: { tokenEndpoint?: string; issuer?: string }) => ({
      metadata: meta(name),
      spec: {
        workspaceRef: { name: 'ws' },
        transport: 'streamable-http',
        url: 'https://mcp.example.com/mcp',
        credential: { type: 'oauthClientCredentials' as const, ...clientRefs, ...credential },
      },
    });
    const { controller, writer } = controllerWith(
      {
        workspaces: () => [ws],
        mcpSources: () => [
          source('inside', { tokenEndpoint: 'http://token.internal.example/token' }),
          source('outside', { issuer: 'https://login.example.com' }),
        ],
        secret: (_namespace, name) =>
          name === 'client'
            ? {
                data: {
                  id: Buffer.from('gw').toString('base64'),
                  secret: Buffer.from('s3').toString('base64'),
                },
              }
            : undefined,
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
      workspaces: () => [{ metadata: meta('team-ws', 'team'), spec: {} }],
      apiKeys: (namespace) =>
        namespace === 'evil'
          ? [{ metadata: meta('stolen'), spec: { workspaceRef: { name: 'team-ws' } } }]
          : [],
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
    const ws: Resource<Record<string, never>> = { metadata: meta('ws'), spec: {} };
    const { controller, writer } = controllerWith(
      {
        workspaces: () => [ws],
        dataSources: () => [
          {
            metadata: meta('own'),
            spec: { workspaceRef: { name: 'ws' }, type: 'files', files: { path: '/data/evil/docs' } },
          },
          {
            metadata: meta('prefix'),
            spec: { workspaceRef: { name: 'ws' }, type: 'files', files: { path: '/data/evil-twin/docs' } },
          },
          {
            metadata: meta('dots'),
            spec: { workspaceRef: { name: 'ws' }, type: 'files', files: { path: '/data/evil/../team' } },
          },
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
