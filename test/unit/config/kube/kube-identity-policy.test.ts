// The gateway's own check of the identity policy in the Kubernetes shape (issue 37 items 1-2, D19,
// D24): whatever the operator rendered (or someone forged in the gateway namespace), a workspace's
// identity section is bounded by the base config's policy — no policy means no issuer — and a
// refused one is dropped from that workspace only (its keys keep working), with a warning naming
// the workspace and the reason and no claim value.
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { generateKey } from '../../../../gateway/auth/index.js';
import { KubeConfigSource } from '../../../../gateway/config/kube/kube-config-source.js';
import { MemoryObjectFeed, type RenderedObject } from '../../../../gateway/config/kube/rendered-object.js';
import {
  renderWorkspace,
  type WorkspaceToRender,
} from '../../../../gateway/config/kube/workspace-renderer.js';
import { captureLogger } from '../../support/capture-logger.js';

const LOGIN = 'https://login.example.com';
const SECRET_GROUP = 'team-a-only-group-7f3';
const OAUTH = { resource: 'https://gw.example.com/mcp' };
const POLICY = {
  identity: {
    issuers: [
      {
        issuer: LOGIN,
        jwksUri: `${LOGIN}/keys`,
        namespaces: ['tenant-a'],
        claims: { 'tenant-a': [{ claim: 'groups', contains: SECRET_GROUP }] },
      },
    ],
  },
};

function workspace(name: string, namespace: string, identity: Record<string, unknown>): WorkspaceToRender {
  const generated = generateKey();
  return {
    name,
    namespace,
    mcpSources: [],
    dataSources: [],
    keys: [{ id: generated.id, hash: generated.hash, access: 'read' }],
    credentials: new Map(),
    identity,
  };
}

const catchAll = (issuer: Record<string, unknown>) => ({
  issuers: [issuer],
  rules: [{ name: 'everyone', issuer: issuer['issuer'] }],
});

let version = 900;
function objects(rendered: ReturnType<typeof renderWorkspace>): RenderedObject[] {
  version += 1;
  return rendered.parts.map((part) => ({ ...part, resourceVersion: String(version) }));
}

async function load(base: unknown, workspaces: WorkspaceToRender[]) {
  const logger = captureLogger();
  const feed = new MemoryObjectFeed(workspaces.flatMap((w) => objects(renderWorkspace(w))));
  const source = new KubeConfigSource({ feed, base, logger, origin: 'test' });
  await source.start();
  await source.synced();
  const served = (name: string) => source.current().config.workspaces.find((w) => w.name === name);
  const warning = (name: string) =>
    logger.lines.find((l) => l.level === 'warn' && l.fields['workspace'] === name);
  return { source, served, warning, logger, feed };
}

describe('the gateway bounds rendered identity sections by the tenant policy', () => {
  it('kube:identity-policy-default-deny — with no policy in the base config no issuer is trusted: the identity is dropped, the workspace and its keys stay', async () => {
    const { served, warning } = await load({ version: 1, oauth: OAUTH }, [
      workspace('alpha', 'tenant-a', catchAll({ issuer: LOGIN })),
    ]);
    expect(served('alpha')).toBeDefined();
    expect(served('alpha')?.keys).toHaveLength(1);
    expect(served('alpha')?.identity).toBeUndefined();
    expect(warning('alpha')?.fields).toMatchObject({ workspace: 'alpha', reason: 'IssuerNotAllowed' });
    expect(warning('alpha')?.message).toMatch(/refused by the tenant policy; served without OAuth sign-in/);
  });

  it('kube:identity-policy-issuer-not-allowed — another namespace’s issuer, forged into a rendered workspace, is dropped from that workspace only', async () => {
    const { served, warning } = await load({ version: 1, oauth: OAUTH, policy: POLICY }, [
      workspace('alpha', 'tenant-a', catchAll({ issuer: LOGIN })),
      workspace('evil', 'tenant-evil', catchAll({ issuer: LOGIN })),
    ]);
    expect(served('alpha')?.identity?.issuers[0]?.issuer).toBe(LOGIN);
    expect(served('evil')?.identity).toBeUndefined();
    expect(served('evil')?.keys).toHaveLength(1);
    expect(warning('evil')?.fields['reason']).toBe('IssuerNotAllowed');
    expect(String(warning('evil')?.fields['problem'])).toContain('namespace tenant-evil');
    expect(warning('alpha')).toBeUndefined();
  });

  it('kube:identity-policy-own-keys — the right issuer with a JWKS of the tenant’s choosing is dropped; without one, the policy’s JWKS is used', async () => {
    const { served, warning } = await load({ version: 1, oauth: OAUTH, policy: POLICY }, [
      workspace('alpha', 'tenant-a', catchAll({ issuer: LOGIN })),
      workspace('sneaky', 'tenant-a', catchAll({ issuer: LOGIN, jwksUri: 'https://evil.example.com/keys' })),
    ]);
    expect(served('sneaky')?.identity).toBeUndefined();
    expect(warning('sneaky')?.fields).toMatchObject({ reason: 'KeySourceNotAllowed' });
    expect(String(warning('sneaky')?.fields['problem'])).toContain('identity.issuers[0].jwksUri');
    expect(served('alpha')?.identity?.issuers[0]?.jwksUri).toBe(`${LOGIN}/keys`);
  });

  it('kube:identity-policy-claims — the namespace’s claim conditions are ANDed into a catch-all rule, and never logged', async () => {
    const { served, logger } = await load({ version: 1, oauth: OAUTH, policy: POLICY }, [
      workspace('alpha', 'tenant-a', catchAll({ issuer: LOGIN })),
      workspace('evil', 'tenant-evil', catchAll({ issuer: LOGIN })),
    ]);
    expect(served('alpha')?.identity?.rules[0]?.when).toEqual([{ claim: 'groups', contains: SECRET_GROUP }]);
    expect(JSON.stringify(logger.lines)).not.toContain(SECRET_GROUP);
  });

  it('kube:identity-policy-later-revision — a new revision that names a disallowed issuer drops the identity and still applies the rest of the revision', async () => {
    const { served, warning, feed } = await load({ version: 1, oauth: OAUTH, policy: POLICY }, [
      workspace('alpha', 'tenant-a', catchAll({ issuer: LOGIN })),
    ]);
    expect(served('alpha')?.identity).toBeDefined();
    const next = { ...workspace('alpha', 'tenant-a', catchAll({ issuer: 'https://evil.example.com' })) };
    for (const part of objects(renderWorkspace({ ...next, displayName: 'Renamed' }))) feed.upsert(part);
    await tick();
    expect(served('alpha')?.displayName).toBe('Renamed');
    expect(served('alpha')?.identity).toBeUndefined();
    expect(warning('alpha')?.fields['reason']).toBe('IssuerNotAllowed');
  });
});
