// Lists an upstream's tools, all pages, on either path (issue 37.11): through the byte-faithful
// relay for 2026-07-28 HTTP upstreams (issue 13: the SDK client's fetch-based request cost about as
// much again as the listing itself), or through the SDK client for 2025-era and stdio upstreams —
// asking for the raw result (`ANY_RESULT`), because the client's own list schema would refuse the
// whole list for one tool. Every page is then read by tool-list-reader.ts, one tool at a time.
import { gatewayUiCapability } from './apps-capability.js';
import type { Client, Tool } from '@modelcontextprotocol/client';
import { META, MODERN_VERSION } from '../protocol/index.js';
import type { Relay } from './modern-relay.js';
import { withResponseGuard } from './response-guard.js';
import { ANY_RESULT, readToolPage, type SkippedUpstreamTool, type ToolPage } from './tool-list-reader.js';

/** The SDK's own cap for aggregated lists. */
const MAX_PAGES = 64;

export interface ListedTools {
  readonly tools: readonly Tool[];
  /** The upstream's cache hint (2026 servers): the smallest over the pages; undefined without one. */
  readonly ttlMs: number | undefined;
  /** Tools left out because their definition cannot be used, with why. */
  readonly skipped: readonly SkippedUpstreamTool[];
}

export type PageReader = (cursor: string | undefined) => Promise<ToolPage>;

/** Follows `nextCursor` through at most 64 pages. */
export async function listAllTools(readPage: PageReader): Promise<ListedTools> {
  const tools: Tool[] = [];
  const skipped: SkippedUpstreamTool[] = [];
  let cursor: string | undefined;
  let ttlMs: number | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await readPage(cursor);
    tools.push(...result.tools);
    skipped.push(...result.skipped);
    const hint = result.ttlMs;
    if (typeof hint === 'number') ttlMs = ttlMs === undefined ? hint : Math.min(ttlMs, hint);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return { tools, ttlMs, skipped };
}

/** One page of a 2026-07-28 upstream's tool list through the relay. */
export async function relayToolsPage(
  relay: Relay,
  cursor: string | undefined,
  signal: AbortSignal,
  clientInfo: { readonly name: string; readonly version: string },
): Promise<ToolPage> {
  const result = await relay({
    method: 'tools/list',
    params: {
      ...(cursor === undefined ? {} : { cursor }),
      _meta: {
        [META.protocolVersion]: MODERN_VERSION,
        [META.clientCapabilities]: gatewayUiCapability(),
        [META.clientInfo]: { name: clientInfo.name, version: clientInfo.version },
      },
    },
    paramHeaders: {},
    nameHeader: undefined,
    signal,
    onNotification: () => undefined,
  });
  return readToolPage(result);
}

/** One page through the SDK client. Like `client.listTools()`, an upstream that does not offer
 * tools has none (nothing is asked); unlike it, nothing is cached: the gateway keeps its own
 * discovery cache (per source ttl, refresh on demand), shared by every key of the workspace. */
export async function clientToolsPage(
  client: Client,
  offersTools: boolean,
  cursor: string | undefined,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<ToolPage> {
  if (!offersTools) return { tools: [], skipped: [], nextCursor: undefined, ttlMs: undefined };
  const result = await withResponseGuard(signal, (guarded) =>
    client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ANY_RESULT, {
      signal: guarded,
      timeout: timeoutMs,
    }),
  );
  return readToolPage(result);
}
