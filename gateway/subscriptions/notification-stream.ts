// One open notification stream (issue 24): a `subscriptions/listen` answer or a legacy GET /mcp
// stream. It owns its clocks (keep-alive comments, idle timeout, maximum lifetime) and its bound on a
// slow client: notifications written while the client is not reading are counted, and past
// `maxQueuedNotifications` the stream is dropped (cut, no final message), never buffered for ever.
// What the wire looks like is the face's business (the sink and `format`); this holds no content.
import type { Principal } from '../auth/index.js';
import type { ServerConfig } from '../config/index.js';
import type { ChangeEvent } from './change-bus.js';

export type StreamLimits = ServerConfig['subscriptions'];
export type StreamFace = 'listen' | 'legacy';
export type EndReason = 'idle' | 'lifetime' | 'shutdown' | 'access' | 'client' | 'slow';

/** Where a stream writes: one SSE response. */
export interface StreamSink {
  /** Writes one event; false when it is buffered because the client is not reading. */
  write(message: Record<string, unknown>): boolean;
  /** Writes a `:` keep-alive comment. */
  comment(): void;
  /** Writes waiting for the client right now (0 once it reads again). */
  readonly backlog: number;
  /** Ends the response, with a last event when given. */
  end(last: Record<string, unknown> | undefined): void;
  /** Cuts the response. */
  destroy(): void;
  /** Called once when the client goes away. */
  onClose(listener: () => void): void;
}

export interface StreamOptions {
  readonly principal: Principal;
  readonly face: StreamFace;
  readonly limits: StreamLimits;
  readonly sink: StreamSink;
  /** The notification for an event this stream carries, else undefined. */
  readonly format: (event: ChangeEvent, stream: NotificationStream) => Record<string, unknown> | undefined;
  /** The last message of a graceful end (the listen result), if any. */
  readonly last?: () => Record<string, unknown>;
  readonly onEnd: (stream: NotificationStream, reason: EndReason) => void;
}

export class NotificationStream {
  principal: Principal;
  readonly face: StreamFace;
  /** (source, upstream URI) pairs this stream holds an upstream watch for, as `source\0uri`. */
  readonly watched = new Set<string>();
  private ended = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly options: StreamOptions) {
    this.principal = options.principal;
    this.face = options.face;
    const { keepAliveMs, maxLifetimeMs } = options.limits;
    this.timers.push(setInterval(() => options.sink.comment(), keepAliveMs));
    this.timers.push(setTimeout(() => this.end('lifetime'), maxLifetimeMs));
    this.touch();
    options.sink.onClose(() => this.finish('client'));
  }

  get open(): boolean {
    return !this.ended;
  }

  /** Writes the event if this stream carries it; drops the stream when the client stopped reading. */
  deliver(event: ChangeEvent): void {
    if (this.ended) return;
    const message = this.options.format(event, this);
    if (message === undefined) return;
    this.send(message);
  }

  /** Writes a message of the face's own (the acknowledgement). */
  send(message: Record<string, unknown>): void {
    if (this.ended) return;
    this.options.sink.write(message);
    if (this.options.sink.backlog > this.options.limits.maxQueuedNotifications) {
      this.options.sink.destroy();
      this.finish('slow');
      return;
    }
    this.touch();
  }

  /** Ends gracefully: the face's last message (the listen result), then the end of the response. */
  end(reason: EndReason): void {
    if (this.ended) return;
    this.options.sink.end(this.options.last?.());
    this.finish(reason);
  }

  private touch(): void {
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.end('idle'), this.options.limits.idleTimeoutMs);
  }

  private finish(reason: EndReason): void {
    if (this.ended) return;
    this.ended = true;
    for (const timer of this.timers) clearTimeout(timer);
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.options.onEnd(this, reason);
  }
}
