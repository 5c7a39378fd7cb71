// The parts of the custom resources the reconcile core reads. The zod schemas in api/v1alpha1 are
// the source of truth (and what the CRDs are generated from); these structural views keep the core
// independent of how a resource was fetched.
import type { McpRun } from '../../api/v1alpha1/index.js';

export interface ResourceMeta {
  readonly name: string;
  readonly namespace: string;
  readonly uid?: string;
  readonly generation?: number;
  readonly creationTimestamp?: string | Date;
  readonly deletionTimestamp?: string | Date;
}

export interface SecretKeyRef {
  readonly name: string;
  readonly key: string;
}

export interface WorkspaceView {
  readonly metadata: ResourceMeta;
  readonly spec: {
    readonly displayName?: string;
    readonly description?: string;
    readonly limits?: Readonly<Record<string, number>>;
    readonly embeddings?: WorkspaceEmbeddingsView;
    readonly toolDisclosure?: string;
    readonly identity?: WorkspaceIdentityView;
    /** spec.governance: the config contract's `governance`, rendered as it is (issue 41). */
    readonly governance?: Readonly<Record<string, unknown>>;
  };
}

/** spec.identity (api/v1alpha1/workspace-identity.ts): issuers and rules as the config contract has
 * them, but `jwks: {uri?}` instead of `jwksUri` and the introspection secret as a secretKeyRef. */
export interface WorkspaceIdentityView {
  readonly issuers: readonly (Readonly<Record<string, unknown>> & {
    readonly issuer: string;
    readonly jwks?: { readonly uri?: string };
    readonly introspection?: Readonly<Record<string, unknown>> & {
      readonly endpoint?: string;
      readonly clientSecret: { readonly secretKeyRef: SecretKeyRef };
    };
  })[];
  readonly rules: readonly Readonly<Record<string, unknown>>[];
}

/** spec.embeddings: `disabled`, the provider's settings, and its API key in a Secret. */
export type WorkspaceEmbeddingsView = Readonly<Record<string, unknown>> & {
  readonly disabled?: boolean;
  readonly baseUrl?: string;
  readonly apiKey?: { readonly secretKeyRef: SecretKeyRef };
};

export interface ApiKeyView {
  readonly metadata: ResourceMeta;
  readonly spec: {
    readonly workspaceRef: { readonly name: string };
    readonly displayName?: string;
    readonly access?: 'read' | 'write';
    readonly sources?: readonly string[];
    readonly tools?: readonly string[];
    readonly expiresAt?: string;
    readonly revoked?: boolean;
    readonly rotation?: number;
    readonly keyId?: string;
    readonly keyHash?: string;
    readonly limits?: Readonly<Record<string, number>>;
    readonly toolDisclosure?: string;
    /** CEL rules over this key's tool calls (issue 41), checked with the gateway's schema. */
    readonly policies?: readonly unknown[];
  };
  readonly status?: {
    readonly secretName?: string;
    readonly issuedRotation?: number;
    readonly keyId?: string;
  };
}

/** spec.credential (operator/api/v1alpha1/upstream-credential.ts): the CEL rules say which fields
 * each type has; the plan still checks the rendered credential with the gateway's own schema. */
export interface CredentialView {
  readonly type: 'bearer' | 'header' | 'oauthClientCredentials' | 'tokenExchange' | 'user';
  readonly headerName?: string;
  readonly secretKeyRef?: SecretKeyRef;
  readonly tokenEndpoint?: string;
  readonly issuer?: string;
  readonly clientId?: { readonly secretKeyRef: SecretKeyRef };
  readonly clientSecret?: { readonly secretKeyRef: SecretKeyRef };
  readonly authMethod?: string;
  readonly scopes?: readonly string[];
  readonly resource?: string;
  readonly audience?: string;
}

/** spec.openapi (api/v1alpha1/mcp-source.ts): the CEL rules admit exactly one document field. */
export interface OpenApiSpecView {
  readonly document: {
    readonly url?: string;
    readonly inline?: string;
    readonly configMapKeyRef?: { readonly name: string; readonly key: string };
  };
  readonly include?: Readonly<Record<string, readonly string[] | undefined>>;
  readonly limits?: Readonly<Record<string, number | undefined>>;
}

export interface McpSourceView {
  readonly metadata: ResourceMeta;
  readonly spec: {
    readonly workspaceRef: { readonly name: string };
    readonly transport?: string;
    readonly url?: string;
    /** A server the operator runs (api/v1alpha1/mcp-run.ts); exclusive with url. */
    readonly run?: McpRun;
    readonly credential?: CredentialView;
    /** With transport openapi (issue 44). */
    readonly openapi?: OpenApiSpecView;
    readonly [field: string]: unknown;
  };
  /** lastActiveTime: written by the wake endpoint (runtime/wake-server.ts) for scale to zero. */
  readonly status?: { readonly lastActiveTime?: string };
}

export interface DataSourceView {
  readonly metadata: ResourceMeta;
  readonly spec: {
    readonly workspaceRef: { readonly name: string };
    readonly type: string;
    readonly description?: string;
    readonly files?: Readonly<Record<string, unknown>> & { readonly path?: string };
    readonly http?: Readonly<Record<string, unknown>> & {
      readonly credential?: CredentialView;
      readonly url?: string;
    };
    readonly mcpResources?: Readonly<Record<string, unknown>> & {
      readonly mcpSourceRef?: { readonly name: string };
    };
    readonly postgres?: Readonly<Record<string, unknown>> & {
      readonly connectionString?: { readonly secretKeyRef: SecretKeyRef };
    };
  };
}
