// Request ids: every response carries `X-Request-Id`. A caller-supplied id is kept when it is a
// short token (so a client can correlate), anything else is replaced by a fresh UUID.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFor(request: IncomingMessage): string {
  const supplied = request.headers['x-request-id'];
  return typeof supplied === 'string' && SAFE_ID.test(supplied) ? supplied : randomUUID();
}
