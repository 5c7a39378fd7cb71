// Hostile OpenAPI documents (issue 44): a tenant writes the document, so none may make the gateway
// read a file or reach a URL, run without bound, or touch a prototype. What a whole document does
// wrong refuses it with a condition its admin can act on; what one operation does wrong skips it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OpenApiDocumentError,
  openApiCatalog,
  type CatalogOptions,
} from '../../../gateway/openapi/openapi-catalog.js';

const info = { title: 'Hostile', version: '1' };
const ok = { 200: { description: 'ok' } };

function document(paths: Record<string, unknown>, schemas: Record<string, unknown> = {}, extra = {}): string {
  return JSON.stringify({ openapi: '3.0.3', info, paths, components: { schemas }, ...extra });
}

function posting(schema: unknown): Record<string, unknown> {
  return { post: { requestBody: { content: { 'application/json': { schema } } }, responses: ok } };
}

async function condition(text: string, options?: CatalogOptions): Promise<string> {
  try {
    await openApiCatalog(text, options);
  } catch (error) {
    if (error instanceof OpenApiDocumentError) return error.condition;
    throw error;
  }
  throw new Error('the document was read');
}

/** `levels` schemas, each with ten properties that all refer to the one below: 10^levels leaves. */
function fanOut(levels: number): Record<string, unknown> {
  const schemas: Record<string, unknown> = { L0: { type: 'string', enum: ['a', 'b', 'c'] } };
  for (let level = 1; level <= levels; level++) {
    const properties = Object.fromEntries(
      Array.from({ length: 10 }, (_, k) => [`p${k}`, { $ref: `#/components/schemas/L${level - 1}` }]),
    );
    schemas[`L${level}`] = { type: 'object', properties };
  }
  return schemas;
}

