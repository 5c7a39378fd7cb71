// A notification stream's own bounds (issue 24, D23), with a twin sink: a client that stops reading
// is dropped once more than maxQueuedNotifications wait (cut, no final message), never buffered for
// ever; a graceful end writes the face's last message once; the idle clock restarts on delivery.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../../gateway/auth/index.js';
import { SUBSCRIPTION_DEFAULTS } from '../../../gateway/config/server-schema.js';
import {
  MemoryChangeBus,
  isChangeEvent,
  NotificationStream,
  type StreamSink,
} from '../../../gateway/subscriptions/index.js';

class TwinSink implements StreamSink {
  written: Record<string, unknown>[] = [];
  comments = 0;
  backlog = 0;
  reading = true;
  ended: Record<string, unknown> | undefined | 'open' = 'open';
  destroyed = false;
  private closeListener: (() => void) | undefined;
  write(message: Record<string, unknown>): boolean {
    this.written.push(message);
    if (!this.reading) this.backlog += 1;
    return this.reading;
  }
  comment(): void {
    this.comments += 1;
  }
  end(last: Record<string, unknown> | undefined): void {
    this.ended = last;
  }
  destroy(): void {
    this.destroyed = true;
  }
  onClose(listener: () => void): void {
    this.closeListener = listener;
  }
  clientGone(): void {
    this.closeListener?.();
  }
}

const principal = { keyId: 'k', workspace: { name: 'w' } } as unknown as Principal;
const event = { t: 'updated', workspace: 'w', source: 's', uri: 'u' } as const;

function open(sink: TwinSink, onEnd = vi.fn(), limits: Partial<typeof SUBSCRIPTION_DEFAULTS> = {}) {
  return new NotificationStream({
    principal,
    face: 'listen',
    limits: {
      ...SUBSCRIPTION_DEFAULTS,
      maxQueuedNotifications: 3,
      idleTimeoutMs: 1000,
      keepAliveMs: 100,
      ...limits,
    },
    sink,
    format: () => ({ method: 'notifications/resources/updated' }),
    last: () => ({ result: { resultType: 'complete' } }),
    onEnd,
  });
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('NotificationStream', () => {
  it('limits:slow-consumer — a client that stops reading is dropped past the queue cap', () => {
    const sink = new TwinSink();
    const onEnd = vi.fn();
    const stream = open(sink, onEnd);
    sink.reading = false;
    for (let i = 0; i < 10; i += 1) stream.deliver(event);
    expect(sink.written).toHaveLength(4);
    expect(sink.destroyed).toBe(true);
    expect(sink.ended).toBe('open');
    expect(onEnd).toHaveBeenCalledWith(stream, 'slow');
    expect(stream.open).toBe(false);
  });

  it('limits:stream-idle — ends gracefully once idle, with the last message once; delivery restarts the clock', () => {
    const sink = new TwinSink();
    const onEnd = vi.fn();
    const stream = open(sink, onEnd);
    vi.advanceTimersByTime(900);
    stream.deliver(event);
    vi.advanceTimersByTime(900);
    expect(stream.open).toBe(true);
    expect(sink.comments).toBeGreaterThan(10);
    vi.advanceTimersByTime(200);
    expect(sink.ended).toEqual({ result: { resultType: 'complete' } });
    expect(onEnd).toHaveBeenCalledTimes(1);
    expect(onEnd).toHaveBeenCalledWith(stream, 'idle');
    stream.end('shutdown');
    expect(onEnd).toHaveBeenCalledTimes(1);
  });

  it('limits:stream-lifetime — ends at the maximum lifetime however busy', () => {
    const sink = new TwinSink();
    const onEnd = vi.fn();
    const stream = open(sink, onEnd, { maxLifetimeMs: 1500 });
    for (let i = 0; i < 3; i += 1) {
      vi.advanceTimersByTime(500);
      stream.deliver(event);
    }
    expect(onEnd).toHaveBeenCalledWith(stream, 'lifetime');
  });

  it('a client that goes away ends the stream without a last message', () => {
    const sink = new TwinSink();
    const onEnd = vi.fn();
    open(sink, onEnd).deliver(event);
    sink.clientGone();
    expect(onEnd).toHaveBeenCalledWith(expect.anything(), 'client');
    expect(sink.ended).toBe('open');
  });
});

describe('ChangeBus twin', () => {
  it('delivers to every listener, a throwing one included, until unsubscribed', () => {
    const bus = new MemoryChangeBus();
    const seen: unknown[] = [];
    bus.subscribe(() => {
      throw new Error('boom');
    });
    const off = bus.subscribe((e) => seen.push(e));
    bus.publish(event);
    off();
    bus.publish(event);
    expect(seen).toEqual([event]);
  });

  it('accepts only well-formed events from the wire', () => {
    expect(isChangeEvent(event)).toBe(true);
    expect(isChangeEvent({ t: 'list', workspace: 'w', source: 's', kind: 'tools' })).toBe(true);
    expect(isChangeEvent({ t: 'list', workspace: 'w', source: 's', kind: 'everything' })).toBe(false);
    expect(isChangeEvent({ t: 'updated', workspace: '', source: 's', uri: 'u' })).toBe(false);
    expect(
      isChangeEvent({ t: 'legacy', workspace: 'w', source: 's', uri: 'u', keyId: 'k', op: 'drop' }),
    ).toBe(false);
    expect(isChangeEvent('{"t":"updated"}')).toBe(false);
  });
});
