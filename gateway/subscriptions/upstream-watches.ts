// This replica's upstream resource subscriptions (issue 24): one per (workspace, source, upstream URI)
// however many local streams want it, counted; the first stream subscribes upstream, the last one to
// leave unsubscribes. The updates arrive through the pool's `resourceUpdated` event and are shared
// with every replica by the ChangeBus, so a stream elsewhere needs no subscription of its own to hear
// an update this replica's connection received. A pooled connection that is replaced (config change,
// lost session) is subscribed again on the next check.
import type { ConfigSource, McpSourceConfig } from '../config/index.js';
import type { UpstreamConnection, UpstreamPool } from '../upstream/index.js';
import type { Logger } from '../telemetry/logger.js';

export type WatchOutcome = 'subscribed' | 'unsupported' | 'failed';

interface SourceWatch {
  connection: UpstreamConnection | undefined;
  readonly uris: Map<string, number>;
}

/** How often pooled connections are checked for replacement (then subscribed again). */
const RECHECK_MS = 5000;

export class UpstreamWatches {
  private readonly sources = new Map<string, SourceWatch>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pool: UpstreamPool,
    private readonly config: ConfigSource,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.recheck(), RECHECK_MS);
    this.timer.unref();
  }

  private sourceConfig(workspace: string, source: string): McpSourceConfig | undefined {
    return this.config
      .current()
      .config.workspaces.find((w) => w.name === workspace)
      ?.mcpSources.find((s) => s.name === source);
  }

  /** Whether the source's upstream offers subscriptions (connects when it must). */
  async supports(workspace: string, source: string): Promise<boolean> {
    const config = this.sourceConfig(workspace, source);
    if (config === undefined) return false;
    const connection = await this.pool.get(workspace, config);
    return connection.subscriptions?.supportsSubscribe === true;
  }

  async acquire(workspace: string, source: string, uri: string): Promise<WatchOutcome> {
    const key = `${workspace}\0${source}`;
    let watch = this.sources.get(key);
    if (watch === undefined) {
      watch = { connection: undefined, uris: new Map() };
      this.sources.set(key, watch);
    }
    const count = watch.uris.get(uri) ?? 0;
    watch.uris.set(uri, count + 1);
    if (count > 0) return 'subscribed';
    const outcome = await this.subscribe(workspace, source, uri, watch);
    if (outcome !== 'subscribed') this.forget(key, watch, uri);
    return outcome;
  }

  release(workspace: string, source: string, uri: string): void {
    const key = `${workspace}\0${source}`;
    const watch = this.sources.get(key);
    const count = watch?.uris.get(uri);
    if (watch === undefined || count === undefined) return;
    if (count > 1) {
      watch.uris.set(uri, count - 1);
      return;
    }
    this.forget(key, watch, uri);
    const config = this.sourceConfig(workspace, source);
    const subscriptions = watch.connection?.subscriptions;
    if (config !== undefined && subscriptions !== undefined)
      void subscriptions.unsubscribeResource(uri, config.timeouts.callMs).catch(() => undefined);
  }

  close(): void {
    clearInterval(this.timer);
    this.sources.clear();
  }

  private forget(key: string, watch: SourceWatch, uri: string): void {
    watch.uris.delete(uri);
    if (watch.uris.size === 0) this.sources.delete(key);
  }

  private async subscribe(
    workspace: string,
    source: string,
    uri: string,
    watch: SourceWatch,
  ): Promise<WatchOutcome> {
    const config = this.sourceConfig(workspace, source);
    if (config === undefined) return 'failed';
    try {
      const connection = await this.pool.get(workspace, config);
      const subscriptions = connection.subscriptions;
      if (subscriptions?.supportsSubscribe !== true) return 'unsupported';
      watch.connection = connection;
      await subscriptions.subscribeResource(uri, config.timeouts.callMs);
      return 'subscribed';
    } catch (error) {
      this.logger.debug(
        { workspace, source, errName: error instanceof Error ? error.name : 'unknown' },
        'upstream resource subscription failed',
      );
      return 'failed';
    }
  }

  /** Subscribes again on connections the pool replaced since they were subscribed. */
  private async recheck(): Promise<void> {
    for (const [key, watch] of this.sources) {
      const [workspace = '', source = ''] = key.split('\0');
      const config = this.sourceConfig(workspace, source);
      if (config === undefined || watch.connection === undefined) continue;
      const current = await this.pool.get(workspace, config).catch(() => undefined);
      if (current === undefined || current === watch.connection) continue;
      watch.connection = current;
      for (const uri of watch.uris.keys())
        void current.subscriptions?.subscribeResource(uri, config.timeouts.callMs).catch(() => undefined);
    }
  }
}
