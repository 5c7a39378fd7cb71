// The demo upstream MCP server that `npm start` connects to. Speaks stdio by default (the gateway
// starts it as a child process); `--http PORT` serves stateless Streamable HTTP (2026-07-28 and
// 2025-era clients) on 127.0.0.1 instead, for trying an HTTP source (`--host 0.0.0.0` in a pod:
// test/e2e/kind runs it next to the gateway from the same image).
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { setFlagsFromString } from 'node:v8';
import { createDemoServer, type Note } from './demo-tools.js';

// Like the gateway (gateway/platform/heap-growth.ts): V8's own growth factor let this server's heap
// grow to four times what was live under a load of thousands of calls a second, garbage it collects
// later; 1.5× keeps the README example's RSS near what it uses (docs/benchmarks.md, issue 45).
setFlagsFromString('--heap-growing-percent=50');

const notes: Note[] = [{ id: 1, title: 'Welcome', body: 'This note lives in the demo MCP server.' }];

async function serveHttp(port: number, host: string): Promise<void> {
  const handler = createMcpHandler(() => createDemoServer(notes), { legacy: 'stateless' });
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string') headers.set(name, value);
      const body =
        chunks.length > 0 && req.method !== 'GET' && req.method !== 'HEAD'
          ? Buffer.concat(chunks)
          : undefined;
      const response = await handler.fetch(
        new Request(`http://127.0.0.1:${port}${req.url ?? '/'}`, {
          method: req.method ?? 'GET',
          headers,
          ...(body ? { body } : {}),
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body === null) res.end();
      else Readable.fromWeb(response.body).pipe(res);
    })().catch(() => {
      res.statusCode = 500;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  process.stderr.write(
    `demo MCP server on http://${host}:${typeof address === 'object' && address ? address.port : port}/mcp\n`,
  );
}

const httpFlag = process.argv.indexOf('--http');
if (httpFlag >= 0) {
  const hostFlag = process.argv.indexOf('--host');
  await serveHttp(
    Number(process.argv[httpFlag + 1] ?? '0'),
    hostFlag >= 0 ? (process.argv[hostFlag + 1] ?? '127.0.0.1') : '127.0.0.1',
  );
} else {
  await createDemoServer(notes).connect(new StdioServerTransport());
}
