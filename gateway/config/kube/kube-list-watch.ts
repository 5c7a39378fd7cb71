// List-then-watch of one kind of object in one namespace, like client-go's reflector (issue 26: the
// gateway's replacement for client-node's ListWatch). It lists in pages, reports what was added,
// changed or deleted since the last list, then watches from the list's resourceVersion with
// bookmarks on. A watch the server ends (its timeoutSeconds) is resumed from the last
// resourceVersion seen, never relisted; only a 410 Gone (an expired resourceVersion, as an HTTP
// status or an ERROR event) relists. Any other failure backs off, capped exponentially, and retries
// from where it stopped. It keeps only each object's name and resourceVersion; the objects go to
// the caller.
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeApiError, type KubeApiClient } from './kube-api-client.js';

/** The longest wait before reconnecting a watch the server ended early and cleanly. */
export const MAX_WATCH_RECONNECT_DELAY_MS = 1000;
/** A watch line (one event with one object) may not exceed this: the API's objects are ≤ ~3 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;
const LIST_PAGE_SIZE = 100;

export interface KubeObject {
  readonly metadata?: { readonly name?: string; readonly resourceVersion?: string };
}

export interface ListWatchHandlers<T extends KubeObject> {
  add(object: T): void;
  update(object: T): void;
  delete(object: T): void;
  /** A complete list was delivered (the first one, and every relist). */
  listed(count: number): void;
  /** A request failed; the next attempt follows in retryInMs. */
  failed(error: unknown, retryInMs: number, failures: number): void;
  /** A watch is running again after failures. */
  recovered(): void;
  /** The server ended a watch cleanly (its timeout); it is resumed from resourceVersion. */
  watchEnded(events: number): void;
}

export interface KubeListWatchOptions<T extends KubeObject> {
  readonly client: KubeApiClient;
  /** e.g. /api/v1/namespaces/ns/configmaps */
  readonly path: string;
  readonly labelSelector?: string;
  readonly handlers: ListWatchHandlers<T>;
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  readonly maxLineBytes?: number;
  /** The server ends each watch after about this long (randomised up to twice, like client-go). */
  readonly watchTimeoutSeconds?: number;
  /** Watch from this resourceVersion without listing first (an expired one relists). */
  readonly resumeFrom?: string;
}

interface WatchEvent {
  readonly type?: unknown;
  readonly object?: { readonly code?: unknown; readonly metadata?: { readonly resourceVersion?: unknown } };
}

export class KubeListWatch<T extends KubeObject> {
  private readonly known = new Map<string, string>();
  private resourceVersion: string;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private failures = 0;
  private goneInARow = 0;

  constructor(private readonly options: KubeListWatchOptions<T>) {
    this.resourceVersion = options.resumeFrom ?? '';
  }

  /** Starts the list-watch loop; it runs until stop(). */
  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort(new Error('list-watch stopped'));
    await this.loop;
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async run(): Promise<void> {
    let backoffMs = this.options.minBackoffMs ?? 250;
    while (!this.stopped) {
      try {
        if (this.resourceVersion === '') await this.list();
        const started = Date.now();
        const events = await this.watch();
        this.options.handlers.watchEnded(events);
        backoffMs = this.options.minBackoffMs ?? 250;
        // A watch the server ends at once, again and again, must not become a busy loop.
        if (events === 0 && Date.now() - started < MAX_WATCH_RECONNECT_DELAY_MS && !this.stopped)
          await sleep(MAX_WATCH_RECONNECT_DELAY_MS, undefined, { signal: this.abort.signal }).catch(
            () => undefined,
          );
      } catch (error) {
        if (this.stopped) return;
        this.resourceVersion = isGone(error) ? '' : this.resourceVersion;
        // A 410 relists at once; a second one straight after a relist waits like any failure.
        if (isGone(error) && ++this.goneInARow === 1) continue;
        this.failures += 1;
        const delay = backoffMs;
        backoffMs = Math.min(backoffMs * 2, this.options.maxBackoffMs ?? 5000);
        this.options.handlers.failed(error, delay, this.failures);
        await sleep(delay, undefined, { signal: this.abort.signal }).catch(() => undefined);
      }
    }
  }

  /** Lists every page from one snapshot, then reports what the watch missed since the last list. */
  private async list(): Promise<void> {
    const seen = new Set<string>();
    let next: string | undefined;
    let resourceVersion = '';
    const maxBytes = LIST_PAGE_SIZE * this.maxLineBytes;
    do {
      const page = (await this.options.client.getJson(
        this.options.path,
        { labelSelector: this.options.labelSelector, limit: String(LIST_PAGE_SIZE), continue: next },
        maxBytes,
        this.abort.signal,
      )) as { items?: T[]; metadata?: { continue?: string; resourceVersion?: string } };
      for (const object of page.items ?? []) {
        seen.add(object.metadata?.name ?? '');
        this.upsert(object);
      }
      resourceVersion = page.metadata?.resourceVersion ?? '';
      next = page.metadata?.continue === '' ? undefined : page.metadata?.continue;
    } while (next !== undefined);
    for (const [name, version] of this.known)
      if (!seen.has(name)) {
        this.known.delete(name);
        this.options.handlers.delete({ metadata: { name, resourceVersion: version } } as T);
      }
    this.resourceVersion = resourceVersion;
    this.options.handlers.listed(seen.size);
  }

  /** One watch from the current resourceVersion; resolves with its event count when it ends. */
  private async watch(): Promise<number> {
    const base = this.options.watchTimeoutSeconds ?? 300;
    const timeoutSeconds = Math.floor(base * (1 + Math.random()));
    let events = 0;
    await this.options.client.stream(
      this.options.path,
      {
        watch: '1',
        allowWatchBookmarks: 'true',
        labelSelector: this.options.labelSelector,
        resourceVersion: this.resourceVersion,
        timeoutSeconds: String(timeoutSeconds),
      },
      {
        signal: this.abort.signal,
        maxLineBytes: this.maxLineBytes,
        idleTimeoutMs: (timeoutSeconds + 30) * 1000,
        onOpen: () => {
          if (this.failures === 0) return;
          this.failures = 0;
          this.options.handlers.recovered();
        },
        onLine: (line) => {
          events += 1;
          this.event(JSON.parse(line) as WatchEvent);
          this.goneInARow = 0;
        },
      },
    );
    this.goneInARow = 0;
    return events;
  }

  private event(event: WatchEvent): void {
    const object = event.object as T | undefined;
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED':
        if (object !== undefined) this.upsert(object);
        break;
      case 'DELETED':
        if (object !== undefined) {
          this.known.delete(object.metadata?.name ?? '');
          this.options.handlers.delete(object);
        }
        break;
      case 'BOOKMARK':
        break;
      case 'ERROR': {
        const code = event.object?.code;
        throw code === 410
          ? new KubeApiError(410, 'Expired')
          : new KubeApiError(Number(code) || 0, 'WatchError');
      }
      default:
        return;
    }
    const version = event.object?.metadata?.resourceVersion;
    if (typeof version === 'string' && version !== '') this.resourceVersion = version;
  }

  private upsert(object: T): void {
    const name = object.metadata?.name ?? '';
    const version = object.metadata?.resourceVersion ?? '';
    const before = this.known.get(name);
    if (before === version) return;
    this.known.set(name, version);
    if (before === undefined) this.options.handlers.add(object);
    else this.options.handlers.update(object);
  }

  private get maxLineBytes(): number {
    return this.options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }
}

function isGone(error: unknown): boolean {
  return error instanceof KubeApiError && error.status === 410;
}
