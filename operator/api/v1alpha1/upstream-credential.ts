// The credential an McpSource or http DataSource presents upstream (issue 29, D22), in the shape of
// the config contract's upstream-credential-schema.ts with every secret as a `secretKeyRef` of the
// resource's own namespace: a static value (bearer, header), an OAuth client-credentials token, or
// (McpSources only) an RFC 8693 exchange of the caller's token. A structural schema has no unions,
// so the variants are one object whose cross-field rules are CEL (CREDENTIAL_RULES).
import { z } from 'zod';
import { SecretKeyRefSchema } from './common.js';
import type { CelRule } from './crd-definition.js';

const httpUrl = z
  .string()
  .min(1)
  .max(2048)
  .regex(/^https?:\/\/[^\s]+$/);

const secretValue = (what: string) =>
  z
    .strictObject({ secretKeyRef: SecretKeyRefSchema })
    .optional()
    .describe(`${what}, read from a Secret of this namespace (OAuth types only).`);

export const UpstreamCredentialRefSchema = z
  .strictObject({
    type: z
      .enum(['bearer', 'header', 'oauthClientCredentials', 'tokenExchange', 'user'])
      .describe(
        'bearer: Authorization: Bearer <value>; header: <headerName>: <value>; oauthClientCredentials: a token of the gateway’s own (RFC 6749 §4.4); tokenExchange: the OAuth caller’s token exchanged for one meant for the upstream (RFC 8693; McpSource only); user: each user connects their own account at the upstream’s authorization server once and calls carry that user’s grant (McpSource only; the gateways need userConnections and a publicUrl).',
      ),
    headerName: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9-]+$/)
      .optional()
      .describe('The HTTP header to send the value in (type header only).'),
    secretKeyRef: SecretKeyRefSchema.optional().describe(
      'The value sent upstream (types bearer and header), read from a Secret of this namespace.',
    ),
    tokenEndpoint: httpUrl
      .optional()
      .describe(
        'The authorization server’s token endpoint (OAuth types; give this or issuer). Its host must be allowed by the admin policy.network (AddressNotAllowed otherwise).',
      ),
    issuer: httpUrl
      .optional()
      .describe(
        'The authorization server; its token endpoint is read from its metadata (RFC 8414, then OpenID discovery). OAuth types; give this or tokenEndpoint (type user: optional, default from the upstream’s RFC 9728 metadata). Its host must be allowed by the admin policy.network.',
      ),
    clientId: secretValue('The gateway’s client id at the authorization server'),
    clientSecret: secretValue('The client secret, sent only to the token endpoint'),
    authMethod: z
      .enum(['client_secret_basic', 'client_secret_post'])
      .optional()
      .describe('How the client authenticates at the token endpoint (default client_secret_basic).'),
    scopes: z
      .array(
        z
          .string()
          .min(1)
          .max(128)
          .regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/)
          .describe('One OAuth scope (no spaces or quotes).'),
      )
      .max(32)
      .optional()
      .describe('Scopes to ask for (OAuth types; default none: the server decides).'),
    resource: httpUrl
      .optional()
      .describe('The RFC 8707 resource the token is for (OAuth types; default the source’s URL).'),
    audience: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe('An RFC 8693 audience to ask for besides the resource (tokenExchange only).'),
  })
  .describe(
    'The credential the gateway presents upstream; every secret is read from a Secret of this namespace.',
  );

const STATIC = "(self.type == 'bearer' || self.type == 'header')";
/** Type user: the client may be registered dynamically (no clientId) or public (no secret). */
const USER = "self.type == 'user'";
const OAUTH_FIELDS = [
  'tokenEndpoint',
  'issuer',
  'clientId',
  'clientSecret',
  'authMethod',
  'scopes',
  'resource',
];

/** Cross-field rules of the credential object (the apiserver prefixes each with the field's path). */
export const CREDENTIAL_RULES: readonly CelRule[] = [
  {
    rule: "self.type != 'header' || has(self.headerName)",
    message: 'credential.headerName is required when credential.type is header',
  },
  {
    rule: "self.type == 'header' || !has(self.headerName)",
    message: 'credential.headerName is only used when credential.type is header',
  },
  {
    rule: `${STATIC} == has(self.secretKeyRef)`,
    message:
      'credential.secretKeyRef is required for types bearer and header, and not used by the OAuth types (they take clientId and clientSecret)',
  },
  {
    rule: `!${STATIC} || (${OAUTH_FIELDS.map((f) => `!has(self.${f})`).join(' && ')})`,
    message: `credential: ${OAUTH_FIELDS.join(', ')} are only used by types oauthClientCredentials, tokenExchange and user`,
  },
  {
    rule: `${STATIC} || ${USER} || has(self.clientId)`,
    message: 'credential.clientId is required for types oauthClientCredentials and tokenExchange',
  },
  {
    // Both auth methods the gateway has send the secret; a future private_key_jwt would not.
    rule: `${STATIC} || ${USER} || has(self.clientSecret)`,
    message:
      'credential.clientSecret is required for authMethod client_secret_basic (the default) and client_secret_post',
  },
  {
    rule: `${STATIC} || ${USER} || has(self.tokenEndpoint) != has(self.issuer)`,
    message: 'credential: give exactly one of tokenEndpoint and issuer (OAuth types)',
  },
  {
    rule: `!(${USER}) || !has(self.tokenEndpoint)`,
    message: 'credential.tokenEndpoint is not used by type user (give issuer, or let the upstream name it)',
  },
  {
    rule: `!(${USER}) || !has(self.clientSecret) || has(self.clientId)`,
    message: 'credential.clientSecret needs its clientId (type user)',
  },
  {
    rule: "self.type == 'tokenExchange' || !has(self.audience)",
    message: 'credential.audience is only used when credential.type is tokenExchange',
  },
];

/** A DataSource syncs with no caller, so there is no token to exchange and no user to act as. */
export const NO_TOKEN_EXCHANGE: CelRule = {
  rule: "self.type != 'tokenExchange' && self.type != 'user'",
  message:
    'credential.type tokenExchange and user need a caller and a DataSource syncs with none; use oauthClientCredentials',
};
