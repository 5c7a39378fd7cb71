// How a connection reaches its upstream: the deps scoped to one workspace (its network guard, the
// credential of every hop), and the SDK transport for the source's kind (stdio, HTTP+SSE, Streamable
// HTTP) with the response guard and the credential on every request.
import { resolveSecret, type McpSourceConfig, type SecretReader } from '../config/index.js';
import { ReachDeniedError } from '../reach/index.js';
import { mcpClientSdk, mcpClientStdio } from './mcp-client-sdk.js';
import { guardedFetch } from './response-guard.js';
import type { SharedSession } from './session-store.js';
import { authorizedFetch, staticTokenSource, type TokenSource } from './token-source.js';
import { currentPrincipal, currentSubject } from './upstream-caller.js';
import type { WorkloadWaker } from './workload-waker.js';
import type { ConnectDeps } from './upstream-connection.js';

/** The deps of one workspace's connection: its network guard resolved, stdio refused under a
 * policy that does not allow it. */
export function scopedDeps(
  deps: ConnectDeps,
  source: McpSourceConfig,
  workspace: string | undefined,
): ConnectDeps {
  const workspaceGuard = workspace === undefined ? undefined : deps.network?.(workspace);
  // A source the operator runs may dial its own Service (the mark is the operator's, D25).
  const guard = source.workload === undefined ? workspaceGuard : workspaceGuard?.forWorkload(source.workload);
  if (guard !== undefined && source.transport === 'stdio' && !guard.stdioAllowed)
    throw new ReachDeniedError('stdio-not-allowed', `MCP source ${source.name}`);
  // A token-exchange connection is made for the caller it is made for (pooled per subject).
  const credentials =
    deps.tokens?.forCredential(source.credential, {
      workspace: workspace ?? '',
      source: source.name,
      url: source.url ?? '',
      guard,
      // Half the connect time-out: a slow authorization server is reported as such
      // (upstream_token_unavailable), not as the upstream's time-out.
      timeoutMs: Math.max(100, Math.floor(source.timeouts.connectMs / 2)),
      subject: source.credential?.type === 'tokenExchange' ? currentSubject() : undefined,
      principal:
        source.credential?.type === 'user' && workspace !== undefined
          ? currentPrincipal(workspace)
          : undefined,
    }) ?? staticTokenSource(staticCredential(source), deps.secrets);
  return { ...deps, credentials, ...(guard === undefined ? {} : { guard }) };
}

/** Without a token registry only static credentials work; an OAuth one fails at its first hop. */
function staticCredential(source: McpSourceConfig) {
  const credential = source.credential;
  if (credential === undefined || credential.type === 'bearer' || credential.type === 'header')
    return credential;
  throw new Error(`the ${credential.type} credential needs the gateway's upstream token registry`);
}

export function credentialsOf(source: McpSourceConfig, deps: ConnectDeps): TokenSource {
  return deps.credentials ?? staticTokenSource(staticCredential(source), deps.secrets);
}

function stdioEnvironment(source: McpSourceConfig, secrets: SecretReader): Record<string, string> {
  const env: Record<string, string> = { ...mcpClientStdio().getDefaultEnvironment() };
  for (const [name, value] of Object.entries(source.env))
    env[name] = typeof value === 'string' ? value : resolveSecret(value, secrets);
  return env;
}

/** Hears each HTTP request's answer as it arrives (before its body is read); no response: failed. */
export type ResponseObserver = (method: string, response: Response | undefined) => void;

export function transportFor(
  source: McpSourceConfig,
  deps: ConnectDeps,
  kind: McpSourceConfig['transport'] = source.transport,
  resume?: SharedSession,
  observe?: ResponseObserver,
) {
  const { SSEClientTransport, StreamableHTTPClientTransport } = mcpClientSdk();
  switch (kind) {
    case 'stdio':
      return new (mcpClientStdio().StdioClientTransport)({
        command: source.command as string,
        args: [...source.args],
        env: stdioEnvironment(source, deps.secrets),
        stderr: 'ignore',
        ...(source.cwd === undefined ? {} : { cwd: source.cwd }),
      });
    case 'sse':
      return new SSEClientTransport(new URL(source.url as string), {
        fetch: guardedFetch(
          { maxBytes: source.limits.maxResponseBytes, validate: true },
          authorized(deps, source),
        ),
        eventSourceInit: {
          fetch: guardedFetch(
            { maxBytes: source.limits.maxResponseBytes, validate: true },
            authorized(deps, source),
          ),
        },
      });
    case 'streamable-http':
      return new StreamableHTTPClientTransport(new URL(source.url as string), {
        fetch: guardedFetch(
          { maxBytes: source.limits.maxResponseBytes, validate: true },
          observed(authorized(deps, source), observe),
        ),
        // Joining a session another replica opened: the SDK client skips the handshake.
        ...(resume === undefined
          ? {}
          : { sessionId: resume.sessionId, protocolVersion: resume.protocolVersion }),
      });
    case 'openapi':
      // A REST API, not an MCP server: openapi-connection.ts speaks to it.
      throw new TypeError('an OpenAPI source has no MCP transport');
  }
}

export function baseFetch(deps: ConnectDeps): typeof fetch {
  return deps.guard?.fetch() ?? fetch;
}

/** The waker of a source scaled to zero (D25), when this replica has wakers. */
export function wakerOf(source: McpSourceConfig, deps: ConnectDeps): WorkloadWaker | undefined {
  const mark = source.workload?.wake;
  return mark === undefined ? undefined : deps.wakers?.of(mark);
}

/** The network path with the source's credential on every request (and one retry after a 401);
 * a sleeping workload is woken under it. */
export function authorized(deps: ConnectDeps, source: McpSourceConfig): typeof fetch {
  const credentials = credentialsOf(source, deps);
  const waker = wakerOf(source, deps);
  const base = waker === undefined ? baseFetch(deps) : waker.wrapFetch(baseFetch(deps), credentials);
  return authorizedFetch(base, credentials);
}

function observed(inner: typeof fetch, observe: ResponseObserver | undefined): typeof fetch {
  if (observe === undefined) return inner;
  return async (input, init) => {
    let response: Response | undefined;
    try {
      response = await inner(input, init);
      return response;
    } finally {
      observe(init?.method ?? 'GET', response);
    }
  };
}
