// Connecting to an upstream: the SDK client in `auto` negotiation, so modern and legacy upstreams
// both work; era detection (a Streamable HTTP source that turns out to be HTTP+SSE); and joining the
// 2025-era session other replicas share for a source (issue 10), with the SDK state a joined session
// needs restored.
import type { Client } from '@modelcontextprotocol/client';
import type { McpSourceConfig } from '../config/index.js';
import { gatewayUiCapability } from './apps-capability.js';
import { mcpClientSdk } from './mcp-client-sdk.js';
import { withResponseGuard } from './response-guard.js';
import { sdkConnection } from './sdk-connection.js';
import { sessionKey, type SharedSession } from './session-store.js';
import type { ConnectDeps, UpstreamConnection, UpstreamEvents } from './upstream-connection.js';
import { scopedDeps, transportFor } from './upstream-transport.js';
import { isPerCaller } from './per-caller.js';
import { connectOpenApi } from './openapi-connection.js';

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
  // A REST API described by an OpenAPI document (issue 44): no MCP session at all.
  if (source.transport === 'openapi')
    return connectOpenApi(source, deps, (url) => scopedDeps(unscoped, { ...source, url }, workspace));
  const sessions = deps.sessions;
  // A per-caller session (token exchange, a user's connection) belongs to one caller: it is not
  // shared through the store.
  if (
    sessions === undefined ||
    workspace === undefined ||
    source.transport !== 'streamable-http' ||
    isPerCaller(source)
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
        // One session speaks for every client of the workspace: it declares MCP Apps, whose
        // resources and links the gateway relays unchanged (apps-capability.ts).
        capabilities: gatewayUiCapability(),
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
      return sdkConnection(
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
  return sdkConnection(client, source, deps, transportUsed, era, capabilities, sessionId, sharedSession);
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
