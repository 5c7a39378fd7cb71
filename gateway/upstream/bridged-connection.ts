// A dedicated, short-lived connection to a legacy (SDK-backed) upstream for one tool call whose
// client can answer input requests (duty 16). It declares the downstream client's elicitation and
// sampling capabilities upstream and hands every server→client request of the call to
// `onServerRequest`, which decides when (and with what) it is answered. Not pooled: the handlers
// belong to this one call.
import { Client, StreamableHTTPClientTransport, type ClientCapabilities } from '@modelcontextprotocol/client';
import type { McpSourceConfig } from '../config/index.js';
import { withResponseGuard } from './response-guard.js';
import { scopedDeps, transportFor, type ConnectDeps } from './upstream-connection.js';
import { within } from '../shared-state/within.js';

export type ServerRequestHandler = (
  method: string,
  params: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

export interface BridgedConnection {
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Only the capabilities the gateway can bridge are declared upstream. */
export function bridgeableCapabilities(client: Record<string, unknown>): ClientCapabilities | undefined {
  const capabilities: ClientCapabilities = {};
  if (typeof client['elicitation'] === 'object' && client['elicitation'] !== null)
    capabilities.elicitation = { form: {} };
  if (typeof client['sampling'] === 'object' && client['sampling'] !== null) capabilities.sampling = {};
  return Object.keys(capabilities).length === 0 ? undefined : capabilities;
}

export async function connectBridged(
  source: McpSourceConfig,
  unscoped: ConnectDeps,
  capabilities: ClientCapabilities,
  onServerRequest: ServerRequestHandler,
  workspace?: string,
): Promise<BridgedConnection> {
  const deps = scopedDeps(unscoped, source, workspace);
  const client = new Client(
    { name: deps.clientInfo.name, version: deps.clientInfo.version },
    { capabilities },
  );
  if (capabilities.elicitation !== undefined) {
    client.setRequestHandler(
      'elicitation/create',
      async (request) =>
        (await onServerRequest('elicitation/create', request.params as Record<string, unknown>)) as never,
    );
  }
  if (capabilities.sampling !== undefined) {
    client.setRequestHandler(
      'sampling/createMessage',
      async (request) =>
        (await onServerRequest('sampling/createMessage', request.params as Record<string, unknown>)) as never,
    );
  }
  const transport = transportFor(source, deps);
  await client.connect(transport, {
    timeout: source.timeouts.connectMs,
    signal: AbortSignal.timeout(source.timeouts.connectMs),
  });
  return {
    async callTool(name, args, signal, timeoutMs) {
      const result = await withResponseGuard(signal, (scoped) =>
        client.callTool(
          { name, ...(args === undefined ? {} : { arguments: args }) },
          { signal: scoped, timeout: timeoutMs },
        ),
      );
      return result;
    },
    // The call's upstream session is ended, not just our socket (issue 28.1): a 2025-era server
    // otherwise keeps it until its own expiry. Best effort, bounded by the connect time-out.
    async close() {
      if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined)
        await within(transport.terminateSession(), source.timeouts.connectMs).catch(() => undefined);
      await client.close();
    },
  };
}
