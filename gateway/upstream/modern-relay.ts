// Relay to a 2026-07-28 upstream over plain HTTP (D4, gateway duties 12–13, 20): the client's
// params go through as sent — `inputResponses` and the byte-exact `requestState` of an MRTR retry,
// the client's declared `clientCapabilities` — with the tool name mapped, our own JSON-RPC id, the
// header set re-derived and the source's own credential (token-source.ts). Request-scoped notifications on an SSE
// answer are handed to `onNotification`; aborting `signal` closes the stream, which cancels upstream.
// The hop is undici's `request` on a keep-alive pool of its own (issue 13): the WHATWG fetch layer
// (Request/Response objects and web streams per call) cost about 0.4 ms a call on the hot path.
// The per-source answer cap applies while the body arrives: a declared length over it is refused
// unread, a JSON body may not pass it, nor may one event of an event stream.
import type { Readable } from 'node:stream';
import { undici } from '../platform/undici-lazy.js';
import type { NetworkGuard } from '../reach/index.js';
import { MODERN_VERSION } from '../protocol/index.js';
import { propagatedRequest } from '../telemetry/tracing.js';
import { EventSizeMeter } from './event-size-meter.js';
import { readSseMessages } from './sse-reader.js';
import {
  UpstreamHttpError,
  UpstreamProtocolError,
  UpstreamResponseTooLargeError,
} from './upstream-answer-errors.js';
import { UpstreamRpcError } from './upstream-rpc-error.js';
import type { TokenSource } from './token-source.js';

export interface RelayRequest {
  readonly method: string;
  readonly params: Record<string, unknown>;
  /** `Mcp-Param-*` headers to send, already validated against the arguments. */
  readonly paramHeaders: Readonly<Record<string, string>>;
  /** The `Mcp-Name` header value (already encoded) for named methods. */
  readonly nameHeader: string | undefined;
  readonly signal: AbortSignal;
  readonly onNotification: (message: Record<string, unknown>) => void;
}

export type Relay = (request: RelayRequest) => Promise<Record<string, unknown>>;

export interface ModernRelay {
  readonly relay: Relay;
  /** Closes the relay's connections to the upstream. */
  close(): Promise<void>;
}

let nextId = 0;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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

function headerValue(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** Stops reading a body that is not needed (or refused). Destroying an undici body emits an error
 * (an AbortError when no reason is given); nobody is left to hear it, so it is swallowed here. */
function discard(body: Readable, reason?: Error): void {
  body.on('error', () => undefined);
  body.destroy(reason);
}

/** Reads a whole body, failing once it passes `maxBytes`. Events, not an async iterator: the
 * iterator's promises and ticks cost about 2 KiB a call on the relay path (issue 45). */
function readCapped(body: Readable, maxBytes: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        body.off('data', onData);
        const error = new UpstreamResponseTooLargeError(maxBytes);
        discard(body, error);
        reject(error);
        return;
      }
      chunks.push(chunk);
    };
    body.on('data', onData);
    body.once('error', reject);
    body.once('end', () =>
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total)),
    );
  });
}

/** The chunks of an event stream, failing once one event passes `maxBytes`. */
async function* cappedEvents(body: Readable, maxBytes: number): AsyncGenerator<Uint8Array> {
  const meter = new EventSizeMeter(maxBytes);
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (!meter.feed(chunk)) {
      const error = new UpstreamResponseTooLargeError(maxBytes);
      discard(body, error);
      throw error;
    }
    yield chunk;
  }
}

export function createModernRelay(
  url: string,
  credentials: TokenSource,
  maxResponseBytes: number,
  guard?: NetworkGuard,
): ModernRelay {
  // Time-outs come from each call's signal (the source's call time-out), not from the pool. Under a
  // tenant reach policy every connection of the pool dials through the guard (D19).
  const options = { headersTimeout: 0, bodyTimeout: 0 };
  const pool = guard === undefined ? new (undici().Agent)(options) : guard.agent(options);
  const relay: Relay = async (request) => {
    nextId = (nextId + 1) % Number.MAX_SAFE_INTEGER;
    const id = nextId;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': request.method,
      ...request.paramHeaders,
    };
    if (request.nameHeader !== undefined) headers['mcp-name'] = request.nameHeader;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: request.method, params: request.params });
    // The source's credential on every request; a 401 is retried once with a fresh token (issue 29).
    const send = async (credential: Record<string, string>) => {
      const sent = { ...headers, ...credential };
      return propagatedRequest(sent, () =>
        undici().request(url, {
          method: 'POST',
          headers: sent,
          body,
          signal: request.signal,
          dispatcher: pool,
        }),
      );
    };
    const first = await credentials.headers();
    let response = await send(first);
    if (response.statusCode === 401 && credentials.refused(first)) {
      discard(response.body);
      response = await send(await credentials.headers());
    }
    const status = response.statusCode;
    const ok = status >= 200 && status < 300;
    const declared = Number(headerValue(response.headers['content-length']) || Number.NaN);
    if (Number.isFinite(declared) && declared > maxResponseBytes) {
      discard(response.body);
      throw new UpstreamResponseTooLargeError(maxResponseBytes);
    }
    const type = headerValue(response.headers['content-type']);
    if (type.startsWith('text/event-stream')) {
      for await (const message of readSseMessages(cappedEvents(response.body, maxResponseBytes))) {
        if (isRecord(message) && message['id'] === undefined && typeof message['method'] === 'string') {
          request.onNotification(message);
          continue;
        }
        const result = settle(message, id, status);
        if (result !== undefined) {
          // The answer is in: the rest of the stream (if any) is not needed.
          discard(response.body);
          return result;
        }
      }
      throw new UpstreamProtocolError('the event stream ended without the answer');
    }
    if (type.startsWith('application/json')) {
      const bytes = await readCapped(response.body, maxResponseBytes);
      let message: unknown;
      try {
        message = JSON.parse(bytes.toString('utf8')) as unknown;
      } catch (error) {
        if (error instanceof SyntaxError) throw new UpstreamProtocolError('the body is not JSON');
        throw error;
      }
      const result = settle(message, id, status);
      if (result !== undefined) return result;
      if (ok) throw new UpstreamProtocolError('the answer belongs to another request');
    } else {
      discard(response.body);
    }
    if (!ok) throw new UpstreamHttpError(status);
    throw new UpstreamProtocolError(`unexpected content type ${JSON.stringify(type.slice(0, 60))}`);
  };
  return { relay, close: () => pool.close() };
}
