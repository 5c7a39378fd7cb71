// What the gateway presents to an upstream (issue 29, D22): a static secret (bearer or a named
// header), an OAuth client-credentials token (RFC 6749 §4.4) for the upstream's URL as `resource`
// (RFC 8707), or an RFC 8693 token exchange of the OAuth caller's own token for one meant for the
// upstream. The caller's token itself never travels upstream. Secrets are references, resolved when
// a token is requested.
import { z } from 'zod';
import { SecretRefSchema, type SecretRef } from './secret-ref.js';

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
/** RFC 6749 §3.3 scope-token. */
const scopeToken = z
  .string()
  .regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/, 'must be one OAuth scope (no spaces or quotes)');

/** Where the token endpoint is: named, or found in the issuer's metadata (RFC 8414 / OIDC). */
const oauthClientFields = {
  tokenEndpoint: httpUrl
    .optional()
    .describe("The authorization server's token endpoint; give this or issuer."),
  issuer: httpUrl
    .optional()
    .describe(
      'The authorization server; its token endpoint is read from its metadata (RFC 8414, then OpenID discovery).',
    ),
  clientId: SecretRefSchema.describe(
    "The gateway's client id at the authorization server (a secret reference).",
  ),
  clientSecret: SecretRefSchema.describe('The client secret (a secret reference).'),
  authMethod: z
    .enum(['client_secret_basic', 'client_secret_post'])
    .default('client_secret_basic')
    .describe('How the client authenticates at the token endpoint.'),
  scopes: z.array(scopeToken).max(32).default([]).describe('Scopes to ask for; none: the server decides.'),
  resource: httpUrl.optional().describe("The RFC 8707 resource the token is for; default: the source's URL."),
};

function oneEndpoint(credential: {
  tokenEndpoint?: string | undefined;
  issuer?: string | undefined;
}): boolean {
  return (credential.tokenEndpoint === undefined) !== (credential.issuer === undefined);
}
const ONE_ENDPOINT = { error: 'give exactly one of tokenEndpoint and issuer', path: ['tokenEndpoint'] };

export const StaticCredentialSchemas = [
  z.strictObject({ type: z.literal('bearer'), secret: SecretRefSchema }),
  z.strictObject({
    type: z.literal('header'),
    name: z.string().regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name'),
    secret: SecretRefSchema,
  }),
] as const;

export const OAuthClientCredentialsSchema = z
  .strictObject({ type: z.literal('oauthClientCredentials'), ...oauthClientFields })
  .refine(oneEndpoint, ONE_ENDPOINT);

export const TokenExchangeSchema = z
  .strictObject({
    type: z.literal('tokenExchange'),
    ...oauthClientFields,
    audience: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe('An RFC 8693 audience to ask for besides the resource (a logical name the server knows).'),
  })
  .refine(oneEndpoint, ONE_ENDPOINT);

/** Per-user connections (issue 42): each user grants the gateway access at the upstream's own
 * authorization server once (authorization code with PKCE and `resource`), and the gateway calls the
 * upstream with that user's token. The server is the declared `issuer`, else the first one the
 * upstream names in its RFC 9728 metadata. The gateway's client there is pre-registered (clientId,
 * and clientSecret unless it is a public client) or registered dynamically (RFC 7591). */
export const UserCredentialSchema = z
  .strictObject({
    type: z.literal('user'),
    issuer: httpUrl
      .optional()
      .describe(
        "The upstream's authorization server; default: the first of `authorization_servers` in the upstream's protected-resource metadata (RFC 9728).",
      ),
    clientId: SecretRefSchema.optional().describe(
      "The gateway's pre-registered client id there (a secret reference); absent: dynamic client registration.",
    ),
    clientSecret: SecretRefSchema.optional().describe(
      'Its client secret (a secret reference); absent with a clientId: a public client (PKCE only).',
    ),
    authMethod: z
      .enum(['client_secret_basic', 'client_secret_post'])
      .default('client_secret_basic')
      .describe('How a confidential client authenticates at the token endpoint.'),
    scopes: z
      .array(scopeToken)
      .max(32)
      .default([])
      .describe('Scopes to ask each user for; none: the server decides.'),
    resource: httpUrl
      .optional()
      .describe("The RFC 8707 resource the grant is for; default: the source's URL."),
  })
  .refine((credential) => credential.clientSecret === undefined || credential.clientId !== undefined, {
    error: 'a clientSecret needs its clientId',
    path: ['clientSecret'],
  });
export type UserCredential = z.infer<typeof UserCredentialSchema>;

/** An MCP source's credential. */
export const UpstreamCredentialSchema = z.discriminatedUnion('type', [
  ...StaticCredentialSchemas,
  OAuthClientCredentialsSchema,
  TokenExchangeSchema,
  UserCredentialSchema,
]);
export type UpstreamCredential = z.infer<typeof UpstreamCredentialSchema>;

/** A data source syncs with no caller, so it has no token to exchange: no tokenExchange. */
export const DataSourceCredentialSchema = z.discriminatedUnion('type', [
  ...StaticCredentialSchemas,
  OAuthClientCredentialsSchema,
]);
export type OAuthCredential =
  z.infer<typeof OAuthClientCredentialsSchema> | z.infer<typeof TokenExchangeSchema>;

/** Every secret reference of a credential, with its field name (for path-named problems). */
export function credentialSecrets(credential: UpstreamCredential | undefined): [string, SecretRef][] {
  if (credential === undefined) return [];
  if (credential.type === 'bearer' || credential.type === 'header') return [['secret', credential.secret]];
  if (credential.type === 'user') {
    const named: [string, SecretRef][] = [];
    if (credential.clientId !== undefined) named.push(['clientId', credential.clientId]);
    if (credential.clientSecret !== undefined) named.push(['clientSecret', credential.clientSecret]);
    return named;
  }
  return [
    ['clientId', credential.clientId],
    ['clientSecret', credential.clientSecret],
  ];
}

/** Per-user connections (issue 42) need the gateway's public URL (the consent links and the OAuth
 * callback are under it) and an HTTP upstream (the grant is for its URL; an OpenAPI source names
 * it, as the document is not read when a user connects). */
export function checkUserCredentials(
  config: {
    readonly server: { readonly publicUrl?: string | undefined };
    readonly workspaces: readonly {
      readonly mcpSources: readonly {
        readonly transport: string;
        readonly url?: string | undefined;
        readonly credential?: UpstreamCredential | undefined;
      }[];
    }[];
  },
  ctx: z.RefinementCtx,
): void {
  config.workspaces.forEach((workspace, wi) =>
    workspace.mcpSources.forEach((source, si) => {
      if (source.credential?.type !== 'user') return;
      const path = ['workspaces', wi, 'mcpSources', si, 'credential'];
      if (config.server.publicUrl === undefined)
        ctx.addIssue({
          code: 'custom',
          path,
          message:
            'a user credential needs server.publicUrl: the consent links and the OAuth callback (<publicUrl>/oauth/upstream/callback) are under it',
        });
      if (source.transport === 'stdio')
        ctx.addIssue({
          code: 'custom',
          path,
          message: 'a user credential needs an HTTP upstream, not stdio',
        });
      // A user connects before the document is read, so the grant's URL cannot come from it.
      if (source.transport === 'openapi' && source.url === undefined)
        ctx.addIssue({
          code: 'custom',
          path,
          message:
            "a user credential on an OpenAPI source needs the source's url (the API's base URL the grant is for)",
        });
    }),
  );
}
