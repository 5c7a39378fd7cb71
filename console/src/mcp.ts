// A minimal MCP 2026-07-28 client over the gateway's /mcp for the tool-call form: tools/list (for
// the input schemas) and tools/call, with the headers the inbound ladder requires (Mcp-Method,
// Mcp-Name, MCP-Protocol-Version and an Mcp-Param-* mirror for each `x-mcp-header` argument). An
// answer sent as a request-scoped SSE stream is read to its end and its JSON-RPC response taken.
import { MCP_PATH } from './console-base.js';
import type { GatewayApi } from './api.js';

export const PROTOCOL_VERSION = '2026-07-28';

export interface McpTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: JsonSchema;
}

export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly description?: string;
  readonly title?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: unknown;
  readonly 'x-mcp-header'?: string;
}

export interface RpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: { readonly code?: string; readonly class?: string };
}

export interface RpcAnswer<T> {
  readonly result?: T;
  readonly error?: RpcError;
}

export interface CallResult {
  readonly content?: readonly { readonly type: string; readonly text?: string }[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
  readonly resultType?: string;
}

const META = {
  'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'agent-gateway-console', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let nextId = 1;

export class McpClient {
  constructor(private readonly api: GatewayApi) {}

  async listTools(): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page += 1) {
      const answer = await this.request<{ tools: McpTool[]; nextCursor?: string }>(
        'tools/list',
        cursor === undefined ? {} : { cursor },
      );
      if (answer.error !== undefined) throw new Error(answer.error.message);
      tools.push(...(answer.result?.tools ?? []));
      cursor = answer.result?.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  callTool(tool: McpTool, args: Record<string, unknown>): Promise<RpcAnswer<CallResult>> {
    const headers: Record<string, string> = { 'mcp-name': tool.name };
    for (const [property, schema] of Object.entries(tool.inputSchema?.properties ?? {})) {
      const header = schema['x-mcp-header'];
      const value = args[property];
      if (typeof header !== 'string' || header === '' || value === undefined || value === null) continue;
      if (typeof value === 'string') headers[`mcp-param-${header.toLowerCase()}`] = mirrored(value);
      else if (typeof value === 'number' || typeof value === 'boolean')
        headers[`mcp-param-${header.toLowerCase()}`] = String(value);
    }
    return this.request<CallResult>('tools/call', { name: tool.name, arguments: args }, headers);
  }

  private async request<T>(
    method: string,
    params: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<RpcAnswer<T>> {
    const id = nextId++;
    const response = await this.api.send(MCP_PATH, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL_VERSION,
        'mcp-method': method,
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } }),
    });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    const messages = type.includes('text/event-stream') ? sseMessages(text) : [parse(text)];
    const answer = messages.find(
      (m): m is RpcAnswer<T> & { id: unknown } =>
        typeof m === 'object' && m !== null && (m as { id?: unknown }).id === id,
    );
    if (answer !== undefined) return answer;
    const first = messages[0] as RpcAnswer<T> | undefined;
    if (first?.error !== undefined) return first;
    throw new Error(`The gateway answered HTTP ${response.status} without a JSON-RPC response.`);
  }
}

/** A header value mirroring a string argument: printable ASCII as is, anything else as Base64. */
function mirrored(value: string): string {
  const safe = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !value.startsWith('=?');
  if (safe) return value;
  const bytes = new TextEncoder().encode(value);
  return `=?base64?${btoa(String.fromCharCode(...bytes))}?=`;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function sseMessages(text: string): unknown[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n'),
    )
    .filter((data) => data !== '')
    .map(parse);
}
