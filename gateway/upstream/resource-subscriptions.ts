// Resource subscriptions on one upstream connection (issue 24, docs/mcp-2026.md §1.3, duty 18): a
// 2025-era upstream gets `resources/subscribe` / `unsubscribe` on the connection the pool keeps (its
// `notifications/resources/updated` arrive there, unsolicited); a 2026 upstream gets one
// `subscriptions/listen` stream carrying every URI this replica watches, re-opened when the set
// changes or the upstream ends it. The updates themselves reach the pool's `resourceUpdated` event.
import type { Client, McpSubscription } from '@modelcontextprotocol/client';

export interface ResourceSubscriber {
  /** Whether the upstream advertises `resources.subscribe`. */
  readonly supportsSubscribe: boolean;
  subscribeResource(uri: string, timeoutMs: number): Promise<void>;
  unsubscribeResource(uri: string, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Delay before a 2026 listen stream the upstream ended is opened again. */
const RELISTEN_DELAY_MS = 1000;

export function resourceSubscriber(
  client: Client,
  era: string | undefined,
  capabilities: Record<string, unknown>,
): ResourceSubscriber {
  const resources = capabilities['resources'];
  const supportsSubscribe =
    typeof resources === 'object' &&
    resources !== null &&
    (resources as { subscribe?: unknown }).subscribe === true;
  if (era !== 'modern')
    return {
      supportsSubscribe,
      async subscribeResource(uri, timeoutMs) {
        await client.subscribeResource({ uri }, { timeout: timeoutMs });
      },
      async unsubscribeResource(uri, timeoutMs) {
        await client.unsubscribeResource({ uri }, { timeout: timeoutMs });
      },
      close: () => Promise.resolve(),
    };
  return new ModernListen(client, supportsSubscribe);
}

/** One upstream listen stream holding the whole URI set; changes are applied one at a time. */
class ModernListen implements ResourceSubscriber {
  private readonly uris = new Set<string>();
  private current: McpSubscription | undefined;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly client: Client,
    readonly supportsSubscribe: boolean,
  ) {}

  subscribeResource(uri: string, timeoutMs: number): Promise<void> {
    this.uris.add(uri);
    return this.apply(timeoutMs).then((honoured) => {
      if (!honoured.has(uri)) {
        this.uris.delete(uri);
        throw new Error('the upstream did not honour the subscription');
      }
    });
  }

  async unsubscribeResource(uri: string, timeoutMs: number): Promise<void> {
    if (!this.uris.delete(uri)) return;
    await this.apply(timeoutMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.uris.clear();
    await this.current?.close().catch(() => undefined);
    this.current = undefined;
  }

  /** Opens a stream for the current set (then closes the old one); resolves with what it honours. */
  private apply(timeoutMs: number): Promise<ReadonlySet<string>> {
    const run = this.queue.then(async () => {
      const previous = this.current;
      this.current = undefined;
      if (this.closed || this.uris.size === 0) {
        await previous?.close().catch(() => undefined);
        return new Set<string>();
      }
      const opened = await this.client
        .listen({ resourceSubscriptions: [...this.uris] }, { timeout: timeoutMs })
        .catch(() => undefined);
      await previous?.close().catch(() => undefined);
      if (opened === undefined) return new Set<string>();
      this.current = opened;
      void opened.closed.then((how) => {
        if (how !== 'local' && this.current === opened && !this.closed)
          setTimeout(() => {
            if (this.current === opened && !this.closed) void this.apply(timeoutMs);
          }, RELISTEN_DELAY_MS).unref();
      });
      return new Set(opened.honoredFilter.resourceSubscriptions ?? []);
    });
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }
}
