// Relay to a 2026-07-28 upstream over plain HTTP (D4, gateway duties 12–13, 20): the client's
// params go through as sent — `inputResponses` and the byte-exact `requestState` of an MRTR retry,
// the client's declared `clientCapabilities` — with the tool name mapped, our own JSON-RPC id, the
// header set re-derived and the source's own credential (token-source.ts). Request-scoped notifications on an SSE
// answer are handed to `onNotification`; aborting `signal` closes the stream, which cancels upstream.
// The hop is undici's `dispatch` on a keep-alive pool of its own (issue 13), with our own handler
// (relay-answer.ts, issue 45): the WHATWG fetch layer cost about 0.4 ms a call on the hot path, and
// `request`'s response object and body stream most of what was left above the bare socket work.
// The per-source answer cap applies while the body arrives: a declared length over it is refused
// unread, a JSON body may not pass it, nor may one event of an event stream.
import { undici } from '../platform/undici-lazy.js';
import type { NetworkGuard } from '../reach/index.js';
import { MODERN_VERSION } from '../protocol/index.js';
import { propagatedRequest } from '../telemetry/tracing.js';
import { UpstreamHttpError } from './upstream-answer-errors.js';
import { RelayAnswer, RETRY_REFUSED, type RelayOutcome } from './relay-answer.js';
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
  const target = new URL(url);
  const origin = target.origin;
  const path = `${target.pathname}${target.search}`;
  const relay: Relay = async (request) => {
    if (request.signal.aborted) throw request.signal.reason;
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
    const exchange = (credential: Record<string, string>, mayRetry: boolean) =>
      new Promise<RelayOutcome>((resolve, reject) => {
        const sent = { ...headers, ...credential };
        const answer = new RelayAnswer(
          {
            id,
            maxBytes: maxResponseBytes,
            signal: request.signal,
            onNotification: request.onNotification,
            retryRefused: mayRetry ? () => credentials.refused(credential) : undefined,
          },
          resolve,
          reject,
        );
        propagatedRequest(sent, () =>
          pool.dispatch({ origin, path, method: 'POST', headers: sent, body }, answer),
        );
      });
    const outcome = await exchange(await credentials.headers(), true);
    const result = outcome === RETRY_REFUSED ? await exchange(await credentials.headers(), false) : outcome;
    // The second exchange is not asked about a 401 (`mayRetry` false): it never settles as a retry.
    if (result === RETRY_REFUSED) throw new UpstreamHttpError(401);
    return result;
  };
  return { relay, close: () => pool.close() };
}
