// The gateway as an OAuth 2.1 resource server (issue 29, D22): the gateway-wide `oauth` section
// (canonical resource URI, advertised scopes, bounds on tokens and fetches) and a workspace's
// `identity` section (the issuers it trusts and the ordered rules that admit a caller and give it
// the permissions API keys have). Tenants write `identity`; the admin writes `oauth`.
import { isIP } from 'node:net';
import { z } from 'zod';
import { PoliciesSchema } from './policy-schema.js';
import { SecretRefSchema } from './secret-ref.js';

/** A variable reference left in a field after environment expansion (see env-expansion.ts). */
const UNSET_VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/;

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Why `text` cannot name an OAuth party (a resource, an issuer, an endpoint), or undefined: an
 * absolute https URL, or http on a loopback host (development), with no fragment, query or
 * credentials. */
export function oauthUrlProblem(text: string): string | undefined {
  const unset = UNSET_VARIABLE.exec(text);
  if (unset !== null) return `names the environment variable ${unset[1]}, which is not set`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    return 'must be an https URL (http only on a loopback host)';
  if (url.hash !== '' || text.includes('#')) return 'must not have a fragment';
  if (url.search !== '') return 'must not have a query';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  return undefined;
}

const oauthUrl = z
  .string()
  .max(2048)
  .superRefine((text, ctx) => {
    const problem = oauthUrlProblem(text);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });

/** Asymmetric JWS algorithms only: never `none`, never an HMAC secret (which a public key could
 * be made into). */
export const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

/** An RFC 6749 §3.3 scope token: the only scopes that may enter a header (WWW-Authenticate). */
export const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const SCOPE_TOKEN_MESSAGE = 'must be an OAuth scope token (printable ASCII, no space, " or \\)';

const ScopeSchema = z.string().min(1).max(200).regex(SCOPE_TOKEN, SCOPE_TOKEN_MESSAGE);

/** A claim path: a top-level claim or a dotted path into nested objects (Keycloak's
 * `realm_access.roles`), at most five segments. */
const ClaimPathSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_:-]+(\.[A-Za-z0-9_:-]+){0,4}$/, 'must be a claim name or a dotted path (≤ 5 parts)');

export const ClaimConditionSchema = z.union(
  [
    z.strictObject({ claim: ClaimPathSchema, equals: z.string().min(1).max(1000) }),
    z.strictObject({ claim: ClaimPathSchema, contains: z.string().min(1).max(1000) }),
  ],
  {
    error:
      'must be { claim, equals } or { claim, contains } (contains: an array element, or a word of a space-separated string such as scope)',
  },
);
export type ClaimCondition = z.infer<typeof ClaimConditionSchema>;

/** The shortest opaque token introspected unless an issuer declares otherwise: 96 bits in base64;
 * no authorization server we know issues shorter access tokens (oidc-provider: 43 characters, Ory
 * Hydra: `ory_at_` + 87, Spring Authorization Server: 128, UUID-based servers: 36). */
export const OPAQUE_MIN_LENGTH = 16;

export const IssuerSchema = z
  .strictObject({
    issuer: oauthUrl.describe(
      'The issuer identifier (`iss`), exactly as the authorization server states it.',
    ),
    jwksUri: oauthUrl.optional().describe("The issuer's JWKS; discovered from its metadata when absent."),
    algorithms: z
      .array(z.enum(JWT_ALGORITHMS))
      .min(1)
      .max(JWT_ALGORITHMS.length)
      .default(['RS256', 'PS256', 'ES256', 'EdDSA'])
      .describe('Signature algorithms accepted (asymmetric only).'),
    tokenTypes: z
      .array(z.enum(['at+jwt', 'jwt']))
      .min(1)
      .max(2)
      .default(['at+jwt'])
      .describe(
        'JWT header types accepted: at+jwt (RFC 9068); jwt also accepts typ JWT or none, as Keycloak issues (payload typ, when present, must be Bearer).',
      ),
    clockSkewSeconds: z.number().int().min(0).max(300).default(30).describe('Tolerance on exp and nbf.'),
    introspection: z
      .strictObject({
        endpoint: oauthUrl.optional().describe("RFC 7662 endpoint; from the issuer's metadata when absent."),
        clientId: z.string().min(1).max(500),
        clientSecret: SecretRefSchema,
        authMethod: z.enum(['client_secret_basic', 'client_secret_post']).default('client_secret_basic'),
        tokenPrefix: z
          .string()
          .min(1)
          .max(64)
          .optional()
          .describe(
            'Opaque tokens starting with this go to this endpoint; required when more than one issuer introspects.',
          ),
        tokenLength: z
          .strictObject({
            min: z.number().int().min(1).max(65_536).default(OPAQUE_MIN_LENGTH),
            max: z.number().int().min(1).max(65_536).default(65_536),
          })
          .refine((length) => length.min <= length.max, { message: 'min must not exceed max' })
          .optional()
          .describe(
            `Only opaque tokens of this many characters are introspected here (default: at least ${OPAQUE_MIN_LENGTH}); e.g. {min: 43, max: 43} for oidc-provider.`,
          ),
      })
      .optional()
      .describe('Opaque (non-JWT) access tokens are checked here; absent: only JWTs are accepted.'),
  })
  .describe('An authorization server whose access tokens this workspace accepts.');
