// Says in a few fixed words why an upstream hop failed (GET /agent/sources `last_error`): built from
// the error's class, HTTP status and socket error code only, never from its message, which may carry
// a URL with credentials or text the upstream chose; an OpenAPI document's refusal is the gateway's
// own sentence about it (OpenApiDocumentError.condition).
import type { ErrorCode } from '../errors/index.js';

const SOCKET_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed while sending',
  UND_ERR_SOCKET: 'connection closed by the upstream',
  AGW_WAKE_TIMEOUT: 'scaled to zero, not ready within its wake time-out',
  AGW_WAKE_REFUSED: 'scaled to zero, and the operator did not wake it',
};

function findInChain<T>(
  error: unknown,
  pick: (value: Record<string, unknown>) => T | undefined,
): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth += 1) {
    const found = pick(current as Record<string, unknown>);
    if (found !== undefined) return found;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function describeUpstreamFailure(error: unknown, code: ErrorCode): string {
  if (code === 'upstream_circuit_open') return 'circuit breaker open';
  // An OpenAPI source's document refused (issue 44): the gateway's own words for the condition.
  const condition = findInChain(error, (e) =>
    e['name'] === 'OpenApiDocumentError' && typeof e['condition'] === 'string' ? e['condition'] : undefined,
  );
  if (condition !== undefined) return `OpenAPI document refused: ${condition.slice(0, 300)}`;
  if (code === 'upstream_timeout') return 'no answer within the time-out';
  const status = findInChain(error, (e) =>
    typeof e['status'] === 'number' && e['status'] >= 400 ? e['status'] : undefined,
  );
  if (status !== undefined) return `HTTP ${status}`;
  const socket = findInChain(error, (e) =>
    typeof e['code'] === 'string' && /^(E[A-Z_]+|UND_ERR_[A-Z_]+|AGW_WAKE_[A-Z]+)$/.test(e['code'])
      ? e['code']
      : undefined,
  );
  if (socket !== undefined) return SOCKET_WORDS[socket] ?? socket;
  if (code === 'upstream_protocol_error') return 'the answer is not MCP';
  if (code === 'upstream_unreachable') return 'not reachable';
  return code;
}
