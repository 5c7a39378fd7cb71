// The authorization side of issue 29's upstream tokens, for tests: an RFC 8693 token-exchange grant
// registered on the oidc-provider fixture (test/infra/oidc-provider.ts) that verifies the subject
// token against the server's own key and issues a JWT for the requested resource with the same
// `sub` and an `act` claim naming the exchanging client; a user token minted with the server's key
// (the caller's OIDC token); and an upstream gate that accepts only JWTs of this issuer for its own
// audience, checked against the issuer's JWKS like a real resource server.
import { createRemoteJWKSet, importJWK, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type Provider from 'oidc-provider';
import type { AuthServer } from '../infra/oidc-provider.js';

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

interface GrantContext {
  oidc: { params: Record<string, unknown>; client: { clientId: string } };
  status: number;
  body: unknown;
}

export interface ExchangeRecord {
  readonly clientId: string;
  readonly resource: string | undefined;
  readonly audience: string | undefined;
  readonly sub: string;
}

/** What `configure` of startAuthServer runs: registers token exchange; `server` is read at request
 * time (it exists once startAuthServer returns). */
export function tokenExchangeGrant(options: {
  server: () => AuthServer;
  /** The audience a subject token must carry (the gateway's canonical URI). */
  subjectAudience: string;
  ttlSeconds?: number;
  exchanges?: ExchangeRecord[];
}): (provider: Provider) => void {
  return (provider) => {
    const register = (
      provider as unknown as {
        registerGrantType(
          name: string,
          handler: (ctx: GrantContext) => Promise<void>,
          params: string[],
          dupes?: string[],
        ): void;
      }
    ).registerGrantType.bind(provider);
    register(
      TOKEN_EXCHANGE,
      async (ctx) => {
        const params = ctx.oidc.params;
        const refuse = (error: string) => {
          ctx.status = 400;
          ctx.body = { error, error_description: 'token exchange refused' };
        };
        if (params['subject_token_type'] !== ACCESS_TOKEN_TYPE) return refuse('invalid_request');
        const server = options.server();
        const key = await importJWK(server.publicKey, 'ES256');
        let subject: JWTPayload;
        try {
          subject = (
            await jwtVerify(String(params['subject_token']), key, {
              issuer: server.issuer,
              audience: options.subjectAudience,
            })
          ).payload;
        } catch {
          return refuse('invalid_grant');
        }
        const resource = typeof params['resource'] === 'string' ? params['resource'] : undefined;
        const audience = typeof params['audience'] === 'string' ? params['audience'] : undefined;
        if (resource === undefined || subject.sub === undefined) return refuse('invalid_target');
        const ttl = options.ttlSeconds ?? 300;
        const token = await new SignJWT({
          scope: typeof params['scope'] === 'string' ? params['scope'] : undefined,
          client_id: ctx.oidc.client.clientId,
          act: { sub: ctx.oidc.client.clientId },
        })
          .setProtectedHeader({ alg: 'ES256', kid: server.signingKey.kid as string, typ: 'at+jwt' })
          .setIssuer(server.issuer)
          .setSubject(subject.sub)
          .setAudience(audience === undefined ? resource : [resource, audience])
          .setIssuedAt()
          .setExpirationTime(`${ttl}s`)
          .setJti(crypto.randomUUID())
          .sign(await importJWK(server.signingKey, 'ES256'));
        options.exchanges?.push({ clientId: ctx.oidc.client.clientId, resource, audience, sub: subject.sub });
        ctx.body = {
          access_token: token,
          issued_token_type: ACCESS_TOKEN_TYPE,
          token_type: 'Bearer',
          expires_in: ttl,
        };
      },
      ['subject_token', 'subject_token_type', 'requested_token_type', 'resource', 'audience', 'scope'],
    );
  };
}

/** A user's access token as the caller's identity provider would issue it (for the gateway). */
export async function mintUserToken(
  server: AuthServer,
  claims: { sub: string; aud: string; ttlSeconds?: number },
): Promise<string> {
  return new SignJWT({ scope: 'mcp:read' })
    .setProtectedHeader({ alg: 'ES256', kid: server.signingKey.kid as string, typ: 'at+jwt' })
    .setIssuer(server.issuer)
    .setSubject(claims.sub)
    .setAudience(claims.aud)
    .setIssuedAt()
    .setExpirationTime(`${claims.ttlSeconds ?? 300}s`)
    .sign(await importJWK(server.signingKey, 'ES256'));
}

export interface UpstreamGate {
  /** For the fixtures' `authorize` option. */
  authorize(authorization: string | undefined): Promise<boolean>;
  /** Payloads of the tokens accepted, in order. */
  readonly accepted: JWTPayload[];
  /** Authorization headers refused, in order. */
  readonly refused: (string | undefined)[];
  /** Refuse the next `count` requests even with a good token (a token revoked upstream). */
  refuseNext(count: number): void;
}

/** Accepts only a Bearer JWT of `issuer` whose `aud` contains `audience`, by the issuer's JWKS. */
export function upstreamGate(issuer: string, audience: string): UpstreamGate {
  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const accepted: JWTPayload[] = [];
  const refused: (string | undefined)[] = [];
  let toRefuse = 0;
  return {
    accepted,
    refused,
    refuseNext(count) {
      toRefuse = count;
    },
    async authorize(authorization) {
      const token = authorization?.startsWith('Bearer ') === true ? authorization.slice(7) : undefined;
      if (token === undefined || toRefuse > 0) {
        if (toRefuse > 0) toRefuse -= 1;
        refused.push(authorization);
        return false;
      }
      try {
        const { payload } = await jwtVerify(token, jwks, { issuer, audience, algorithms: ['ES256'] });
        accepted.push(payload);
        return true;
      } catch {
        refused.push(authorization);
        return false;
      }
    },
  };
}
