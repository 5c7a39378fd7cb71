// FileSource (D10): the embedded shape's ConfigSource. Loads a YAML/JSON file, watches its directory
// (editors and `key create` replace the file by rename, which a file watch would miss), validates each
// new version completely and swaps it in atomically; an invalid version is logged by path and ignored,
// except for the keys it revokes (deny wins, see revocation-overlay.ts). With a `policy:` block, each
// workspace's identity section is bounded by its `identity` part, read at start like the rest of
// the policy (identity-policy.ts).
import { watch, type FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Logger } from '../telemetry/logger.js';
import { parseConfigText, parseRawDocument } from './config-loader.js';
import type { GatewayConfig } from './config-schema.js';
import type { IdentityPolicy } from './identity-policy-schema.js';
import { configUnderPolicy, IDENTITY_REFUSED_LOG, refusalFields } from './identity-policy.js';
import { applyRevocations, revokedKeyIds } from './revocation-overlay.js';
import {
  InvalidConfigError,
  SnapshotHolder,
  type ConfigListener,
  type ConfigSnapshot,
  type ConfigSource,
} from './config-source.js';
import { count } from '../telemetry/metrics.js';
import { inSpan } from '../telemetry/tracing.js';

export interface FileConfigSourceOptions {
  readonly path: string;
  readonly logger: Logger;
  /** Coalesces bursts of file events (an editor's write + rename) into one reload. */
  readonly debounceMs?: number;
  /** Poll interval as a safety net for file systems whose events are unreliable (network mounts). */
  readonly pollMs?: number;
  /** Applied to every parsed document before validation, e.g. the CLI's --host/--port. */
  readonly overrides?: (document: unknown) => unknown;
}

export class FileConfigSource implements ConfigSource {
  readonly path: string;
  private readonly holder = new SnapshotHolder();
  private watcher: FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private debounceTimer: NodeJS.Timeout | undefined;
  private lastText: string | undefined;
  private lastMtimeMs = 0;
  private reloading: Promise<void> = Promise.resolve();
  private closed = false;
  /** The policy's identity part as the file had it at start; undefined: no `policy:` block. */
  private identityPolicy: IdentityPolicy | undefined;

  constructor(private readonly options: FileConfigSourceOptions) {
    this.path = resolve(options.path);
  }

  async start(): Promise<void> {
    const text = await readFile(this.path, 'utf8');
    const result = this.parse(text);
    if (!result.ok) throw new InvalidConfigError(this.path, result.problems);
    this.lastText = text;
    this.identityPolicy = result.config.policy?.identity;
    this.holder.swap(this.bounded(result.config));
    this.watch();
  }

  current(): ConfigSnapshot {
    return this.holder.current();
  }

  subscribe(listener: ConfigListener): () => void {
    return this.holder.subscribe(listener);
  }

  /** Re-reads the file now; resolves once the new version is swapped in or rejected. */
  reload(): Promise<void> {
    const next = this.reloading.then(() => this.reloadOnce());
    // A failed reload must not poison the chain: later reloads and close() still run.
    this.reloading = next.catch((error: unknown) => {
      this.options.logger.error(
        { path: this.path, err: (error as Error).name },
        'config reload failed; keeping last good config',
      );
      count('agw.config.reload.failures');
    });
    return next;
  }

  close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    return this.reloading;
  }

  /** The config with each workspace's identity bounded by the policy; a refused one is dropped and
   * logged (its workspace is still served). */
  private bounded(config: GatewayConfig): GatewayConfig {
    if (this.identityPolicy === undefined) return config;
    const result = configUnderPolicy(config, this.identityPolicy);
    for (const [workspace, refusal] of result.refused)
      this.options.logger.warn(
        { path: this.path, ...refusalFields(workspace, refusal) },
        IDENTITY_REFUSED_LOG,
      );
    return result.config;
  }

  private parse(text: string) {
    return parseConfigText(text, this.options.overrides);
  }

  private watch(): void {
    const file = basename(this.path);
    try {
      this.watcher = watch(dirname(this.path), { persistent: false }, (_event, name) => {
        if (name === null || name === file) this.scheduleReload();
      });
      this.watcher.on('error', (error) =>
        this.options.logger.warn({ err: error.message }, 'config watcher failed; polling only'),
      );
    } catch (error) {
      this.options.logger.warn(
        { err: (error as Error).message },
        'cannot watch config directory; polling only',
      );
    }
    this.pollTimer = setInterval(() => void this.pollOnce(), this.options.pollMs ?? 2000);
    this.pollTimer.unref();
  }

  private scheduleReload(): void {
    if (this.closed) return;
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    this.debounceTimer = setTimeout(
      () => void this.reload().catch(() => undefined),
      this.options.debounceMs ?? 50,
    );
    this.debounceTimer.unref();
  }

  private async pollOnce(): Promise<void> {
    try {
      const info = await stat(this.path);
      if (info.mtimeMs !== this.lastMtimeMs) {
        this.lastMtimeMs = info.mtimeMs;
        this.scheduleReload();
      }
    } catch {
      // A missing file is reported by the reload that follows its reappearance; keep the last good config.
    }
  }

  /** Deny wins: revocations in a rejected file still reach the last good config. */
  private applyRevocationsFrom(text: string): void {
    const ids = revokedKeyIds(parseRawDocument(text));
    if (ids.size === 0) return;
    const revoked = applyRevocations(this.holder.current().config, ids);
    if (revoked === undefined) return;
    const snapshot = this.holder.swap(revoked);
    this.options.logger.warn(
      { path: this.path, revision: snapshot.revision },
      'revocations from the rejected config applied; everything else kept from the last good config',
    );
  }

  private reloadOnce(): Promise<void> {
    return inSpan('config.reload', { attributes: { 'agw.config.source': 'file' } }, () => this.reloadFile());
  }

  private async reloadFile(): Promise<void> {
    if (this.closed) return;
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      this.options.logger.warn(
        { path: this.path, err: (error as NodeJS.ErrnoException).code ?? 'read failed' },
        'config file unreadable; keeping last good config',
      );
      return;
    }
    if (text === this.lastText) return;
    const result = this.parse(text);
    if (!result.ok) {
      this.lastText = text;
      this.options.logger.warn(
        { path: this.path, problems: result.problems.map((p) => `${p.path}: ${p.message}`) },
        'config change rejected; keeping last good config',
      );
      count('agw.config.reload.failures');
      this.applyRevocationsFrom(text);
      return;
    }
    this.lastText = text;
    const snapshot = this.holder.swap(this.bounded(result.config));
    this.options.logger.info({ path: this.path, revision: snapshot.revision }, 'config reloaded');
  }
}
