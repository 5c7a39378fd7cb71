// The SDK v2 client signing in through the gateway's 401 (issue 29): an in-memory
// OAuthClientProvider whose "browser" is headlessLogin (test/infra/oidc-provider.ts), and a connect
// that follows 401 → metadata → authorization server metadata → registration → authorization with
// PKCE and `resource` → login → finishAuth → reconnect, as an MCP host would. Also the clients the
// tests register at the authorization server beforehand (public, machine, the gateway's own for
// introspection) and the client-credentials token a machine gets, one way for every OAuth test.
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { headlessLogin } from '../infra/oidc-provider.js';
import { demoSource } from './gateway-harness.js';

type Provider = OAuthClientProvider;
export const REDIRECT_URL = 'http://127.0.0.1:9/callback';

/** The identity rules the sign-in tests give their `payments` workspace: members of `group` read,
 * and write with the `mcp:write` scope. */
export function groupScopeRules(issuer: string, group = 'payments-agents'): Record<string, unknown>[] {
  return [
    {
      name: 'writers',
      issuer,
      when: [
        { claim: 'groups', contains: group },
        { claim: 'scope', contains: 'mcp:write' },
      ],
      access: 'write',
    },
    { name: 'readers', issuer, when: [{ claim: 'groups', contains: group }] },
  ];
}

/** A public client to register at the authorization server beforehand (no scope ceiling). */
export function publicClient(clientId: string): Record<string, unknown> {
  return {
    client_id: clientId,
    token_endpoint_auth_method: 'none',
    redirect_uris: [REDIRECT_URL],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    application_type: 'native',
  };
}
/** The secret a machine client gets when the test needs no particular one. */
export function machineSecret(clientId: string): string {
  return `${clientId}-secret-0123456789`;
}

/** A confidential client that gets tokens by client credentials; `extra` adds or overrides metadata
 * (a `scope` ceiling, more grant types, a token endpoint auth method). */
export function machineClient(
  clientId: string,
  clientSecret = machineSecret(clientId),
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    client_id: clientId,
    client_secret: clientSecret,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    ...extra,
  };
}

/** The gateway's own client at the authorization server: it only introspects, so no grants. */
export function introspectionClient(clientId: string, clientSecret: string): Record<string, unknown> {
  return machineClient(clientId, clientSecret, { grant_types: [] });
}

/** A client-credentials access token from an oidc-provider authorization server (test/infra/
 * oidc-provider.ts) for `resource`, the client authenticating with HTTP Basic. Throws, with the
 * server's answer, when no token comes back. */
