// Guards every upstream HTTP answer while it streams in (issue 8 items 3 and 8).
// - The per-source cap: a JSON body may not exceed `limits.maxResponseBytes` as a whole, an event
//   stream may not carry a single event larger than it (a long-lived stream of small events is
//   fine); a declared `Content-Length` over the cap is refused before reading.
// - For the SDK transports (`validate`), the answer must be MCP: JSON that parses, and an answer to
//   the request that was sent (same JSON-RPC id); otherwise the hop fails at once as a protocol
//   error instead of waiting for its time-out.
// The SDK transports swallow a failing stream (they report it and wait for a resumption that never
// comes), so every SDK-backed hop runs in a guard scope: a fetch made inside it remembers the
// scope, and a verdict aborts exactly that hop with the guard's error.
import { AsyncLocalStorage } from 'node:async_hooks';
import { EventSizeMeter } from './event-size-meter.js';
import { parseSseBlock } from './sse-reader.js';
import {
  UpstreamProtocolError,
  UpstreamResponseTooLargeError,
  type AnswerError,
} from './upstream-answer-errors.js';

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

interface GuardScope {
  readonly trip: (error: AnswerError) => void;
}

export interface GuardOptions {
  readonly maxBytes: number;
  /** Check that answers are well-formed JSON-RPC for the request sent (SDK transports). */
  readonly validate: boolean;
}

const scopes = new AsyncLocalStorage<GuardScope>();

/** Runs one upstream hop so that a guard verdict on any of its responses aborts it with the
 * guard's error (rather than whatever the SDK makes of a broken stream). */
export async function withResponseGuard<T>(
  signal: AbortSignal,
  hop: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const tripped = new AbortController();
  const combined = AbortSignal.any([signal, tripped.signal]);
  try {
    return await scopes.run({ trip: (error) => tripped.abort(error) }, () => hop(combined));
  } catch (error) {
    if (tripped.signal.aborted) throw tripped.signal.reason as Error;
    throw error;
  }
}

/** The JSON-RPC id of the request in `body`, when it is a request. */
function requestId(body: unknown): unknown {
  if (typeof body !== 'string') return undefined;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      const message = parsed as Record<string, unknown>;
      if (typeof message['method'] === 'string') return message['id'];
    }
  } catch {
    // Not ours to judge: the SDK sent it.
  }
  return undefined;
}

/** Why `message` is not an acceptable answer to request `expectedId`, or undefined if it is. */
function messageProblem(message: unknown, expectedId: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return 'not a JSON-RPC message';
  const record = message as Record<string, unknown>;
  if (Array.isArray(message)) return undefined;
  const isResponse = typeof record['method'] !== 'string' && ('result' in record || 'error' in record);
  if (isResponse && expectedId !== undefined && record['id'] !== expectedId)
    return 'the answer belongs to another request';
  return undefined;
}

function eventProblem(block: string, expectedId: unknown): string | undefined {
  const { event, data } = parseSseBlock(block);
  if (event !== 'message' || data === undefined) return undefined;
  try {
    return messageProblem(JSON.parse(data) as unknown, expectedId);
  } catch {
    return 'an event carries data that is not JSON';
  }
}

/** Fails the stream once a unit (whole body, or one SSE event) passes the cap, or an event is not
 * MCP when validating. */
function guardedEventStream(
  body: ReadableStream<Uint8Array>,
  options: GuardOptions,
  expectedId: unknown,
  scope: GuardScope | undefined,
): ReadableStream<Uint8Array> {
  const meter = new EventSizeMeter(options.maxBytes);
  let parts: Uint8Array[] = [];
  const reader = body.getReader();
  const fail = async (controller: ReadableStreamDefaultController<Uint8Array>, error: AnswerError) => {
    scope?.trip(error);
    controller.error(error);
    await reader.cancel(error).catch(() => undefined);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        const rest = Buffer.concat(parts).toString('utf8');
        const problem = options.validate && rest.trim() !== '' ? eventProblem(rest, expectedId) : undefined;
        if (problem !== undefined) return fail(controller, new UpstreamProtocolError(problem));
        controller.close();
        return;
      }
      let start = 0;
      let problem: string | undefined;
      const withinCap = meter.feed(
        value,
        options.validate
          ? (end) => {
              parts.push(value.subarray(start, end));
              problem ??= eventProblem(Buffer.concat(parts).toString('utf8'), expectedId);
              parts = [];
              start = end;
            }
          : undefined,
      );
      if (problem !== undefined) return fail(controller, new UpstreamProtocolError(problem));
      if (!withinCap) return fail(controller, new UpstreamResponseTooLargeError(options.maxBytes));
      if (options.validate && start < value.length) parts.push(value.subarray(start));
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** Reads a whole JSON body within the cap. */
async function readCapped(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    total += value.byteLength;
    if (total > maxBytes) {
      const error = new UpstreamResponseTooLargeError(maxBytes);
      await reader.cancel(error).catch(() => undefined);
      throw error;
    }
    chunks.push(value);
  }
}

/** Counts a non-event-stream body against the cap while it is read by someone else. */
function countedStream(body: ReadableStream<Uint8Array>, maxBytes: number, scope: GuardScope | undefined) {
  let total = 0;
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      total += value.byteLength;
      if (total > maxBytes) {
        const error = new UpstreamResponseTooLargeError(maxBytes);
        scope?.trip(error);
        controller.error(error);
        await reader.cancel(error).catch(() => undefined);
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

async function guardResponse(
  response: Response,
  options: GuardOptions,
  expectedId: unknown,
  scope: GuardScope | undefined,
): Promise<Response> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw new UpstreamResponseTooLargeError(options.maxBytes);
  }
  if (response.body === null) return response;
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream'))
    return new Response(guardedEventStream(response.body, options, expectedId, scope), init);
  if (!options.validate || !response.ok || !type.startsWith('application/json'))
    return new Response(countedStream(response.body, options.maxBytes, scope), init);
  const bytes = await readCapped(response.body, options.maxBytes);
  let message: unknown;
  try {
    message = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
  } catch {
    throw new UpstreamProtocolError('the body is not JSON');
  }
  const problem = messageProblem(message, expectedId);
  if (problem !== undefined) throw new UpstreamProtocolError(problem);
  return new Response(bytes, init);
}

/** A fetch whose answers are guarded; used by the relay and handed to the SDK transports. */
export function guardedFetch(options: GuardOptions, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const scope = scopes.getStore();
    const expectedId = options.validate ? requestId(init?.body) : undefined;
    try {
      return await guardResponse(await base(url, init), options, expectedId, scope);
    } catch (error) {
      if (error instanceof UpstreamProtocolError || error instanceof UpstreamResponseTooLargeError)
        scope?.trip(error);
      throw error;
    }
  };
}
