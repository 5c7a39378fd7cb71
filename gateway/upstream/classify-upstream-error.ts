// Maps whatever an upstream hop threw to one catalogue code, so failures stay distinguishable by
// class (spec §7.1): reachability (down, slow, not MCP) versus upstream authorization (refused
// credentials, no token from the source's authorization server, no caller identity to exchange).
import { mcpClientSdk } from './mcp-client-sdk.js';
import { SecretUnavailableError } from '../config/index.js';
import { GatewayError, type ErrorCode } from '../errors/index.js';
import { findReachDenied } from '../reach/index.js';
import {
  findAnswerError,
  UpstreamHttpError,
  UpstreamResponseTooLargeError,
} from './upstream-answer-errors.js';
import { findConsentRequired, findTokenError } from '../connections/index.js';
import { UpstreamIdentityRequiredError } from './upstream-caller.js';
import { WorkloadWakeError } from './workload-waker.js';

function findCause<T>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && current !== undefined; depth += 1) {
    if (current instanceof type) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function classifyUpstreamError(error: unknown): ErrorCode {
  if (error instanceof GatewayError) return error.code;
  if (error instanceof SecretUnavailableError) return 'upstream_unauthorized';
  if (findReachDenied(error) !== undefined) return 'upstream_not_allowed';
  if (findCause(error, UpstreamIdentityRequiredError) !== undefined) return 'upstream_identity_required';
  if (findConsentRequired(error) !== undefined) return 'upstream_consent_required';
  if (findTokenError(error) !== undefined) return 'upstream_token_unavailable';
  // A source scaled to zero that did not wake (D25): slow to start is a time-out, not a refusal.
  const wake = findCause(error, WorkloadWakeError);
  if (wake !== undefined)
    return wake.code === 'AGW_WAKE_TIMEOUT' ? 'upstream_timeout' : 'upstream_unreachable';
  const verdict = findAnswerError(error);
  if (verdict !== undefined)
    return verdict instanceof UpstreamResponseTooLargeError
      ? 'upstream_response_too_large'
      : 'upstream_protocol_error';
  const { SdkError, SdkErrorCode, SdkHttpError } = mcpClientSdk();
  if (error instanceof SdkHttpError) {
    const status = error.status;
    if (status === 401 || status === 403) return 'upstream_unauthorized';
    if (status !== undefined && status >= 500) return 'upstream_unreachable';
    return 'upstream_protocol_error';
  }
  if (error instanceof UpstreamHttpError) {
    if (error.status === 401 || error.status === 403) return 'upstream_unauthorized';
    return error.status >= 500 ? 'upstream_unreachable' : 'upstream_protocol_error';
  }
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) return 'upstream_timeout';
    if (
      error.code === SdkErrorCode.ConnectionClosed ||
      error.code === SdkErrorCode.NotConnected ||
      error.code === SdkErrorCode.SendFailed
    )
      return 'upstream_unreachable';
  }
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'upstream_timeout';
  const message = error instanceof Error ? error.message : '';
  if (/timed? ?out/i.test(message)) return 'upstream_timeout';
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } } | null)?.cause?.code ??
    (error as { code?: unknown } | null)?.code;
  if (
    typeof code === 'string' &&
    /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ENOENT|EACCES|EPIPE|UND_ERR)/.test(code)
  )
    return 'upstream_unreachable';
  if (/fetch failed|connection closed|closed/i.test(message)) return 'upstream_unreachable';
  return 'upstream_protocol_error';
}
