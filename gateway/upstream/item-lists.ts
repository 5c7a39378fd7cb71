// Resources, resource templates and prompts of one SDK-backed upstream, all pages (at most 64),
// with the smallest `ttlMs` cache hint any page gave. An upstream that does not offer the capability
// has none. The SDK's own list cache is bypassed: the gateway keeps its own discovery cache (per
// source ttl, refresh on demand), and the SDK's would answer a refresh from memory for every key.
import type { Client } from '@modelcontextprotocol/client';
import { withResponseGuard } from './response-guard.js';
import type { ItemList } from './upstream-connection.js';

type Capabilities = Record<string, unknown>;

export async function listResources(
  client: Client,
  capabilities: Capabilities,
  callSignal: AbortSignal,
  listMs: number,
): Promise<ItemList> {
  if (capabilities['resources'] === undefined) return { items: [], ttlMs: undefined };
  return collectPages(async (cursor) => {
    const page = await withResponseGuard(callSignal, (signal) =>
      client.listResources(cursor === undefined ? {} : { cursor }, {
        signal,
        timeout: listMs,
        cacheMode: 'bypass',
      }),
    );
    return { items: page.resources, nextCursor: page.nextCursor, ttlMs: cacheHint(page) };
  });
}

export async function listPrompts(
  client: Client,
  capabilities: Capabilities,
  callSignal: AbortSignal,
  listMs: number,
): Promise<ItemList> {
  if (capabilities['prompts'] === undefined) return { items: [], ttlMs: undefined };
  return collectPages(async (cursor) => {
    const page = await withResponseGuard(callSignal, (signal) =>
      client.listPrompts(cursor === undefined ? {} : { cursor }, {
        signal,
        timeout: listMs,
        cacheMode: 'bypass',
      }),
    );
    return { items: page.prompts, nextCursor: page.nextCursor, ttlMs: cacheHint(page) };
  });
}

export async function listResourceTemplates(
  client: Client,
  capabilities: Capabilities,
  callSignal: AbortSignal,
  listMs: number,
): Promise<ItemList> {
  if (capabilities['resources'] === undefined) return { items: [], ttlMs: undefined };
  return collectPages(async (cursor) => {
    const page = await withResponseGuard(callSignal, (signal) =>
      client.listResourceTemplates(cursor === undefined ? {} : { cursor }, {
        signal,
        timeout: listMs,
        cacheMode: 'bypass',
      }),
    );
    return { items: page.resourceTemplates, nextCursor: page.nextCursor, ttlMs: cacheHint(page) };
  });
}

/** Follows `nextCursor` through at most 64 pages (the SDK's own cap for aggregated lists). */
async function collectPages(
  fetchPage: (
    cursor: string | undefined,
  ) => Promise<{ items: readonly object[]; nextCursor: string | undefined; ttlMs: number | undefined }>,
): Promise<ItemList> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  let ttlMs: number | undefined;
  for (let page = 0; page < 64; page += 1) {
    const result = await fetchPage(cursor);
    items.push(...(result.items as Record<string, unknown>[]));
    if (result.ttlMs !== undefined)
      ttlMs = ttlMs === undefined ? result.ttlMs : Math.min(ttlMs, result.ttlMs);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return { items, ttlMs };
}

/** A list result's `ttlMs` cache hint (2026 servers), if it has a usable one. */
function cacheHint(result: object): number | undefined {
  const hint = (result as { ttlMs?: unknown }).ttlMs;
  return typeof hint === 'number' && Number.isFinite(hint) ? hint : undefined;
}
