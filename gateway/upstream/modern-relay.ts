// Relay to a 2026-07-28 upstream over plain HTTP (D4, gateway duties 12–13, 20): the client's
// params go through as sent — `inputResponses` and the byte-exact `requestState` of an MRTR retry,
// the client's declared `clientCapabilities` — with the tool name mapped, our own JSON-RPC id, the
// header set re-derived and the source's own credential. Request-scoped notifications on an SSE
// answer are handed to `onNotification`; aborting `signal` closes the stream, which cancels upstream.
import { guardedFetch } from './response-guard.js';
import { readSseMessages } from './sse-reader.js';
import { UpstreamHttpError, UpstreamProtocolError } from './upstream-answer-errors.js';
import { UpstreamRpcError } from './upstream-rpc-error.js';

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

export function createModernRelay(
  url: string,
  credentialHeaders: () => Record<string, string>,
  maxResponseBytes: number,
): Relay {
  const fetchGuarded = guardedFetch({ maxBytes: maxResponseBytes, validate: false });
  return async (request) => {
    nextId = (nextId + 1) % Number.MAX_SAFE_INTEGER;
    const id = nextId;
    const headers: Record<string, string> = {
      ...credentialHeaders(),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': request.method,
      ...request.paramHeaders,
    };
    if (request.nameHeader !== undefined) headers['mcp-name'] = request.nameHeader;
    const response = await fetchGuarded(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id, method: request.method, params: request.params }),
      signal: request.signal,
    });
    const type = response.headers.get('content-type') ?? '';
    if (type.startsWith('text/event-stream') && response.body !== null) {
      for await (const message of readSseMessages(response.body)) {
        if (isRecord(message) && message['id'] === undefined && typeof message['method'] === 'string') {
          request.onNotification(message);
          continue;
        }
        const result = settle(message, id, response.status);
        if (result !== undefined) return result;
      }
      throw new UpstreamProtocolError('the event stream ended without the answer');
    }
    if (type.startsWith('application/json')) {
      let message: unknown;
      try {
        message = await response.json();
      } catch (error) {
        if (error instanceof SyntaxError) throw new UpstreamProtocolError('the body is not JSON');
        throw error;
      }
      const result = settle(message, id, response.status);
      if (result !== undefined) return result;
      if (response.ok) throw new UpstreamProtocolError('the answer belongs to another request');
    }
    await response.body?.cancel();
    if (!response.ok) throw new UpstreamHttpError(response.status);
    throw new UpstreamProtocolError(`unexpected content type ${JSON.stringify(type.slice(0, 60))}`);
  };
}
