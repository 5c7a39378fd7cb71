// The per-source upstream response cap (issue 8 item 3). Bytes are counted while they arrive, so
// an oversized answer is cut off before it is buffered: a JSON body may not exceed the cap as a
// whole, an event stream may not carry a single event larger than the cap (a long-lived stream of
// small events is fine). A declared `Content-Length` over the cap is refused before reading.
// The SDK transports swallow a failing SSE stream (they log it and wait for a resumption that never
// comes), so every SDK-backed hop runs in a cap scope: the fetch made inside it remembers the
// scope, and a tripped cap aborts exactly that hop with the cap error.
import { AsyncLocalStorage } from 'node:async_hooks';

/** An upstream answer (or one event of it) passed the source's `limits.maxResponseBytes`. */
export class UpstreamResponseTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`upstream response exceeded ${limitBytes} bytes`);
    this.name = 'UpstreamResponseTooLargeError';
  }
}

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

const LF = 0x0a;
const CR = 0x0d;

interface CapScope {
  readonly trip: (error: UpstreamResponseTooLargeError) => void;
}

const scopes = new AsyncLocalStorage<CapScope>();

/** Runs one upstream hop so that a response of it over the cap aborts it with the cap error
 * (rather than whatever the SDK makes of a broken stream). */
export async function withCapScope<T>(
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

/** Counts bytes per unit (whole body, or per SSE event) and fails the stream past `limit`. */
function countingStream(
  body: ReadableStream<Uint8Array>,
  limit: number,
  perEvent: boolean,
  scope: CapScope | undefined,
): ReadableStream<Uint8Array> {
  let run = 0;
  let afterNewline = false;
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      let over = false;
      if (!perEvent) {
        run += value.byteLength;
        over = run > limit;
      } else {
        for (const byte of value) {
          if (byte === LF) {
            if (afterNewline) run = 0;
            afterNewline = true;
          } else if (byte !== CR) {
            afterNewline = false;
            run += 1;
            if (run > limit) {
              over = true;
              break;
            }
          }
        }
      }
      if (over) {
        const error = new UpstreamResponseTooLargeError(limit);
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

/** Wraps one response so its body cannot deliver more than `limit` bytes (per event for SSE). */
export function capResponse(response: Response, limit: number, scope = scopes.getStore()): Response {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    void response.body?.cancel().catch(() => undefined);
    const error = new UpstreamResponseTooLargeError(limit);
    scope?.trip(error);
    throw error;
  }
  if (response.body === null) return response;
  const perEvent = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  return new Response(countingStream(response.body, limit, perEvent, scope), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** A fetch whose responses are capped; used by the relay and handed to the SDK transports. */
export function cappedFetch(limit: number, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const scope = scopes.getStore();
    return capResponse(await base(url, init), limit, scope);
  };
}

/** Whether `error` (or anything in its `cause` chain) is the cap tripping. */
export function findResponseTooLarge(error: unknown): UpstreamResponseTooLargeError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && current !== undefined; depth += 1) {
    if (current instanceof UpstreamResponseTooLargeError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
