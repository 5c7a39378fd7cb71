// The ConfigSource port (D6, D10): something that holds the current validated config and tells
// subscribers when a new valid version has been swapped in. Invalid versions never replace a good one.
import type { GatewayConfig } from './config-schema.js';
import { validateConfig, type ConfigProblem } from './config-loader.js';

export interface ConfigSnapshot {
  readonly config: GatewayConfig;
  /** Increments with every successful swap; caches key on it. */
  readonly revision: number;
  readonly loadedAt: Date;
  /** Kubernetes shape only: the rendered revision applied for each workspace (operator/README.md). */
  readonly workspaceRevisions?: ReadonlyMap<string, string>;
}

export type ConfigListener = (snapshot: ConfigSnapshot) => void;

export interface ConfigSource {
  /** Loads the first version; rejects when it is missing or invalid. */
  start(): Promise<void>;
  /** The current snapshot. Callers take it once per request so a swap never changes a request midway. */
  current(): ConfigSnapshot;
  subscribe(listener: ConfigListener): () => void;
  close(): Promise<void>;
}

export class InvalidConfigError extends Error {
  constructor(
    readonly origin: string,
    readonly problems: readonly ConfigProblem[],
  ) {
    super(`${origin}: invalid config (${problems.length} problem${problems.length === 1 ? '' : 's'})`);
    this.name = 'InvalidConfigError';
  }
}

/** Holds the snapshot and the listeners; both implementations build on it. */
export class SnapshotHolder {
  private snapshot: ConfigSnapshot | undefined;
  private readonly listeners = new Set<ConfigListener>();

  current(): ConfigSnapshot {
    if (this.snapshot === undefined) throw new Error('config source not started');
    return this.snapshot;
  }

  hasSnapshot(): boolean {
    return this.snapshot !== undefined;
  }

  swap(config: GatewayConfig, workspaceRevisions?: ReadonlyMap<string, string>): ConfigSnapshot {
    const next: ConfigSnapshot = {
      config,
      revision: (this.snapshot?.revision ?? 0) + 1,
      loadedAt: new Date(),
      ...(workspaceRevisions === undefined ? {} : { workspaceRevisions }),
    };
    this.snapshot = next;
    // Every listener hears about the swap even if an earlier one throws; the first error is rethrown.
    let failure: unknown;
    for (const listener of this.listeners) {
      try {
        listener(next);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure instanceof Error ? failure : new Error('config listener failed');
    return next;
  }

  subscribe(listener: ConfigListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** In-memory twin: for unit tests and programmatic embedding. */
export class MemoryConfigSource implements ConfigSource {
  private readonly holder = new SnapshotHolder();

  constructor(private initial: unknown) {}

  start(): Promise<void> {
    try {
      this.set(this.initial);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error('invalid config'));
    }
  }

  /** Validates and swaps in a new version; throws InvalidConfigError and keeps the old one if invalid. */
  set(value: unknown): ConfigSnapshot {
    const result = validateConfig(value);
    if (!result.ok) throw new InvalidConfigError('memory', result.problems);
    this.initial = value;
    return this.holder.swap(result.config);
  }

  current(): ConfigSnapshot {
    return this.holder.current();
  }

  subscribe(listener: ConfigListener): () => void {
    return this.holder.subscribe(listener);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
