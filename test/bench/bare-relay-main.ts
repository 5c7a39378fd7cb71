// The floors under the relay benchmarks (issue 45): the least a Node relay can do, measured beside
// the gateway. No auth, no parsing, no policy, no audit; the MCP headers are passed on, the body
// goes to the upstream as bytes on a keep-alive pool, and the upstream's answer goes back as it came.
// - default: the gateway's own parts — fastify receives the body, undici's `request` sends it;
// - `--node-http`: the least Node itself allows — `node:http` receives the body and undici's
//   `dispatch` sends it with a handler that only collects the answer (no framework, no response
//   object, no stream).
// `node bare-relay-main.js <upstream url> [--node-http]`; prints "listening on <origin>" on stderr,
// as the gateway does.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { Agent, request, type Dispatcher } from 'undici';

const upstream = process.argv[2] ?? '';
const pool = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
const FORWARDED = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];

function forwarded(incoming: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = incoming.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

async function fastifyRelay(): Promise<string> {
  const app = Fastify({ logger: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.post('/mcp', async (incoming, reply) => {
    const answer = await request(upstream, {
      method: 'POST',
      headers: forwarded(incoming.raw),
      body: incoming.body as Buffer,
      dispatcher: pool,
    });
    const bytes = Buffer.from(await answer.body.arrayBuffer());
    return reply
      .code(answer.statusCode)
      .type(String(answer.headers['content-type'] ?? 'application/json'))
      .send(bytes);
  });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
  return app.listen({ host: '127.0.0.1', port: 0 });
}

/** Collects one answer and writes it back whole. */
class PassBack implements Dispatcher.DispatchHandler {
  private status = 502;
  private type = 'application/json';
  private readonly chunks: Buffer[] = [];

  constructor(private readonly response: ServerResponse) {}

  onRequestStart(): void {
    // undici requires the method; there is nothing to do when the request starts.
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, unknown>,
  ) {
    this.status = status;
    const type = headers['content-type'];
    if (typeof type === 'string') this.type = type;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer) {
    this.chunks.push(chunk);
  }

  onResponseEnd() {
    const bytes = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    this.response.writeHead(this.status, { 'content-type': this.type, 'content-length': bytes.length });
    this.response.end(bytes);
  }

  onResponseError() {
    this.response.writeHead(502).end();
  }
}

async function nodeHttpRelay(): Promise<string> {
  const target = new URL(upstream);
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      pool.dispatch(
        {
          origin: target.origin,
          path: target.pathname,
          method: 'POST',
          headers: forwarded(incoming),
          body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks),
        },
        new PassBack(response),
      );
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const origin = process.argv.includes('--node-http') ? await nodeHttpRelay() : await fastifyRelay();
process.stderr.write(`listening on ${origin}\n`);
