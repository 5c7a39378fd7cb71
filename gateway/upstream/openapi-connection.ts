// The UpstreamConnection of an OpenAPI source (issue 44): a REST API whose operations are the
// source's tools (gateway/openapi: the document read as tools, the request a call becomes, the
// answer read as a tool result). The document is read once per connection (a URL through the
// tenant's reach policy, without the source's credential; a file; or the text itself) and bounded;
// each call is one HTTP request with the source's credential (static, client credentials, token
// exchange or a user's grant: the same token source as MCP sources), through the reach policy on the
// address it resolves to, under the call time-out, with the answer capped at the source's
// `limits.maxResponseBytes`. An HTTP error is the tool's error (with its status), never a failure
// of the source; a network failure or time-out is. No resources, prompts or completions.
import type { Tool } from '@modelcontextprotocol/client';
import { readFile, stat } from 'node:fs/promises';
import type { McpSourceConfig } from '../config/index.js';
import { readBytesLimited } from '../platform/read-limited.js';
import {
  buildRequest,
  httpToolResult,
  InvalidToolArguments,
  OpenApiDocumentError,
  openApiCatalog,
  type OpenApiCatalog,
  type OpenApiTool,
} from '../openapi/index.js';
import { readTool, type SkippedUpstreamTool } from './tool-list-reader.js';
import type { CallOptions, ConnectDeps, UpstreamConnection } from './upstream-connection.js';
import { authorized, baseFetch } from './upstream-transport.js';
import { UpstreamRpcError } from './upstream-rpc-error.js';

/** The largest document read when the source names no limit. */
const DEFAULT_MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

/** The document's text, from where the source says, at most `maxBytes`. */
async function documentText(
  source: McpSourceConfig,
  deps: ConnectDeps,
  maxBytes: number,
  signal: AbortSignal,
): Promise<string> {
  const document = source.openapi?.document;
  if (document === undefined) throw new OpenApiDocumentError('the source names no OpenAPI document');
  const tooLarge = (bytes: number) =>
    new OpenApiDocumentError(
      `the document is larger than ${Math.round(maxBytes / 1024)} KiB (${Math.round(bytes / 1024)} KiB or more)`,
    );
  if ('inline' in document) {
    if (Buffer.byteLength(document.inline, 'utf8') > maxBytes)
      throw tooLarge(Buffer.byteLength(document.inline));
    return document.inline;
  }
  if ('path' in document) {
    // Under a tenant reach policy a workspace names no file of the gateway's.
    if (deps.guard !== undefined)
      throw new OpenApiDocumentError(
        'a document path is not read under a tenant reach policy; give the document inline',
      );
    const size = (await stat(document.path).catch(() => undefined))?.size;
    if (size === undefined) throw new OpenApiDocumentError('the document file cannot be read');
    if (size > maxBytes) throw tooLarge(size);
    return readFile(document.path, 'utf8');
  }
  const response = await baseFetch(deps)(document.url, {
    headers: { accept: 'application/json, application/yaml;q=0.9, text/yaml;q=0.9, */*;q=0.5' },
    redirect: 'error',
    signal,
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new OpenApiDocumentError(`the document URL answered HTTP ${response.status}`);
  }
  const { body, truncated } = await readBytesLimited(response, maxBytes);
  if (truncated) throw tooLarge(maxBytes + 1);
  return body.toString('utf8');
}

/** The API's base URL: the source's `url`, else the document's first server (resolved against the
 * document's URL when relative). */
function baseUrlOf(source: McpSourceConfig, catalog: OpenApiCatalog): string {
  if (source.url !== undefined) return source.url;
  const server = catalog.servers[0];
  const document = source.openapi?.document;
  if (server !== undefined) {
    try {
      const resolved =
        document !== undefined && 'url' in document ? new URL(server, document.url) : new URL(server);
      if (resolved.protocol === 'http:' || resolved.protocol === 'https:') return resolved.toString();
    } catch {
      // not a URL: below
    }
  }
  throw new OpenApiDocumentError(
    'there is no base URL: set the source url, or give the document an absolute http(s) servers entry',
  );
}

/** The object without its undefined fields (optional config fields are absent, not undefined). */
function definedFields<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

function mcpTool(tool: OpenApiTool): Record<string, unknown> {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  };
}

/** `forBase`: the deps of a source without `url` once its base URL is known from the document, so
 * that an OAuth credential's token is for that URL (its default RFC 8707 resource), not for none. */
export async function connectOpenApi(
  source: McpSourceConfig,
  deps: ConnectDeps,
  forBase?: (url: string) => ConnectDeps,
): Promise<UpstreamConnection> {
  const limits = source.openapi?.limits ?? {};
  const text = await documentText(
    source,
    deps,
    limits.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES,
    AbortSignal.timeout(source.timeouts.connectMs),
  );
  const catalog = await openApiCatalog(text, {
    filter: definedFields(source.openapi?.include ?? {}),
    limits: definedFields(limits),
  });
  const base = baseUrlOf(source, catalog);
  const tools: Tool[] = [];
  const skipped: SkippedUpstreamTool[] = catalog.skipped.map((s) => ({
    name: s.operation,
    reason: s.reason,
  }));
  for (const tool of catalog.tools) {
    const read = readTool(mcpTool(tool));
    if ('tool' in read) tools.push(read.tool);
    else skipped.push(read.skipped);
  }
  const byName = new Map(catalog.tools.map((tool) => [tool.name, tool]));
  const send = authorized(source.url === undefined && forBase !== undefined ? forBase(base) : deps, source);
  const empty = { items: [], ttlMs: undefined };
  return {
    era: 'openapi',
    transport: 'openapi',
    connectedAt: new Date().toISOString(),
    relay: undefined,
    listTools: () => Promise.resolve({ tools, ttlMs: undefined, skipped }),
    listResources: () => Promise.resolve(empty),
    listPrompts: () => Promise.resolve(empty),
    listResourceTemplates: () => Promise.resolve(empty),
    complete: () => Promise.resolve({ completion: { values: [], hasMore: false } }),
    readResource: () => Promise.reject(new UpstreamRpcError(-32602, 'Resource not found', undefined, 200)),
    getPrompt: () => Promise.reject(new UpstreamRpcError(-32602, 'Prompt not found', undefined, 200)),
    async callTool(name, args, options: CallOptions) {
      const tool = byName.get(name);
      if (tool === undefined) throw new UpstreamRpcError(-32602, `Unknown tool: ${name}`, undefined, 200);
      let request;
      try {
        request = buildRequest(base, tool, args);
      } catch (error) {
        if (error instanceof InvalidToolArguments)
          return { content: [{ type: 'text', text: error.message }], isError: true };
        throw error;
      }
      // fetch cannot send a body with GET or HEAD (a document may still describe one).
      if (request.body !== undefined && (request.method === 'GET' || request.method === 'HEAD'))
        return {
          content: [
            {
              type: 'text',
              text: `This ${request.method} operation has a request body, which cannot be sent.`,
            },
          ],
          isError: true,
        };
      const response = await send(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        redirect: 'manual',
        signal: options.signal,
      });
      const { body, truncated } = await readBytesLimited(response, source.limits.maxResponseBytes);
      return httpToolResult({
        status: response.status,
        contentType: response.headers.get('content-type') ?? undefined,
        body,
        truncated,
      });
    },
    close: () => Promise.resolve(),
  };
}
