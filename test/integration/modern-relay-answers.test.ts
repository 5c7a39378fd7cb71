// The 2026 relay's own answer handler (issue 45: undici `dispatch`, no response object or body
// stream) against a real HTTP server that answers as scripted: event streams split anywhere,
// notifications before the answer, streams that never end, stalls, refusals, 401 retries, caps,
// and odd content types. Each case checks the value or error the relay settles with and what the
// server saw (its requests, its connections, whether the exchange was closed).
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createModernRelay,
  type ModernRelay,
  type RelayRequest,
} from '../../gateway/upstream/modern-relay.js';
import type { TokenSource } from '../../gateway/upstream/token-source.js';
import {
  UpstreamHttpError,
  UpstreamProtocolError,
  UpstreamResponseTooLargeError,
} from '../../gateway/upstream/upstream-answer-errors.js';
import { UpstreamRpcError } from '../../gateway/upstream/upstream-rpc-error.js';

type Script = (request: IncomingMessage, response: ServerResponse, id: number, body: string) => void;

let server: Server;
let url: string;
let script: Script;
const seen: { headers: IncomingMessage['headers']; body: string; closedEarly: Promise<boolean> }[] = [];
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const closedEarly = new Promise<boolean>((resolve) => {
        response.once('close', () => resolve(!response.writableFinished));
      });
      seen.push({ headers: request.headers, body, closedEarly });
      const id = (JSON.parse(body) as { id: number }).id;
      script(request, response, id, body);
    });
  });
  server.on('connection', (socket: Socket) => sockets.add(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

let relay: ModernRelay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
  seen.length = 0;
  sockets.clear();
});

const noCredential: TokenSource = { headers: () => Promise.resolve({}), refused: () => false };

function relayWith(maxBytes = 1024 * 1024, credentials: TokenSource = noCredential): ModernRelay {
  relay = createModernRelay(url, credentials, maxBytes);
  return relay;
}

function call(target: ModernRelay, overrides: Partial<RelayRequest> = {}): Promise<Record<string, unknown>> {
  return target.relay({
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'hi' } },
    paramHeaders: {},
    nameHeader: 'echo',
    signal: new AbortController().signal,
    onNotification: () => undefined,
    ...overrides,
  });
}

function event(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

function answer(id: number, text: string): Record<string, unknown> {
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } };
}

describe('the relay reads an event stream as it arrives', () => {
  it('relay:answer-stream-split — notifications before the answer reach onNotification; an answer split across writes and CRLF line ends is whole; a finished stream keeps its connection', async () => {
    script = (_request, response, id) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const progress = event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } });
      const final = event(answer(id, 'done')).replace(/\n/g, '\r\n');
      const cut = Math.floor(final.length / 2);
      response.write(progress);
      response.write(`: a comment\n\n${final.slice(0, cut)}`);
      // The rest of the answer, then the end of the body a moment later, in a segment of its own.
      setTimeout(() => {
        response.write(final.slice(cut));
        setTimeout(() => response.end(), 5);
      }, 5);
    };
    const target = relayWith();
    const notes: Record<string, unknown>[] = [];
    const first = await call(target, { onNotification: (message) => notes.push(message) });
    expect(first).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(notes).toEqual([{ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } }]);
    expect(await seen[0]?.closedEarly).toBe(false);
    // The end of the body arrives after the answer; once it has, the connection is free again
    // (well inside the grace an answered stream has to end before it is closed).
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await call(target);
    expect(second).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(seen).toHaveLength(2);
    expect(sockets.size).toBe(1);
  });

  it('relay:answer-stream-open — the answer of a stream that stays open settles the call and the rest of the exchange is closed', async () => {
    script = (_request, response, id) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(event(answer(id, 'early')));
    };
    const result = await call(relayWith());
    expect(result).toEqual({ content: [{ type: 'text', text: 'early' }] });
    expect(await seen[0]?.closedEarly).toBe(true);
  });

  it('relay:answer-stream-missing — a stream that ends without our id is a protocol error; an error object is the upstream error', async () => {
    script = (_request, response, id) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(event(answer(id + 1000, 'not yours')));
    };
    const target = relayWith();
    await expect(call(target)).rejects.toThrow(UpstreamProtocolError);
    script = (_request, response, id) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(
        `data: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: 'bad' } })}`,
      );
    };
    const error = await call(target).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UpstreamRpcError);
    expect(error).toMatchObject({ code: -32602, message: 'bad' });
  });
});

