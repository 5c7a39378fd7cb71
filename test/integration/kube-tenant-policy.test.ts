// Issue 20 on a real kube-apiserver: a tenant with namespace-scoped rights only (kubectl --as a
// ServiceAccount bound to the chart's tenant role) tries to make the gateway read files and reach
// addresses outside the admin's policy. The operator refuses what the spec shows (a condition and
// an Event a cluster admin reads with kubectl); the gateway refuses again where it opens a file or
// dials an address, for what only shows at run time (symlinks, renamed directories, redirects,
// next-page URLs) and for rendered objects forged around the operator. A listener on every denied
// address proves that nothing connected.
import { execFile } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Child } from '../bench/child-process.js';
import { get, mcpPost } from '../support/gateway-harness.js';
import type { GatewayProcess } from '../support/gateway-processes.js';
import {
  customResource,
  freshNamespace,
  kubeConfig,
  kubectl,
  kubectlOk,
  readIssuedKey,
  readyCondition,
  renderedConfigMaps,
  startKubeGateway,
  startOperator,
  type ReadyCondition,
} from '../support/kube-harness.js';
import { until } from '../support/until.js';

const run = promisify(execFile);
const SECRET_TEXT = 'zebra-token-of-the-gateway-serviceaccount';
const ALLOWED_ADDRESS = '127.0.0.2';

/** A TCP listener that only counts who connected (the denied targets). */
interface Tripwire {
  readonly port: number;
  readonly connections: () => number;
  close(): Promise<void>;
}

