// Request ids (issue 37.7): the gateway mints every request's id — the audit record's `request_id`,
// the log's `reqId`, the `X-Request-Id` response header and an error body's `requestId` — so no
// caller can give two requests one id or pick the id another request's record carries. A caller's
// own `X-Request-Id` is kept beside it (audit `client_request_id`, log `clientRequestId`) for
// correlation, only when it is a short token; anything else is dropped, never escaped or clipped.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** fastify's genReqId: a fresh UUID for every request, whatever the caller sent. */
export function requestIdFor(_request: IncomingMessage): string {
  return randomUUID();
}

/** The caller's `X-Request-Id` when it is 1–128 of A–Z a–z 0–9 `.` `_` `:` `-`; else undefined. */
export function clientRequestIdOf(request: IncomingMessage): string | undefined {
  const supplied = request.headers['x-request-id'];
  return typeof supplied === 'string' && SAFE_ID.test(supplied) ? supplied : undefined;
}