export type IssuerConfig = z.infer<typeof IssuerSchema>;

/** The schemas a rule shares with API keys, passed in by workspace-schema.ts (which imports this
 * file). */
export interface PermissionSchemas<A extends z.ZodType, L extends z.ZodType, T extends z.ZodType> {
  readonly access: A;
  readonly limits: L;
  readonly toolDisclosure: T;
  readonly pattern: z.ZodString;
}

export function identityRuleSchema<A extends z.ZodType, L extends z.ZodType, T extends z.ZodType>(
  parts: PermissionSchemas<A, L, T>,
) {
  return z
    .strictObject({
      name: z
        .string()
        .regex(/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/, 'must be 1-40 lower-case letters, digits or hyphens'),
      issuer: oauthUrl.describe('One of this workspace’s identity.issuers.'),
      when: z
        .array(ClaimConditionSchema)
        .max(20)
        .default([])
        .superRefine((conditions, ctx) => {
          // A scope a write rule asks for is named in the 403 step-up challenge (a header).
          conditions.forEach((condition, index) => {
            if ((condition.claim === 'scope' || condition.claim === 'scp') && 'contains' in condition)
              if (!SCOPE_TOKEN.test(condition.contains))
                ctx.addIssue({ code: 'custom', path: [index, 'contains'], message: SCOPE_TOKEN_MESSAGE });
          });
        })
        .describe('Every condition must hold; empty: any identity of the issuer.'),
      access: parts.access,
      sources: z.array(parts.pattern).max(100).default(['*']),
      tools: z.array(parts.pattern).max(100).default(['*']),
      /** Rates and quotas per identity matched by this rule (each identity counted on its own). */
      limits: parts.limits.optional(),
      toolDisclosure: parts.toolDisclosure.optional(),
      /** Rules in CEL over the tool calls of identities this rule admits, on top of the workspace's. */
      policies: PoliciesSchema.optional(),
    })
    .describe('Admits a caller whose token satisfies `when` and gives it these permissions.');
}

export function workspaceIdentitySchema<A extends z.ZodType, L extends z.ZodType, T extends z.ZodType>(
  parts: PermissionSchemas<A, L, T>,
) {
  return z
    .strictObject({
      issuers: z.array(IssuerSchema).min(1).max(10),
      rules: z
        .array(identityRuleSchema(parts))
        .min(1)
        .max(50)
        .describe('In order: the first rule whose issuer and conditions match decides the permissions.'),
    })
    .superRefine((identity, ctx) => {
      const issuers = new Set<string>();
      identity.issuers.forEach((issuer, index) => {
        if (issuers.has(issuer.issuer))
          ctx.addIssue({ code: 'custom', path: ['issuers', index, 'issuer'], message: 'duplicate issuer' });
        issuers.add(issuer.issuer);
      });
      const names = new Set<string>();
      identity.rules.forEach((rule, index) => {
        if (!issuers.has(rule.issuer))
          ctx.addIssue({
            code: 'custom',
            path: ['rules', index, 'issuer'],
            message: 'must be one of identity.issuers',
          });
        if (names.has(rule.name))
          ctx.addIssue({ code: 'custom', path: ['rules', index, 'name'], message: 'duplicate rule name' });
        names.add(rule.name);
      });
    })
    .describe('Who may sign in to this workspace with an OAuth access token, and with which permissions.');
}

export const OAUTH_DEFAULTS = {
  scopesSupported: [] as string[],
  maxTokenBytes: 8192,
  fetchTimeoutMs: 5000,
  jwksMaxBytes: 262_144,
  jwksMaxKeys: 50,
  jwksCooldownMs: 30_000,
  jwksMaxAgeMs: 600_000,
  introspectionCacheTtlMs: 30_000,
  introspectionCacheEntries: 10_000,
  introspectionNegativeTtlMs: 60_000,
  introspectionMaxPerSecond: 50,
  introspectionMaxConcurrent: 16,
};

