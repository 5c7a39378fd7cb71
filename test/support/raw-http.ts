// Raw HTTP/1.x over a TCP socket, for requests fetch() cannot send: absolute-form targets, missing
// or malformed Host headers, bodies that trickle or stop short. Resolves with what came back and
// whether (and when) the server closed the connection.
import { connect, type Socket } from 'node:net';

export interface RawExchange {
  /** Status code of the first response, or undefined if none arrived. */
  readonly status: number | undefined;
  readonly text: string;
  /** Milliseconds from connect until the server closed the socket. */
  readonly closedAfterMs: number;
}

export function gatewayPort(url: string): number {
  return Number(new URL(url).port);
}

/** Sends `head` (and optional body chunks, one per `intervalMs`), then waits for the server to close. */
export function rawExchange(
  port: number,
  head: string,
  options: { chunks?: readonly string[]; intervalMs?: number; maxWaitMs?: number } = {},
): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`server kept the connection open for ${options.maxWaitMs ?? 15_000} ms`));
    }, options.maxWaitMs ?? 15_000);
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => (text += data));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(giveUp);
      clearInterval(timer);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
      resolve({
        status: status === undefined ? undefined : Number(status),
        text,
        closedAfterMs: Date.now() - started,
      });
    });
    socket.on('connect', () => {
      socket.write(head);
      const chunks = [...(options.chunks ?? [])];
      if (chunks.length === 0) return;
      timer = setInterval(() => {
        const next = chunks.shift();
        if (next === undefined || socket.destroyed) return clearInterval(timer);
        socket.write(next);
      }, options.intervalMs ?? 1000);
    });
  });
}

/** The JSON body of a raw response (after the blank line), parsed. */
export function rawJson(exchange: RawExchange): unknown {
  const start = exchange.text.indexOf('\r\n\r\n');
  const body = exchange.text.slice(start + 4);
  // A chunked body: take the first chunk's payload.
  const chunked = /^[0-9a-f]+\r\n([\s\S]*?)\r\n/i.exec(body);
  return JSON.parse(chunked !== null && !body.trimStart().startsWith('{') ? (chunked[1] as string) : body);
}
