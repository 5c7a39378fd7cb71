// Answers what never becomes a Fastify request in the documented error body (issue 28.2): a request
// Node's parser refuses (a NUL or a folded header, an oversized header block, a time-out) and a
// CONNECT request (Node destroys the socket when nothing listens for it, a silent close). Written
// straight to the socket: there is no request object, so the request id is made here.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

function respond(
  socket: Duplex,
  status: number,
  reason: string,
  code: string,
  message: string,
  extra = '',
): void {
  if (socket.destroyed || !socket.writable) return;
  const requestId = randomUUID();
  // Every answer here is about the caller's own request: class `request`.
  const body = `${JSON.stringify({ error: { code, class: 'request', message, requestId } })}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nCache-Control: no-store\r\nConnection: close\r\n${extra}\r\n${body}`,
  );
}

/** Fastify's clientErrorHandler: Node's parser refused the request. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET') return void socket.destroy();
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return respond(
      socket,
      431,
      'Request Header Fields Too Large',
      'invalid_request',
      'The request headers are too large.',
    );
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return respond(
      socket,
      408,
      'Request Timeout',
      'invalid_request',
      'The request was not received in time.',
    );
  respond(
    socket,
    400,
    'Bad Request',
    'invalid_request',
    'The request is not valid HTTP (for example a NUL or a folded header).',
  );
}

/** CONNECT is not a method of this gateway: 405, never a silent close. */
export function refuseConnect(server: Server): void {
  server.on('connect', (_request, socket: Duplex) => {
    socket.on('error', () => undefined);
    respond(
      socket,
      405,
      'Method Not Allowed',
      'method_not_allowed',
      'CONNECT is not supported.',
      'Allow: GET, HEAD, POST\r\n',
    );
  });
}