describe('the relay keeps its caps', () => {
  it('relay:answer-caps — a declared length over the cap, a chunked JSON body passing it and one event over it are refused; many small events are not', async () => {
    const cap = 2048;
    const target = relayWith(cap);
    script = (_request, response, id) => {
      const body = JSON.stringify(answer(id, 'x'.repeat(cap)));
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
    };
    await expect(call(target)).rejects.toThrow(UpstreamResponseTooLargeError);
    script = (_request, response, id) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const body = JSON.stringify(answer(id, 'y'.repeat(cap)));
      response.write(body.slice(0, 1000));
      response.write(body.slice(1000, 2000));
      response.end(body.slice(2000));
    };
    await expect(call(target)).rejects.toThrow(UpstreamResponseTooLargeError);
    script = (_request, response, id) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(event(answer(id + 1, 'z'.repeat(cap))));
    };
    await expect(call(target)).rejects.toThrow(UpstreamResponseTooLargeError);
    expect(await seen[2]?.closedEarly).toBe(true);
    script = (_request, response, id) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < 20; i += 1)
        response.write(event({ jsonrpc: '2.0', method: 'notifications/message', params: { i } }));
      response.end(event(answer(id, 'small')));
    };
    const notes: unknown[] = [];
    const result = await call(target, { onNotification: (message) => notes.push(message) });
    expect(result).toEqual({ content: [{ type: 'text', text: 'small' }] });
    expect(notes).toHaveLength(20);
  });
});

describe('the relay reports what it cannot use', () => {
  it('relay:answer-odd-bodies — another content type, a refusal without an answer, a body that is not JSON and another request’s answer are told apart', async () => {
    const target = relayWith();
    script = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<p>hello</p>');
    };
    await expect(call(target)).rejects.toThrow(/unexpected content type "text\/html"/);
    script = (_request, response) => {
      response.writeHead(502, { 'content-type': 'text/plain' });
      response.end('bad gateway');
    };
    const refused = await call(target).catch((thrown: unknown) => thrown);
    expect(refused).toBeInstanceOf(UpstreamHttpError);
    expect(refused).toMatchObject({ status: 502 });
    script = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"jsonrpc":');
    };
    await expect(call(target)).rejects.toThrow(/the body is not JSON/);
    script = (_request, response, id) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer(id + 1, 'other')));
    };
    await expect(call(target)).rejects.toThrow(/belongs to another request/);
    script = (_request, response, id) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'boom' } }));
    };
    const rpc = await call(target).catch((thrown: unknown) => thrown);
    expect(rpc).toBeInstanceOf(UpstreamRpcError);
    expect(rpc).toMatchObject({ code: -32603 });
  });
});

describe('the relay stops when told', () => {
  it('relay:answer-abort — a call whose signal aborts while the upstream stalls rejects with the reason and closes the exchange; an aborted signal sends nothing', async () => {
    script = () => undefined;
    const target = relayWith();
    const controller = new AbortController();
    const pending = call(target, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 30));
    controller.abort(new DOMException('the call timed out', 'TimeoutError'));
    await expect(pending).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(await seen[0]?.closedEarly).toBe(true);
    const before = seen.length;
    const aborted = new AbortController();
    aborted.abort(new DOMException('gone', 'AbortError'));
    await expect(call(target, { signal: aborted.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen.length).toBe(before);
  });

  it('relay:answer-401-retry — a 401 the credential source refuses is retried once with a fresh credential; a static secret reports the 401 at once', async () => {
    let token = 'old';
    const refusedWith: string[] = [];
    const rotating: TokenSource = {
      headers: () => Promise.resolve({ authorization: `Bearer ${token}` }),
      refused: (headers) => {
        refusedWith.push(headers['authorization'] ?? '');
        token = 'new';
        return true;
      },
    };
    script = (request, response, id) => {
      if (request.headers['authorization'] !== 'Bearer new') {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end('{"error":"invalid_token"}');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer(id, 'fresh')));
    };
    const result = await call(relayWith(1024 * 1024, rotating));
    expect(result).toEqual({ content: [{ type: 'text', text: 'fresh' }] });
    expect(refusedWith).toEqual(['Bearer old']);
    expect(seen.map((request) => request.headers['authorization'])).toEqual(['Bearer old', 'Bearer new']);
    // The retry carries the same request (same id and body).
    expect(seen[1]?.body).toBe(seen[0]?.body);
    await relay?.close();
    seen.length = 0;
    const refused = await call(relayWith()).catch((thrown: unknown) => thrown);
    expect(refused).toBeInstanceOf(UpstreamHttpError);
    expect(refused).toMatchObject({ status: 401 });
    expect(seen).toHaveLength(1);
  });
});
