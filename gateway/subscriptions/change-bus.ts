// The events a notification stream may carry, and the bus that shares them between replicas (issue
// 24, duty 18, D6): an upstream change heard by one replica reaches the streams of every replica.
// The port has an in-memory twin (the embedded shape) and a Redis pub/sub implementation
// (redis-change-bus.ts). An event names a workspace, a source and at most an upstream resource URI:
// never content. Legacy-face subscriptions (key-scoped, see docs/decisions.md) travel here too.

export type ListKind = 'tools' | 'prompts' | 'resources';

export type ChangeEvent =
  /** A source's tool, prompt or resource list changed. */
  | { readonly t: 'list'; readonly workspace: string; readonly source: string; readonly kind: ListKind }
  /** A resource of a source changed (its upstream URI). */
  | { readonly t: 'updated'; readonly workspace: string; readonly source: string; readonly uri: string }
  /** A key subscribed to (or unsubscribed from) a resource on the legacy face. */
  | {
      readonly t: 'legacy';
      readonly workspace: string;
      readonly keyId: string;
      readonly op: 'add' | 'remove';
      readonly source: string;
      readonly uri: string;
    };

export type ChangeListener = (event: ChangeEvent) => void;

export interface ChangeBus {
  /** Delivers to this replica's listeners at once and to every other replica's. */
  publish(event: ChangeEvent): void;
  subscribe(listener: ChangeListener): () => void;
  close(): void;
}

export class MemoryChangeBus implements ChangeBus {
  private readonly listeners = new Set<ChangeListener>();

  publish(event: ChangeEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // One failing stream must not keep the event from the others.
      }
    }
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.listeners.clear();
  }
}

/** Whether a decoded message is a well-formed event (messages from Redis are checked, not trusted). */
export function isChangeEvent(value: unknown): value is ChangeEvent {
  if (typeof value !== 'object' || value === null) return false;
  const event = value as Record<string, unknown>;
  const text = (name: string) => typeof event[name] === 'string' && event[name] !== '';
  if (!text('workspace') || !text('source')) return false;
  switch (event['t']) {
    case 'list':
      return event['kind'] === 'tools' || event['kind'] === 'prompts' || event['kind'] === 'resources';
    case 'updated':
      return text('uri');
    case 'legacy':
      return text('uri') && text('keyId') && (event['op'] === 'add' || event['op'] === 'remove');
    default:
      return false;
  }
}
