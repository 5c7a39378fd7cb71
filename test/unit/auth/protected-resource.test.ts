// Which protected resource a token is checked for (gateway/auth/protected-resource.ts, D24), on
// configs parsed by the real schema: R_w from the shared resource (publicUrl, or an explicit
// `oauth.resource` with or without a trailing /mcp), the workspace a request or a token's audience
// selects, and the metadata each resource shows.
import { describe, expect, it } from 'vitest';
import {
  pathResourceUri,
  protectedResourceMetadata,
  selectWorkspace,
  workspaceResourceUri,
} from '../../../gateway/auth/protected-resource.js';
import { validateConfig, type GatewayConfig } from '../../../gateway/config/index.js';

const A = 'https://a.example';
const B = 'https://b.example';

function config(oauth: Record<string, unknown>, publicUrl?: string): GatewayConfig {
  const identity = (issuer: string) => ({
    issuers: [{ issuer }],
    rules: [{ name: 'any', issuer }],
  });
  const result = validateConfig({
    version: 1,
    server: publicUrl === undefined ? {} : { publicUrl },
    oauth,
    workspaces: [
      { name: 'pay', identity: identity(A) },
      { name: 'ops', identity: identity(B) },
      { name: 'plain' },
    ],
  });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.config;
}

/** An unsigned JWT-shaped token with this payload (selection reads `aud` only). */
function token(payload: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'ES256' })}.${part(payload)}.sig`;
}

describe('workspace resources', () => {
  it('oauth:workspace-resource-derivation — R_w is the shared resource without its /mcp, + /w/<name>/mcp', () => {
    expect(workspaceResourceUri(config({}, 'https://gw.example'), 'pay')).toBe(
      'https://gw.example/w/pay/mcp',
    );
    expect(workspaceResourceUri(config({}, 'https://gw.example/'), 'pay')).toBe(
      'https://gw.example/w/pay/mcp',
    );
    expect(workspaceResourceUri(config({ resource: 'https://api.example/agents/mcp' }), 'pay')).toBe(
      'https://api.example/agents/w/pay/mcp',
    );
    expect(workspaceResourceUri(config({ resource: 'https://api.example/agents' }), 'pay')).toBe(
      'https://api.example/agents/w/pay/mcp',
    );
    // A name no workspace can have never reaches a challenge.
    const c = config({}, 'https://gw.example');
    expect(pathResourceUri(c, 'nope')).toBe('https://gw.example/w/nope/mcp');
    expect(pathResourceUri(c, 'a/b')).toBeUndefined();
    expect(pathResourceUri(c, 'a\r\nx')).toBeUndefined();
  });

  it('oauth:select-workspace — the endpoint, the default workspace or the one workspace resource in aud', () => {
    const none = config({}, 'https://gw.example');
    const withDefault = config({ defaultWorkspace: 'pay' }, 'https://gw.example');
    const t = token({ aud: 'https://gw.example/mcp' });
    expect(selectWorkspace(t, none, { kind: 'shared' })).toEqual({ ok: false, reason: 'untrusted-issuer' });
    expect(selectWorkspace(t, withDefault, { kind: 'shared' })).toMatchObject({
      ok: true,
      workspace: { name: 'pay' },
      resource: 'https://gw.example/mcp',
    });
    expect(selectWorkspace(t, none, { kind: 'workspace', name: 'ops' })).toMatchObject({
      ok: true,
      workspace: { name: 'ops' },
      resource: 'https://gw.example/w/ops/mcp',
    });
    for (const name of ['plain', 'nope'])
      expect(selectWorkspace(t, none, { kind: 'workspace', name })).toEqual({
        ok: false,
        reason: 'untrusted-issuer',
      });
    const ops = token({ aud: ['account', 'https://gw.example/w/ops/mcp', 'https://gw.example/mcp'] });
    expect(selectWorkspace(ops, withDefault, { kind: 'by-audience' })).toMatchObject({
      ok: true,
      workspace: { name: 'ops' },
    });
    const two = token({ aud: ['https://gw.example/w/ops/mcp', 'https://gw.example/w/pay/mcp'] });
    expect(selectWorkspace(two, withDefault, { kind: 'by-audience' })).toEqual({
      ok: false,
      reason: 'wrong-audience',
    });
    expect(selectWorkspace('opaque-token', withDefault, { kind: 'by-audience' })).toMatchObject({
      ok: true,
      workspace: { name: 'pay' },
    });
  });

  it("oauth:metadata-documents — the shared document names the default workspace's issuers; each workspace's its own", () => {
    const none = config({}, 'https://gw.example');
    expect(protectedResourceMetadata(none)).toMatchObject({
      resource: 'https://gw.example/mcp',
      authorization_servers: [],
    });
    expect(
      protectedResourceMetadata(config({ defaultWorkspace: 'ops' }, 'https://gw.example')),
    ).toMatchObject({
      authorization_servers: [B],
    });
    expect(protectedResourceMetadata(none, 'pay')).toMatchObject({
      resource: 'https://gw.example/w/pay/mcp',
      authorization_servers: [A],
    });
    expect(protectedResourceMetadata(none, 'plain')).toBeUndefined();
    expect(protectedResourceMetadata(none, 'nope')).toBeUndefined();
  });

  it('oauth:default-workspace-checked — a file config whose default names no workspace with identity is refused', () => {
    const result = validateConfig({
      version: 1,
      server: { publicUrl: 'https://gw.example' },
      oauth: { defaultWorkspace: 'plain' },
      workspaces: [{ name: 'plain' }],
    });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.problems).toContainEqual({
        path: 'oauth.defaultWorkspace',
        message: 'must name a workspace with an identity section',
      });
    // The Kubernetes base document has no workspaces: the name is accepted there.
    expect(
      validateConfig({
        version: 1,
        server: { publicUrl: 'https://gw.example' },
        oauth: { defaultWorkspace: 'pay' },
      }).ok,
    ).toBe(true);
  });
});
