// Keeps one live connection per workspace source and reuses it across requests. A connection is
// keyed by the source's config fingerprint, so a config change replaces it and a failed connection
// is dropped so the next request reconnects. Bridged calls get their own sessions, reused one call
// at a time (BridgedSessionPool). A token-exchange source keeps one connection per caller subject.
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import type { GatewayConfig, McpSourceConfig } from '../config/index.js';
import { connectBridged, type BridgedConnection, type ServerRequestHandler } from './bridged-connection.js';
import { BridgedSessionPool } from './bridged-session-pool.js';
import type { Logger } from '../telemetry/logger.js';
import { sessionKey } from './session-store.js';
import { ConsentRequiredError } from '../connections/index.js';
import {
  currentCaller,
  currentPrincipal,
  currentSubject,
  UpstreamIdentityRequiredError,
} from './upstream-caller.js';
import { connectUpstream } from './connect-upstream.js';
import { isPerCaller } from './per-caller.js';
import type { ConnectDeps, UpstreamConnection, UpstreamEvents } from './upstream-connection.js';

interface PoolEntry {
  readonly fingerprint: string;
  readonly connection: Promise<UpstreamConnection>;
}

export type Connector = (
  source: McpSourceConfig,
  events: UpstreamEvents,
  workspace: string,
) => Promise<UpstreamConnection>;
export type ListChangedListener = (
  workspace: string,
  source: string,
  kind?: 'tools' | 'prompts' | 'resources',
) => void;
export type ResourceUpdatedListener = (workspace: string, source: string, uri: string) => void;

const fingerprints = new WeakMap<McpSourceConfig, string>();

/** Per-subject connections of one token-exchange source kept per replica (issue 29). */
export const SUBJECT_CONNECTIONS = 64;

/** The current caller's part of a per-caller source's pool key, or the refusal. */
function callerPart(workspace: string, source: McpSourceConfig): string | Error {
  if (source.credential?.type === 'user') {
    const principal = currentPrincipal(workspace);
    return principal === undefined
      ? new ConsentRequiredError(workspace, source.name, 'no-caller')
      : `user:${principal}`;
  }
  const subject = currentSubject();
  return subject ?? new UpstreamIdentityRequiredError(currentCaller()?.kind ?? 'none');
}

/** A source's pool key; a per-caller source has one connection per caller (docs/decisions.md): its
 * upstream session and token belong to that user. No caller: the refusal. */
function entryKey(workspace: string, source: McpSourceConfig): string | Error {
  const key = `${workspace}/${source.name}`;
  if (!isPerCaller(source)) return key;
  const part = callerPart(workspace, source);
  return typeof part === 'string' ? `${key}#${part}` : part;
}

export class UpstreamPool {
  private readonly entries = new Map<string, PoolEntry>();
  private readonly connect: Connector;
  private readonly listChangedListeners = new Set<ListChangedListener>();
  private readonly updatedListeners = new Set<ResourceUpdatedListener>();
  private readonly bridged: BridgedSessionPool;

  constructor(
    private readonly deps: ConnectDeps & { readonly logger: Logger },
    connector?: Connector,
    private readonly logger: Logger = deps.logger,
  ) {
    this.connect =
      connector ?? ((source, events, workspace) => connectUpstream(source, deps, events, workspace));
    this.bridged = new BridgedSessionPool(
      (source, capabilities, onServerRequest, workspace, signal) =>
        connectBridged(source, deps, capabilities, onServerRequest, workspace, signal),
      (source) => UpstreamPool.fingerprint(source),
    );
  }

  /** Config objects are replaced, never changed, on reload: one serialisation per object. */
  static fingerprint(source: McpSourceConfig): string {
    let known = fingerprints.get(source);
    if (known === undefined) {
      known = JSON.stringify(source);
      fingerprints.set(source, known);
    }
    return known;
  }

