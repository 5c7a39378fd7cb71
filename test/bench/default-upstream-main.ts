// A benchmark upstream as most real v2-SDK servers are: `createMcpHandler` with legacy stateless
// support and no cache hints, so every tools/list answers `ttlMs: 0`. One `echo` tool. Prints its
// URL as one JSON line on stdout and runs until stdin closes or it is killed.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const handler = createMcpHandler(
  () => {
    const server = new McpServer({ name: 'default-sdk-echo', version: '1.0.0' });
    server.registerTool(
      'echo',
      {
        description: 'Returns the given text.',
        inputSchema: z.object({ text: z.string() }),
        annotations: { readOnlyHint: true },
      },
      ({ text }) => ({ content: [{ type: 'text', text }] }),
    );
    return server;
  },
  { legacy: 'stateless' },
);
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    void (async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string') headers.set(name, value);
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const response = await handler.fetch(
        new Request(`http://127.0.0.1${req.url ?? '/'}`, {
          method: req.method ?? 'GET',
          headers,
          ...(body ? { body } : {}),
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      // Streamed, not buffered: an SSE answer (or a GET stream) stays open while the client reads.
      if (response.body === null) res.end();
      else Readable.fromWeb(response.body).pipe(res);
    })().catch(() => {
      res.statusCode = 500;
      res.end();
    });
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` })}\n`,
  );
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
