// A dedicated connection to a legacy (SDK-backed) upstream for tool calls whose client can answer
// input requests (duty 16). It declares the downstream client's elicitation and sampling
// capabilities upstream and hands every server→client request to the handler bound to it, which
// decides when (and with what) it is answered. A 2025-era server→client request names no call, so
// a connection carries one call at a time; BridgedSessionPool rebinds it to the next one.
import { ProgressSinks, requestMeta } from './progress-sinks.js';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { gatewayUiCapability } from './apps-capability.js';
import { mcpClientSdk } from './mcp-client-sdk.js';
import type { McpSourceConfig } from '../config/index.js';
import { withResponseGuard } from './response-guard.js';
import type { ConnectDeps } from './upstream-connection.js';
import { scopedDeps, transportFor } from './upstream-transport.js';
import { within } from '../shared-state/within.js';

export type ServerRequestHandler = (
  method: string,
  params: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

/** What the call's client hears while it runs: the upstream's progress and log messages. */
export interface CallNotices {
  readonly onProgress?: (progress: Record<string, unknown>) => void;
  readonly onLog?: (params: Record<string, unknown>) => void;
}

export interface BridgedConnection {
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    signal: AbortSignal,
    timeoutMs: number,
    notices?: CallNotices,
    /** `_meta` keys the call carries besides the progress token (the trace context, SEP-414). */
    meta?: Readonly<Record<string, string>>,
  ): Promise<Record<string, unknown>>;
  close(): Promise<void>;
  /** The call ended cleanly (its result arrived): the session may carry another call. Without it,
   * or when the pool has no room, the connection is closed. */
  recycle?(): Promise<void>;
}

/** A connection whose server→client requests can be handed to the next call. */
export interface RebindableBridgedConnection extends BridgedConnection {
  bind(handler: ServerRequestHandler): void;
  /** False once the transport closed (the upstream ended the session or the process exited). */
  readonly alive: boolean;
}

/** Only the capabilities the gateway can bridge are declared upstream. */
export function bridgeableCapabilities(client: Record<string, unknown>): ClientCapabilities | undefined {
  const capabilities: ClientCapabilities = {};
  if (typeof client['elicitation'] === 'object' && client['elicitation'] !== null)
    capabilities.elicitation = { form: {} };
  if (typeof client['sampling'] === 'object' && client['sampling'] !== null) capabilities.sampling = {};
  return Object.keys(capabilities).length === 0 ? undefined : capabilities;
}

/** What a 2025-era caller is declared upstream: the stateless legacy face never sees its
 * initialize, so both are declared and a client without one answers method-not-found, which goes
 * upstream as the error it is (docs/decisions.md); MCP Apps likewise (apps-capability.ts). */
export const LEGACY_CALLER_CAPABILITIES: ClientCapabilities = {
  elicitation: { form: {} },
  sampling: {},
  ...gatewayUiCapability(),
};

export async function connectBridged(
  source: McpSourceConfig,
  unscoped: ConnectDeps,
  capabilities: ClientCapabilities,
  onServerRequest: ServerRequestHandler,
  workspace?: string,
  signal?: AbortSignal,
): Promise<RebindableBridgedConnection> {
  const deps = scopedDeps(unscoped, source, workspace);
  const { Client, StreamableHTTPClientTransport } = mcpClientSdk();
  const client = new Client(
    { name: deps.clientInfo.name, version: deps.clientInfo.version },
    { capabilities },
  );
  let handler = onServerRequest;
  let alive = true;
  // One call at a time: everything the session says while it runs belongs to that call.
  let notices: CallNotices | undefined;
  client.setNotificationHandler('notifications/message', (notification) =>
    notices?.onLog?.(notification.params as Record<string, unknown>),
  );
  if (capabilities.elicitation !== undefined) {
    client.setRequestHandler(
      'elicitation/create',
      async (request) =>
        (await handler('elicitation/create', request.params as Record<string, unknown>)) as never,
    );
  }
  if (capabilities.sampling !== undefined) {
    client.setRequestHandler(
      'sampling/createMessage',
      async (request) =>
        (await handler('sampling/createMessage', request.params as Record<string, unknown>)) as never,
    );
  }
  // A 2025-era server sends a server→client request it does not tie to the call on the session's
  // GET stream, and drops it while that stream is not open yet: the call waits for the stream.
  let streamAnswered: () => void = () => undefined;
  const stream = new Promise<void>((resolve) => (streamAnswered = resolve));
  const transport = transportFor(source, deps, source.transport, undefined, (method) => {
    if (method === 'GET') streamAnswered();
  });
  // The call's upstream session is ended, not just our socket (issue 28.1): a 2025-era server
  // otherwise keeps it until its own expiry. Best effort, bounded by the connect time-out.
  const close = async () => {
    alive = false;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined)
      await within(transport.terminateSession(), source.timeouts.connectMs).catch(() => undefined);
    await client.close();
  };
  const timeout = AbortSignal.timeout(source.timeouts.connectMs);
  try {
    // The client's request going away aborts the handshake too (nothing would use the session).
    await client.connect(transport, {
      timeout: source.timeouts.connectMs,
      signal: signal === undefined ? timeout : AbortSignal.any([timeout, signal]),
    });
  } catch (error) {
    await close();
    throw error;
  }
  // Any answer will do (405: the server has no such stream and sends everything on the call's own);
  // a slow one only delays the call, by at most the connect time-out.
  if (transport instanceof StreamableHTTPClientTransport) {
    const abandoned = new Promise<void>((resolve) =>
      signal?.addEventListener('abort', () => resolve(), { once: true }),
    );
    await within(Promise.race([stream, abandoned]), source.timeouts.connectMs).catch(() => undefined);
  }
  client.onclose = () => (alive = false);
  const progress = new ProgressSinks(client);
  return {
    get alive() {
      return alive;
    },
    bind(next) {
      handler = next;
    },
    async callTool(name, args, callSignal, timeoutMs, callNotices, extraMeta) {
      notices = callNotices;
      try {
        return await progress.run(callNotices?.onProgress, (token) =>
          withResponseGuard(callSignal, (scoped) =>
            client.callTool(
              {
                name,
                ...(args === undefined ? {} : { arguments: args }),
                ...requestMeta(extraMeta, token),
              },
              { signal: scoped, timeout: timeoutMs },
            ),
          ),
        );
      } finally {
        notices = undefined;
      }
    },
    close,
  };
}
