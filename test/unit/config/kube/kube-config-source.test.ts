import { describe, expect, it } from 'vitest';
import { setImmediate as tick } from 'node:timers/promises';
import { generateKey } from '../../../../gateway/auth/index.js';
import { resolveSecret, processSecretReader } from '../../../../gateway/config/index.js';
import { KubeConfigSource } from '../../../../gateway/config/kube/kube-config-source.js';
import { MemoryObjectFeed, type RenderedObject } from '../../../../gateway/config/kube/rendered-object.js';
import { assembleWorkspace } from '../../../../gateway/config/kube/workspace-assembler.js';
import {
  credentialDataKey,
  credentialSecretName,
  renderWorkspace,
  type WorkspaceToRender,
} from '../../../../gateway/config/kube/workspace-renderer.js';
import { FRAGMENT_KEY, REVISION_ANNOTATION } from '../../../../gateway/config/kube/rendered-contract.js';
import { silentLogger } from '../../../../gateway/telemetry/index.js';
import { captureLogger } from '../../support/capture-logger.js';

function key(access: 'read' | 'write' = 'read') {
  const generated = generateKey();
  return { generated, record: { id: generated.id, hash: generated.hash, access } };
}

function workspace(name: string, overrides: Partial<WorkspaceToRender> = {}): WorkspaceToRender {
  return {
    name,
    namespace: `tenant-${name}`,
    mcpSources: [],
    dataSources: [],
    keys: [key().record],
    credentials: new Map(),
    ...overrides,
  };
}

let version = 100;
function objects(rendered: ReturnType<typeof renderWorkspace>): RenderedObject[] {
  version += 1;
  return rendered.parts.map((part) => ({ ...part, resourceVersion: String(version) }));
}

async function startedSource(feed: MemoryObjectFeed, logger = silentLogger) {
  const source = new KubeConfigSource({ feed, base: { version: 1 }, logger, origin: 'test' });
  await source.start();
  await source.synced();
  return source;
}

