// OpenAPI sources (issue 44) through a real gateway: a REST API the tests run (its own OpenAPI 3.1
// document, fetched from the API itself), Stoplight Prism serving the Petstore document, GitHub's
// published document (1,223 operations) and hostile documents. Tools are listed and called through
// the SDK clients of both eras; requests arrive exactly as the operation describes; a read key
// cannot call a POST; path parameters cannot leave their segment; HTTP errors and large answers are
// bounded tool errors and results; the source's credential reaches the API and never the logs; a
// refused document makes the source unavailable with a clear reason.
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_API_TOKEN, startRestApi, type RunningRestApi } from '../fixtures/upstreams/rest-api-server.js';
import { keyRecord, newKeys, startHarness, type Harness } from '../support/gateway-harness.js';
import { connectClient } from '../support/mcp-clients.js';
import { startPrism, type RunningPrism } from '../support/prism.js';

const PETSTORE = 'node_modules/@readme/oas-examples/3.0/json/petstore.json';
const GITHUB = 'node_modules/@octokit/openapi/generated/api.github.com.json';
const PET_TOKEN = 'pet-token-7d2a9e';

const [reader, writer, bigKey] = newKeys(3);
let rest: RunningRestApi;
let prism: RunningPrism;
let gateway: Harness;
const clients: { close(): Promise<void> }[] = [];

/** A document over the bounds: more operations than the default 2,000. */
function hostileDocument(): string {
  const wide = { a: { $ref: '#/components/schemas/Big' } };
  const big = { f: { type: 'string' } };
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'hostile', version: '1' },
    paths: Object.fromEntries(
      Array.from({ length: 2500 }, (_, i) => [
        `/op${i}`,
        {
          post: {
            operationId: `op${i}`,
            requestBody: {
              content: { 'application/json': { schema: { type: 'object', properties: wide } } },
            },
            responses: { '200': { description: 'ok' } },
          },
        },
      ]),
    ),
    components: { schemas: { Big: { type: 'object', properties: big } } },
  });
}

beforeAll(async () => {
  rest = await startRestApi();
  prism = await startPrism(PETSTORE);
  const origin = new URL(rest.url).origin;
  gateway = await startHarness(
    {
      workspaces: [
        {
          name: 'demo',
          mcpSources: [
            {
              name: 'items',
              transport: 'openapi',
              limits: { maxResponseBytes: 64 * 1024 },
              openapi: { document: { url: `${origin}/openapi.json` } },
            },
            {
              name: 'private',
              transport: 'openapi',
              url: rest.url,
              credential: { type: 'bearer', secret: { env: 'REST_TOKEN' } },
              openapi: { document: { inline: rest.document }, include: { operationIds: ['private'] } },
            },
            {
              name: 'pets',
              transport: 'openapi',
              url: prism.url,
              credential: { type: 'bearer', secret: { env: 'PET_TOKEN' } },
              openapi: { document: { path: PETSTORE }, include: { tags: ['pet'] } },
            },
            {
              name: 'hostile',
              transport: 'openapi',
              url: rest.url,
              openapi: { document: { inline: hostileDocument() } },
            },
          ],
          keys: [keyRecord(reader, { access: 'read' }), keyRecord(writer, { access: 'write' })],
        },
        {
          name: 'big',
          mcpSources: [
            {
              name: 'github',
              transport: 'openapi',
              url: 'http://127.0.0.1:9/',
              openapi: { document: { path: GITHUB } },
            },
          ],
          keys: [keyRecord(bigKey, { access: 'write' })],
        },
      ],
    },
    { REST_TOKEN: REST_API_TOKEN, PET_TOKEN },
  ).catch((error: unknown) => {
    throw new Error(JSON.stringify((error as { problems?: unknown }).problems), { cause: error });
  });
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await gateway?.stop();
  await prism?.close();
  await rest?.close();
});

async function modern(key: string): Promise<Client> {
  const client = await connectClient(gateway.url, key, 'auto');
  clients.push(client);
  return client;
}

