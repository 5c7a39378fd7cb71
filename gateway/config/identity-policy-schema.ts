// The identity part of the tenant policy (D24, issue 37): which authorization servers a tenant's
// Workspace spec.identity may trust, per namespace, with the key source (JWKS, introspection
// endpoint) the admin fixes for each and claim conditions the admin adds to every rule of a
// namespace. Tenants write spec.identity; only the admin writes this.
import { z } from 'zod';
import { ClaimConditionSchema, oauthUrlProblem } from './oauth-schema.js';

const policyUrl = z
  .string()
  .max(2048)
  .superRefine((text, ctx) => {
    const problem = oauthUrlProblem(text);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A namespace name, or `*` for every namespace. */
const NamespacePatternSchema = z
  .string()
  .regex(/^(\*|[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)$/, 'must be a namespace name or *');

export const IssuerPolicySchema = z
  .strictObject({
    issuer: policyUrl.describe('The issuer identifier (`iss`) tenants may declare, exactly as written.'),
    jwksUri: policyUrl
      .optional()
      .describe(
        "The issuer's JWKS, fixed: a tenant may leave it out (this one is used) or repeat it. Absent: from the issuer's own metadata, and a tenant may name none.",
      ),
    introspection: z
      .strictObject({
        endpoint: policyUrl.describe('The RFC 7662 endpoint opaque tokens of this issuer are checked at.'),
      })
      .optional()
      .describe(
        "The introspection endpoint, fixed like jwksUri (the tenant keeps its own client credentials). Absent: from the issuer's metadata, and a tenant may name none.",
      ),
    namespaces: z
      .array(NamespacePatternSchema)
      .min(1)
      .max(1000)
      .describe(
        'The tenant namespaces (embedded file: workspace namespace or name) that may trust it; * for all.',
      ),
    claims: z
      .record(NamespacePatternSchema, z.array(ClaimConditionSchema).min(1).max(10))
      .default({})
      .describe(
        'Conditions added to every rule for this issuer in a namespace (* : in every namespace), ANDed with the tenant’s own: e.g. team-a: [{claim: groups, contains: team-a}].',
      ),
  })
  .describe('An authorization server tenants may trust, where, and on which terms.');
export type IssuerPolicy = z.infer<typeof IssuerPolicySchema>;

export const IdentityPolicySchema = z
  .strictObject({
    issuers: z
      .array(IssuerPolicySchema)
      .max(100)
      .default([])
      .describe('The only issuers a workspace may declare in its identity section; empty: none.'),
  })
  .superRefine((policy, ctx) => {
    const seen = new Set<string>();
    policy.issuers.forEach((entry, index) => {
      if (seen.has(entry.issuer))
        ctx.addIssue({ code: 'custom', path: ['issuers', index, 'issuer'], message: 'duplicate issuer' });
      seen.add(entry.issuer);
      const everywhere = entry.namespaces.includes('*');
      for (const namespace of Object.keys(entry.claims))
        if (namespace !== '*' && !everywhere && !entry.namespaces.includes(namespace))
          ctx.addIssue({
            code: 'custom',
            path: ['issuers', index, 'claims', namespace],
            message: 'names a namespace that is not in this issuer’s namespaces',
          });
    });
  })
  .describe(
    'Which issuers workspaces may trust for OAuth sign-in (Workspace spec.identity). Deny by default: an issuer not listed for a namespace is refused.',
  );
export type IdentityPolicy = z.infer<typeof IdentityPolicySchema>;