export const OAuthSchema = z
  .strictObject({
    resource: oauthUrl
      .optional()
      .describe(
        'The canonical (shared) resource URI tokens for /mcp must name in `aud` (RFC 8707); default: server.publicUrl + /mcp. Each workspace w is also a resource of its own: this URI without a trailing /mcp, + /w/<w>/mcp.',
      ),
    defaultWorkspace: z
      .string()
      .max(40)
      .regex(/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/, 'must be a workspace name')
      .optional()
      .describe(
        'The one workspace whose identity rules admit tokens for the shared resource (/mcp, /agent/*); absent: the shared resource admits API keys only, and each workspace signs in at its own resource (<base>/w/<name>/mcp).',
      ),
    scopesSupported: z.array(ScopeSchema).max(100).default([]).describe('Advertised in the metadata.'),
    challengeScopes: z
      .array(ScopeSchema)
      .max(100)
      .optional()
      .describe(
        'Named in the scope of 401 challenges: what a client asks for first. Absent: the scopesSupported no write rule alone needs (auth/challenge-scopes.ts); [] names none.',
      ),
    maxTokenBytes: z.number().int().min(256).max(65_536).default(8192),
    fetchTimeoutMs: z.number().int().min(100).max(60_000).default(5000),
    jwksMaxBytes: z.number().int().min(1024).max(4_194_304).default(262_144),
    jwksMaxKeys: z.number().int().min(1).max(1000).default(50),
    jwksCooldownMs: z
      .number()
      .int()
      .min(0)
      .max(3_600_000)
      .default(30_000)
      .describe('At most one JWKS refetch per issuer in this interval for tokens with an unknown kid.'),
    jwksMaxAgeMs: z.number().int().min(10_000).max(86_400_000).default(600_000),
    introspectionCacheTtlMs: z.number().int().min(0).max(300_000).default(30_000),
    introspectionCacheEntries: z
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .default(10_000)
      .describe('Bound on active answers kept, and separately on refusals kept.'),
    introspectionNegativeTtlMs: z
      .number()
      .int()
      .min(0)
      .max(600_000)
      .default(60_000)
      .describe('How long an inactive (or otherwise refused) answer is kept, by token digest.'),
    introspectionMaxPerSecond: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(50)
      .describe('New introspection calls per issuer and replica per second (burst as many); more: 503.'),
    introspectionMaxConcurrent: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(16)
      .describe('Introspection calls in flight per issuer and replica; more: 503.'),
  })
  .describe('The gateway as an OAuth 2.1 resource server: present turns on challenges and metadata.');
export type OAuthConfig = z.infer<typeof OAuthSchema>;

/** The canonical resource URI: `oauth.resource`, else `server.publicUrl` + `/mcp`. */
export function canonicalResource(
  oauth: Pick<OAuthConfig, 'resource'>,
  server: { readonly publicUrl?: string | undefined },
): string | undefined {
  if (oauth.resource !== undefined) return oauth.resource;
  if (server.publicUrl === undefined) return undefined;
  return `${server.publicUrl.replace(/\/+$/, '')}/mcp`;
}

/** Cross-field rules of the whole config: a resource URI to check tokens against, no identity
 * section without the gateway's `oauth` section, and a default workspace that signs in. */
export function checkOAuth(
  config: {
    readonly oauth?: OAuthConfig | undefined;
    readonly server: { readonly publicUrl?: string | undefined };
    readonly workspaces: readonly { readonly name: string; readonly identity?: unknown }[];
  },
  ctx: z.RefinementCtx,
): void {
  if (config.oauth === undefined) {
    config.workspaces.forEach((workspace, index) => {
      if (workspace.identity !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['workspaces', index, 'identity'],
          message:
            'needs the gateway-wide oauth section (the canonical resource URI tokens are checked against)',
        });
    });
    return;
  }
  const fallback = config.oauth.defaultWorkspace;
  // The Kubernetes base document has no workspaces (they arrive as resources, and one may come
  // later), so the name is checked only where the same document lists them: the file shape.
  if (
    fallback !== undefined &&
    config.workspaces.length > 0 &&
    !config.workspaces.some((w) => w.name === fallback && w.identity !== undefined)
  )
    ctx.addIssue({
      code: 'custom',
      path: ['oauth', 'defaultWorkspace'],
      message: 'must name a workspace with an identity section',
    });
  const resource = canonicalResource(config.oauth, config.server);
  if (resource === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['oauth', 'resource'],
      message: 'is required when server.publicUrl is not set: the public URI clients reach /mcp at',
    });
    return;
  }
  const problem = oauthUrlProblem(resource);
  if (problem !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: config.oauth.resource === undefined ? ['server', 'publicUrl'] : ['oauth', 'resource'],
      message: `${problem} (it makes the canonical resource URI)`,
    });
}
