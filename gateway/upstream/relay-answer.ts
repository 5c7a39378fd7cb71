// The answer of one relayed 2026-07-28 request, read as undici delivers it (issue 45): an undici
// dispatch handler, so a call costs one promise and no response object, body stream or iterator.
// It settles once, with the JSON-RPC result, or with the error the relay would have thrown:
// - a declared length over the per-source cap is refused unread; a JSON body may not pass the cap
//   as it arrives, nor may one event of an event stream (event-size-meter.ts);
// - an event stream's request-scoped notifications go to `onNotification` until the answer;
// - an error object is an `UpstreamRpcError`; a missing answer, a body that is not JSON or an
//   unexpected content type is an `UpstreamProtocolError`; a refusal without an answer is an
//   `UpstreamHttpError`;
// - a 401 the credential source wants retried (`retryRefused`) settles as `RETRY_REFUSED`;
// - aborting `signal` aborts the exchange with the signal's reason.
// Whatever settles it first wins; the rest of the exchange is then stopped. An event stream
// answered before it ended gets a short grace to end on its own (a server's last event and the end
// of its chunked body often come in two segments), so a finished exchange keeps its keep-alive
// connection and one that stays open is closed.
import type { Dispatcher } from 'undici';
import { EventSizeMeter } from './event-size-meter.js';
import { SseMessageReader } from './sse-reader.js';
import {
  UpstreamHttpError,
  UpstreamProtocolError,
  UpstreamResponseTooLargeError,
} from './upstream-answer-errors.js';
import { UpstreamRpcError } from './upstream-rpc-error.js';
import { isRecord } from '../platform/is-record.js';

/** The outcome of a 401 that the credential source wants retried with a fresh credential. */
export const RETRY_REFUSED = Symbol('retry-refused');

export type RelayOutcome = Record<string, unknown> | typeof RETRY_REFUSED;

export interface RelayAnswerOptions {
  /** Our JSON-RPC id of the request: the answer is the message carrying it. */
  readonly id: number;
  readonly maxBytes: number;
  readonly signal: AbortSignal;
  readonly onNotification: (message: Record<string, unknown>) => void;
  /** Asked on a 401: true to settle as `RETRY_REFUSED` instead of failing. */
  readonly retryRefused: (() => boolean) | undefined;
}

/** How long an answered event stream may take to end by itself before it is closed. */
const ANSWERED_STREAM_GRACE_MS = 50;

/** The reason an exchange is stopped after it has settled (never reported to anyone). */
class ExchangeDone extends Error {
  constructor() {
    super('the relayed exchange has settled');
    this.name = 'ExchangeDone';
  }
}

function headerValue(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** The result of `message` if it answers request `id`; throws its error; undefined otherwise. */
function settle(message: unknown, id: number, httpStatus: number): Record<string, unknown> | undefined {
  if (!isRecord(message) || message['id'] !== id) return undefined;
  if (isRecord(message['error'])) {
    const error = message['error'];
    throw new UpstreamRpcError(
      Number(error['code']),
      typeof error['message'] === 'string' ? error['message'] : 'upstream error',
      error['data'],
      httpStatus,
    );
  }
  if (isRecord(message['result'])) return message['result'];
  throw new UpstreamProtocolError('the answer has neither a result object nor an error');
}

export class RelayAnswer implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private mode: 'json' | 'events' | undefined;
  private chunks: Buffer[] = [];
  private total = 0;
  private meter: EventSizeMeter | undefined;
  private events: SseMessageReader | undefined;
  private settled = false;
  private ended = false;
  private grace: NodeJS.Timeout | undefined;
  private readonly onAbort: () => void;

  constructor(
    private readonly options: RelayAnswerOptions,
    private readonly resolve: (outcome: RelayOutcome) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.onAbort = () => this.fail(abortReason(options.signal));
    options.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Settled while it waited for a connection (its signal aborted): it goes no further.
    if (this.settled) controller.abort(new ExchangeDone());
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (this.settled) return;
    this.status = statusCode;
    if (statusCode === 401 && this.options.retryRefused?.() === true) {
      this.finish(RETRY_REFUSED);
      return;
    }
    const declared = Number(headerValue(headers['content-length']) || Number.NaN);
    if (Number.isFinite(declared) && declared > this.options.maxBytes) {
      this.fail(new UpstreamResponseTooLargeError(this.options.maxBytes));
      return;
    }
    const type = headerValue(headers['content-type']);
    if (type.startsWith('text/event-stream')) {
      this.mode = 'events';
      this.meter = new EventSizeMeter(this.options.maxBytes);
      this.events = new SseMessageReader();
    } else if (type.startsWith('application/json')) {
      this.mode = 'json';
    } else {
      const ok = statusCode >= 200 && statusCode < 300;
      this.fail(
        ok
          ? new UpstreamProtocolError(`unexpected content type ${JSON.stringify(type.slice(0, 60))}`)
          : new UpstreamHttpError(statusCode),
      );
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.mode === 'json') {
      this.total += chunk.length;
      if (this.total > this.options.maxBytes) {
        this.fail(new UpstreamResponseTooLargeError(this.options.maxBytes));
        return;
      }
      this.chunks.push(chunk);
      return;
    }
    if (this.meter === undefined || this.events === undefined) return;
    if (!this.meter.feed(chunk)) {
      this.fail(new UpstreamResponseTooLargeError(this.options.maxBytes));
      return;
    }
    try {
      for (const message of this.events.feed(chunk)) {
        this.take(message);
        if (this.settled) return;
      }
    } catch (error) {
      this.fail(error);
    }
  }

  onResponseEnd(): void {
    this.ended = true;
    if (this.grace !== undefined) clearTimeout(this.grace);
    if (this.settled) return;
    try {
      if (this.mode === 'json') this.endJson();
      else if (this.events !== undefined) {
        const last = this.events.end();
        if (last !== undefined) this.take(last);
        if (!this.settled) throw new UpstreamProtocolError('the event stream ended without the answer');
      }
    } catch (error) {
      this.fail(error);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.ended = true;
    this.fail(error);
  }

  private endJson(): void {
    const bytes =
      this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.total);
    this.chunks = [];
    let message: unknown;
    try {
      message = JSON.parse(bytes.toString('utf8')) as unknown;
    } catch (error) {
      if (error instanceof SyntaxError) throw new UpstreamProtocolError('the body is not JSON');
      throw error;
    }
    const result = settle(message, this.options.id, this.status);
    if (result !== undefined) {
      this.finish(result);
      return;
    }
    const ok = this.status >= 200 && this.status < 300;
    throw ok
      ? new UpstreamProtocolError('the answer belongs to another request')
      : new UpstreamHttpError(this.status);
  }

  /** One message of an event stream: a notification passes on; the answer settles the exchange. */
  private take(message: unknown): void {
    if (isRecord(message) && message['id'] === undefined && typeof message['method'] === 'string') {
      this.options.onNotification(message);
      return;
    }
    const result = settle(message, this.options.id, this.status);
    if (result !== undefined) this.finish(result);
  }

  private finish(outcome: RelayOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.options.signal.removeEventListener('abort', this.onAbort);
    this.resolve(outcome);
    // The rest of the body is not needed; a stream that ends within the grace keeps its connection.
    if (!this.ended) this.grace = setTimeout(() => this.stop(), ANSWERED_STREAM_GRACE_MS).unref();
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.options.signal.removeEventListener('abort', this.onAbort);
    this.reject(error);
    this.stop();
  }

  private stop(): void {
    if (this.ended || this.controller === undefined || this.controller.aborted) return;
    this.ended = true;
    this.controller.abort(new ExchangeDone());
  }
}