export async function clientCredentialsToken(
  issuer: string,
  options: { clientId: string; clientSecret?: string; resource: string; scope?: string },
): Promise<string> {
  const secret = options.clientSecret ?? machineSecret(options.clientId);
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${options.clientId}:${secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      resource: options.resource,
      scope: options.scope ?? 'mcp:read',
    }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (body.access_token === undefined) throw new Error(`no token: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** The `oauth` section of the sign-in tests: mcp:read and mcp:write, a 401 that asks for mcp:read
 * first (step-up asks for more), and `defaultWorkspace` as the shared resource's workspace. */
export function signInOAuth(defaultWorkspace: string): Record<string, unknown> {
  return { scopesSupported: ['mcp:read', 'mcp:write'], challengeScopes: ['mcp:read'], defaultWorkspace };
}

/** The top of a sign-in gateway's document: served on `port` at its public URL `gatewayUrl` (the
 * resource the authorization server issues tokens for), with `signInOAuth(defaultWorkspace)`. */
export function signInServer(
  port: number,
  gatewayUrl: string,
  defaultWorkspace: string,
): Record<string, unknown> {
  return { server: { host: '127.0.0.1', port, publicUrl: gatewayUrl }, oauth: signInOAuth(defaultWorkspace) };
}

/** A workspace of the demo server that admits any token of `issuer` by the rule `rule`, opaque
 * tokens introspected as the client `gateway` with the secret in AGW_INTROSPECTION_SECRET;
 * `introspection` adds to that part (e.g. `tokenLength`). */
export function introspectingWorkspace(
  name: string,
  issuer: string,
  rule: string,
  introspection: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    mcpSources: [demoSource('demo')],
    identity: {
      issuers: [
        {
          issuer,
          introspection: {
            clientId: 'gateway',
            clientSecret: { env: 'AGW_INTROSPECTION_SECRET' },
            ...introspection,
          },
        },
      ],
      rules: [{ name: rule, issuer }],
    },
  };
}

type Stored<K extends keyof Provider> = Provider[K] extends ((...args: never[]) => infer R) | undefined
  ? Awaited<R>
  : never;

export class HeadlessOAuthProvider implements OAuthClientProvider {
  private info: Stored<'clientInformation'>;
  private saved: Stored<'tokens'>;
  private verifier = '';
  private discovery: Stored<'discoveryState'>;
  /** Where the client was last sent to sign in. */
  authorizationUrl: URL | undefined;
  /** Sign-ins walked through so far. */
  logins = 0;

  constructor(
    readonly login: string,
    /** A client registered beforehand; without it the SDK registers one (DCR). */
    clientId?: string,
    readonly redirectUrl = REDIRECT_URL,
  ) {
    if (clientId !== undefined) this.info = { client_id: clientId };
  }

  get clientMetadata() {
    return {
      client_name: 'agw-oauth-test',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    };
  }

  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: NonNullable<Stored<'clientInformation'>>) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: NonNullable<Stored<'tokens'>>) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: NonNullable<Stored<'discoveryState'>>) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }

  /** The access token the client holds (for assertions; never logged). */
  get accessToken(): string | undefined {
    return this.saved?.access_token;
  }

  /** Signs in at the URL the SDK chose, and hands the callback to the transport. */
  async completeLogin(transport: StreamableHTTPClientTransport): Promise<void> {
    if (this.authorizationUrl === undefined) throw new Error('the client was not sent to sign in');
    const callback = await headlessLogin(this.authorizationUrl, this.login, this.redirectUrl);
    this.authorizationUrl = undefined;
    this.logins += 1;
    await transport.finishAuth(callback.searchParams);
  }
}

function transportFor(gatewayUrl: string, provider: OAuthClientProvider) {
  return new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/mcp`), { authProvider: provider });
}

/** Connects with sign-in on the way, as an MCP host does: a first attempt that ends in
 * UnauthorizedError after the redirect, the login, finishAuth, and a second connect. */
export async function connectWithLogin(
  gatewayUrl: string,
  provider: HeadlessOAuthProvider | OAuthClientProvider,
  mode: 'auto' | 'legacy',
): Promise<Client> {
  const client = new Client({ name: 'oauth-it', version: '1.0.0' }, { versionNegotiation: { mode } });
  const first = transportFor(gatewayUrl, provider);
  try {
    await client.connect(first);
    return client;
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || !(provider instanceof HeadlessOAuthProvider)) throw error;
    await provider.completeLogin(first);
  }
  const again = new Client({ name: 'oauth-it', version: '1.0.0' }, { versionNegotiation: { mode } });
  await again.connect(transportFor(gatewayUrl, provider));
  return again;
}

/** Runs `call`; when the gateway asks for a step-up, signs in again (the SDK already sent the
 * client to the authorization server with the wider scope) and runs it once more. */
export async function withStepUp<T>(
  gatewayUrl: string,
  provider: HeadlessOAuthProvider,
  mode: 'auto' | 'legacy',
  call: (client: Client) => Promise<T>,
  client: Client,
): Promise<{ result: T; steppedUp: boolean }> {
  try {
    return { result: await call(client), steppedUp: false };
  } catch (error) {
    if (provider.authorizationUrl === undefined) throw error;
    const transport = transportFor(gatewayUrl, provider);
    await provider.completeLogin(transport);
    const again = await connectWithLogin(gatewayUrl, provider, mode);
    return { result: await call(again), steppedUp: true };
  }
}

/** A person signed in to the gateway as `login` through the pre-registered public client
 * `clientId`: the connected SDK v2 client and the access token it holds (for assertions only). */
export async function signInAs(
  gatewayUrl: string,
  login: string,
  clientId = 'agw-public',
): Promise<{ client: Client; token: string }> {
  const provider = new HeadlessOAuthProvider(login, clientId);
  const client = await connectWithLogin(gatewayUrl, provider, 'auto');
  const token = provider.accessToken;
  if (token === undefined) {
    await client.close().catch(() => undefined);
    throw new Error('no token after sign-in');
  }
  return { client, token };
}
