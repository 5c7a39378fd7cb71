// Closes connections that never start a request (issue 8.4). Node's `headersTimeout` only runs once
// bytes of a request have arrived, so a client could open sockets, send nothing and hold them; here
// a new connection must begin its first request within the headers deadline. After that, Node's own
// keep-alive timer (between requests) and header/request deadlines take over; a response in
// progress is never cut by this guard.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export function guardSilentConnections(server: Server, firstRequestMs: number): void {
  const waiting = new WeakSet<Socket>();
  server.on('connection', (socket: Socket) => {
    waiting.add(socket);
    socket.setTimeout(firstRequestMs, () => socket.destroy());
  });
  server.on('request', ({ socket }: { socket: Socket }) => {
    if (waiting.delete(socket)) socket.setTimeout(0);
  });
}
