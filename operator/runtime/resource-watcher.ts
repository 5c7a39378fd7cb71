// One kind of object watched through a client-node informer, restarted with capped backoff when it
// stops on an error (it does on anything but a 410 or a client time-out), with its cache readable
// and every add/update/delete reported. The operator's reconcilers read these caches.
import {
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  type ObjectCache,
} from '@kubernetes/client-node';
import { makeListWatch } from '../../gateway/config/kube/list-watch.js';
import type { Logger } from '../../gateway/telemetry/logger.js';

export type ChangeKind = 'add' | 'update' | 'delete';

export interface ResourceWatcherOptions<T extends KubernetesObject> {
  readonly kubeConfig: KubeConfig;
  readonly name: string;
  readonly path: string;
  readonly list: () => Promise<{ items: T[]; metadata?: { resourceVersion?: string } }>;
  readonly labelSelector?: string;
  readonly logger: Logger;
  readonly onChange: (object: T, change: ChangeKind) => void;
}

export class ResourceWatcher<T extends KubernetesObject> {
  private readonly informer: Informer<T> & ObjectCache<T>;
  private backoffMs = 250;
  private restartTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private listed = false;
  private resolveSynced: (() => void) | undefined;
  readonly synced: Promise<void>;

  constructor(private readonly options: ResourceWatcherOptions<T>) {
    this.synced = new Promise((resolve) => (this.resolveSynced = resolve));
    this.informer = makeListWatch<T>(
      options.kubeConfig,
      options.path,
      async () => {
        const result = await options.list();
        this.listed = true;
        return result;
      },
      options.labelSelector,
    );
    this.informer.on('add', (object) => options.onChange(object, 'add'));
    this.informer.on('update', (object) => options.onChange(object, 'update'));
    this.informer.on('delete', (object) => options.onChange(object, 'delete'));
    this.informer.on('error', (error) => this.failed(error));
    this.run();
  }

  /** Every cached object (all namespaces, or the one given). */
  list(namespace?: string): readonly T[] {
    return this.informer.list(namespace);
  }

  get(name: string, namespace: string): T | undefined {
    return this.informer.get(name, namespace);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.restartTimer !== undefined) clearTimeout(this.restartTimer);
    await this.informer.stop();
  }

  private run(): void {
    this.informer.start().then(
      () => {
        if (!this.listed || this.stopped) return;
        this.backoffMs = 250;
        this.resolveSynced?.();
      },
      (error: unknown) => this.failed(error),
    );
  }

  private failed(error: unknown): void {
    if (this.stopped || this.restartTimer !== undefined) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, 5000);
    this.options.logger.warn(
      {
        watch: this.options.name,
        err: (error as { name?: string }).name ?? 'Error',
        status: (error as { code?: number; statusCode?: number }).code,
        retryInMs: delay,
      },
      'kubernetes watch failed; restarting',
    );
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.stopped) this.run();
    }, delay);
    this.restartTimer.unref();
  }
}
