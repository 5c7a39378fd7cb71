// The notification streams of this replica (issue 24, D23, duty 18): opens them under the per-key and
// per-workspace caps, hands each the events of the ChangeBus it may see (the key's current sources,
// its own workspace), turns upstream list changes and resource updates heard by the pool into bus
// events, keeps the legacy face's key-scoped subscriptions (docs/decisions.md) and the upstream
// watches its streams need, ends a stream whose key lost access on a config reload, and ends every
// stream gracefully on shutdown. Stream counts are per replica, like the bridge's pending caps.
import { canSeeSource, principalFor, type Principal } from '../auth/index.js';
import type { ConfigSource, GatewayConfig } from '../config/index.js';
import type { UpstreamPool } from '../upstream/index.js';
import type { Logger } from '../telemetry/logger.js';
import type { ChangeBus, ChangeEvent } from './change-bus.js';
import {
  NotificationStream,
  type EndReason,
  type StreamFace,
  type StreamLimits,
  type StreamOptions,
} from './notification-stream.js';
import { UpstreamWatches, type WatchOutcome } from './upstream-watches.js';

export type OpenRefusal = { readonly refused: 'key' | 'workspace'; readonly limit: number };

export interface HubDeps {
  readonly bus: ChangeBus;
  readonly pool: UpstreamPool;
  readonly config: ConfigSource;
  readonly logger: Logger;
}

const pair = (source: string, uri: string) => `${source}\0${uri}`;

function split(value: string): { source: string; uri: string } {
  const at = value.indexOf('\0');
  return { source: value.slice(0, at), uri: value.slice(at + 1) };
}

/** The key as the config has it now, or undefined when it may no longer connect. */
function currentPrincipal(config: GatewayConfig, principal: Principal, now: number): Principal | undefined {
  const workspace = config.workspaces.find((w) => w.name === principal.workspace.name);
  const key = workspace?.keys.find((k) => k.id === principal.keyId);
  if (workspace === undefined || key === undefined || key.revoked) return undefined;
  if (key.expiresAt !== undefined && Date.parse(key.expiresAt) <= now) return undefined;
  return principalFor(key, workspace);
}

export class SubscriptionHub {
  readonly watches: UpstreamWatches;
  private readonly streams = new Set<NotificationStream>();
  /** Legacy face: the resources each key subscribed to (`source\0uri`), by `workspace\0keyId`. */
  private readonly legacy = new Map<string, Set<string>>();
  /** Legacy subscriptions of keys with no stream here, since when: kept for a reconnecting client
   * (the SDK opens its GET stream again after an idle end), forgotten after the idle timeout. */
  private readonly legacyIdleSince = new Map<string, number>();
  private readonly detach: (() => void)[] = [];
  private closing = false;

  constructor(private readonly deps: HubDeps) {
    this.watches = new UpstreamWatches(deps.pool, deps.config, deps.logger);
    this.detach.push(
      deps.bus.subscribe((event) => this.receive(event)),
      deps.pool.onListChanged((workspace, source, kind) => {
        for (const each of kind === undefined ? (['tools', 'prompts', 'resources'] as const) : [kind])
          deps.bus.publish({ t: 'list', workspace, source, kind: each });
      }),
      deps.pool.onResourceUpdated((workspace, source, uri) =>
        deps.bus.publish({ t: 'updated', workspace, source, uri }),
      ),
      deps.config.subscribe((snapshot) => this.reload(snapshot.config)),
    );
    const sweep = setInterval(() => this.sweepLegacy(), 1000);
    sweep.unref();
    this.detach.push(() => clearInterval(sweep));
  }

  limits(): StreamLimits {
    return this.deps.config.current().config.server.subscriptions;
  }

  /** Opens a stream, or says which cap refuses it. */
  open(
    principal: Principal,
    face: StreamFace,
    options: Omit<StreamOptions, 'principal' | 'face' | 'limits' | 'onEnd'>,
  ): NotificationStream | OpenRefusal {
    const limits = this.limits();
    let perKey = 0;
    let perWorkspace = 0;
    for (const stream of this.streams) {
      if (stream.principal.workspace.name !== principal.workspace.name) continue;
      perWorkspace += 1;
      if (stream.principal.keyId === principal.keyId) perKey += 1;
    }
    if (perKey >= limits.maxStreamsPerKey) return { refused: 'key', limit: limits.maxStreamsPerKey };
    if (perWorkspace >= limits.maxStreamsPerWorkspace)
      return { refused: 'workspace', limit: limits.maxStreamsPerWorkspace };
    const stream = new NotificationStream({
      ...options,
      principal,
      face,
      limits,
      onEnd: (ended, reason) => this.ended(ended, reason),
    });
    this.streams.add(stream);
    if (face === 'legacy') this.legacyIdleSince.delete(`${principal.workspace.name}\0${principal.keyId}`);
    if (face === 'legacy')
      for (const watched of this.legacySet(principal) ?? []) void this.watch(stream, split(watched));
    return stream;
  }

