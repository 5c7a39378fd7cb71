// The production ObjectFeed: a list-watch (kube-list-watch.ts, our own client: no client-node in a
// gateway, issue 26) on the labelled Secrets and ConfigMaps of one namespace. A failed list or
// watch is retried with capped exponential backoff and resumes from the last resource version;
// when that is too old (410 Gone) it relists and reports the objects deleted meanwhile. The caller
// keeps serving what it has while the API is unreachable.
import type { Logger } from '../../telemetry/logger.js';
import { KubeApiClient } from './kube-api-client.js';
import type { KubeClientConfig } from './kube-client-config.js';
import { KubeListWatch, type KubeObject } from './kube-list-watch.js';
import { RENDERED_SELECTOR, type PartKind } from './rendered-contract.js';
import type { ObjectFeed, ObjectFeedHandlers, RenderedObject } from './rendered-object.js';

export interface InformerObjectFeedOptions {
  readonly kubeConfig: KubeClientConfig;
  readonly namespace: string;
  readonly logger: Logger;
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** The longest watch line (one event) accepted; a longer one fails the watch. */
  readonly maxLineBytes?: number;
  /** About how long the server keeps one watch open before it is resumed. */
  readonly watchTimeoutSeconds?: number;
}

interface PartObject extends KubeObject {
  readonly metadata?: {
    readonly name?: string;
    readonly resourceVersion?: string;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
  };
  readonly data?: Record<string, string>;
}

export class InformerObjectFeed implements ObjectFeed {
  private readonly watches: KubeListWatch<PartObject>[] = [];
  private client: KubeApiClient | undefined;

  constructor(private readonly options: InformerObjectFeedOptions) {}

  async start(handlers: ObjectFeedHandlers): Promise<void> {
    const client = (this.client = new KubeApiClient(this.options.kubeConfig));
    const { namespace } = this.options;
    const synced = (['ConfigMap', 'Secret'] as const).map(
      (kind) =>
        new Promise<void>((resolve) => {
          const watch = new KubeListWatch<PartObject>({
            client,
            path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/${kind === 'Secret' ? 'secrets' : 'configmaps'}`,
            labelSelector: RENDERED_SELECTOR,
            handlers: this.handlersFor(kind, handlers, resolve),
            ...pick(this.options),
          });
          this.watches.push(watch);
          watch.start();
        }),
    );
    await Promise.all(synced);
  }

  async stop(): Promise<void> {
    await Promise.all(this.watches.map((watch) => watch.stop()));
    this.client?.close();
  }

  private handlersFor(kind: PartKind, handlers: ObjectFeedHandlers, listed: () => void) {
    const { logger, namespace } = this.options;
    const toRendered = (object: PartObject): RenderedObject => ({
      kind,
      name: object.metadata?.name ?? '',
      labels: object.metadata?.labels ?? {},
      annotations: object.metadata?.annotations ?? {},
      data: kind === 'Secret' ? decodeSecretData(object.data ?? {}) : (object.data ?? {}),
      resourceVersion: object.metadata?.resourceVersion ?? '',
    });
    return {
      add: (object: PartObject) => handlers.upsert(toRendered(object)),
      update: (object: PartObject) => handlers.upsert(toRendered(object)),
      delete: (object: PartObject) => handlers.remove(kind, object.metadata?.name ?? ''),
      listed: (count: number) => {
        logger.debug({ kind, namespace, objects: count }, 'kubernetes objects listed');
        listed();
      },
      watchEnded: (events: number) =>
        logger.debug({ kind, namespace, events }, 'kubernetes watch ended by the server; resuming'),
      recovered: () => logger.info({ kind, namespace }, 'kubernetes watch resumed'),
      failed: (error: unknown, retryInMs: number, failures: number) => {
        // Only the error's kind, code and status: messages of API errors may quote object content.
        const { name, code, status } = error as { name?: unknown; code?: unknown; status?: unknown };
        logger.warn(
          {
            kind,
            namespace,
            error: typeof name === 'string' ? name : 'Error',
            ...(typeof code === 'string' ? { code } : {}),
            ...(typeof status === 'number' ? { status } : {}),
            retryInMs,
            failures,
          },
          'kubernetes watch failed; serving the last good config and retrying',
        );
      },
    };
  }
}

function pick(options: InformerObjectFeedOptions) {
  return {
    ...(options.minBackoffMs === undefined ? {} : { minBackoffMs: options.minBackoffMs }),
    ...(options.maxBackoffMs === undefined ? {} : { maxBackoffMs: options.maxBackoffMs }),
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    ...(options.watchTimeoutSeconds === undefined
      ? {}
      : { watchTimeoutSeconds: options.watchTimeoutSeconds }),
  };
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
