// The SDK v2 client and the raw JSON-RPC call the MCP integration tests share: a client connected to
// a gateway's /mcp with a key (`auto`: 2026-07-28 first; `legacy`: the 2025 handshake), and one
// modern POST whose JSON answer is returned parsed.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll } from 'vitest';
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

/** A file's clients of one key: `connect(era)` connects one to the gateway (read when called, so a
 * `fileHarness` handle will do); all are closed after the file's tests. */
export function fileClients(
  gateway: { readonly url: string },
  key: string,
): (era: 'auto' | 'legacy') => Promise<Client> {
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });
  return async (era) => {
    const connected = await connectClient(gateway.url, key, era);
    clients.push(connected);
    return connected;
  };
}

/**
 * The v1 SDK (2025-era) client connected to a gateway's /mcp with `key`: `updates` collects the URI of
 * every notifications/resources/updated it hears (on the GET stream it opens after initialize).
 */
export async function connectUpdateListener(
  gatewayUrl: string,
  key: string,
  name: string,
): Promise<{ client: LegacyClient; updates: string[] }> {
  const client = new LegacyClient({ name, version: '1.0.0' });
  const updates: string[] = [];
  client.setNotificationHandler(
    ResourceUpdatedNotificationSchema,
    (note) => void updates.push(note.params.uri),
  );
  await client.connect(
    new LegacyTransport(new URL(`${gatewayUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return { client, updates };
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

export interface DocumentPage {
  chunks: { chunk_id: string; text: string }[];
  next_cursor?: string;
}

/** One page of the get_document tool's answer (structuredContent) for `docId`, from `cursor` on. */
export async function getDocumentPage(
  gatewayUrl: string,
  key: string,
  docId: string | undefined,
  cursor?: string,
): Promise<DocumentPage> {
  const response = await mcpPost(gatewayUrl, key, {
    method: 'tools/call',
    params: { name: 'get_document', arguments: { doc_id: docId, cursor } },
  });
  return ((await response.json()) as { result: { structuredContent: DocumentPage } }).result
    .structuredContent;
}
