// The ChangeBus over Redis pub/sub (issue 24): events are published on one channel, encrypted and
// bound to it like every other shared-state message (issue 28.8, docs/redis.md), so whoever reads or
// writes Redis sees no workspace, source, key id or URI and cannot inject an event. A replica hears
// its own events at once, locally, and skips their echo. Redis down: events stay on this replica.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../shared-state/redis-connection.js';
import type { ValueCipher } from '../shared-state/value-cipher.js';
import type { Logger } from '../telemetry/logger.js';
import {
  isChangeEvent,
  MemoryChangeBus,
  type ChangeBus,
  type ChangeEvent,
  type ChangeListener,
} from './change-bus.js';

export interface RedisChangeBusOptions {
  readonly redis: RedisClient;
  /** The pub/sub connection (shared with other subscribers; messages are filtered by channel). */
  readonly subscriber: RedisClient;
  readonly keyPrefix: string;
  readonly cipher: ValueCipher;
  readonly logger: Logger;
}

export class RedisChangeBus implements ChangeBus {
  private readonly local = new MemoryChangeBus();
  private readonly channel: string;
  /** Marks this replica's own messages, so their echo is skipped. */
  private readonly origin = randomUUID();
  private readonly onMessage = (channel: string, sealed: string) => {
    if (channel !== this.channel) return;
    const plain = this.options.cipher.decrypt(sealed, channel)?.plain;
    if (plain === undefined) return;
    try {
      const message = JSON.parse(plain) as { o?: unknown; e?: unknown };
      if (message.o !== this.origin && isChangeEvent(message.e)) this.local.publish(message.e);
    } catch {
      // A message this replica cannot read is dropped.
    }
  };
  private readonly subscribeChannel = () =>
    void this.options.subscriber.subscribe(this.channel).catch(() => undefined);

  constructor(private readonly options: RedisChangeBusOptions) {
    this.channel = `${options.keyPrefix}subscription-events`;
    options.subscriber.on('ready', this.subscribeChannel);
    if (options.subscriber.status === 'ready') this.subscribeChannel();
    options.subscriber.on('message', this.onMessage);
  }

  publish(event: ChangeEvent): void {
    this.local.publish(event);
    const sealed = this.options.cipher.encrypt(JSON.stringify({ o: this.origin, e: event }), this.channel);
    void this.options.redis.publish(this.channel, sealed).catch(() => {
      this.options.logger.debug({ event: event.t }, 'subscription event not shared: redis unavailable');
    });
  }

  subscribe(listener: ChangeListener): () => void {
    return this.local.subscribe(listener);
  }

  close(): void {
    this.options.subscriber.off('ready', this.subscribeChannel);
    this.options.subscriber.off('message', this.onMessage);
    void this.options.subscriber.unsubscribe(this.channel).catch(() => undefined);
    this.local.close();
  }
}
