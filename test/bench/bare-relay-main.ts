// The floor under the allocation benchmark (issue 45): the least a Node relay built from the
// gateway's own parts can do — fastify receives the body as bytes, undici sends it to the upstream
// on a keep-alive pool with the MCP headers, and the upstream's answer goes back as it came. No
// auth, no parsing, no policy, no audit. `node bare-relay-main.js <upstream url>`; prints
// "listening on <origin>" on stderr, as the gateway does.
import Fastify from 'fastify';
import { Agent, request } from 'undici';

const upstream = process.argv[2] ?? '';
const pool = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
const FORWARDED = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];
const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
app.post('/mcp', async (incoming, reply) => {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = incoming.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const answer = await request(upstream, {
    method: 'POST',
    headers,
    body: incoming.body as Buffer,
    dispatcher: pool,
  });
  const bytes = Buffer.from(await answer.body.arrayBuffer());
  return reply
    .code(answer.statusCode)
    .type(String(answer.headers['content-type'] ?? 'application/json'))
    .send(bytes);
});
const origin = await app.listen({ host: '127.0.0.1', port: 0 });
process.stderr.write(`listening on ${origin}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