  get(workspace: string, source: McpSourceConfig): Promise<UpstreamConnection> {
    const key = entryKey(workspace, source);
    if (key instanceof Error) return Promise.reject(key);
    const fingerprint = UpstreamPool.fingerprint(source);
    const existing = this.entries.get(key);
    if (existing !== undefined && existing.fingerprint === fingerprint) {
      if (key.includes('#')) this.touch(key, existing);
      return existing.connection;
    }
    if (existing !== undefined) void this.closeEntry(key, existing);
    const connection = this.connect(
      source,
      {
        listChanged: (kind) => {
          for (const listener of this.listChangedListeners) listener(workspace, source.name, kind);
        },
        resourceUpdated: (uri) => {
          for (const listener of this.updatedListeners) listener(workspace, source.name, uri);
        },
      },
      workspace,
    );
    const entry = { fingerprint, connection };
    this.entries.set(key, entry);
    if (key.includes('#')) this.boundSubjects(`${workspace}/${source.name}#`);
    void connection.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return connection;
  }

  /** A session of its own for one call whose server→client requests are bridged: a parked one of
   * the same key when there is one, else a new one (aborted with `signal`, the client's request). */
  connectBridged(
    source: McpSourceConfig,
    capabilities: ClientCapabilities,
    onServerRequest: ServerRequestHandler,
    scope: { readonly workspace: string; readonly keyId: string; readonly signal?: AbortSignal },
  ): Promise<BridgedConnection> {
    return this.bridged.acquire({ source, capabilities, onServerRequest, ...scope });
  }

  /** Hears list-changed signals of every pooled upstream. */
  onListChanged(listener: ListChangedListener): () => void {
    this.listChangedListeners.add(listener);
    return () => this.listChangedListeners.delete(listener);
  }

  /** Hears `notifications/resources/updated` of every pooled upstream (issue 24). */
  onResourceUpdated(listener: ResourceUpdatedListener): () => void {
    this.updatedListeners.add(listener);
    return () => this.updatedListeners.delete(listener);
  }

  /** The upstream forgot this connection's session (404): forget it everywhere it is shared, so the
   * next connection of any replica opens a new one, and drop this one. */
  async sessionLost(
    workspace: string,
    source: McpSourceConfig,
    connection: UpstreamConnection,
  ): Promise<void> {
    if (this.deps.sessions !== undefined && connection.sessionId !== undefined)
      await this.deps.sessions.forget(sessionKey(workspace, source), connection.sessionId);
    this.discard(workspace, source.name);
  }

  /** Drops the connection after a failure so the next request reconnects (for a token-exchange
   * source, the current caller's). */
  discard(workspace: string, sourceName: string): void {
    const subject = currentSubject();
    const principal = currentPrincipal(workspace);
    const key = `${workspace}/${sourceName}`;
    const candidates = [
      key,
      ...(subject === undefined ? [] : [`${key}#${subject}`]),
      ...(principal === undefined ? [] : [`${key}#user:${principal}`]),
    ];
    for (const candidate of candidates) {
      const entry = this.entries.get(candidate);
      if (entry !== undefined) void this.closeEntry(candidate, entry);
    }
  }

  /** A per-subject entry was used: it becomes the most recent. */
  private touch(key: string, entry: PoolEntry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  /** At most SUBJECT_CONNECTIONS per-subject connections per source; the least recently used goes. */
  private boundSubjects(prefix: string): void {
    const keys = [...this.entries.keys()].filter((key) => key.startsWith(prefix));
    for (const key of keys.slice(0, Math.max(0, keys.length - SUBJECT_CONNECTIONS))) {
      const entry = this.entries.get(key);
      if (entry !== undefined) void this.closeEntry(key, entry);
    }
  }

  /** Closes connections whose source was removed or changed by a config swap. */
  retain(config: GatewayConfig): void {
    const wanted = new Map<string, string>();
    for (const workspace of config.workspaces) {
      for (const source of workspace.mcpSources)
        wanted.set(`${workspace.name}/${source.name}`, UpstreamPool.fingerprint(source));
    }
    for (const [key, entry] of this.entries) {
      if (wanted.get(key.split('#')[0] as string) !== entry.fingerprint) void this.closeEntry(key, entry);
    }
    this.bridged.retain(wanted);
  }

  async close(): Promise<void> {
    const closing = [...this.entries].map(([key, entry]) => this.closeEntry(key, entry));
    await Promise.allSettled([...closing, this.bridged.close()]);
  }

  private closeEntry(key: string, entry: PoolEntry): Promise<void> {
    this.entries.delete(key);
    return entry.connection.then(
      (connection) =>
        connection
          .close()
          .catch((error: unknown) =>
            this.logger.debug({ source: key, err: String(error) }, 'upstream close failed'),
          ),
      () => undefined,
    );
  }
}