describe('rendered workspace contract (operator/README.md)', () => {
  it('kube:render-split — 20,000 keys split over Secrets under the budget and assemble back whole', () => {
    const keys = Array.from({ length: 20_000 }, () => key().record);
    const rendered = renderWorkspace(workspace('big', { keys }));
    const secrets = rendered.parts.filter((p) => p.kind === 'Secret');
    expect(secrets.length).toBeGreaterThan(2);
    for (const part of rendered.parts) {
      const bytes = Object.entries(part.data).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v), 0);
      expect(bytes).toBeLessThan(800 * 1024);
    }
    const assembly = assembleWorkspace(objects(rendered));
    expect(assembly.kind).toBe('complete');
    if (assembly.kind !== 'complete') return;
    expect(assembly.problems).toEqual([]);
    expect((assembly.document['keys'] as unknown[]).length).toBe(20_000);
    expect(assembly.document['keys']).toEqual(keys);
    expect(assembly.revision).toBe(rendered.revision);
  });

  it('kube:render-split — the revision changes with any content and not without', () => {
    const base = workspace('a');
    expect(renderWorkspace(base).revision).toBe(renderWorkspace(base).revision);
    expect(renderWorkspace({ ...base, displayName: 'A' }).revision).not.toBe(renderWorkspace(base).revision);
  });

  it('kube:fragment-prototype-safe — a fragment field named __proto__ does not change the prototype', () => {
    const rendered = renderWorkspace(workspace('p'));
    const parts = objects(rendered).map((part) =>
      part.kind === 'ConfigMap'
        ? { ...part, data: { [FRAGMENT_KEY]: '{"name":"p","__proto__":{"polluted":true}}' } }
        : part,
    );
    const assembly = assembleWorkspace(parts);
    expect(assembly.kind).toBe('complete');
    if (assembly.kind !== 'complete') return;
    expect(Object.getPrototypeOf(assembly.document)).toBe(Object.prototype);
    expect(Object.hasOwn(assembly.document, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('KubeConfigSource', () => {
  it('kube:base-no-workspaces — base settings may not declare workspaces', async () => {
    const source = new KubeConfigSource({
      feed: new MemoryObjectFeed(),
      base: { version: 1, workspaces: [{ name: 'x' }] },
      logger: silentLogger,
      origin: 'test',
    });
    await expect(source.start()).rejects.toThrow(/base settings/);
  });

  it('kube:assemble — serves every complete workspace and exposes its applied revision', async () => {
    const a = renderWorkspace(workspace('alpha'));
    const b = renderWorkspace(workspace('beta'));
    const source = await startedSource(new MemoryObjectFeed([...objects(a), ...objects(b)]));
    const snapshot = source.current();
    expect(snapshot.config.workspaces.map((w) => w.name)).toEqual(['alpha', 'beta']);
    expect(snapshot.workspaceRevisions?.get('alpha')).toBe(a.revision);
    expect(source.states().get('beta')?.appliedRevision).toBe(b.revision);
  });

  it('kube:partial-update-kept — a half-written revision keeps the last good version until every part is there', async () => {
    const first = workspace('alpha', { keys: Array.from({ length: 6000 }, () => key().record) });
    const feed = new MemoryObjectFeed(objects(renderWorkspace(first)));
    const source = await startedSource(feed);
    const revoked = {
      ...first,
      keys: (first.keys as { id: string }[]).map((k, i) => (i === 0 ? { ...k, revoked: true } : k)),
    };
    const next = objects(renderWorkspace(revoked, 256 * 1024));
    expect(next.length).toBeGreaterThan(3);
    const before = source.current().revision;
    for (const part of next.slice(0, -1)) feed.upsert(part);
    await tick();
    expect(source.current().revision).toBe(before);
    expect(source.current().config.workspaces[0]?.keys[0]?.revoked).toBe(false);
    feed.upsert(next.at(-1) as RenderedObject);
    await tick();
    expect(source.current().config.workspaces[0]?.keys[0]?.revoked).toBe(true);
  });

  it('kube:per-workspace-last-good — an invalid revision of one workspace keeps its last good version and never blocks another', async () => {
    const feed = new MemoryObjectFeed([
      ...objects(renderWorkspace(workspace('alpha'))),
      ...objects(renderWorkspace(workspace('beta'))),
    ]);
    const logger = captureLogger();
    const source = await startedSource(feed, logger);
    const good = source.current().config.workspaces.find((w) => w.name === 'alpha');
    const bad = renderWorkspace(
      workspace('alpha', { mcpSources: [{ name: 'web', transport: 'streamable-http', url: 'not a url' }] }),
    );
    for (const part of objects(bad)) feed.upsert(part);
    const betaKey = key().record;
    for (const part of objects(renderWorkspace(workspace('beta', { keys: [betaKey] })))) feed.upsert(part);
    await tick();
    const snapshot = source.current();
    expect(snapshot.config.workspaces.find((w) => w.name === 'alpha')).toEqual(good);
    expect(snapshot.config.workspaces.find((w) => w.name === 'beta')?.keys[0]?.id).toBe(betaKey.id);
    expect(source.states().get('alpha')?.rejectedRevision).toBe(bad.revision);
    const warning = logger.lines.find((l) => l.level === 'warn' && l.fields['workspace'] === 'alpha');
    expect(warning?.message).toMatch(/keeping the last good version/);
    expect(JSON.stringify(warning?.fields['problems'])).toMatch(/mcpSources\[0\]\.url/);
  });

  it('kube:workspace-removed — a workspace whose parts are all deleted is no longer served', async () => {
    const rendered = objects(renderWorkspace(workspace('alpha')));
    const feed = new MemoryObjectFeed([...rendered, ...objects(renderWorkspace(workspace('beta')))]);
    const source = await startedSource(feed);
    feed.remove('ConfigMap', rendered[0]?.name as string);
    await tick();
    expect(source.current().config.workspaces.map((w) => w.name)).toEqual(['alpha', 'beta']);
    for (const part of rendered.slice(1)) feed.remove(part.kind, part.name);
    await tick();
    expect(source.current().config.workspaces.map((w) => w.name)).toEqual(['beta']);
  });

  it('kube:key-id-clash — a workspace reusing another workspace key id is refused', async () => {
    const shared = key().record;
    const feed = new MemoryObjectFeed(objects(renderWorkspace(workspace('alpha', { keys: [shared] }))));
    const source = await startedSource(feed);
    for (const part of objects(renderWorkspace(workspace('beta', { keys: [shared] })))) feed.upsert(part);
    await tick();
    expect(source.current().config.workspaces.map((w) => w.name)).toEqual(['alpha']);
    expect(source.states().get('beta')?.rejectedRevision).toBeDefined();
  });

  it('kube:secret-ref — credential references resolve from the rendered Secret, and a rotated value is a new reference', async () => {
    const value = 'token-one';
    const dataKey = credentialDataKey('web', 'credential', value);
    const source = (credential: string, keyName: string) =>
      workspace('alpha', {
        mcpSources: [
          {
            name: 'web',
            transport: 'streamable-http',
            url: 'https://mcp.example.com/mcp',
            credential: {
              type: 'bearer',
              secret: { kubernetesSecret: { name: credentialSecretName('alpha'), key: keyName } },
            },
          },
        ],
        credentials: new Map([[keyName, credential]]),
      });
    const feed = new MemoryObjectFeed(objects(renderWorkspace(source(value, dataKey))));
    const config = await startedSource(feed);
    const reader = config.secretReader(processSecretReader({}));
    const credentialOf = () => {
      const mcp = config.current().config.workspaces[0]?.mcpSources[0];
      if (mcp?.credential?.type !== 'bearer') throw new Error('no bearer credential');
      return mcp.credential.secret;
    };
    expect(resolveSecret(credentialOf(), reader)).toBe('token-one');
    const rotatedKey = credentialDataKey('web', 'credential', 'token-two');
    expect(rotatedKey).not.toBe(dataKey);
    for (const part of objects(renderWorkspace(source('token-two', rotatedKey)))) feed.upsert(part);
    await tick();
    expect(resolveSecret(credentialOf(), reader)).toBe('token-two');
    expect(() =>
      resolveSecret({ kubernetesSecret: { name: credentialSecretName('alpha'), key: dataKey } }, reader),
    ).toThrow(/not available/);
  });

  it('kube:revision-annotation — parts of a stale revision are ignored once a newer one is complete', () => {
    const old = objects(renderWorkspace(workspace('alpha')));
    const fresh = objects(renderWorkspace(workspace('alpha', { displayName: 'Alpha' })));
    const assembly = assembleWorkspace([...old.filter((p) => p.kind === 'Secret'), ...fresh]);
    expect(assembly.kind).toBe('complete');
    if (assembly.kind === 'complete')
      expect(assembly.revision).toBe(fresh[0]?.annotations[REVISION_ANNOTATION]);
  });
});
