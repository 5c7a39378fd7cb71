// One live MCP client connection to an upstream source (HTTP Streamable, legacy HTTP+SSE or stdio),
// built on the v2 SDK client in `auto` negotiation so modern and legacy upstreams both work.
// Upstream credentials come from the source's secret references; the caller's key never leaves here.
import type { Client, Progress } from '@modelcontextprotocol/client';
import { AsyncLocalStorage } from 'node:async_hooks';
import { resolveSecret, type McpSourceConfig, type SecretReader } from '../config/index.js';
import { mcpClientSdk, mcpClientStdio } from './mcp-client-sdk.js';
import { createModernRelay, type Relay } from './modern-relay.js';
import { clientToolsPage, listAllTools, relayToolsPage, type ListedTools } from './tool-listing.js';
import { ProgressSinks, type ProgressSink } from './progress-sinks.js';
import { resourceSubscriber, type ResourceSubscriber } from './resource-subscriptions.js';
import { ReachDeniedError, type NetworkGuard } from '../reach/index.js';
import { guardedFetch, withResponseGuard } from './response-guard.js';
import { sessionKey, type SessionStore, type SharedSession } from './session-store.js';
import { authorizedFetch, staticTokenSource, type TokenSource, type UpstreamTokens } from './token-source.js';
import { currentSubject } from './upstream-caller.js';

export interface CallOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** Called for each upstream progress notification of this call (SDK-backed connections). */
  readonly onProgress?: (progress: Progress) => void;
  /** Called with the params of each `notifications/message` the upstream sends on this call's own
   * response stream (SDK-backed connections; see `wrap`). */
  readonly onLog?: (params: Record<string, unknown>) => void;
}

/** All pages of a tool list (tool-listing.ts); `skipped` names the tools whose definition cannot be
 * used, with why (optional for twins that never skip). */
export type ToolList = Omit<ListedTools, 'skipped'> & { readonly skipped?: ListedTools['skipped'] };

/** What completion/complete sends upstream: the ref in the upstream's own names. */
export interface CompleteParams {
  readonly ref:
    | { readonly type: 'ref/prompt'; readonly name: string }
    | { readonly type: 'ref/resource'; readonly uri: string };
  readonly argument: { readonly name: string; readonly value: string };
  readonly context?: { readonly arguments?: Record<string, string> };
}

/** Resources, resource templates or prompts of one upstream, all pages. */
export interface ItemList {
  readonly items: readonly Record<string, unknown>[];
  /** The upstream's cache hint (the smallest over the pages); undefined when it gave none. */
  readonly ttlMs: number | undefined;
}

export interface UpstreamEvents {
  /** The upstream said its tool, prompt or resource list changed (notifications/…/list_changed). */
  listChanged(kind?: 'tools' | 'prompts' | 'resources'): void;
  /** The upstream said a subscribed resource changed (notifications/resources/updated, issue 24). */
  resourceUpdated?(uri: string): void;
}

export interface UpstreamConnection {
  listTools(signal: AbortSignal): Promise<ToolList>;
  /** When this connection (and so its era detection) was made. */
  readonly connectedAt: string;
  /** The transport actually in use (a Streamable HTTP source may turn out to be HTTP+SSE). */
  readonly transport?: McpSourceConfig['transport'];
  /** Lists resources or prompts (all pages); empty when the upstream does not offer them. */
  listResources(signal: AbortSignal): Promise<ItemList>;
  listPrompts(signal: AbortSignal): Promise<ItemList>;
  /** Lists resource templates (all pages); empty when the upstream does not offer resources. */
  listResourceTemplates(signal: AbortSignal): Promise<ItemList>;
  /** completion/complete with the upstream's own `ref`; no suggestions when it offers none. */
  complete(params: CompleteParams, options: CallOptions): Promise<Record<string, unknown>>;
  readResource(uri: string, options: CallOptions): Promise<Record<string, unknown>>;
  getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    options: CallOptions,
  ): Promise<Record<string, unknown>>;
  /** Calls one tool by its upstream name and returns the upstream's result object as received. */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallOptions,
  ): Promise<Record<string, unknown>>;
  readonly era: string | undefined;
  /** The upstream session of a 2025-era Streamable HTTP connection (never shown to clients). */
  readonly sessionId?: string | undefined;
  /** Present for 2026-07-28 HTTP upstreams: the byte-faithful relay (D4). */
  readonly relay: Relay | undefined;
  /** Resource subscriptions on this connection (issue 24; resource-subscriptions.ts). */
  readonly subscriptions?: ResourceSubscriber;
  close(): Promise<void>;
}

