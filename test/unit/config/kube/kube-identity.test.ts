// A workspace's identity section from the Kubernetes API (issue 29, D17): checked per workspace —
// the contract, its introspection secret only from its own rendered Secret, the admin's oauth
// section present, no introspection routing shared with another tenant — and a bad one refuses only
// that workspace, keeping its last good version.
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { generateKey } from '../../../../gateway/auth/index.js';
import { processSecretReader, resolveSecret } from '../../../../gateway/config/index.js';
import { KubeConfigSource } from '../../../../gateway/config/kube/kube-config-source.js';
import { MemoryObjectFeed, type RenderedObject } from '../../../../gateway/config/kube/rendered-object.js';
import {
  credentialSecretName,
  renderWorkspace,
  type WorkspaceToRender,
} from '../../../../gateway/config/kube/workspace-renderer.js';
import { silentLogger } from '../../../../gateway/telemetry/index.js';
import { captureLogger } from '../../support/capture-logger.js';

// The admin lets every namespace trust the issuers these tests declare (no policy: none, D24).
const POLICY = {
  identity: {
    issuers: ['https://login.example.com', 'https://a.example.com', 'https://b.example.com'].map(
      (issuer) => ({
        issuer,
        namespaces: ['*'],
      }),
    ),
  },
};
const OAUTH_BASE = { version: 1, oauth: { resource: 'https://gw.example.com/mcp' }, policy: POLICY };

function identity(issuer: string, introspection?: Record<string, unknown>): Record<string, unknown> {
  return {
    issuers: [{ issuer, ...(introspection === undefined ? {} : { introspection }) }],
    rules: [{ name: 'everyone', issuer }],
  };
}

function workspace(name: string, overrides: Partial<WorkspaceToRender> = {}): WorkspaceToRender {
  const generated = generateKey();
  return {
    name,
    namespace: `tenant-${name}`,
    mcpSources: [],
    dataSources: [],
    keys: [{ id: generated.id, hash: generated.hash, access: 'read' }],
    credentials: new Map(),
    ...overrides,
  };
}

let version = 500;
function objects(rendered: ReturnType<typeof renderWorkspace>): RenderedObject[] {
  version += 1;
  return rendered.parts.map((part) => ({ ...part, resourceVersion: String(version) }));
}

async function started(feed: MemoryObjectFeed, base: unknown = OAUTH_BASE, logger = silentLogger) {
  const source = new KubeConfigSource({ feed, base, logger, origin: 'test' });
  await source.start();
  await source.synced();
  return source;
}

const names = (source: KubeConfigSource) => source.current().config.workspaces.map((w) => w.name);
const introspection = (workspace: string, key: string, tokenPrefix?: string) => ({
  clientId: 'agw',
  clientSecret: { kubernetesSecret: { name: credentialSecretName(workspace), key } },
  ...(tokenPrefix === undefined ? {} : { tokenPrefix }),
});

