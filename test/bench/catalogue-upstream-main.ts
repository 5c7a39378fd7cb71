// A benchmark upstream over stdio that lists the tool-retrieval catalogue (issue 23): every tool of
// every server exactly as catalogued (an input schema without `type` gets `type: object`, which the
// protocol requires) under `<server id>_<tool>`, so tools of different servers keep apart in one
// source, and answers any call with the tool's name. Built on the v1 SDK's low-level server, which
// relays tool definitions as given.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { loadToolRetrievalSet } from './tool-retrieval/tool-retrieval-set.js';

const set = loadToolRetrievalSet();
const tools = set.catalogue.servers.flatMap((server) =>
  server.tools.map((tool) => ({
    name: `${server.id}_${tool.name}`,
    description: tool.description,
    inputSchema: { type: 'object' as const, ...tool.inputSchema },
  })),
);
const server = new Server({ name: 'catalogue-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, (request) => ({
  content: [{ type: 'text', text: `called ${request.params.name}` }],
}));
await server.connect(new StdioServerTransport());