export interface ConnectDeps {
  readonly secrets: SecretReader;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** Where 2025-era upstream sessions are shared between replicas (issue 10); none by default. */
  readonly sessions?: SessionStore;
  /** The checked network path of a workspace under the tenant reach policy (D19); absent or
   * answering undefined: connections are not bounded (the embedded file without a policy). */
  readonly network?: (workspace: string) => NetworkGuard | undefined;
  /** Set per connection from `network`: the guard this connection dials through. */
  readonly guard?: NetworkGuard;
  /** This replica's upstream tokens (issue 29); absent: static credentials only. */
  readonly tokens?: UpstreamTokens;
  /** Set per connection by scopedDeps: the credential of every hop it makes. */
  readonly credentials?: TokenSource;
}

/** The deps of one workspace's connection: its network guard resolved, stdio refused under a
 * policy that does not allow it. */
export function scopedDeps(
  deps: ConnectDeps,
  source: McpSourceConfig,
  workspace: string | undefined,
): ConnectDeps {
  const guard = workspace === undefined ? undefined : deps.network?.(workspace);
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

function credentialsOf(source: McpSourceConfig, deps: ConnectDeps): TokenSource {
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
  }
}

function baseFetch(deps: ConnectDeps): typeof fetch {
  return deps.guard?.fetch() ?? fetch;
}

