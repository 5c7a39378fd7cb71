// A benchmark upstream process serving many sources over Streamable HTTP (2026-07-28): path
// `/mcp/<n>` is an MCP server listing catalogue server n mod 23 of the tool-retrieval set, tools
// under their own names with the published input schemas (`type: object` added where missing), and
// the cache hint `ttlMs` 600 s, so a benchmark's steady state reads lists from the gateway's cache.
// Prints `{"url": "<origin>/mcp"}` on stdout and runs until stdin closes or SIGTERM.
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { loadToolRetrievalSet } from './tool-retrieval/tool-retrieval-set.js';
import { serveUpstream } from './serve-upstream.js';

const servers = loadToolRetrievalSet().catalogue.servers;
const handlers = servers.map((catalogued) =>
  createMcpHandler(
    () => {
      const server = new McpServer(
        { name: `catalogue-${catalogued.id}`, version: '1.0.0' },
        { cacheHints: { 'tools/list': { ttlMs: 600_000, cacheScope: 'public' } } },
      );
      for (const tool of catalogued.tools)
        server.registerTool(
          tool.name,
          {
            description: tool.description,
            inputSchema: fromJsonSchema({ type: 'object', ...tool.inputSchema }),
          },
          () => ({ content: [{ type: 'text', text: `called ${tool.name}` }] }),
        );
      return server;
    },
    { legacy: 'reject' },
  ),
);

await serveUpstream({
  fetch(request: Request) {
    const index = Number(/\/mcp\/(\d+)/.exec(new URL(request.url).pathname)?.[1] ?? '0');
    return (handlers[index % handlers.length] as (typeof handlers)[number]).fetch(request);
  },
});
