// The UpstreamConnection over one connected SDK client: lists, completion, reads and prompts relayed
// through the response guard, tool calls with their progress and log messages, resource
// subscriptions, the 2025-11-25 task requests (legacy-task-calls.ts), and close. A 2026-07-28
// Streamable HTTP upstream gets the byte-faithful relay (D4) for its tool lists; everything else goes
// through the client.
import type { Client } from '@modelcontextprotocol/client';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { McpSourceConfig } from '../config/index.js';
import { listPrompts, listResources, listResourceTemplates } from './item-lists.js';
import { legacyTaskCalls } from './legacy-task-calls.js';
import { createModernRelay } from './modern-relay.js';
import { ProgressSinks, requestMeta, type ProgressSink } from './progress-sinks.js';
import { resourceSubscriber } from './resource-subscriptions.js';
import { withResponseGuard } from './response-guard.js';
import type { SharedSession } from './session-store.js';
import { clientToolsPage, listAllTools, relayToolsPage } from './tool-listing.js';
import type { ConnectDeps, UpstreamConnection } from './upstream-connection.js';
import { credentialsOf, wakerOf } from './upstream-transport.js';
import type { ModernRelay } from './modern-relay.js';

/** The relay of a source scaled to zero wakes it too (D25); others are unchanged. */
function wakingRelay(relay: ModernRelay, source: McpSourceConfig, deps: ConnectDeps): ModernRelay {
  const waker = wakerOf(source, deps);
  if (waker === undefined) return relay;
  const credentials = credentialsOf(source, deps);
  return {
    relay: (request) => waker.around(() => relay.relay(request), credentials, request.signal),
    close: () => relay.close(),
  };
}

export function sdkConnection(
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
      ? wakingRelay(
          createModernRelay(
            source.url as string,
            credentialsOf(source, deps),
            source.limits.maxResponseBytes,
            deps.guard,
          ),
          source,
          deps,
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
  // 2025-11-25 tasks live in this connection's session: they go over the same client (issue 43).
  const legacyTasks = legacyTaskCalls(client, era, capabilities);
  return {
    era,
    sessionId,
    ...(sharedSession === undefined ? {} : { sharedSession }),
    transport: transportUsed,
    connectedAt: new Date().toISOString(),
    relay: modern?.relay,
    tasks: (modern !== undefined && advertisesTasks(capabilities)) || legacyTasks !== undefined,
    ...(legacyTasks === undefined ? {} : { legacyTasks }),
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
    listResources(callSignal) {
      return listResources(client, capabilities, callSignal, source.timeouts.listMs);
    },
    listPrompts(callSignal) {
      return listPrompts(client, capabilities, callSignal, source.timeouts.listMs);
    },
    listResourceTemplates(callSignal) {
      return listResourceTemplates(client, capabilities, callSignal, source.timeouts.listMs);
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
            ...requestMeta(options.meta, undefined),
          },
          { signal, timeout: options.timeoutMs },
        ),
      );
    },
    readResource(uri, options) {
      return withResponseGuard(options.signal, (signal) =>
        client.readResource(
          { uri, ...requestMeta(options.meta, undefined) },
          { signal, timeout: options.timeoutMs, cacheMode: 'bypass' },
        ),
      );
    },
    getPrompt(name, args, options) {
      return withResponseGuard(options.signal, (signal) =>
        client.getPrompt(
          {
            name,
            ...(args === undefined ? {} : { arguments: args }),
            ...requestMeta(options.meta, undefined),
          },
          { signal, timeout: options.timeoutMs },
        ),
      );
    },
    async callTool(name, args, options) {
      const call = () =>
        progress.run(options.onProgress as ProgressSink | undefined, (token) =>
          withResponseGuard(options.signal, (signal) =>
            client.callTool(
              {
                name,
                ...(args === undefined ? {} : { arguments: args }),
                ...requestMeta(options.meta, token),
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

/** `extensions["io.modelcontextprotocol/tasks"]` is exactly `{}` (SEP-2663; ext-tasks reads any other
 * value as "not supported"). */
function advertisesTasks(capabilities: Record<string, unknown>): boolean {
  const extensions = capabilities['extensions'];
  if (typeof extensions !== 'object' || extensions === null) return false;
  const tasks = (extensions as Record<string, unknown>)['io.modelcontextprotocol/tasks'];
  return (
    typeof tasks === 'object' && tasks !== null && !Array.isArray(tasks) && Object.keys(tasks).length === 0
  );
}
