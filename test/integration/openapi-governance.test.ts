// What every source has, on an OpenAPI source's tools (issue 44, "everything else a source has"): a
// CEL policy over a call's arguments, pinning (held until the offered digest is approved, then
// served), the naming policy (`prefix: never`), tool search (`find_tools` finds an operation by
// what it does) and the audit record of a call, against the REST API the tests run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_API_TOKEN, startRestApi, type RunningRestApi } from '../fixtures/upstreams/rest-api-server.js';
import { auditRecordOf } from '../support/audit-records.js';
import { keyRecord, newKeys } from '../support/gateway-document.js';
import { mcpPost, startHarness, type Harness } from '../support/gateway-harness.js';
import { rpcCall } from '../support/mcp-clients.js';
import { until } from '../support/until.js';

const [writer, searcher] = newKeys(2);
let rest: RunningRestApi;
let h: Harness;

function openapiSource(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    transport: 'openapi',
    url: rest.url,
    credential: { type: 'bearer', secret: { env: 'REST_TOKEN' } },
    openapi: { document: { inline: rest.document }, include: { tags: ['items'] } },
    ...extra,
  };
}

function document(approved: Record<string, string> = {}): Record<string, unknown> {
  return {
    workspaces: [
      {
        name: 'gov',
        mcpSources: [
          openapiSource('items'),
          openapiSource('pinned', { pinning: { mode: 'pin', approved } }),
          openapiSource('plain', {
            prefix: 'never',
            openapi: { document: { inline: rest.document }, include: { operationIds: ['listItems'] } },
          }),
        ],
        governance: {
          policies: [
            {
              name: 'no-a1',
              tools: ['items__getItem'],
              effect: 'deny',
              when: "args.id == 'a1'",
              message: 'item a1 is off limits',
            },
          ],
        },
        keys: [
          keyRecord(writer, { access: 'write' }),
          keyRecord(searcher, { access: 'write', toolDisclosure: 'search' }),
        ],
      },
    ],
  };
}

beforeAll(async () => {
  rest = await startRestApi();
  h = await startHarness(document(), { REST_TOKEN: REST_API_TOKEN });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await rest?.close();
});

async function listedNames(): Promise<string[]> {
  const listed = await rpcCall(h.url, writer.key, 'tools/list', {});
  return ((listed.result?.['tools'] as { name: string }[] | undefined) ?? []).map((t) => t.name).sort();
}

describe('an OpenAPI source under governance', () => {
  it('openapi:gov-policy — a CEL rule over the arguments refuses the call with its message; nothing reaches the API; other arguments pass', async () => {
    const before = rest.log.length;
    const refused = await rpcCall(h.url, writer.key, 'tools/call', {
      name: 'items__getItem',
      arguments: { id: 'a1' },
    });
    expect(refused.error?.message).toContain('item a1 is off limits');
    expect(rest.log.length).toBe(before);
    const allowed = await rpcCall(h.url, writer.key, 'tools/call', {
      name: 'items__getItem',
      arguments: { id: 'b2' },
    });
    expect(allowed.result?.['structuredContent']).toMatchObject({ name: 'second' });
  });

  it('openapi:gov-naming — prefix never: the operation is named as the document names it', async () => {
    const names = await listedNames();
    expect(names).toContain('listItems');
    expect(names).toContain('items__listItems');
  });

  it('openapi:gov-pinning — under pin an OpenAPI tool is held until its offered digest is approved, then served', async () => {
    expect((await listedNames()).filter((n) => n.startsWith('pinned__'))).toEqual([]);
    const held = await rpcCall(h.url, writer.key, 'tools/call', { name: 'pinned__listItems', arguments: {} });
    expect(held.error?.data).toMatchObject({ reason: 'tool_not_approved', change: 'new' });
    const row = await until('the offered digests', async () => {
      const response = await fetch(`${h.url}/agent/sources/pinned?response_format=json`, {
        headers: { authorization: `Bearer ${writer.key}` },
      });
      const source = ((await response.json()) as { source: Record<string, unknown> }).source;
      return typeof source['unapproved_tools'] === 'string' ? source : undefined;
    });
    const approved = Object.fromEntries(
      [...String(row['unapproved_tools']).matchAll(/(\w+) \([^;]*; approve (sha256:[0-9a-f]{64})\)/g)].map(
        (m): [string, string] => [m[1] ?? '', m[2] ?? ''],
      ),
    );
    expect(Object.keys(approved)).toContain('listItems');
    const revision = h.gateway.config.current().revision;
    await h.writeConfig(document(approved));
    await h.waitForRevision(revision);
    const served = await until('the approved tools to be served', async () =>
      (await listedNames()).includes('pinned__listItems') ? true : undefined,
    );
    expect(served).toBe(true);
    const called = await rpcCall(h.url, writer.key, 'tools/call', {
      name: 'pinned__listItems',
      arguments: {},
    });
    expect(called.error).toBeUndefined();
  });

  it('openapi:gov-search — find_tools finds an operation by what it does, and call_tool runs it', async () => {
    const found = await rpcCall(h.url, searcher.key, 'tools/call', {
      name: 'find_tools',
      arguments: { query: 'create a new item' },
    });
    expect(JSON.stringify(found.result)).toContain('items__createItem');
    const made = await rpcCall(h.url, searcher.key, 'tools/call', {
      name: 'call_tool',
      arguments: { name: 'items__createItem', arguments: { body: { name: 'found' } } },
    });
    expect(JSON.stringify(made.result)).toContain('found');
    expect(rest.log.at(-1)).toMatchObject({ method: 'POST', rawUrl: '/v1/items' });
  });

  it('openapi:gov-audit — a call of an OpenAPI tool is audited with its source and tool, and no argument or result text', async () => {
    const response = await mcpPost(h.url, writer.key, {
      method: 'tools/call',
      params: { name: 'items__listItems', arguments: { tag: ['quetzal-marker'] } },
    });
    const record = await auditRecordOf(h.auditPath, response);
    expect(record).toMatchObject({
      method: 'tools/call',
      source: 'items',
      target: { kind: 'tool', requested: 'items__listItems' },
      decision: 'allowed',
      outcome: 'ok',
    });
    expect(JSON.stringify(record)).not.toContain('quetzal-marker');
  });
});
