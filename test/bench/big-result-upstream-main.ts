// A benchmark upstream in its own process for the abuse benchmark: a 2026-07-28 v2-SDK server whose
// `big` tool answers with `mb` megabytes of text and whose `echo` answers at once. Prints its URL as
// one JSON line on stdout and runs until stdin closes or it is killed.
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { registerEcho, serveUpstream } from './serve-upstream.js';

function createServer(): McpServer {
  const server = new McpServer({ name: 'big-result-upstream', version: '1.0.0' });
  server.registerTool(
    'big',
    {
      description: 'Returns mb megabytes of text.',
      inputSchema: z.object({ mb: z.number().int().min(1).max(200) }),
      annotations: { readOnlyHint: true },
    },
    ({ mb }) => ({ content: [{ type: 'text', text: 'x'.repeat(mb * 1024 * 1024) }] }),
  );
  registerEcho(server);
  return server;
}

const handler = createMcpHandler(() => createServer(), { legacy: 'reject' });
await serveUpstream(handler);
