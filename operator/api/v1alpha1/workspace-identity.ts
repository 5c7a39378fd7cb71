// Workspace spec.identity (issue 29, D22): which authorization servers a workspace trusts and which
// claim conditions admit a caller with which permissions — the config contract's `identity`
// (gateway/config/oauth-schema.ts) with the introspection client secret as a secretKeyRef of the
// Workspace's namespace. A structural schema has no unions, so "jwks or introspection" and
// "equals or contains" are one object each with CEL rules (WORKSPACE_IDENTITY_RULES). No defaults:
// the gateways apply their own when they read the rendered workspace (see workspace-embeddings.ts).
import { z } from 'zod';
import {
  AccessSchema,
  JWT_ALGORITHMS,
  LimitsSchema,
  PoliciesSchema,
  ToolDisclosureSchema,
} from '../../../gateway/config/index.js';
import { SecretKeyRefSchema } from './common.js';
import type { CelRule } from './crd-definition.js';

/** The gateway's own URL rule (oauthUrlProblem) is checked by the plan; the CRD says the part a
 * tenant most often gets wrong: https (http only on a loopback host, for development). */
const oauthUrl = z.string().min(1).max(2048);

const pattern = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.*/-]+$/);

const ClaimConditionSpecSchema = z
  .strictObject({
    claim: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[A-Za-z0-9_:-]+(\.[A-Za-z0-9_:-]+){0,4}$/)
      .describe('A claim name, or a dotted path into nested claims (realm_access.roles), at most 5 parts.'),
    equals: z.string().min(1).max(1000).optional().describe('The claim must equal this string.'),
    contains: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .describe(
        'The claim must contain this: an element of an array claim, or a word of a space-separated one (scope).',
      ),
  })
  .describe('One condition on the token’s claims: exactly one of equals and contains.');

const IssuerSpecSchema = z
  .strictObject({
    issuer: oauthUrl.describe(
      'The issuer identifier (iss), exactly as the authorization server states it: https (http only on a loopback host). Its host must be allowed by the admin policy.network (AddressNotAllowed otherwise).',
    ),
    jwks: z
      .strictObject({
        uri: oauthUrl
          .optional()
          .describe(
            'The issuer’s JWKS; read from its metadata when absent. Its host must be allowed by the admin policy.network.',
          ),
      })
      .optional()
      .describe('JWT access tokens, verified against the issuer’s keys. Give this or introspection.'),
    introspection: z
      .strictObject({
        endpoint: oauthUrl
          .optional()
          .describe(
            'The RFC 7662 endpoint; read from the issuer’s metadata when absent. Its host must be allowed by the admin policy.network.',
          ),
        clientId: z
          .string()
          .min(1)
          .max(500)
          .describe('The gateway’s client id at the introspection endpoint.'),
        clientSecret: z
          .strictObject({ secretKeyRef: SecretKeyRefSchema })
          .describe('The client secret, read from a Secret of this namespace; sent only to the endpoint.'),
        authMethod: z
          .enum(['client_secret_basic', 'client_secret_post'])
          .optional()
          .describe('How the gateway authenticates there (default client_secret_basic).'),
        tokenPrefix: z
          .string()
          .min(1)
          .max(64)
          .optional()
          .describe(
            'Opaque tokens starting with this are sent here; required when more than one issuer introspects (and when another workspace on the gateways introspects too).',
          ),
      })
      .optional()
      .describe(
        'Opaque access tokens, checked by RFC 7662 introspection (JWTs this issuer signs are still verified against its published keys). Give this or jwks.',
      ),
    algorithms: z
      .array(z.enum(JWT_ALGORITHMS).describe('An asymmetric JWS algorithm.'))
      .min(1)
      .max(JWT_ALGORITHMS.length)
      .optional()
      .describe('Signature algorithms accepted (default RS256, PS256, ES256, EdDSA; never none or HMAC).'),
    tokenTypes: z
      .array(z.enum(['at+jwt', 'jwt']).describe('A JWT header type.'))
      .min(1)
      .max(2)
      .optional()
      .describe(
        'JWT header types accepted (default at+jwt; jwt also accepts typ JWT or none, as Keycloak issues).',
      ),
    clockSkewSeconds: z
      .number()
      .int()
      .min(0)
      .max(300)
      .optional()
      .describe('Tolerance on exp and nbf in seconds (default 30).'),
  })
  .describe('An authorization server whose access tokens this workspace accepts.');

const IdentityRuleSpecSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(40)
      .regex(/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/)
      .describe('The rule’s name (logs and audit records name it).'),
    issuer: oauthUrl.describe('One of spec.identity.issuers[].issuer.'),
    when: z
      .array(ClaimConditionSpecSchema)
      .max(20)
      .optional()
      .describe('Every condition must hold; empty or absent: any identity of the issuer.'),
    access: AccessSchema.optional().describe(
      'read (the default): read-only tools and the knowledge endpoints; write: every tool.',
    ),
    sources: z
      .array(pattern.describe('A glob pattern over source names.'))
      .max(100)
      .optional()
      .describe('Which sources the caller may see (default all).'),
    tools: z
      .array(pattern.describe('A glob pattern over namespaced tool names (<source>__<tool>).'))
      .max(100)
      .optional()
      .describe('Which tools the caller may see (default all).'),
    limits: LimitsSchema.optional().describe('Rates and quotas per identity this rule admits.'),
    toolDisclosure: ToolDisclosureSchema.optional().describe(
      "What /mcp tools/list offers the caller: all or search; unset: the workspace's setting.",
    ),
    policies: PoliciesSchema.optional().describe(
      "Rules in CEL over the tool calls of callers this rule admits, decided after the workspace's (docs/security.md).",
    ),
  })
  .describe('Admits a caller whose token satisfies when and gives it these permissions.');

export const WorkspaceIdentitySpecSchema = z
  .strictObject({
    issuers: z
      .array(IssuerSpecSchema)
      .min(1)
      .max(10)
      .describe('The authorization servers this workspace trusts.'),
    rules: z
      .array(IdentityRuleSpecSchema)
      .min(1)
      .max(50)
      .describe('In order: the first rule whose issuer and conditions match decides the permissions.'),
  })
  .describe(
    'Who may sign in to this workspace with an OAuth access token, and with which permissions. Needs the gateways’ oauth settings (the chart’s oauth values).',
  );

/** https, or http on a loopback host (the gateway's rule; development against a local server). */
const httpsUrl = (field: string): string =>
  `isURL(${field}) && (url(${field}).getScheme() == 'https' || (url(${field}).getScheme() == 'http' && (url(${field}).getHostname() == 'localhost' || url(${field}).getHostname() == '::1' || url(${field}).getHostname().startsWith('127.')))) && !${field}.contains('#') && !${field}.contains('?') && !${field}.contains('@')`;

const URL_MESSAGE =
  'must be an absolute https URL (http only on a loopback host) with no query, fragment or credentials';

/** CEL rules by the path they attach to (the apiserver prefixes each message with the field). */
export const WORKSPACE_IDENTITY_RULES: Readonly<Record<string, readonly CelRule[]>> = {
  'spec.identity': [
    {
      rule: 'self.issuers.all(i, self.issuers.exists_one(j, j.issuer == i.issuer))',
      message: 'identity.issuers: each issuer may be listed once',
    },
    {
      rule: 'self.rules.all(r, self.issuers.exists(i, i.issuer == r.issuer))',
      message: 'identity.rules[].issuer must be one of identity.issuers[].issuer',
    },
    {
      rule: 'self.rules.all(r, self.rules.exists_one(s, s.name == r.name))',
      message: 'identity.rules: each rule name may be used once',
    },
    {
      rule: 'self.issuers.filter(i, has(i.introspection)).size() <= 1 || self.issuers.all(i, !has(i.introspection) || has(i.introspection.tokenPrefix))',
      message:
        'identity.issuers[].introspection.tokenPrefix is required when more than one issuer introspects',
    },
  ],
  'spec.identity.issuers[]': [
    {
      rule: 'has(self.jwks) != has(self.introspection)',
      message: 'give exactly one of jwks (JWT access tokens) and introspection (opaque tokens)',
    },
    { rule: httpsUrl('self.issuer'), message: `issuer ${URL_MESSAGE}` },
  ],
  'spec.identity.issuers[].jwks': [
    { rule: `!has(self.uri) || (${httpsUrl('self.uri')})`, message: `jwks.uri ${URL_MESSAGE}` },
  ],
  'spec.identity.issuers[].introspection': [
    {
      rule: `!has(self.endpoint) || (${httpsUrl('self.endpoint')})`,
      message: `introspection.endpoint ${URL_MESSAGE}`,
    },
  ],
  'spec.identity.rules[].when[]': [
    {
      rule: 'has(self.equals) != has(self.contains)',
      message: 'a condition has exactly one of equals and contains',
    },
  ],
};
