// The SDK v2 client and the raw JSON-RPC call the MCP integration tests share: a client connected to
// a gateway's /mcp with a key (`auto`: 2026-07-28 first; `legacy`: the 2025 handshake), and one
// modern POST whose JSON answer is returned parsed.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mcpPost } from './gateway-harness.js';

export async function connectClient(
  gatewayUrl: string,
  key: string,
  mode: 'auto' | 'legacy',
  name = 'it-client',
): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

export interface RpcAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export async function rpcCall(
  gatewayUrl: string,
  key: string,
  method: string,
  params: Record<string, unknown>,
): Promise<RpcAnswer> {
  const response = await mcpPost(gatewayUrl, key, { method, params });
  return (await response.json()) as RpcAnswer;
}
