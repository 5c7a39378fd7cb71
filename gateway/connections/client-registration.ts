// The gateway's client at a `user` source's authorization server (issue 42): pre-registered (the
// credential's clientId, and clientSecret for a confidential client, read at use so a rotated Secret
// counts at once), or registered dynamically (RFC 7591) once per workspace, source, server and
// callback URL, kept sealed in the connection store so every replica uses the same client. Two
// replicas registering at the same moment are serialised by the store's lock.
import { resolveSecret, type SecretReader } from '../config/index.js';
import type { AuthorizationServer, UserSourceTarget } from './authorization-server.js';
import type { ConnectionVault } from './connection-vault.js';
import { postJson, UpstreamTokenError, type ClientAuth } from './token-endpoint.js';

const REGISTRATION_WAIT_MS = 10_000;

function registered(text: string | undefined): ClientAuth | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<ClientAuth>;
    if (typeof value.clientId !== 'string') return undefined;
    return {
      clientId: value.clientId,
      clientSecret: typeof value.clientSecret === 'string' ? value.clientSecret : '',
      method:
        value.method === 'client_secret_basic' || value.method === 'client_secret_post'
          ? value.method
          : 'none',
    };
  } catch {
    return undefined;
  }
}

export class ClientRegistrations {
  constructor(
    private readonly vault: ConnectionVault,
    private readonly secrets: SecretReader,
  ) {}

  async clientFor(
    target: UserSourceTarget,
    server: AuthorizationServer,
    redirectUri: string,
  ): Promise<ClientAuth> {
    const { credential } = target;
    if (credential.clientId !== undefined) {
      const clientId = resolveSecret(credential.clientId, this.secrets);
      if (credential.clientSecret === undefined) return { clientId, clientSecret: '', method: 'none' };
      return {
        clientId,
        clientSecret: resolveSecret(credential.clientSecret, this.secrets),
        method: credential.authMethod,
      };
    }
    const name = `registration\0${target.workspace}\0${target.source}\0${server.issuer}\0${redirectUri}`;
    const known = registered(await this.vault.value(name));
    if (known !== undefined) return known;
    const lockKey = { workspace: target.workspace, principal: '\0registration', source: target.source };
    return this.vault.rows.exclusive(lockKey, REGISTRATION_WAIT_MS, async () => {
      const raced = registered(await this.vault.value(name));
      if (raced !== undefined) return raced;
      const client = await register(target, server, redirectUri);
      await this.vault.storeValue(name, JSON.stringify(client));
      return client;
    });
  }
}

async function register(
  target: UserSourceTarget,
  server: AuthorizationServer,
  redirectUri: string,
): Promise<ClientAuth> {
  if (server.registrationEndpoint === undefined)
    throw new UpstreamTokenError(
      'refused',
      'the authorization server offers no dynamic client registration; configure the credential’s clientId',
    );
  const scopes = target.credential.scopes;
  const answer = await postJson(
    server.registrationEndpoint,
    {
      client_name: 'Agent Gateway',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      ...(scopes.length === 0 ? {} : { scope: scopes.join(' ') }),
    },
    target.deps,
  );
  const body = answer.body as Record<string, unknown> | undefined;
  if ((answer.status !== 201 && answer.status !== 200) || typeof body?.['client_id'] !== 'string')
    throw new UpstreamTokenError('refused', `dynamic client registration answered HTTP ${answer.status}`);
  const secret = body['client_secret'];
  const method = body['token_endpoint_auth_method'];
  return {
    clientId: body['client_id'],
    clientSecret: typeof secret === 'string' ? secret : '',
    method:
      typeof secret !== 'string' || method === 'none'
        ? 'none'
        : method === 'client_secret_post'
          ? 'client_secret_post'
          : 'client_secret_basic',
  };
}
