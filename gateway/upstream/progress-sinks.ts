// Upstream progress of SDK-backed connections, delivered before the call's result. The SDK client
// (2.4.0) runs notification handlers a microtask late but settles a response at once and forgets the
// call's `onprogress` then, so a progress notification read together with the result (the last one,
// typically) was dropped as "unknown token". Here the gateway sends its own progress token and keeps
// the sink until the call's promise has settled: the notification's microtask is queued before the
// result's continuation, so it finds the sink.
import type { Client } from '@modelcontextprotocol/client';

export type ProgressSink = (progress: Record<string, unknown>) => void;

export class ProgressSinks {
  private next = 0;
  private readonly sinks = new Map<string, ProgressSink>();

  constructor(client: Client) {
    client.setNotificationHandler('notifications/progress', (notification) => {
      const { progressToken, ...progress } = notification.params;
      this.sinks.get(String(progressToken))?.(progress);
    });
  }

  /** Runs `call` with `_meta.progressToken` set when there is a sink, and relays its progress. */
  async run<T>(
    sink: ProgressSink | undefined,
    call: (meta: { progressToken: string } | undefined) => Promise<T>,
  ): Promise<T> {
    if (sink === undefined) return call(undefined);
    this.next = (this.next + 1) % Number.MAX_SAFE_INTEGER;
    const token = `agw-progress-${this.next}`;
    this.sinks.set(token, sink);
    try {
      return await call({ progressToken: token });
    } finally {
      this.sinks.delete(token);
    }
  }
}

/** The `_meta` of an SDK-sent request: `extra` (the trace context) and the progress token, if any. */
export function requestMeta(
  extra: Readonly<Record<string, string>> | undefined,
  token: { progressToken: string } | undefined,
): { _meta?: Record<string, unknown> } {
  if (token === undefined && (extra === undefined || Object.keys(extra).length === 0)) return {};
  return { _meta: { ...extra, ...token } };
}