async function tripwire(host: string): Promise<Tripwire> {
  let connections = 0;
  const server: TcpServer = createTcpServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let root: string;
let outside: string;
let evil: string;
let team: string;
let gatewayNs: string;
let operator: Child | undefined;
let gateway: GatewayProcess;
let loopbackWire: Tripwire;
let ipv6Wire: Tripwire;
let metadataWire: Tripwire | undefined;
let allowedHttp: Server;
let allowedPort = 0;
let evilKey: string;
let policyPath: string;
let basePath: string;
const extraAddresses: string[] = [];

const asTenant = (args: readonly string[], input?: string) =>
  kubectl(['--as', `system:serviceaccount:${evil}:tenant`, ...args], input);

async function tenantApply(items: Record<string, unknown>[]): Promise<void> {
  const result = await asTenant(
    ['apply', '-n', evil, '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
  );
  if (result.code !== 0) throw new Error(`tenant apply failed: ${result.stderr}`);
}

function readyOf(plural: string, name: string, namespace = evil): Promise<ReadyCondition> {
  return readyCondition(namespace, plural, name);
}

async function eventsFor(name: string): Promise<{ reason: string; type: string; message: string }[]> {
  const out = await kubectlOk([
    'get',
    'events',
    '-n',
    evil,
    '--field-selector',
    `involvedObject.name=${name}`,
    '-o',
    'json',
  ]);
  return (JSON.parse(out) as { items: { reason: string; type: string; message: string }[] }).items;
}

interface SourceRecord {
  readonly id: string;
  readonly last_error: string | null;
  readonly error_code: string | null;
  readonly status: string;
}

async function sources(): Promise<SourceRecord[]> {
  const response = await get(`${gateway.url}/agent/sources`, evilKey, { accept: 'application/json' });
  return ((await response.json()) as { sources: SourceRecord[] }).sources;
}

async function sourceError(name: string): Promise<string> {
  return until(`a sync error for ${name}`, async () => {
    const found = (await sources()).find((s) => s.id === name);
    return found?.last_error ?? undefined;
  });
}

async function search(query: string): Promise<string> {
  const response = await fetch(`${gateway.url}/agent/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${evilKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, options: { response_format: 'json' } }),
  });
  return response.text();
}

beforeAll(async () => {
  evil = await freshNamespace('evil');
  team = await freshNamespace('team');
  gatewayNs = await freshNamespace('agw');
  root = await mkdtemp(join(tmpdir(), 'agw-tenant-roots-'));
  outside = await mkdtemp(join(tmpdir(), 'agw-outside-'));
  await writeFile(join(outside, 'token'), `${SECRET_TEXT}\n`);
  await writeFile(join(outside, 'token.md'), `# token\n\n${SECRET_TEXT}\n`);
  await mkdir(join(root, evil, 'handbook'), { recursive: true });
  await writeFile(
    join(root, evil, 'handbook', 'guide.md'),
    '# Guide\n\nThe heron schedule lists who answers the pager.\n',
  );
  // A symlink inside an allowed tree to a file outside it: never read.
  await symlink(join(outside, 'token.md'), join(root, evil, 'handbook', 'token.md'));
  await symlink(outside, join(root, evil, 'escape'));

  loopbackWire = await tripwire('127.0.0.1');
  ipv6Wire = await tripwire('::1');
  // 169.254.169.254 exists here only if we may add it to the loopback device (root); the refusal is
  // asserted either way, the tripwire only when it could listen.
  const added = await run('ip', ['addr', 'add', '169.254.169.254/32', 'dev', 'lo']).then(
    () => true,
    () => false,
  );
  if (added) extraAddresses.push('169.254.169.254/32');
  metadataWire = await tripwire('169.254.169.254').catch(() => undefined);

  // The allowed target: an HTTP JSON API on 127.0.0.2 (the namespace's allow-list names it), with
  // a page that redirects to a denied address and a page whose next link is a denied address.
  allowedHttp = createServer((req, res) => {
    if (req.url === '/items')
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify([{ id: 'a1', title: 'Kestrel', body: 'The kestrel runbook covers failover.' }]));
    if (req.url === '/redirect')
      return void res.writeHead(302, { location: `http://127.0.0.1:${loopbackWire.port}/stolen` }).end();
    if (req.url === '/paged')
      return void res
        .writeHead(200, {
          'content-type': 'application/json',
          link: `<http://127.0.0.1:${loopbackWire.port}/page2>; rel="next"`,
        })
        .end(JSON.stringify([{ id: 'p1', title: 'Page one', body: 'First page of the osprey notes.' }]));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => allowedHttp.listen(0, ALLOWED_ADDRESS, () => resolve()));
  const address = allowedHttp.address();
  allowedPort = typeof address === 'object' && address !== null ? address.port : 0;

  // The admin's policy: files under <root>/{namespace}; network defaults, plus 127.0.0.2 for this
  // tenant namespace only.
  const policy = {
    files: { allowedRoots: [join(root, '{namespace}')] },
    network: { namespaces: { [evil]: { cidrs: [`${ALLOWED_ADDRESS}/32`], hosts: [] } } },
  };
  const dir = await mkdtemp(join(tmpdir(), 'agw-tenant-policy-'));
  policyPath = join(dir, 'policy.yaml');
  basePath = join(dir, 'base.yaml');
  await writeFile(policyPath, stringify(policy));
  await writeFile(basePath, stringify({ version: 1, policy }));

  // The tenant: a ServiceAccount with the chart's tenant role in its own namespace, plus Secrets
  // there (namespace admins have both through the built-in admin role).
  const role = await tenantRole();
  await kubectlOk(['apply', '-f', '-'], JSON.stringify(role));
  await kubectlOk(['create', 'serviceaccount', 'tenant', '-n', evil]);
  await kubectlOk([
    'create',
    'rolebinding',
    'tenant-crds',
    '-n',
    evil,
    `--clusterrole=${role.metadata.name}`,
    `--serviceaccount=${evil}:tenant`,
  ]);
  await kubectlOk([
    'create',
    'role',
    'tenant-secrets',
    '-n',
    evil,
    '--verb=get,list,watch,create,update,patch,delete',
    '--resource=secrets',
  ]);
  await kubectlOk([
    'create',
    'rolebinding',
    'tenant-secrets',
    '-n',
    evil,
    '--role=tenant-secrets',
    `--serviceaccount=${evil}:tenant`,
  ]);

  operator = await startOperator({
    gatewayNamespace: gatewayNs,
    policyPath,
    identity: 'tenant-policy-operator',
  });
  gateway = await startKubeGateway({ namespace: gatewayNs, baseConfigPath: basePath });

  await tenantApply([
    customResource('Workspace', 'evil-ws', {}),
    customResource('ApiKey', 'evil-key', { workspaceRef: { name: 'evil-ws' } }),
    customResource('DataSource', 'handbook', {
      workspaceRef: { name: 'evil-ws' },
      type: 'files',
      files: { path: join(root, evil, 'handbook'), include: ['**/*.md'], watch: false },
    }),
  ]);
  evilKey = await readIssuedKey(evil, 'evil-key');
  await until('the tenant key to be served', async () =>
    (await get(`${gateway.url}/agent/sources`, evilKey)).status === 200 ? true : undefined,
  );
}, 180_000);

afterAll(async () => {
  await gateway?.child.stop();
  await operator?.stop();
  for (const wire of [loopbackWire, ipv6Wire, metadataWire]) await wire?.close();
  await new Promise<void>((resolve) => (allowedHttp ? allowedHttp.close(() => resolve()) : resolve()));
  for (const address of extraAddresses)
    await run('ip', ['addr', 'del', address, 'dev', 'lo']).catch(() => undefined);
  for (const namespace of [evil, team, gatewayNs])
    if (namespace !== undefined) await kubectl(['delete', 'namespace', namespace, '--wait=false']);
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** The chart's tenant "edit" ClusterRole, renamed so this run owns it. */
async function tenantRole(): Promise<{ metadata: { name: string } } & Record<string, unknown>> {
  const { stdout } = await run(join(kubeBin(), 'helm'), ['template', 'agw', 'charts/agent-gateway'], {
    maxBuffer: 16 << 20,
  });
  const { parseAllDocuments } = await import('yaml');
  const roles = parseAllDocuments(stdout)
    .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string; labels?: Record<string, string> } })
    .filter(
      (d) =>
        d?.kind === 'ClusterRole' &&
        d.metadata?.labels?.['rbac.authorization.k8s.io/aggregate-to-edit'] === 'true',
    );
  expect(roles).toHaveLength(1);
  const role = roles[0] as { metadata: { name: string; labels?: Record<string, string> } } & Record<
    string,
    unknown
  >;
  // Not aggregated into this plane's built-in roles: the binding below names it directly.
  return { ...role, metadata: { name: `${role.metadata.name}-${evil}` } };
}

function kubeBin(): string {
  return inject('kubeBin');
}

describe('a tenant with namespace rights only', () => {
  it('tenant:rbac-namespace-only — is bound to its namespace by RBAC: no status writes, nothing in another namespace or the gateway namespace', async () => {
    expect((await asTenant(['auth', 'can-i', 'create', 'mcpsources', '-n', evil])).stdout.trim()).toBe('yes');
    expect((await asTenant(['auth', 'can-i', 'create', 'mcpsources', '-n', team])).stdout.trim()).toBe('no');
    expect(
      (
        await asTenant(['auth', 'can-i', 'patch', 'mcpsources', '--subresource=status', '-n', evil])
      ).stdout.trim(),
    ).toBe('no');
    expect((await asTenant(['auth', 'can-i', 'patch', 'configmaps', '-n', gatewayNs])).stdout.trim()).toBe(
      'no',
    );
    const denied = await asTenant(
      ['apply', '-n', team, '-f', '-'],
      JSON.stringify(customResource('Workspace', 'sneaky', {})),
    );
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/forbidden/i);
  });

  it('tenant:files-inside-root — indexes a directory inside its root, and not a symlinked file that leads out', async () => {
    await until('the handbook to be searchable', async () =>
      (await search('heron schedule pager')).includes('heron') ? true : undefined,
    );
    expect(await search('zebra token gateway serviceaccount')).not.toContain(SECRET_TEXT);
    expect((await readyOf('datasources', 'handbook')).reason).toBe('Rendered');
  });

  it('tenant:path-not-allowed — refuses files paths outside its root, with .. and (at sync) through a symlink', async () => {
    await tenantApply([
      customResource('DataSource', 'outside', {
        workspaceRef: { name: 'evil-ws' },
        type: 'files',
        files: { path: outside, include: ['**'], watch: false },
      }),
      customResource('DataSource', 'dotdot', {
        workspaceRef: { name: 'evil-ws' },
        type: 'files',
        files: { path: `${join(root, evil)}/../../${outside.split('/').pop() ?? ''}`, include: ['**'] },
      }),
      customResource('DataSource', 'serviceaccount', {
        workspaceRef: { name: 'evil-ws' },
        type: 'files',
        files: { path: '/var/run/secrets/kubernetes.io/serviceaccount', include: ['**'] },
      }),
      customResource('DataSource', 'escape', {
        workspaceRef: { name: 'evil-ws' },
        type: 'files',
        files: { path: join(root, evil, 'escape'), include: ['**'], watch: false },
      }),
    ]);
    for (const name of ['outside', 'dotdot', 'serviceaccount']) {
      const ready = await readyOf('datasources', name);
      expect(ready.status).toBe('False');
      expect(ready.reason).toBe('PathNotAllowed');
      expect(ready.message).toContain('spec.files.path');
      const events = await until(`a PathNotAllowed event for ${name}`, async () => {
        const found = (await eventsFor(name)).filter((e) => e.reason === 'PathNotAllowed');
        return found.length > 0 ? found : undefined;
      });
      expect(events[0]?.type).toBe('Warning');
    }
    // The symlink is inside the root as written: the operator renders it, the gateway refuses it.
    expect((await readyOf('datasources', 'escape')).reason).toBe('Rendered');
    expect(await sourceError('escape')).toMatch(/not allowed by the gateway's tenant policy.*real location/);
    expect(await search('zebra token gateway serviceaccount')).not.toContain(SECRET_TEXT);
  });

  it('tenant:renamed-directory — refuses a directory renamed and replaced by a symlink out of its root after it was indexed', async () => {
    const dir = join(root, evil, 'moving');
    await mkdir(dir);
    await writeFile(join(dir, 'notes.md'), '# Notes\n\nThe plover ledger is reconciled on Fridays.\n');
    await tenantApply([
      customResource('DataSource', 'moving', {
        workspaceRef: { name: 'evil-ws' },
        type: 'files',
        files: { path: dir, include: ['**'], watch: false, syncIntervalMs: 1000 },
      }),
    ]);
    await until('the moving directory to be searchable', async () =>
      (await search('plover ledger')).includes('plover') ? true : undefined,
    );
    await rename(dir, `${dir}-old`);
    await symlink(outside, dir);
    // A sync already walking the directory when it moved fails on its vanished files (ENOENT); every
    // sync after the swap is refused for the real location. Wait for that one, then check that
    // nothing from outside the root was indexed by any of them.
    expect(
      await until('the moved directory to be refused', async () => {
        const found = (await sources()).find((s) => s.id === 'moving');
        return /real location/.test(found?.last_error ?? '') ? found?.last_error : undefined;
      }),
    ).toMatch(/real location/);
    expect(await search('zebra token gateway serviceaccount')).not.toContain(SECRET_TEXT);
  });

  it('tenant:address-not-allowed — refuses network targets the policy denies, as written and as resolved, and nothing connects', async () => {
    const apiServer = kubeConfig().getCurrentCluster()?.server as string;
    const name = hostname();
    // The precondition of the DNS case: this machine's name resolves to a loopback address.
    expect((await lookup(name)).address).toMatch(/^127\./);
    const targets: [string, Record<string, unknown>][] = [
      ['mcp-loopback', { transport: 'streamable-http', url: `http://127.0.0.1:${loopbackWire.port}/mcp` }],
      ['mcp-ipv6', { transport: 'streamable-http', url: `http://[::1]:${ipv6Wire.port}/mcp` }],
      ['mcp-apiserver', { transport: 'streamable-http', url: `${apiServer}/api` }],
      ['mcp-dns', { transport: 'streamable-http', url: `http://${name}:${loopbackWire.port}/mcp` }],
      [
        'mcp-mapped',
        { transport: 'streamable-http', url: `http://[::ffff:127.0.0.1]:${loopbackWire.port}/mcp` },
      ],
    ];
    await tenantApply(
      targets.map(([source, spec]) =>
        customResource('McpSource', source, { workspaceRef: { name: 'evil-ws' }, ...spec }),
      ),
    );
    await kubectlOk([
      'create',
      'secret',
      'generic',
      'pg',
      '-n',
      evil,
      `--from-literal=url=postgresql://u:p@127.0.0.1:${loopbackWire.port}/db`,
    ]);
    await kubectlOk([
      'create',
      'secret',
      'generic',
      'pg-socket',
      '-n',
      evil,
      '--from-literal=url=postgresql://u:p@/db?host=/var/run/postgresql',
    ]);
    await tenantApply([
      customResource('DataSource', 'metadata', {
        workspaceRef: { name: 'evil-ws' },
        type: 'http',
        http: {
          url: `http://169.254.169.254:${metadataWire?.port ?? 80}/latest/meta-data/`,
          fields: { id: 'id', title: 'title', body: ['body'] },
        },
      }),
      customResource('DataSource', 'pg-loopback', {
        workspaceRef: { name: 'evil-ws' },
        type: 'postgres',
        postgres: {
          connectionString: { secretKeyRef: { name: 'pg', key: 'url' } },
          query: 'SELECT 1 AS id, 2 AS title, 3 AS body',
        },
      }),
      customResource('DataSource', 'pg-socket', {
        workspaceRef: { name: 'evil-ws' },
        type: 'postgres',
        postgres: {
          connectionString: { secretKeyRef: { name: 'pg-socket', key: 'url' } },
          query: 'SELECT 1 AS id, 2 AS title, 3 AS body',
        },
      }),
    ]);
    for (const [source] of targets) {
      const ready = await readyOf('mcpsources', source);
      expect(ready.status, source).toBe('False');
      expect(ready.reason, source).toBe('AddressNotAllowed');
      expect(ready.message, source).toContain('spec.url');
      // The message names the tenant's own host, never what a name resolved to.
      if (source === 'mcp-dns') expect(ready.message).not.toContain('127.0.0.1');
    }
    for (const source of ['metadata', 'pg-loopback', 'pg-socket']) {
      const ready = await readyOf('datasources', source);
      expect(ready.status, source).toBe('False');
      expect(ready.reason, source).toBe('AddressNotAllowed');
    }
    expect((await readyOf('datasources', 'metadata')).message).toMatch(/link-local/);
    expect((await readyOf('datasources', 'pg-loopback')).message).not.toContain('u:p');
    const events = await until('an AddressNotAllowed event', async () => {
      const found = (await eventsFor('mcp-loopback')).filter((e) => e.reason === 'AddressNotAllowed');
      return found.length > 0 ? found : undefined;
    });
    expect(events[0]?.type).toBe('Warning');
    expect(loopbackWire.connections()).toBe(0);
    expect(ipv6Wire.connections()).toBe(0);
    expect(metadataWire?.connections() ?? 0).toBe(0);
  });

  it('tenant:redirect-and-next-page — reaches an allowed address, and refuses a redirect and a next page that lead to a denied one', async () => {
    await tenantApply([
      customResource('DataSource', 'allowed', {
        workspaceRef: { name: 'evil-ws' },
        type: 'http',
        http: {
          url: `http://${ALLOWED_ADDRESS}:${allowedPort}/items`,
          fields: { id: 'id', title: 'title', body: ['body'] },
        },
      }),
      customResource('DataSource', 'redirect', {
        workspaceRef: { name: 'evil-ws' },
        type: 'http',
        http: {
          url: `http://${ALLOWED_ADDRESS}:${allowedPort}/redirect`,
          fields: { id: 'id', title: 'title', body: ['body'] },
        },
      }),
      customResource('DataSource', 'paged', {
        workspaceRef: { name: 'evil-ws' },
        type: 'http',
        http: {
          url: `http://${ALLOWED_ADDRESS}:${allowedPort}/paged`,
          pagination: { type: 'link' },
          fields: { id: 'id', title: 'title', body: ['body'] },
        },
      }),
    ]);
    for (const source of ['allowed', 'redirect', 'paged'])
      expect((await readyOf('datasources', source)).reason, source).toBe('Rendered');
    await until('the allowed API to be searchable', async () =>
      (await search('kestrel runbook failover')).includes('kestrel') ? true : undefined,
    );
    expect(await sourceError('redirect')).toMatch(
      /127\.0\.0\.1 is not allowed by the gateway's tenant policy: a loopback/,
    );
    expect(await sourceError('paged')).toMatch(/not allowed by the gateway's tenant policy: a loopback/);
    expect(loopbackWire.connections()).toBe(0);
  });

  it('tenant:workspace-not-found — reports a reference to a Workspace of another namespace as WorkspaceNotFound', async () => {
    await kubectlOk(
      ['apply', '-n', team, '-f', '-'],
      JSON.stringify(customResource('Workspace', 'team-ws', {})),
    );
    await tenantApply([customResource('ApiKey', 'stolen', { workspaceRef: { name: 'team-ws' } })]);
    const ready = await readyOf('apikeys', 'stolen');
    expect(ready.status).toBe('False');
    expect(ready.reason).toBe('WorkspaceNotFound');
    expect(ready.message).toContain(`namespace ${evil}`);
    const secret = await kubectlOk([
      'get',
      'apikey',
      'stolen',
      '-n',
      evil,
      '-o',
      'jsonpath={.status.secretName}',
    ]);
    expect(secret.trim()).toBe('');
    expect((await kubectlOk(['get', 'apikey', 'stolen', '-n', evil])).split('\n')[1]).toMatch(/False/);
    const events = await until('a WorkspaceNotFound event', async () => {
      const found = (await eventsFor('stolen')).filter((e) => e.reason === 'WorkspaceNotFound');
      return found.length > 0 ? found : undefined;
    });
    expect(events[0]?.message).toContain('spec.workspaceRef.name');
    const issued = await eventsFor('evil-key');
    expect(issued.map((e) => e.reason)).toContain('KeyIssued');
    const described = await kubectlOk(['describe', 'apikey', 'stolen', '-n', evil]);
    expect(described).toMatch(/WorkspaceNotFound/);
  });

  it('tenant:forged-rendered-objects — the gateway refuses rendered objects forged around the operator, and nothing connects', async () => {
    // Someone with write access to the gateway namespace (not a tenant) rewrites the rendered
    // workspace: a loopback MCP source, a files root outside, an env secret reference.
    await operator?.stop();
    operator = undefined;
    const configMaps = await renderedConfigMaps(gatewayNs, 'evil-ws');
    const part = configMaps.find((c) => c.metadata.name.endsWith('-c0'));
    expect(part).toBeDefined();
    const fragment = JSON.parse(part?.data['fragment.json'] ?? '{}') as Record<string, unknown>;
    fragment['mcpSources'] = [
      { name: 'forged', transport: 'streamable-http', url: `http://127.0.0.1:${loopbackWire.port}/mcp` },
    ];
    fragment['dataSources'] = [
      {
        name: 'forged-files',
        type: 'files',
        path: outside,
        include: ['**'],
        watch: false,
        syncIntervalMs: 1000,
      },
    ];
    const forgedRevision = 'f0f0f0f0f0f0f0f0';
    const objects = [
      ...configMaps.map((c) => ['configmap', c.metadata.name] as const),
      ...(
        JSON.parse(
          await kubectlOk([
            'get',
            'secrets',
            '-n',
            gatewayNs,
            '-l',
            'agentgateway.dev/workspace=evil-ws',
            '-o',
            'json',
          ]),
        ) as { items: { metadata: { name: string } }[] }
      ).items.map((s) => ['secret', s.metadata.name] as const),
    ];
    await kubectlOk([
      'patch',
      'configmap',
      part?.metadata.name as string,
      '-n',
      gatewayNs,
      '--type=merge',
      '-p',
      JSON.stringify({ data: { 'fragment.json': JSON.stringify(fragment) } }),
    ]);
    for (const [kind, objectName] of objects)
      await kubectlOk([
        'annotate',
        kind,
        objectName,
        '-n',
        gatewayNs,
        '--overwrite',
        `agentgateway.dev/revision=${forgedRevision}`,
      ]);
    await until('the forged MCP source to be refused', async () => {
      const call = await mcpPost(gateway.url, evilKey, { method: 'tools/list' });
      expect(call.status).toBe(200);
      const forged = (await sources()).find((s) => s.id === 'forged');
      return forged?.error_code === 'upstream_not_allowed' ? true : undefined;
    });
    expect(await sourceError('forged-files')).toMatch(/not allowed by the gateway's tenant policy/);
    expect(loopbackWire.connections()).toBe(0);
    expect(await search('zebra token gateway serviceaccount')).not.toContain(SECRET_TEXT);
  });
});
