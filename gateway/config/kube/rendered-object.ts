// A rendered Secret or ConfigMap as the gateway sees it, and the port that feeds them in (a
// Kubernetes informer in production, an in-memory twin in unit tests).
import type { PartKind } from './rendered-contract.js';

export interface RenderedObject {
  readonly kind: PartKind;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** Data entries as text (Secret values already base64-decoded). */
  readonly data: Readonly<Record<string, string>>;
  readonly resourceVersion: string;
}

export interface ObjectFeedHandlers {
  upsert(object: RenderedObject): void;
  remove(kind: PartKind, name: string): void;
}

export interface ObjectFeed {
  /** Resolves after the first complete list of every watched kind has been delivered. */
  start(handlers: ObjectFeedHandlers): Promise<void>;
  stop(): Promise<void>;
}

/** In-memory twin: tests push objects in and take them out. */
export class MemoryObjectFeed implements ObjectFeed {
  private handlers: ObjectFeedHandlers | undefined;
  private readonly objects = new Map<string, RenderedObject>();

  constructor(initial: readonly RenderedObject[] = []) {
    for (const object of initial) this.objects.set(`${object.kind}/${object.name}`, object);
  }

  start(handlers: ObjectFeedHandlers): Promise<void> {
    this.handlers = handlers;
    for (const object of this.objects.values()) handlers.upsert(object);
    return Promise.resolve();
  }

  upsert(object: RenderedObject): void {
    this.objects.set(`${object.kind}/${object.name}`, object);
    this.handlers?.upsert(object);
  }

  remove(kind: RenderedObject['kind'], name: string): void {
    this.objects.delete(`${kind}/${name}`);
    this.handlers?.remove(kind, name);
  }

  stop(): Promise<void> {
    this.handlers = undefined;
    return Promise.resolve();
  }
}
