// How operations become tools (issue 44): names, argument names, the operation filter, read-only
// overrides, headers a document may not declare, and the pointers refs are looked up by.
import { describe, expect, it } from 'vitest';
import { resolvePointer } from '../../../gateway/openapi/json-pointer.js';
import { openApiCatalog } from '../../../gateway/openapi/openapi-catalog.js';
import { pathGlob } from '../../../gateway/openapi/operation-filter.js';
import { toolNames } from '../../../gateway/openapi/tool-naming.js';

const ok = { 200: { description: 'ok' } };
const doc = (paths: Record<string, unknown>): string =>
  JSON.stringify({ openapi: '3.1.0', info: { title: 'Shapes', version: '2' }, paths });

describe('openapi tool shape', () => {
  it('openapi:tool-names — operationId sanitized to [A-Za-z0-9_-] and 64 characters, else method and path words; duplicates numbered in document order', () => {
    const long = 'x'.repeat(70);
    expect(
      toolNames([
        { method: 'get', path: '/repos/{owner}', operationId: 'repos/get' },
        { method: 'get', path: '/pets/{petId}' },
        { method: 'delete', path: '/', operationId: '???' },
        { method: 'get', path: '/a', operationId: long },
        { method: 'put', path: '/a', operationId: `${long}y` },
        { method: 'get', path: '/b', operationId: 'dup' },
        { method: 'put', path: '/b', operationId: 'dup' },
        { method: 'post', path: '/b', operationId: 'dup_2' },
        { method: 'get', path: '/c', operationId: 'même été' },
      ]),
    ).toEqual([
      'repos_get',
      'get_pets_petId',
      'delete',
      'x'.repeat(64),
      `${'x'.repeat(62)}_2`,
      'dup',
      'dup_3',
      'dup_2',
      'm_me__t_',
    ]);
  });

  it('openapi:names-stable-under-filter — a filter or a skipped operation never renames another tool', async () => {
    const text = doc({
      '/a': { get: { operationId: 'same', responses: ok }, post: { operationId: 'same', responses: ok } },
      '/b': {
        put: {
          operationId: 'same',
          requestBody: { required: true, content: { 'multipart/form-data': { schema: {} } } },
          responses: ok,
        },
      },
    });
    const all = await openApiCatalog(text);
    expect(all.tools.map((tool) => tool.name)).toEqual(['same', 'same_2']);
    expect(all.skipped).toEqual([
      {
        operation: 'PUT /b (same)',
        reason:
          'its request body is only "multipart/form-data", which calls do not send (JSON, form or plain text)',
      },
    ]);
    const posts = await openApiCatalog(text, { filter: { methods: ['POST'] } });
    expect(posts.tools.map((tool) => tool.name)).toEqual(['same_2']);
    expect(posts.skipped).toEqual([]);
  });

  it('openapi:argument-names — one argument per parameter, unique across locations; body never clashes; required listed', async () => {
    const text = doc({
      '/items/{id}': {
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'trace', in: 'header', schema: { type: 'string' }, description: 'path level' },
        ],
        post: {
          operationId: 'update',
          parameters: [
            { name: 'id', in: 'query', required: true, schema: { type: 'integer' } },
            { name: 'id', in: 'header', schema: { type: 'string' } },
            { name: 'id', in: 'cookie', schema: { type: 'string' } },
            { name: 'body', in: 'query', schema: { type: 'boolean' } },
            { name: 'filter[status]', in: 'query', schema: { type: 'string' } },
            { name: 'trace', in: 'header', schema: { type: 'integer' }, description: 'operation level' },
            { name: 'Authorization', in: 'header', schema: { type: 'string' } },
          ],
          requestBody: {
            content: { 'text/plain': { schema: { type: 'string' } }, 'application/merge-patch+json': {} },
          },
          responses: ok,
        },
        get: {
          operationId: 'read',
          parameters: [{ name: 'body', in: 'query', schema: { type: 'string' } }],
          responses: ok,
        },
      },
    });
    const catalog = await openApiCatalog(text);
    const update = catalog.tools.find((tool) => tool.name === 'update');
    expect(update?.parameters.map((p) => [p.in, p.name, p.argument])).toEqual([
      ['path', 'id', 'id'],
      ['header', 'trace', 'trace'],
      ['query', 'id', 'query_id'],
      ['header', 'id', 'header_id'],
      ['cookie', 'id', 'cookie_id'],
      ['query', 'body', 'query_body'],
      ['query', 'filter[status]', 'filter_status_'],
    ]);
    const properties = update?.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(properties)).toEqual([
      'id',
      'trace',
      'query_id',
      'header_id',
      'cookie_id',
      'query_body',
      'filter_status_',
      'body',
    ]);
    expect(properties.trace).toEqual({ type: 'integer', description: 'operation level' });
    expect(update?.inputSchema.required).toEqual(['id', 'query_id']);
    // JSON wins over plain text (a +json type counts as JSON); a body with no schema takes anything.
    expect(update?.body).toEqual({
      mediaType: 'application/merge-patch+json',
      required: false,
      argument: 'body',
    });
    expect(properties.body).toEqual({});
    // Without a request body, `body` is free for a parameter.
    const read = catalog.tools.find((tool) => tool.name === 'read');
    expect(read?.parameters.map((p) => p.argument)).toEqual(['id', 'trace', 'body']);
    expect(read?.annotations).toEqual({ readOnlyHint: true });
  });

  it('openapi:header-parameters — Accept, Content-Type and Authorization parameters are ignored (OpenAPI); a framing header skips the operation', async () => {
    const text = doc({
      '/a': {
        get: {
          parameters: [
            { name: 'Accept', in: 'header', schema: { type: 'string' } },
            { name: 'content-type', in: 'header', schema: { type: 'string' } },
          ],
          responses: ok,
        },
      },
      '/b': {
        get: { parameters: [{ name: 'Host', in: 'header', schema: { type: 'string' } }], responses: ok },
      },
      '/c': {
        get: { parameters: [{ name: 'bad name', in: 'header', schema: { type: 'string' } }], responses: ok },
      },
      '/d': {
        get: {
          parameters: [
            { name: 'q', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } },
          ],
          responses: ok,
        },
      },
    });
    const catalog = await openApiCatalog(text);
    expect(catalog.tools.map((tool) => [tool.name, tool.parameters.length])).toEqual([['get_a', 0]]);
    expect(catalog.skipped).toEqual([
      { operation: 'GET /b', reason: 'its header parameter "Host" is a header the gateway sets itself' },
      { operation: 'GET /c', reason: 'its header parameter "bad name" is not a valid header name' },
      {
        operation: 'GET /d',
        reason: 'its query parameter "q" is described by `content` (a media type), which calls do not send',
      },
    ]);
  });

  it('openapi:operation-filter — tags, methods (any case), path globs and operationIds; an operation must pass every list given; filtered ones are not skipped', async () => {
    const op = (operationId: string, tags: string[]): Record<string, unknown> => ({
      operationId,
      tags,
      responses: ok,
    });
    const text = doc({
      '/pets': { get: op('listPets', ['pets']), post: op('addPet', ['pets', 'write']) },
      '/pets/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: op('getPet', ['pets']),
        delete: op('deletePet', ['pets', 'write']),
      },
      '/pets/{id}/toys': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: op('listToys', ['toys']),
      },
      '/stores': { get: op('listStores', []) },
    });
    const names = async (filter: Record<string, string[]>): Promise<string[]> =>
      (await openApiCatalog(text, { filter })).tools.map((tool) => tool.name);
    expect(await names({})).toEqual(['listPets', 'addPet', 'deletePet', 'getPet', 'listToys', 'listStores']);
    expect(await names({ tags: ['write', 'toys'] })).toEqual(['addPet', 'deletePet', 'listToys']);
    expect(await names({ methods: ['Get'] })).toEqual(['listPets', 'getPet', 'listToys', 'listStores']);
    expect(await names({ paths: ['/pets/*'] })).toEqual(['deletePet', 'getPet']);
    expect(await names({ paths: ['/pets/**'] })).toEqual([
      'listPets',
      'addPet',
      'deletePet',
      'getPet',
      'listToys',
    ]);
    expect(await names({ paths: ['/*/{id}/**'] })).toEqual(['deletePet', 'getPet', 'listToys']);
    expect(await names({ operationIds: ['listStores', 'nope'] })).toEqual(['listStores']);
    expect(await names({ tags: ['pets'], methods: ['delete', 'GET'], paths: ['/pets/*'] })).toEqual([
      'deletePet',
      'getPet',
    ]);
    expect(await names({ tags: [] })).toEqual([]);
    expect((await openApiCatalog(text, { filter: { tags: ['toys'] } })).skipped).toEqual([]);
  });

  it('openapi:path-globs — `*` stays in one segment, `**` crosses segments, other characters are literal', () => {
    expect(pathGlob('/a/*').test('/a/b')).toBe(true);
    expect(pathGlob('/a/*').test('/a/b/c')).toBe(false);
    expect(pathGlob('/a/**').test('/a')).toBe(true);
    expect(pathGlob('/a/**').test('/a/b/c')).toBe(true);
    expect(pathGlob('/a/**').test('/ab')).toBe(false);
    expect(pathGlob('/a.b/{id}').test('/a.b/{id}')).toBe(true);
    expect(pathGlob('/a.b/{id}').test('/aXb/{id}')).toBe(false);
    expect(pathGlob('**').test('/anything/at/all')).toBe(true);
  });

  it('openapi:read-only-overrides — readOnlyHint from the method unless the admin forces read-only or write (write wins both)', async () => {
    const text = doc({
      '/search': { post: { operationId: 'search', responses: ok } },
      '/export': { get: { operationId: 'export', responses: ok } },
      '/both': { get: { operationId: 'both', responses: ok } },
      '/plain': { head: { operationId: 'plain', summary: 'Plain head', responses: ok } },
    });
    const catalog = await openApiCatalog(text, { readOnly: ['search', 'both'], write: ['export', 'both'] });
    expect(Object.fromEntries(catalog.tools.map((tool) => [tool.name, tool.annotations]))).toEqual({
      both: { readOnlyHint: false },
      export: { readOnlyHint: false },
      plain: { readOnlyHint: true, title: 'Plain head' },
      search: { readOnlyHint: true },
    });
  });

  it('openapi:descriptions-bounded — summary and description make the description, cut at 1,000 characters; 3.0 keywords become JSON Schema', async () => {
    const text = JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'T', version: '1' },
      paths: {
        '/a': {
          post: {
            summary: 'Short',
            description: 'y'.repeat(5000),
            deprecated: true,
            requestBody: {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    'x-internal': true,
                    properties: {
                      n: { type: 'integer', minimum: 1, exclusiveMinimum: true, nullable: true, example: 2 },
                      s: { type: 'string', enum: ['a'], nullable: true, xml: { name: 'S' } },
                      'x-kept': { type: 'string' },
                    },
                  },
                },
              },
            },
            responses: { 200: { description: 'ok' } },
          },
        },
      },
    });
    const [tool] = (await openApiCatalog(text)).tools;
    expect(tool?.description).toHaveLength(1000);
    expect(tool?.description.startsWith('Deprecated.\n\nShort\n\nyyy')).toBe(true);
    expect(tool?.description.endsWith('y…')).toBe(true);
    expect((tool?.inputSchema.properties as Record<string, unknown>).body).toEqual({
      type: 'object',
      properties: {
        n: { type: ['integer', 'null'], exclusiveMinimum: 1, examples: [2] },
        s: { type: ['string', 'null'], enum: ['a', null] },
        'x-kept': { type: 'string' },
      },
    });
  });

  it('openapi:own-pointers — a $ref pointer follows own properties only, with ~0 ~1 and percent escapes', () => {
    const target = { a: { 'b/c': { 'd~e': 1 }, list: [10, 20] }, 'sp ace': 2 };
    expect(resolvePointer(target, '#/a/b~1c/d~0e')).toBe(1);
    expect(resolvePointer(target, '#/a/list/1')).toBe(20);
    expect(resolvePointer(target, '#/sp%20ace')).toBe(2);
    expect(resolvePointer(target, '#')).toBe(target);
    expect(resolvePointer(target, '#/constructor')).toBeUndefined();
    expect(resolvePointer(target, '#/__proto__')).toBeUndefined();
    expect(resolvePointer(target, '#/a/list/01')).toBeUndefined();
    expect(resolvePointer(target, '#/a/%E0%A4%A')).toBeUndefined();
    expect(resolvePointer(target, 'other.json#/a')).toBeUndefined();
  });
});
