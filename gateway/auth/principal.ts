// The authenticated caller: one API key or one OAuth identity, bound to exactly one workspace (spec
// §1, §5.2, D22). Everything downstream reads the workspace from here; no request field can name
// another.
import type { Access, ApiKeyConfig, PolicyConfig, ToolDisclosure, WorkspaceConfig } from '../config/index.js';

export interface Principal {
  readonly keyId: string;
  /** A short fingerprint of the stored hash, for logs and audit; not key material. */
  readonly keyFingerprint: string;
  readonly keyName: string | undefined;
  readonly workspace: WorkspaceConfig;
  readonly access: Access;
  readonly sourcePatterns: readonly string[];
  readonly toolPatterns: readonly string[];
  /** The key's own rate and quota limits (the workspace's are on `workspace.limits`). */
  readonly limits: ApiKeyConfig['limits'];
  /** What tools/list offers this key: the key's own setting, else its workspace's (issue 23). */
  readonly toolDisclosure: ToolDisclosure;
  /** The key's (or identity rule's) own CEL policies, decided after the workspace's (issue 41). */
  readonly policies?: readonly PolicyConfig[];
  /** Present when the caller signed in with an OAuth access token (issue 29; identity-mapping.ts),
   * absent for an API key. `keyId` is then `oidc:<digest of workspace, issuer and subject>`. Never
   * the token. */
  readonly oidc?: OidcIdentity;
}

export interface OidcIdentity {
  readonly issuer: string;
  readonly subject: string;
  /** The identity rule that admitted the caller. */
  readonly rule: string;
  /** The protected resource its token was for (D24): the workspace's own (<base>/w/<name>/mcp) or
   * the shared one (the default workspace). Where its MCP clients connect. */
  readonly resource?: string;
  readonly scopes: readonly string[];
  /** The verified token's claims (or introspection answer), for CEL policies (issue 41): read by
   * gateway/governance only, never logged or relayed. */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** The token's `exp` in epoch ms, when it has one: an upstream token exchanged for this token is
   * not used past it (upstream/token-source.ts). */
  readonly expiresAtMs?: number;
  /** When more scopes would give write access: the 403 challenge that asks for them (RFC 6750). */
  readonly stepUp?: { readonly scopes: readonly string[]; readonly challenge: string };
}

export function principalFor(key: ApiKeyConfig, workspace: WorkspaceConfig): Principal {
  return {
    keyId: key.id,
    keyFingerprint: key.hash.slice('sha256:'.length, 'sha256:'.length + 12),
    keyName: key.name,
    workspace,
    access: key.access,
    sourcePatterns: key.sources,
    toolPatterns: key.tools,
    limits: key.limits,
    toolDisclosure: key.toolDisclosure ?? workspace.toolDisclosure,
    ...(key.policies === undefined ? {} : { policies: key.policies }),
  };
}