describe('KubeConfigSource with identity sections', () => {
  it('kube:identity-accepted — a rendered identity section is served, its introspection secret read from the workspace’s own Secret', async () => {
    const key = 'cred.workspace.identity.issuer0.clientSecret.abc';
    const feed = new MemoryObjectFeed(
      objects(
        renderWorkspace(
          workspace('alpha', {
            identity: identity('https://login.example.com', introspection('alpha', key)),
            credentials: new Map([[key, 'the-secret']]),
          }),
        ),
      ),
    );
    const source = await started(feed);
    const served = source.current().config.workspaces[0];
    expect(served?.identity?.rules[0]).toMatchObject({ name: 'everyone', access: 'read' });
    const ref = served?.identity?.issuers[0]?.introspection?.clientSecret;
    if (ref === undefined) throw new Error('no introspection secret');
    expect(resolveSecret(ref, source.secretReader(processSecretReader({})))).toBe('the-secret');
  });

  it('kube:identity-per-workspace — a bad identity section refuses only its workspace and keeps its last good version; the others move on', async () => {
    const good = identity('https://login.example.com');
    const feed = new MemoryObjectFeed([
      ...objects(renderWorkspace(workspace('alpha', { identity: good }))),
      ...objects(renderWorkspace(workspace('beta'))),
    ]);
    const logger = captureLogger();
    const source = await started(feed, OAUTH_BASE, logger);
    const before = source.current().config.workspaces.find((w) => w.name === 'alpha');
    const bad = renderWorkspace(
      workspace('alpha', {
        identity: { ...good, rules: [{ name: 'x', issuer: 'https://elsewhere.example.com' }] },
      }),
    );
    for (const part of objects(bad)) feed.upsert(part);
    for (const part of objects(renderWorkspace(workspace('beta', { displayName: 'Beta' }))))
      feed.upsert(part);
    await tick();
    expect(source.current().config.workspaces.find((w) => w.name === 'alpha')).toEqual(before);
    expect(source.current().config.workspaces.find((w) => w.name === 'beta')?.displayName).toBe('Beta');
    expect(source.states().get('alpha')?.rejectedRevision).toBe(bad.revision);
    const warning = logger.lines.find((l) => l.level === 'warn' && l.fields['workspace'] === 'alpha');
    expect(JSON.stringify(warning?.fields['problems'])).toContain('identity.rules[0].issuer');
  });

  it('kube:identity-refs-own-secret — an introspection secret from an env variable, a file or another workspace’s Secret is refused', async () => {
    const refs = [
      { env: 'GATEWAY_SECRET' },
      { file: '/var/run/secrets/kubernetes.io/serviceaccount/token' },
      { kubernetesSecret: { name: credentialSecretName('beta'), key: 'cred.x' } },
    ];
    for (const clientSecret of refs) {
      const feed = new MemoryObjectFeed(
        objects(
          renderWorkspace(
            workspace('alpha', {
              identity: identity('https://login.example.com', { clientId: 'agw', clientSecret }),
            }),
          ),
        ),
      );
      const source = await started(feed);
      expect(names(source)).toEqual([]);
      expect(source.states().get('alpha')?.rejectedRevision).toBeDefined();
    }
  });

  it('kube:identity-needs-oauth — a workspace with identity is refused when the gateways have no oauth section; one without is served', async () => {
    const feed = new MemoryObjectFeed([
      ...objects(renderWorkspace(workspace('alpha', { identity: identity('https://login.example.com') }))),
      ...objects(renderWorkspace(workspace('beta'))),
    ]);
    const logger = captureLogger();
    const source = await started(feed, { version: 1, policy: POLICY }, logger);
    expect(names(source)).toEqual(['beta']);
    const warning = logger.lines.find((l) => l.level === 'warn' && l.fields['workspace'] === 'alpha');
    expect(JSON.stringify(warning?.fields['problems'])).toContain('no oauth section');
  });

  it('kube:identity-introspection-clash — a second workspace introspecting without a distinct tokenPrefix is refused; distinct prefixes are served', async () => {
    const first = renderWorkspace(
      workspace('alpha', {
        identity: identity('https://a.example.com', introspection('alpha', 'cred.a')),
        credentials: new Map([['cred.a', 'a']]),
      }),
    );
    const feed = new MemoryObjectFeed(objects(first));
    const source = await started(feed);
    const second = (prefix: string | undefined) =>
      renderWorkspace(
        workspace('beta', {
          identity: identity('https://b.example.com', introspection('beta', 'cred.b', prefix)),
          credentials: new Map([['cred.b', 'b']]),
        }),
      );
    // Unprefixed beside unprefixed, and a prefix beside an unprefixed one (it could capture alpha's tokens).
    for (const prefix of [undefined, 'b_']) {
      for (const part of objects(second(prefix))) feed.upsert(part);
      await tick();
      expect(names(source)).toEqual(['alpha']);
    }
    // alpha takes a prefix; beta's overlapping one is still refused, a distinct one is served.
    const prefixedAlpha = renderWorkspace(
      workspace('alpha', {
        identity: identity('https://a.example.com', introspection('alpha', 'cred.a', 'a_')),
        credentials: new Map([['cred.a', 'a']]),
      }),
    );
    for (const part of objects(prefixedAlpha)) feed.upsert(part);
    await tick();
    for (const part of objects(second('a_b'))) feed.upsert(part);
    await tick();
    expect(names(source)).toEqual(['alpha']);
    for (const part of objects(second('b_'))) feed.upsert(part);
    await tick();
    expect(names(source)).toEqual(['alpha', 'beta']);
  });

  it('kube:identity-too-large — a workspace whose settings would not fit one object is refused at render time', () => {
    const rules = Array.from({ length: 50 }, (_, i) => ({
      name: `r${i}`,
      issuer: 'https://login.example.com',
      tools: Array.from({ length: 100 }, (_, j) => `${'t'.repeat(150)}${j}`),
    }));
    expect(() =>
      renderWorkspace(
        workspace('alpha', { identity: { issuers: [{ issuer: 'https://login.example.com' }], rules } }),
        256 * 1024,
      ),
    ).toThrow(/its settings/);
  });
});