/** The network path with the source's credential on every request (and one retry after a 401). */
function authorized(deps: ConnectDeps, source: McpSourceConfig): typeof fetch {
  return authorizedFetch(baseFetch(deps), credentialsOf(source, deps));
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

/** Connects, joining the session other replicas share for this source when there is one (2025-era
 * Streamable HTTP upstreams), or opening one and sharing it. One replica at a time does this per
 * source, so N replicas starting together open one upstream session. */
export async function connectUpstream(
  source: McpSourceConfig,
  unscoped: ConnectDeps,
  events?: UpstreamEvents,
  workspace?: string,
): Promise<UpstreamConnection> {
  const deps = scopedDeps(unscoped, source, workspace);
  const sessions = deps.sessions;
  // A token-exchange session belongs to one caller: it is not shared through the store.
  if (
    sessions === undefined ||
    workspace === undefined ||
    source.transport !== 'streamable-http' ||
    source.credential?.type === 'tokenExchange'
  )
    return connectOnce(source, deps, events, undefined);
  const key = sessionKey(workspace, source);
  let connection: UpstreamConnection | undefined;
  await sessions.exclusive(key, source.timeouts.connectMs, async () => {
    const shared = await sessions.get(key);
    if (shared !== undefined) {
      connection = await connectOnce(source, deps, events, shared).catch(() => undefined);
      if (connection !== undefined) return;
      await sessions.forget(key, shared.sessionId);
    }
    const fresh = await connectOnce(source, deps, events, undefined);
    connection = fresh;
    if (fresh.era === 'legacy' && fresh.sessionId !== undefined && fresh.sharedSession !== undefined)
      await sessions.put(key, fresh.sharedSession);
  });
  return connection ?? connectOnce(source, deps, events, undefined);
}

async function connectOnce(
  source: McpSourceConfig,
  deps: ConnectDeps,
  events: UpstreamEvents | undefined,
  resume: SharedSession | undefined,
): Promise<UpstreamConnection & { readonly sharedSession?: SharedSession }> {
  const { Client, SdkHttpError, StreamableHTTPClientTransport } = mcpClientSdk();
  const newClient = () =>
    new Client(
      { name: deps.clientInfo.name, version: deps.clientInfo.version },
      {
        versionNegotiation: { mode: 'auto', probe: { timeoutMs: source.timeouts.connectMs } },
        ...(events === undefined
          ? {}
          : {
              listChanged: {
                tools: { autoRefresh: false, debounceMs: 0, onChanged: () => events.listChanged('tools') },
                prompts: {
                  autoRefresh: false,
                  debounceMs: 0,
                  onChanged: () => events.listChanged('prompts'),
                },
                resources: {
                  autoRefresh: false,
                  debounceMs: 0,
                  onChanged: () => events.listChanged('resources'),
                },
              },
            }),
      },
    );
  const withUpdates = (made: Client) => {
    if (events?.resourceUpdated !== undefined)
      made.setNotificationHandler('notifications/resources/updated', (n) =>
        events.resourceUpdated?.(n.params.uri),
      );
    return made;
  };
  let client = withUpdates(newClient());
  let transportUsed = source.transport;
  let transport = transportFor(source, deps, source.transport, resume);
  try {
    await connectWith(client, transport, source);
    if (resume !== undefined) restoreSessionState(client, resume);
    if (resume !== undefined)
      return wrap(
        client,
        source,
        deps,
        'streamable-http',
        'legacy',
        resume.capabilities,
        resume.sessionId,
        undefined,
      );
  } catch (error) {
    // Era detection (duty 21): a Streamable HTTP probe and initialize that both end in 400/404/405
    // mean a 2024-11-05 HTTP+SSE server; anything else (401/403/5xx/time-out) is no evidence.
    if (
      source.transport !== 'streamable-http' ||
      !(error instanceof SdkHttpError) ||
      ![400, 404, 405].includes(error.status)
    )
      throw error;
    if (resume !== undefined) throw error;
    client = withUpdates(newClient());
    transportUsed = 'sse';
    transport = transportFor(source, deps, 'sse');
    await connectWith(client, transport, source);
  }
  const era = client.getProtocolEra();
  const capabilities = (client.getServerCapabilities() ?? {}) as Record<string, unknown>;
  const sessionId = transport instanceof StreamableHTTPClientTransport ? transport.sessionId : undefined;
  const protocolVersion =
    transport instanceof StreamableHTTPClientTransport ? transport.protocolVersion : undefined;
  const sharedSession =
    era === 'legacy' && sessionId !== undefined && protocolVersion !== undefined
      ? { sessionId, protocolVersion, capabilities }
      : undefined;
  return wrap(client, source, deps, transportUsed, era, capabilities, sessionId, sharedSession);
}

function wrap(
  client: Client,
  source: McpSourceConfig,
  deps: ConnectDeps,
  transportUsed: McpSourceConfig['transport'],
  era: string | undefined,
  capabilities: Record<string, unknown>,
  sessionId: string | undefined,
  sharedSession: SharedSession | undefined,
): UpstreamConnection & { readonly sharedSession?: SharedSession } {
  const modern =
    transportUsed === 'streamable-http' && era === 'modern'
      ? createModernRelay(
          source.url as string,
          credentialsOf(source, deps),
          source.limits.maxResponseBytes,
          deps.guard,
        )
      : undefined;
  // A 2025-era log message names no call. One that arrives on a call's own POST response stream is
  // read in that call's async context (the SDK reads the stream from the call's send), so the sink
  // bound with `run` around the call finds it; one on the session's GET stream (opened at connect,
  // outside every call) finds none and is dropped. A sink is live only while its call runs.
  const progress = new ProgressSinks(client);
  const callLogs = new AsyncLocalStorage<{
    live: boolean;
    sink: (params: Record<string, unknown>) => void;
  }>();
  client.setNotificationHandler('notifications/message', (notification) => {
    const scope = callLogs.getStore();
    if (scope?.live === true) scope.sink(notification.params);
  });
  const subscriptions = resourceSubscriber(client, era, capabilities);
  return {
    era,
    sessionId,
    ...(sharedSession === undefined ? {} : { sharedSession }),
    transport: transportUsed,
    connectedAt: new Date().toISOString(),
    relay: modern?.relay,
    subscriptions,
    listTools(callSignal) {
      return listAllTools((cursor) =>
        modern !== undefined
          ? relayToolsPage(modern.relay, cursor, callSignal, deps.clientInfo)
          : clientToolsPage(
              client,
              capabilities['tools'] !== undefined,
              cursor,
              callSignal,
              source.timeouts.listMs,
            ),
      );
    },
    async listResources(callSignal) {
      if (capabilities['resources'] === undefined) return { items: [], ttlMs: undefined };
      return collectPages(async (cursor) => {
        const page = await withResponseGuard(callSignal, (signal) =>
          client.listResources(cursor === undefined ? {} : { cursor }, {
            signal,
            timeout: source.timeouts.listMs,
            // The gateway keeps its own discovery cache (per source ttl, refresh on demand); the
            // SDK's would answer a refresh from memory and is shared by every key of the workspace.
            cacheMode: 'bypass',
          }),
        );
        return { items: page.resources, nextCursor: page.nextCursor, ttlMs: cacheHint(page) };
      });
    },
    async listPrompts(callSignal) {
      if (capabilities['prompts'] === undefined) return { items: [], ttlMs: undefined };
      return collectPages(async (cursor) => {
        const page = await withResponseGuard(callSignal, (signal) =>
          client.listPrompts(cursor === undefined ? {} : { cursor }, {
            signal,
            timeout: source.timeouts.listMs,
            // The gateway keeps its own discovery cache (per source ttl, refresh on demand); the
            // SDK's would answer a refresh from memory and is shared by every key of the workspace.
            cacheMode: 'bypass',
          }),
        );
        return { items: page.prompts, nextCursor: page.nextCursor, ttlMs: cacheHint(page) };
      });
    },
    async listResourceTemplates(callSignal) {
      if (capabilities['resources'] === undefined) return { items: [], ttlMs: undefined };
      return collectPages(async (cursor) => {
        const page = await withResponseGuard(callSignal, (signal) =>
          client.listResourceTemplates(cursor === undefined ? {} : { cursor }, {
            signal,
            timeout: source.timeouts.listMs,
            cacheMode: 'bypass',
          }),
        );
        return { items: page.resourceTemplates, nextCursor: page.nextCursor, ttlMs: cacheHint(page) };
      });
    },
    async complete(params, options) {
      // An upstream that does not offer completions has no suggestions (the gateway advertises the
      // capability for the workspace as a whole).
      if (capabilities['completions'] === undefined) return { completion: { values: [], hasMore: false } };
      return withResponseGuard(options.signal, (signal) =>
        client.complete(
          {
            ref: params.ref,
            argument: params.argument,
            ...(params.context === undefined ? {} : { context: params.context }),
          },
          { signal, timeout: options.timeoutMs },
        ),
      );
    },
    readResource(uri, options) {
      return withResponseGuard(options.signal, (signal) =>
        client.readResource({ uri }, { signal, timeout: options.timeoutMs, cacheMode: 'bypass' }),
      );
    },
    getPrompt(name, args, options) {
      return withResponseGuard(options.signal, (signal) =>
        client.getPrompt(
          { name, ...(args === undefined ? {} : { arguments: args }) },
          { signal, timeout: options.timeoutMs },
        ),
      );
    },
    async callTool(name, args, options) {
      const call = () =>
        progress.run(options.onProgress as ProgressSink | undefined, (meta) =>
          withResponseGuard(options.signal, (signal) =>
            client.callTool(
              {
                name,
                ...(args === undefined ? {} : { arguments: args }),
                ...(meta === undefined ? {} : { _meta: meta }),
              },
              { signal, timeout: options.timeoutMs },
            ),
          ),
        );
      if (options.onLog === undefined) return call();
      const scope = { live: true, sink: options.onLog };
      try {
        return await callLogs.run(scope, call);
      } finally {
        scope.live = false;
      }
    },
    async close() {
      await Promise.all([subscriptions.close(), client.close(), modern?.close()]);
    },
  };
}

/**
 * A client that joins a session another process opened skips the handshake, so the SDK (2.4.0,
 * pinned) never learns what the handshake taught it: the server's capabilities (it refuses
 * tools/list without them) and the negotiated version (era), and it sets up no list_changed
 * handler. The SDK has no public way to restore them across processes; this sets its internal
 * fields the same way its own handshake does. The shared-session tests fail if an SDK upgrade
 * renames them.
 */
function restoreSessionState(client: Client, session: SharedSession): void {
  const internals = client as unknown as {
    _serverCapabilities?: unknown;
    _negotiatedProtocolVersion?: string;
    _listChangedConfig?: unknown;
    _setupListChangedHandlers?: (config: unknown) => void;
  };
  internals._serverCapabilities = session.capabilities;
  internals._negotiatedProtocolVersion = session.protocolVersion;
  if (internals._listChangedConfig !== undefined)
    internals._setupListChangedHandlers?.(internals._listChangedConfig);
}

async function connectWith(
  client: Client,
  transport: Parameters<Client['connect']>[0],
  source: McpSourceConfig,
): Promise<void> {
  try {
    await withResponseGuard(AbortSignal.timeout(source.timeouts.connectMs), (signal) =>
      client.connect(transport, { timeout: source.timeouts.connectMs, signal }),
    );
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}

/** Follows `nextCursor` through at most 64 pages (the SDK's own cap for aggregated lists). */
async function collectPages(
  fetchPage: (
    cursor: string | undefined,
  ) => Promise<{ items: readonly object[]; nextCursor: string | undefined; ttlMs: number | undefined }>,
): Promise<ItemList> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  let ttlMs: number | undefined;
  for (let page = 0; page < 64; page += 1) {
    const result = await fetchPage(cursor);
    items.push(...(result.items as Record<string, unknown>[]));
    if (result.ttlMs !== undefined)
      ttlMs = ttlMs === undefined ? result.ttlMs : Math.min(ttlMs, result.ttlMs);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return { items, ttlMs };
}

/** A list result's `ttlMs` cache hint (2026 servers), if it has a usable one. */
function cacheHint(result: object): number | undefined {
  const hint = (result as { ttlMs?: unknown }).ttlMs;
  return typeof hint === 'number' && Number.isFinite(hint) ? hint : undefined;
}