describe('hostile openapi documents', () => {
  let server: Server;
  let requests = 0;
  let base = '';
  beforeAll(async () => {
    server = createServer((_request, response) => {
      requests++;
      response.setHeader('content-type', 'application/json');
      response.end('{"type":"string"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('openapi:external-ref-refused — a $ref to a file or a URL refuses the document, names the ref, and nothing is read or fetched', async () => {
    for (const ref of [
      `${base}/schema.json`,
      'file:///etc/passwd',
      '/etc/passwd',
      'other.yaml#/Pet',
      `${base}/x#/a`,
    ]) {
      const where = [
        document({ '/a': posting({ $ref: ref }) }),
        document({ '/a': { $ref: ref } }),
        document({ '/a': { get: { parameters: [{ $ref: ref }], responses: ok } } }),
        document(
          { '/a': { get: { responses: ok } } },
          { Pet: { type: 'object', properties: { x: { $ref: ref } } } },
        ),
      ];
      for (const text of where)
        expect(await condition(text)).toBe(
          `the document has the external $ref ${JSON.stringify(ref)}; only refs inside the document (#/…) are read`,
        );
    }
    expect(requests).toBe(0);
  });

  it('openapi:fan-out-refused — refs that fan out to 10^9 leaves (billion laughs) refuse the document before it is validated', async () => {
    expect(await condition(document({ '/a': posting({ $ref: '#/components/schemas/L9' }) }, fanOut(9)))).toBe(
      "the document's $refs expand to more than 256 MiB (refs that fan out)",
    );
    // The bound is the admin's: a smaller one refuses a smaller fan-out.
    const small = document({ '/a': posting({ $ref: '#/components/schemas/L4' }) }, fanOut(4));
    expect(await condition(small, { limits: { maxExpandedBytes: 64 * 1024 } })).toBe(
      "the document's $refs expand to more than 64 KiB (refs that fan out)",
    );
  });

  it('openapi:fan-out-skips-operation — one operation whose input schema passes its bound is skipped; the others are tools', async () => {
    const text = document(
      {
        '/big': posting({ $ref: '#/components/schemas/L5' }),
        '/small': posting({ $ref: '#/components/schemas/L1' }),
      },
      fanOut(5),
    );
    const catalog = await openApiCatalog(text);
    expect(catalog.tools.map((tool) => tool.pathTemplate)).toEqual(['/small']);
    expect(catalog.skipped).toEqual([
      { operation: 'POST /big', reason: 'its input schema is larger than 256 KiB' },
    ]);
    // The same with the bound measured by the schema's own text: a giant enum, a giant string.
    const enumText = document({
      '/enum': posting({ type: 'string', enum: Array.from({ length: 100_000 }, (_, i) => `value-${i}`) }),
      '/text': posting({ type: 'string', description: 'x'.repeat(300 * 1024) }),
      '/fine': posting({ type: 'string' }),
    });
    const giant = await openApiCatalog(enumText);
    expect(giant.tools.map((tool) => tool.pathTemplate)).toEqual(['/fine']);
    expect(giant.skipped.map((skip) => skip.reason)).toEqual([
      'its input schema is larger than 256 KiB',
      'its input schema is larger than 256 KiB',
    ]);
  });

  it('openapi:recursive-refs — a schema that refers to itself, directly or through others, is cut where it recurs, never expanded forever', async () => {
    const text = document(
      {
        '/self': posting({ $ref: '#/components/schemas/Self' }),
        '/tree': posting({ $ref: '#/components/schemas/Tree' }),
        '/ping': posting({ $ref: '#/components/schemas/Ping' }),
      },
      {
        Self: { $ref: '#/components/schemas/Self' },
        Tree: {
          type: 'object',
          properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } },
        },
        Ping: { type: 'object', properties: { pong: { $ref: '#/components/schemas/Pong' } } },
        Pong: { type: 'object', properties: { ping: { $ref: '#/components/schemas/Ping' } } },
      },
    );
    const catalog = await openApiCatalog(text);
    expect(catalog.skipped).toEqual([]);
    const body = (path: string): unknown =>
      (
        catalog.tools.find((tool) => tool.pathTemplate === path)?.inputSchema.properties as Record<
          string,
          unknown
        >
      ).body;
    const cut = (ref: string): unknown => ({
      description: `Circular: the same schema as #/components/schemas/${ref}, not written out again.`,
    });
    expect(body('/self')).toEqual(cut('Self'));
    expect(body('/tree')).toEqual({
      type: 'object',
      properties: { children: { type: 'array', items: cut('Tree') } },
    });
    expect(body('/ping')).toEqual({
      type: 'object',
      properties: { pong: { type: 'object', properties: { ping: cut('Ping') } } },
    });
  });

  it('openapi:schema-depth-skipped — an input schema nested past maxSchemaDepth skips its operation', async () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 40; level++) deep = { type: 'object', properties: { next: deep } };
    const text = document({ '/deep': posting(deep), '/flat': posting({ type: 'integer' }) });
    const catalog = await openApiCatalog(text);
    expect(catalog.tools.map((tool) => tool.pathTemplate)).toEqual(['/flat']);
    expect(catalog.skipped).toEqual([
      { operation: 'POST /deep', reason: 'its input schema nests deeper than 32 levels' },
    ]);
    // Through refs too, and with the admin's bound.
    const chain: Record<string, unknown> = { C0: { type: 'string' } };
    for (let i = 1; i <= 10; i++)
      chain[`C${i}`] = { type: 'array', items: { $ref: `#/components/schemas/C${i - 1}` } };
    const refs = document({ '/chain': posting({ $ref: '#/components/schemas/C10' }) }, chain);
    expect((await openApiCatalog(refs)).tools).toHaveLength(1);
    expect((await openApiCatalog(refs, { limits: { maxSchemaDepth: 8 } })).skipped).toEqual([
      { operation: 'POST /chain', reason: 'its input schema nests deeper than 8 levels' },
    ]);
  });

  it('openapi:document-too-large — a document past maxDocumentBytes is refused before it is parsed', async () => {
    expect(await condition(' '.repeat(31 * 1024 * 1024))).toBe('the document is 31 MiB; the limit is 20 MiB');
    const text = document({ '/a': posting({ type: 'string' }) });
    expect(await condition(text, { limits: { maxDocumentBytes: 100 } })).toBe(
      `the document is ${text.length} bytes; the limit is 100 bytes`,
    );
  });

  it('openapi:too-many-operations — more operations than maxOperations (filters aside) refuse the document', async () => {
    const paths = Object.fromEntries(
      Array.from({ length: 2001 }, (_, i) => [
        `/items/${i}`,
        { get: { operationId: `get${i}`, responses: ok } },
      ]),
    );
    expect(await condition(document(paths), { filter: { operationIds: ['get1'] } })).toBe(
      'the document has 2001 operations; the limit is 2000',
    );
    expect(await condition(document(paths), { limits: { maxOperations: 10 } })).toBe(
      'the document has 2001 operations; the limit is 10',
    );
  });

  it('openapi:version-refused — Swagger 2.0 and OpenAPI other than 3.0/3.1 are refused by name', async () => {
    const swagger = JSON.stringify({ swagger: '2.0', info, paths: { '/a': { get: { responses: ok } } } });
    expect(await condition(swagger)).toBe(
      'the document is Swagger "2.0"; only OpenAPI 3.0 and 3.1 are read (convert it first)',
    );
    expect(await condition(JSON.stringify({ openapi: '3.2.0', info, paths: {} }))).toBe(
      'the document is OpenAPI "3.2.0"; only 3.0 and 3.1 are read',
    );
    expect(await condition(JSON.stringify({ info, paths: {} }))).toBe(
      'the document has no `openapi` version; it is not an OpenAPI document',
    );
  });

  it('openapi:not-json-or-yaml — text that is neither JSON nor YAML, or not an object, is refused', async () => {
    expect(await condition('{"openapi": "3.0.3",')).toMatch(/^the document is not valid JSON: /);
    expect(await condition('openapi: [3.0.3\n  info: {')).toMatch(/^the document is not valid YAML: /);
    expect(await condition('')).toBe('the document is not a JSON or YAML object');
    expect(await condition('- a list\n- of things\n')).toBe('the document is not a JSON or YAML object');
    expect(await condition('just words')).toBe('the document is not a JSON or YAML object');
  });

  it('openapi:nesting-and-alias-bombs — deep nesting and YAML alias bombs are refused, never a stack overflow', async () => {
    const deep = `{"openapi":"3.0.3","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(await condition(deep)).toBe('the document nests deeper than 1000 levels');
    expect(await condition(`openapi: 3.0.3\nx: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`)).toMatch(
      /^the document (is not valid YAML: it nests too deeply|nests deeper than 1000 levels)$/,
    );
    const laughs = ['a: &a [x,x,x,x,x,x,x,x,x,x]'];
    for (const [name, below] of [
      ['b', 'a'],
      ['c', 'b'],
      ['d', 'c'],
      ['e', 'd'],
      ['f', 'e'],
    ] as const)
      laughs.push(`${name}: &${name} [${Array(10).fill(`*${below}`).join(',')}]`);
    expect(await condition(`openapi: 3.0.3\n${laughs.join('\n')}\n`)).toBe(
      'the document is not valid YAML: Excessive alias count indicates a resource exhaustion attack',
    );
  });

  it('openapi:invalid-document — a document the validator rejects is refused with its first errors', async () => {
    const text = JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'x' },
      paths: { '/a': { get: { responses: 5 } } },
    });
    const refused = await condition(text);
    expect(refused).toMatch(/^the document is not valid OpenAPI: /);
    expect(refused).toContain("must have required property 'version'");
    expect(await condition(document({ '/a': posting({ $ref: '#/components/schemas/Nope' }) }))).toContain(
      'Missing $ref pointer "#/components/schemas/Nope"',
    );
  });

  it('openapi:proto-keys — keys like __proto__ stay plain data: nothing reaches a prototype, pointers see own keys only', async () => {
    const text = document(
      {
        '/a': {
          post: {
            parameters: [{ name: '__proto__', in: 'query', schema: { type: 'string' } }],
            requestBody: {
              content: { 'application/json': { schema: { $ref: '#/components/schemas/__proto__' } } },
            },
            responses: ok,
          },
        },
      },
      {
        __proto__: {
          type: 'object',
          properties: { __proto__: { type: 'string' }, constructor: { type: 'integer' } },
        },
      },
    );
    // JSON.stringify of a literal with a __proto__ key sets the prototype; write the text by hand.
    const hostile = text.replace(
      '"components":{"schemas":{}}',
      '"components":{"schemas":{"__proto__":{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}}}}}',
    );
    expect(hostile).toContain('"__proto__":{"type":"object"');
    const catalog = await openApiCatalog(hostile);
    const tool = catalog.tools[0];
    const properties = tool?.inputSchema.properties as Record<string, unknown>;
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(Object.keys(properties)).toEqual(['__proto__', 'body']);
    expect(Object.getOwnPropertyDescriptor(properties, '__proto__')?.value).toEqual({ type: 'string' });
    const body = Object.getOwnPropertyDescriptor(properties, 'body')?.value as Record<string, unknown>;
    expect(Object.keys(body.properties as object)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
    // A pointer to an inherited name points at nothing.
    const inherited = document({ '/a': posting({ $ref: '#/components/schemas/constructor' }) });
    expect(await condition(inherited)).toMatch(/^the document is not valid OpenAPI: /);
  });
});
