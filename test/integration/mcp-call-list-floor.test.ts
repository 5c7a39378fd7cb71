// tools/call through a default v2-SDK upstream (no cache hints: every tools/list says ttlMs 0),
// issue 13: calls within the source's callListFloorMs are decided on the last list (one upstream
// tools/list for a burst of calls, not one per call); a tool that becomes read-only upstream is
// allowed at once (a refusal is re-checked on a fresh list); a tool that stops being read-only is
// judged on the previous list for at most the floor, then refused. Real gateway, real SDK server.
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { listen, sendFetchResponse, toFetchRequest } from '../fixtures/upstreams/http-bridge.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { get, mcpPost, startWorkspace, fileHarness } from '../support/gateway-harness.js';

const FLOOR_MS = 1500;
const reader = newKey();
const state = { readOnly: false };
let upstream: Awaited<ReturnType<typeof listen>>;
let closeHandler: () => Promise<void>;

const h = fileHarness(
  async () => {
    const handler = createMcpHandler(() => {
      const server = new McpServer({ name: 'default-sdk', version: '1.0.0' });
      server.registerTool(
        'flip',
        {
          description: 'Changes its read-only annotation.',
          inputSchema: z.object({}),
          annotations: { readOnlyHint: state.readOnly },
        },
        () => ({ content: [{ type: 'text', text: 'flipped' }] }),
      );
      return server;
    });
    closeHandler = () => handler.close();
    upstream = await listen(async (req, res, body) => {
      await sendFetchResponse(res, await handler.fetch(toFetchRequest(req, res, body, upstream.origin)));
    });
    return startWorkspace({
      mcpSources: [
        httpSource('sdk', `${upstream.origin}/mcp`, {
          callListFloorMs: FLOOR_MS,
        }),
      ],
      keys: [keyRecord(reader, { access: 'read' })],
    });
  },
  async () => {
    await closeHandler?.();
    await upstream?.close();
  },
);

const lists = () => upstream.log.filter((entry) => entry.rpcMethod === 'tools/list').length;
const call = async (id: number) =>
  (await (
    await mcpPost(h.url, reader.key, {
      id,
      method: 'tools/call',
      params: { name: 'sdk__flip', arguments: {} },
    })
  ).json()) as {
    result?: unknown;
    error?: { code: number };
  };

it('mcp:call-list-floor — a burst of calls on a ttlMs 0 upstream lists it once; the floor is in /agent/sources', async () => {
  state.readOnly = true;
  // Past the floor of the start-up listing: the first call lists, the burst right after does not.
  await new Promise((resolve) => setTimeout(resolve, FLOOR_MS + 100));
  const before = lists();
  expect((await call(1)).result).toBeDefined();
  expect(lists() - before).toBe(1);
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => call(i + 2)));
  expect(results.every((r) => r.result !== undefined)).toBe(true);
  expect(lists() - before).toBe(1);
  const sources = (await (await get(`${h.url}/agent/sources?response_format=json`, reader.key)).json()) as {
    sources: { id: string; call_list_floor_ms: number | null }[];
  };
  expect(sources.sources.find((s) => s.id === 'sdk')?.call_list_floor_ms).toBe(FLOOR_MS);
});

it('mcp:call-list-floor — becoming read-only upstream is honoured at once; ceasing to be is honoured within the floor', async () => {
  // Start from a fresh write-only list (past the floor).
  state.readOnly = false;
  await new Promise((resolve) => setTimeout(resolve, FLOOR_MS + 100));
  expect((await call(20)).error?.code).toBe(-31003);
  // Upstream makes it read-only: the refusal from the reused list is re-checked at once.
  state.readOnly = true;
  expect((await call(21)).result).toBeDefined();
  // Upstream makes it a write tool again: within the floor the last list still allows it ...
  state.readOnly = false;
  expect((await call(22)).result).toBeDefined();
  // ... and once the floor has passed the call is refused.
  await new Promise((resolve) => setTimeout(resolve, FLOOR_MS + 100));
  expect((await call(23)).error?.code).toBe(-31003);
});
