// The production ObjectFeed: client-node informers on the labelled Secrets and ConfigMaps of one
// namespace. An informer stops on any error but a 410 or a client timeout, so each one is restarted
// with capped exponential backoff; a restarted informer resumes its watch from the last resource
// version and, when that is too old, relists and reports the objects deleted meanwhile. The caller
// keeps serving what it has while the API is unreachable.
import {
  CoreV1Api,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  type V1ConfigMap,
  type V1Secret,
} from '@kubernetes/client-node';
import type { Logger } from '../../telemetry/logger.js';
import { makeListWatch } from './list-watch.js';
import { RENDERED_SELECTOR, type PartKind } from './rendered-contract.js';
import type { ObjectFeed, ObjectFeedHandlers, RenderedObject } from './rendered-object.js';

export interface InformerObjectFeedOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly logger: Logger;
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

export class InformerObjectFeed implements ObjectFeed {
  private readonly watchers: { synced(): Promise<void>; stop(): Promise<void> }[] = [];
  private stopped = false;

  constructor(private readonly options: InformerObjectFeedOptions) {}

  async start(handlers: ObjectFeedHandlers): Promise<void> {
    const core = this.options.kubeConfig.makeApiClient(CoreV1Api);
    const { namespace } = this.options;
    const configMaps = new KindWatcher<V1ConfigMap>(
      'ConfigMap',
      `/api/v1/namespaces/${namespace}/configmaps`,
      () => core.listNamespacedConfigMap({ namespace, labelSelector: RENDERED_SELECTOR }),
      (object) => object.data ?? {},
      this.options,
      handlers,
      () => this.stopped,
    );
    const secrets = new KindWatcher<V1Secret>(
      'Secret',
      `/api/v1/namespaces/${namespace}/secrets`,
      () => core.listNamespacedSecret({ namespace, labelSelector: RENDERED_SELECTOR }),
      (object) => decodeSecretData(object.data ?? {}),
      this.options,
      handlers,
      () => this.stopped,
    );
    this.watchers.push(configMaps, secrets);
    await Promise.all(this.watchers.map((w) => w.synced()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.watchers.map((w) => w.stop()));
  }
}

class KindWatcher<T extends KubernetesObject> {
  private readonly informer: Informer<T>;
  private backoffMs: number;
  private restartTimer: NodeJS.Timeout | undefined;
  private listed = false;
  private resolveSynced: (() => void) | undefined;
  private readonly syncedPromise: Promise<void>;
  private failures = 0;

  constructor(
    private readonly kind: PartKind,
    path: string,
    list: () => Promise<{ items: T[]; metadata?: { resourceVersion?: string } }>,
    data: (object: T) => Record<string, string>,
    private readonly options: InformerObjectFeedOptions,
    handlers: ObjectFeedHandlers,
    private readonly isStopped: () => boolean,
  ) {
    this.backoffMs = options.minBackoffMs ?? 250;
    this.syncedPromise = new Promise((resolve) => (this.resolveSynced = resolve));
    this.informer = makeListWatch<T>(
      options.kubeConfig,
      path,
      async () => {
        const result = await list();
        this.listed = true;
        return result;
      },
      RENDERED_SELECTOR,
    );
    const toRendered = (object: T): RenderedObject => ({
      kind,
      name: object.metadata?.name ?? '',
      labels: object.metadata?.labels ?? {},
      annotations: object.metadata?.annotations ?? {},
      data: data(object),
      resourceVersion: object.metadata?.resourceVersion ?? '',
    });
    this.informer.on('add', (object) => handlers.upsert(toRendered(object)));
    this.informer.on('update', (object) => handlers.upsert(toRendered(object)));
    this.informer.on('delete', (object) => handlers.remove(kind, object.metadata?.name ?? ''));
    this.informer.on('error', (error) => this.failed(error));
    this.run();
  }

  synced(): Promise<void> {
    return this.syncedPromise;
  }

  async stop(): Promise<void> {
    if (this.restartTimer !== undefined) clearTimeout(this.restartTimer);
    await this.informer.stop();
  }

  private run(): void {
    this.informer.start().then(
      () => {
        if (!this.listed || this.isStopped()) return;
        if (this.failures > 0)
          this.options.logger.info(
            { kind: this.kind, namespace: this.options.namespace },
            'kubernetes watch resumed',
          );
        this.failures = 0;
        this.backoffMs = this.options.minBackoffMs ?? 250;
        this.resolveSynced?.();
      },
      (error: unknown) => this.failed(error),
    );
  }

  private failed(error: unknown): void {
    if (this.isStopped() || this.restartTimer !== undefined) return;
    this.failures += 1;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.options.maxBackoffMs ?? 5000);
    // Only the error's kind and status: messages of API errors may quote object content.
    const status = (error as { code?: unknown; statusCode?: unknown } | undefined)?.code;
    this.options.logger.warn(
      {
        kind: this.kind,
        namespace: this.options.namespace,
        error: (error as Error | undefined)?.name ?? 'Error',
        status: typeof status === 'number' || typeof status === 'string' ? status : undefined,
        retryInMs: delay,
        failures: this.failures,
      },
      'kubernetes watch failed; serving the last good config and retrying',
    );
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.isStopped()) this.run();
    }, delay);
    this.restartTimer.unref();
  }
}

function decodeSecretData(data: Record<string, string>): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [key, value] of Object.entries(data))
    Object.defineProperty(decoded, key, {
      value: Buffer.from(value, 'base64').toString('utf8'),
      enumerable: true,
    });
  return decoded;
}
