// Why a source's tool list could not be read, in words for /agent/sources' `last_error` (issue
// 37.11): a list refused as a whole says what was wrong with it; any other failure what the
// upstream did (connection refused, HTTP 503, no answer in time: describeUpstreamFailure, item 12). Only the gateway's own texts, clipped and printable: never upstream content
// (an upstream error message, a body), never a secret.
import type { ErrorCode } from '../errors/index.js';
import { describeUpstreamFailure, ToolListRefusedError, UpstreamProtocolError } from '../upstream/index.js';

const MAX = 200;

function find<T>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && current !== undefined; depth += 1) {
    if (current instanceof type) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Printable ASCII only, at most MAX characters. */
function bounded(text: string): string {
  const printable = text.replace(/[^\u0020-\u007e]/g, '?');
  return printable.length <= MAX ? printable : `${printable.slice(0, MAX - 1)}…`;
}

export function describeListFailure(error: unknown, code: ErrorCode): string {
  const refused = find(error, ToolListRefusedError);
  if (refused !== undefined) return bounded(refused.reason);
  // The relay's and the response guard's verdicts are the gateway's words too.
  const protocol = find(error, UpstreamProtocolError);
  if (protocol !== undefined) return bounded(`the answer is not valid MCP: ${protocol.reason}`);
  return bounded(describeUpstreamFailure(error, code));
}
