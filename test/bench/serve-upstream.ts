// Runs a benchmark upstream in its own process: serves a v2-SDK MCP handler through the fixtures'
// node:http bridge on a free port, prints `{"url": …}` as one JSON line on stdout (what
// startChild waits for) and runs until stdin closes or the process gets SIGTERM. registerEcho adds
// the read-only `echo` tool the benchmark upstreams share.
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { listen, sendFetchResponse, toFetchRequest } from '../fixtures/upstreams/http-bridge.js';

export async function serveUpstream(handler: { fetch(request: Request): Promise<Response> }): Promise<void> {
  const listening = await listen(async (req, res, body) => {
    await sendFetchResponse(res, await handler.fetch(toFetchRequest(req, res, body, listening.origin)));
  });
  process.stdout.write(`${JSON.stringify({ url: `${listening.origin}/mcp` })}\n`);
  const stop = () => void listening.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}

/** The read-only `echo` tool: returns the given text at once. */
export function registerEcho(server: McpServer): void {
  server.registerTool(
    'echo',
    {
      description: 'Returns the given text.',
      inputSchema: z.object({ text: z.string() }),
      annotations: { readOnlyHint: true },
    },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
}
