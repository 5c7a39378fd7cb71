// A benchmark upstream in its own process for the abuse benchmark: a 2026-07-28 v2-SDK server whose
// `big` tool answers with `mb` megabytes of text and whose `echo` answers at once. Prints its URL as
// one JSON line on stdout and runs until stdin closes or it is killed.
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { listen, sendFetchResponse, toFetchRequest } from '../fixtures/upstreams/http-bridge.js';

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
}

const handler = createMcpHandler(() => createServer(), { legacy: 'reject' });
const listening = await listen(async (req, res, body) => {
  const response = await handler.fetch(toFetchRequest(req, res, body, listening.origin));
  await sendFetchResponse(res, response);
});
process.stdout.write(`${JSON.stringify({ url: `${listening.origin}/mcp` })}\n`);
const stop = () => void listening.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
