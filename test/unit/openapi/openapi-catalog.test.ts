// OpenAPI documents read as tools (issue 44), on real published documents: the Petstore and the
// other @readme/oas-examples documents (3.0 and 3.1, JSON and YAML) and GitHub's REST API
// (@octokit/openapi, 1,223 operations, 13 MB).
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiCatalog } from '../../../gateway/openapi/openapi-catalog.js';
import type { OpenApiCatalog, OpenApiTool } from '../../../gateway/openapi/openapi-tool.js';

const require = createRequire(import.meta.url);
const examples = dirname(require.resolve('@readme/oas-examples/package.json'));
const example = (path: string): string => readFileSync(join(examples, path), 'utf8');
const github = (): string =>
  readFileSync(
    join(dirname(require.resolve('@octokit/openapi/package.json')), 'generated/api.github.com.json'),
    'utf8',
  );

function tool(catalog: OpenApiCatalog, name: string): OpenApiTool {
  const found = catalog.tools.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

describe('openapi catalogue on real documents', () => {
  it('openapi:petstore-tools — every Petstore operation is a tool named by its operationId, reads marked read-only, the multipart upload skipped', async () => {
    const catalog = await openApiCatalog(example('3.0/json/petstore.json'));
    expect(catalog.title).toBe('Swagger Petstore');
    expect(catalog.version).toBe('1.0.0');
    expect(catalog.servers).toEqual(['http://petstore.swagger.io/v2']);
    expect(catalog.tools).toHaveLength(19);
    expect(catalog.skipped).toEqual([
      {
        operation: 'POST /pet/{petId}/uploadImage (uploadFile)',
        reason:
          'its request body is only "multipart/form-data", which calls do not send (JSON, form or plain text)',
      },
    ]);
    const get = tool(catalog, 'getPetById');
    expect(get).toMatchObject({
      method: 'GET',
      pathTemplate: '/pet/{petId}',
      annotations: { readOnlyHint: true, title: 'Find pet by ID' },
      description: 'Find pet by ID\n\nReturns a single pet',
    });
    expect(get.parameters).toEqual([
      {
        name: 'petId',
        in: 'path',
        required: true,
        style: 'simple',
        explode: false,
        allowReserved: false,
        schema: { type: 'integer', format: 'int64' },
        argument: 'petId',
      },
    ]);
    expect(get.inputSchema).toEqual({
      type: 'object',
      properties: { petId: { type: 'integer', format: 'int64', description: 'ID of pet to return' } },
      required: ['petId'],
      additionalProperties: false,
    });
    const add = tool(catalog, 'addPet');
    expect(add.annotations.readOnlyHint).toBe(false);
    expect(add.body).toEqual({ mediaType: 'application/json', required: true, argument: 'body' });
    const body = (add.inputSchema.properties as Record<string, Record<string, unknown>>).body;
    expect(body).toMatchObject({ type: 'object', required: ['name', 'photoUrls'] });
    expect(body?.properties).toMatchObject({
      category: { type: 'object' },
      status: { enum: ['available', 'pending', 'sold'] },
    });
    expect(add.inputSchema.required).toEqual(['body']);
    // A form body when the document offers only a form; a query array explodes (form style).
    const update = tool(catalog, 'updatePetWithForm');
    expect(update.body?.mediaType).toBe('application/x-www-form-urlencoded');
    const byStatus = tool(catalog, 'findPetsByStatus').parameters[0];
    expect(byStatus).toMatchObject({ in: 'query', style: 'form', explode: true, required: true });
    expect(byStatus?.schema).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(tool(catalog, 'deletePet').annotations.readOnlyHint).toBe(false);
  });

  it('openapi:yaml-document — the YAML form of a document gives the same catalogue as its JSON form', async () => {
    for (const name of ['petstore', 'parameters-style', 'circular'])
      expect(await openApiCatalog(example(`3.0/yaml/${name}.yaml`))).toEqual(
        await openApiCatalog(example(`3.0/json/${name}.json`)),
      );
  });

  it('openapi:every-example-loads — every 3.0 and 3.1 example document loads; what is skipped is a body only multipart or raw bytes can carry', async () => {
    let tools = 0;
    for (const version of ['3.0', '3.1'])
      for (const file of readdirJson(version)) {
        const catalog = await openApiCatalog(example(`${version}/json/${file}`));
        tools += catalog.tools.length;
        for (const skipped of catalog.skipped)
          expect(skipped.reason, `${version}/${file} ${skipped.operation}`).toMatch(
            /^its request body is only "(multipart\/form-data|application\/octet-stream|image\/png)"/,
          );
        for (const each of catalog.tools) expect(() => JSON.stringify(each)).not.toThrow();
      }
    expect(tools).toBeGreaterThan(500);
  });

  it('openapi:circular-refs-cut — a circular schema is written out once and cut where it recurs, with a note naming the ref', async () => {
    const catalog = await openApiCatalog(example('3.0/json/schema-circular.json'));
    const text = JSON.stringify(catalog.tools);
    expect(text).toContain(
      'Circular: the same schema as #/components/schemas/ZoneRules, not written out again.',
    );
    // Request bodies that are trees, linked lists, mutual recursion and expressions.
    const bodies = await openApiCatalog(example('3.0/json/circular-request-bodies.json'));
    expect(bodies.tools.length).toBe(4);
    expect(bodies.skipped).toEqual([]);
    const notes =
      JSON.stringify(bodies.tools).match(/Circular: the same schema as #\/components\/schemas\/\w+/g) ?? [];
    expect(new Set(notes)).toEqual(
      new Set(
        ['TreeNode', 'Person', 'LinkedNode', 'Expression'].map(
          (n) => `Circular: the same schema as #/components/schemas/${n}`,
        ),
      ),
    );
  });

  it('openapi:parameter-styles — styles and explode as the document gives them, else per location (path simple, query form exploded, header simple, cookie form)', async () => {
    const catalog = await openApiCatalog(example('3.0/json/parameters-style.json'));
    const all = catalog.tools.flatMap((each) => each.parameters);
    expect(all.length).toBeGreaterThan(20);
    const defaults = await openApiCatalog(example('3.0/json/parameters-extreme.json'));
    const only = defaults.tools[0];
    const byLocation = Object.fromEntries((only?.parameters ?? []).map((p) => [p.in, [p.style, p.explode]]));
    expect(byLocation).toEqual({
      path: ['simple', false],
      query: ['form', true],
      header: ['simple', false],
      cookie: ['form', true],
    });
    // What the document says wins.
    const label = all.find((p) => p.in === 'path' && p.style === 'label' && p.explode);
    const deep = all.find((p) => p.in === 'query' && p.style === 'deepObject');
    const pipes = all.find((p) => p.in === 'query' && p.style === 'pipeDelimited' && !p.explode);
    expect([label, deep, pipes].every((p) => p !== undefined)).toBe(true);
  });

  it('openapi:servers — server variables take their defaults; servers named by a path or operation go with its tools', async () => {
    const variables = await openApiCatalog(example('3.0/json/server-variables.json'));
    expect(variables.servers).toEqual([
      'https://demo.example.com:443/v2',
      'http://demo.local/v1',
      'https://demo.readme.io:3000/v1',
    ]);
    const pathLevel = await openApiCatalog(example('3.0/json/server-path-level.json'));
    const own = pathLevel.tools.filter((each) => each.servers !== undefined);
    expect(own.length).toBeGreaterThan(0);
    for (const each of own) expect(each.servers?.every((url) => !url.includes('{'))).toBe(true);
    // A document with no servers is served from `/` (OpenAPI's default), resolved by the caller.
    expect((await openApiCatalog(example('3.0/json/callbacks.json'))).servers).toEqual(['/']);
  });

  it('openapi:openapi-3.1 — 3.1 documents load: $ref siblings apply, type arrays kept', async () => {
    const catalog = await openApiCatalog(example('3.1/json/train-travel.json'));
    expect(catalog.tools.map((each) => each.name)).toContain('get-stations');
    const catalog2 = await openApiCatalog(example('3.1/json/schema-types.json'));
    expect(catalog2.tools.length).toBeGreaterThan(10);
    const inline = JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'T', version: '1' },
      paths: {
        '/a': {
          post: {
            requestBody: {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: { owner: { $ref: '#/components/schemas/Name', description: 'The owner' } },
                  },
                },
              },
            },
            responses: { 200: { description: 'ok' } },
          },
        },
      },
      components: { schemas: { Name: { type: ['string', 'null'], description: 'A name', maxLength: 9 } } },
    });
    const [owner] = (await openApiCatalog(inline)).tools;
    expect((owner?.inputSchema.properties as Record<string, unknown>).body).toEqual({
      type: 'object',
      properties: { owner: { type: ['string', 'null'], description: 'The owner', maxLength: 9 } },
    });
  });

  it('openapi:github-document — GitHub’s 1,223-operation document loads with the default limits; all but its octet-stream upload become tools', async () => {
    const catalog = await openApiCatalog(github());
    expect(catalog.servers).toEqual(['https://api.github.com']);
    expect(catalog.tools.length).toBe(1222);
    expect(catalog.skipped).toEqual([
      {
        operation: 'POST /repos/{owner}/{repo}/releases/{release_id}/assets (repos/upload-release-asset)',
        reason:
          'its request body is only "application/octet-stream", which calls do not send (JSON, form or plain text)',
      },
    ]);
    const names = catalog.tools.map((each) => each.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(names).toContain('repos_get');
    for (const each of catalog.tools)
      expect(JSON.stringify(each.inputSchema).length).toBeLessThanOrEqual(256 * 1024);
    const issue = tool(catalog, 'issues_create');
    expect(issue).toMatchObject({ method: 'POST', pathTemplate: '/repos/{owner}/{repo}/issues' });
    expect(issue.inputSchema.required).toEqual(['owner', 'repo', 'body']);
  });

  it('openapi:deterministic-order — tools come sorted by path, then method, and the same text gives the same catalogue', async () => {
    const text = example('3.0/json/petstore.json');
    const catalog = await openApiCatalog(text);
    const keys = catalog.tools.map((each) => `${each.pathTemplate} ${each.method}`);
    expect(keys).toEqual([...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(await openApiCatalog(text)).toEqual(catalog);
    expect(Object.isFrozen(catalog.tools[0]?.inputSchema)).toBe(true);
  });
});

function readdirJson(version: string): string[] {
  return readdirSync(join(examples, version, 'json')).filter((file) => file.endsWith('.json'));
}
