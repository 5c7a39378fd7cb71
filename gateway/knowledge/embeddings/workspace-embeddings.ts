// Which embeddings provider serves a workspace (issue 22): the workspace's own `embeddings`, else the
// gateway-wide `knowledge.embeddings`; `embeddings: false` on a workspace turns them off there. One
// provider (with its own content-hash cache: a shared one would let a tenant time whether another
// embedded a text) per workspace, rebuilt when the effective settings change. Searches skip a
// provider for a short while after it failed, so an outage costs one timeout, not one per query.
import type { EmbeddingsConfig, GatewayConfig } from '../../config/index.js';
import type { EmbeddingSpace } from '../knowledge-store.js';
import type { EmbeddingFailure, EmbeddingProvider } from './embedding-provider.js';
import { systemClock, type Clock } from './token-bucket.js';

/** How long searches answer lexically after the provider failed a query. */
export const QUERY_BACKOFF_MS = 30_000;

export type QueryEmbeddings =
  | { readonly state: 'off' }
  | { readonly state: 'down'; readonly reason: EmbeddingFailure }
  | { readonly state: 'ready'; readonly provider: EmbeddingProvider; readonly timeoutMs: number };

interface Entry {
  readonly fingerprint: string;
  readonly provider: EmbeddingProvider;
  config: EmbeddingsConfig;
  dimensions: number | undefined;
  down: { until: number; reason: EmbeddingFailure } | undefined;
}

/** The embeddings settings in force for one workspace of a config, or undefined when off. */
export function embeddingsFor(config: GatewayConfig, workspace: string): EmbeddingsConfig | undefined {
  const own = config.workspaces.find((w) => w.name === workspace)?.embeddings;
  if (own === false) return undefined;
  return own ?? config.knowledge.embeddings;
}

export class WorkspaceEmbeddings {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly current: () => GatewayConfig,
    private readonly build: (config: EmbeddingsConfig, workspace: string) => EmbeddingProvider,
    private readonly clock: Clock = systemClock,
  ) {}

  private entry(workspace: string): Entry | undefined {
    const config = embeddingsFor(this.current(), workspace);
    if (config === undefined) {
      this.entries.delete(workspace);
      return undefined;
    }
    const known = this.entries.get(workspace);
    // A config snapshot is immutable: the same settings object needs no fingerprint (the hot path of
    // every search); a reloaded config's equal settings keep the provider and its cache.
    if (known?.config === config) return known;
    const fingerprint = JSON.stringify(config);
    if (known?.fingerprint === fingerprint) {
      known.config = config;
      return known;
    }
    const entry: Entry = {
      fingerprint,
      config,
      provider: this.build(config, workspace),
      dimensions: config.dimensions,
      down: undefined,
    };
    this.entries.set(workspace, entry);
    return entry;
  }

  /** The provider a sync embeds with, or undefined when the workspace has no embeddings. */
  provider(workspace: string): EmbeddingProvider | undefined {
    return this.entry(workspace)?.provider;
  }

  /** How long one embedding pass of the workspace may run (`passTimeoutMs`); undefined: no limit. */
  passTimeoutMs(workspace: string): number | undefined {
    return this.entry(workspace)?.config.passTimeoutMs;
  }

  /** A fingerprint of the workspace's embeddings settings ('' when off): a sync is due when it moves. */
  fingerprint(config: GatewayConfig, workspace: string): string {
    const settings = embeddingsFor(config, workspace);
    return settings === undefined ? '' : JSON.stringify(settings);
  }

  /** The vector space of the workspace's provider: the configured dimensions, else the length of the
   * model's answer for a probe text (asked once per provider). */
  async space(workspace: string, signal?: AbortSignal): Promise<EmbeddingSpace | undefined> {
    const entry = this.entry(workspace);
    if (entry === undefined) return undefined;
    if (entry.dimensions === undefined) {
      const [probe] = await entry.provider.embed(['dimensions probe'], signal);
      entry.dimensions = probe?.length;
    }
    return entry.dimensions === undefined
      ? undefined
      : { model: entry.provider.model, dimensions: entry.dimensions };
  }

  /** What a search of the workspace may use now. */
  forQuery(workspace: string): QueryEmbeddings {
    const entry = this.entry(workspace);
    if (entry === undefined) return { state: 'off' };
    if (entry.down !== undefined && this.clock.now() < entry.down.until)
      return { state: 'down', reason: entry.down.reason };
    return { state: 'ready', provider: entry.provider, timeoutMs: entry.config.queryTimeoutMs };
  }

  /** A query's embedding failed: searches of the workspace go lexical for QUERY_BACKOFF_MS. */
  queryFailed(workspace: string, reason: EmbeddingFailure): void {
    const entry = this.entries.get(workspace);
    // An aborted call is the caller leaving, not the provider failing.
    if (entry !== undefined && reason !== 'aborted')
      entry.down = { until: this.clock.now() + QUERY_BACKOFF_MS, reason };
  }

  /** A query's embedding succeeded: the provider is up. */
  querySucceeded(workspace: string): void {
    const entry = this.entries.get(workspace);
    if (entry !== undefined) entry.down = undefined;
  }
}