async function legacy(key: string): Promise<LegacyClient> {
  const client = new LegacyClient({ name: 'openapi-legacy', version: '1.0.0' });
  await client.connect(
    new LegacyTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  clients.push(client);
  return client;
}

type CallResult = {
  isError?: boolean;
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
};

async function call(key: string, name: string, args: Record<string, unknown>): Promise<CallResult> {
  const client = await modern(key);
  return (await client.callTool({ name, arguments: args })) as CallResult;
}

const textOf = (result: CallResult) => (result.content ?? []).map((c) => c.text ?? '').join('\n');

describe('listing', () => {
  it('openapi:list-both-eras — each operation is a tool, listed through the SDK clients of both eras, with read-only hints; a read key sees only the reading ones', async () => {
    const writerTools = (await (await modern(writer.key)).listTools()).tools;
    const names = writerTools.map((t) => t.name);
    for (const name of [
      'items__listItems',
      'items__createItem',
      'items__getItem',
      'items__deleteItem',
      'items__echo',
    ])
      expect(names).toContain(name);
    const list = writerTools.find((t) => t.name === 'items__listItems');
    expect(list?.annotations?.readOnlyHint).toBe(true);
    expect(list?.description).toContain('Lists items');
    expect(writerTools.find((t) => t.name === 'items__createItem')?.annotations?.readOnlyHint).toBe(false);
    // Filters: only the petstore's `pet` operations, only the `private` operation.
    expect(names.filter((n) => n.startsWith('pets__')).length).toBeGreaterThan(3);
    expect(names).not.toContain('pets__getInventory');
    expect(names.filter((n) => n.startsWith('private__'))).toEqual(['private__private']);
    const legacyNames = (await (await legacy(reader.key)).listTools()).tools.map((t) => t.name);
    expect(legacyNames).toContain('items__listItems');
    expect(legacyNames).not.toContain('items__createItem');
    expect(legacyNames).not.toContain('items__deleteItem');
  });

  it("openapi:large-document — GitHub's published document (1,223 operations, 13 MB) loads as a source", async () => {
    const tools = (await (await modern(bigKey.key)).listTools()).tools;
    expect(tools.length).toBeGreaterThan(1000);
    expect(tools.map((t) => t.name)).toContain('github__repos_get');
  });

  it('openapi:hostile-document — a document over the bounds makes its source unavailable with the reason, and the others stay', async () => {
    const response = await fetch(`${gateway.url}/agent/sources`, {
      headers: { authorization: `Bearer ${writer.key}`, accept: 'application/json' },
    });
    const body = (await response.json()) as {
      sources: { id: string; status: string; last_error: string | null; tool_count: number | null }[];
    };
    const hostile = body.sources.find((s) => s.id === 'hostile');
    expect(hostile?.status).toBe('unavailable');
    expect(hostile?.last_error).toMatch(/^OpenAPI document refused: .*2,?000/);
    const items = body.sources.find((s) => s.id === 'items');
    expect(items?.status).toBe('ready');
    expect(items?.tool_count).toBeGreaterThan(5);
  });
});

describe('calls', () => {
  it('openapi:exact-request — query arrays, JSON and form bodies and headers arrive as the operation describes; JSON answers are structured content', async () => {
    const listed = await call(writer.key, 'items__listItems', { tag: ['red', 'blue'], limit: 1 });
    expect(listed.isError).not.toBe(true);
    expect(rest.log.at(-1)?.rawUrl).toBe('/v1/items?tag=red&tag=blue&limit=1');
    expect(JSON.stringify(listed.structuredContent)).toContain('first');
    const created = await call(writer.key, 'items__createItem', { body: { name: 'made', tags: ['green'] } });
    expect(created.isError).not.toBe(true);
    expect(rest.log.at(-1)).toMatchObject({ method: 'POST', rawUrl: '/v1/items' });
    expect(JSON.parse(rest.log.at(-1)?.body ?? '{}')).toEqual({ name: 'made', tags: ['green'] });
    expect(rest.log.at(-1)?.headers['content-type']).toMatch(/^application\/json/);
    expect(created.structuredContent).toMatchObject({ name: 'made' });
    await call(writer.key, 'items__addNote', { body: { text: 'hi there', level: 2 } });
    expect(rest.log.at(-1)?.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(rest.log.at(-1)?.body).toBe('text=hi+there&level=2');
    const echoed = await call(writer.key, 'items__echo', {
      segment: 'plain',
      q: 'a b&c',
      'X-Trace-Note': 'n1',
    });
    expect(echoed.structuredContent).toMatchObject({ path: '/v1/echo/plain', note: 'n1' });
    expect(rest.log.at(-1)?.rawUrl).toBe('/v1/echo/plain?q=a%20b%26c');
  });

  it('openapi:read-key-no-post — a read key cannot call a POST or DELETE operation (not listed to it; a call is a permission refusal) and nothing reaches the API', async () => {
    const before = rest.log.length;
    const client = await modern(reader.key);
    for (const name of ['items__createItem', 'items__deleteItem'])
      await expect(client.callTool({ name, arguments: { body: { name: 'x' }, id: 'a1' } })).rejects.toThrow(
        /Permission denied/,
      );
    expect(rest.log.length).toBe(before);
    expect((await call(reader.key, 'items__getItem', { id: 'a1' })).structuredContent).toMatchObject({
      name: 'first',
    });
  });

  it('openapi:path-escape — path parameters stay in their segment: slashes, encoded slashes, dot segments and unicode cannot reach another path', async () => {
    for (const [id, raw] of [
      ['ü/x', '/v1/items/%C3%BC%2Fx'],
      ['a?b#c', '/v1/items/a%3Fb%23c'],
      ['50%', '/v1/items/50%25'],
    ] as const) {
      const result = await call(writer.key, 'items__getItem', { id });
      expect(rest.log.at(-1)?.rawUrl, id).toBe(raw);
      expect(result.isError, id).toBe(true);
      expect(textOf(result), id).toContain('HTTP 404');
    }
    const before = rest.log.length;
    // A value that is, holds or decodes to a dot segment is refused before anything is sent.
    for (const id of ['..', '.', '%2e%2e', '.%2E', '../echo/x', '%2F..%2Fecho', 'a/../../b', '..\\x'])
      expect((await call(writer.key, 'items__getItem', { id })).isError, id).toBe(true);
    expect(rest.log.length).toBe(before);
  });

  it('openapi:http-errors — an HTTP error is a tool error with its status and a bounded part of the body; a large answer is cut at the source limit', async () => {
    const broken = await call(writer.key, 'items__broken', {});
    expect(broken.isError).toBe(true);
    expect(textOf(broken)).toContain('HTTP 500');
    expect(textOf(broken).length).toBeLessThan(4000);
    const big = await call(writer.key, 'items__big', { kib: 200 });
    expect(textOf(big).length).toBeLessThanOrEqual(64 * 1024 + 500);
  });

  it("openapi:credential — the source's credential reaches the API, never the logs; Prism's petstore accepts the bearer and answers", async () => {
    const opened = await call(writer.key, 'private__private', {});
    expect(opened.structuredContent).toMatchObject({ secret: 'opened' });
    expect(rest.log.at(-1)?.headers.authorization).toBe(`Bearer ${REST_API_TOKEN}`);
    expect(gateway.logs.join('\n')).not.toContain(REST_API_TOKEN);
    const pets = await call(writer.key, 'pets__findPetsByStatus', { status: ['available'] });
    expect(pets.isError, textOf(pets)).not.toBe(true);
    const legacyClient = await legacy(writer.key);
    const again = (await legacyClient.callTool({
      name: 'pets__findPetsByStatus',
      arguments: { status: ['sold'] },
    })) as CallResult;
    expect(again.isError, textOf(again)).not.toBe(true);
    expect(gateway.logs.join('\n')).not.toContain(PET_TOKEN);
  });
});
