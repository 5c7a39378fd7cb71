// A benchmark upstream as most real v2-SDK servers are: `createMcpHandler` with legacy stateless
// support and no cache hints, so every tools/list answers `ttlMs: 0`. With `--ttl-ms N` it gives
// tools/list the cache hint `ttlMs: N` (public) and is otherwise the same server. One `echo` tool,
// served through the fixtures' node:http bridge. Prints its URL as one JSON line on stdout and runs
// until stdin closes or it is killed.
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { registerEcho, serveUpstream } from './serve-upstream.js';

const ttlArgument = process.argv.indexOf('--ttl-ms');
const ttlMs = ttlArgument < 0 ? undefined : Number(process.argv[ttlArgument + 1]);
const handler = createMcpHandler(
  () => {
    const server = new McpServer(
      { name: 'default-sdk-echo', version: '1.0.0' },
      ttlMs === undefined ? {} : { cacheHints: { 'tools/list': { ttlMs, cacheScope: 'public' } } },
    );
    registerEcho(server);
    return server;
  },
  { legacy: 'stateless' },
);
await serveUpstream(handler);