  /** Holds an upstream watch for the stream (released when it ends). */
  async watch(stream: NotificationStream, target: { source: string; uri: string }): Promise<WatchOutcome> {
    const key = pair(target.source, target.uri);
    if (stream.watched.has(key)) return 'subscribed';
    stream.watched.add(key);
    const workspace = stream.principal.workspace.name;
    const outcome = await this.watches.acquire(workspace, target.source, target.uri);
    // A stream that ended meanwhile released everything it held, this included.
    if (outcome !== 'subscribed') stream.watched.delete(key);
    return outcome;
  }

  /** Whether the key has the resource in its legacy subscriptions. */
  legacyHas(principal: Principal, source: string, uri: string): boolean {
    return this.legacySet(principal)?.has(pair(source, uri)) === true;
  }

  /** How many resources the key's legacy subscriptions hold. */
  legacyCount(principal: Principal): number {
    return this.legacySet(principal)?.size ?? 0;
  }

  /** Legacy resources/subscribe and unsubscribe: shared with every replica's streams of the key. */
  legacyChange(principal: Principal, op: 'add' | 'remove', source: string, uri: string): void {
    this.deps.bus.publish({
      t: 'legacy',
      workspace: principal.workspace.name,
      keyId: principal.keyId,
      op,
      source,
      uri,
    });
  }

  /** Ends every stream gracefully (shutdown: before the drain waits for requests in flight). */
  close(): void {
    this.closing = true;
    for (const stream of [...this.streams]) stream.end('shutdown');
    for (const detach of this.detach.splice(0)) detach();
    this.watches.close();
  }

  get openStreams(): number {
    return this.streams.size;
  }

  private sweepLegacy(): void {
    const before = Date.now() - this.limits().idleTimeoutMs;
    for (const [id, since] of this.legacyIdleSince)
      if (since <= before) {
        this.legacyIdleSince.delete(id);
        this.legacy.delete(id);
      }
  }

  private legacySet(principal: Principal): Set<string> | undefined {
    return this.legacy.get(`${principal.workspace.name}\0${principal.keyId}`);
  }

  private receive(event: ChangeEvent): void {
    if (event.t === 'legacy') return this.legacyEvent(event);
    for (const stream of this.streams) {
      const principal = stream.principal;
      if (principal.workspace.name !== event.workspace || !canSeeSource(principal, event.source)) continue;
      stream.deliver(event);
    }
  }

  private legacyEvent(event: Extract<ChangeEvent, { t: 'legacy' }>): void {
    const id = `${event.workspace}\0${event.keyId}`;
    const key = pair(event.source, event.uri);
    let set = this.legacy.get(id);
    if (event.op === 'remove') {
      set?.delete(key);
      if (set?.size === 0) this.legacy.delete(id);
    } else {
      if (set === undefined) this.legacy.set(id, (set = new Set()));
      // The replica that answered checked the cap; a message past it (a race) is not kept.
      if (set.size >= this.limits().maxUrisPerStream) return;
      set.add(key);
      const held = [...this.streams].some((s) => s.face === 'legacy' && s.principal.keyId === event.keyId);
      if (!held && !this.legacyIdleSince.has(id)) this.legacyIdleSince.set(id, Date.now());
    }
    for (const stream of this.streams) {
      const principal = stream.principal;
      if (stream.face !== 'legacy' || principal.workspace.name !== event.workspace) continue;
      if (principal.keyId !== event.keyId) continue;
      if (event.op === 'add') void this.watch(stream, event);
      else this.unwatch(stream, key);
    }
  }

  private unwatch(stream: NotificationStream, key: string): void {
    if (!stream.watched.delete(key)) return;
    const { source, uri } = split(key);
    this.watches.release(stream.principal.workspace.name, source, uri);
  }

  private ended(stream: NotificationStream, reason: EndReason): void {
    this.streams.delete(stream);
    for (const key of [...stream.watched]) {
      stream.watched.delete(key);
      const { source, uri } = split(key);
      this.watches.release(stream.principal.workspace.name, source, uri);
    }
    // A key's legacy subscriptions live as long as one of its streams does (on this replica).
    const sameKey = (s: NotificationStream) =>
      s.face === 'legacy' && s.principal.keyId === stream.principal.keyId;
    if (stream.face === 'legacy' && ![...this.streams].some(sameKey))
      this.legacyIdleSince.set(`${stream.principal.workspace.name}\0${stream.principal.keyId}`, Date.now());
    this.deps.logger.debug(
      { workspace: stream.principal.workspace.name, face: stream.face, reason },
      'notification stream ended',
    );
  }

  /** A reload: streams follow their key's new access; a key that lost it has its streams ended. */
  private reload(config: GatewayConfig): void {
    if (this.closing) return;
    const now = Date.now();
    for (const stream of [...this.streams]) {
      const updated = currentPrincipal(config, stream.principal, now);
      if (updated === undefined) {
        stream.end('access');
        continue;
      }
      stream.principal = updated;
      for (const key of [...stream.watched])
        if (!canSeeSource(updated, split(key).source)) {
          stream.watched.delete(key);
          const { source, uri } = split(key);
          this.watches.release(updated.workspace.name, source, uri);
        }
    }
  }
}
