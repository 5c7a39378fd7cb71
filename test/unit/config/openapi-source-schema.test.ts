// The OpenAPI source in the config contract (issue 44): `transport: openapi` needs an `openapi`
// block with exactly one document location, `url` is optional (the document's server otherwise),
// the block belongs to that transport only, and its filters and limits are bounded.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../gateway/config/index.js';

function problemsOf(source: Record<string, unknown>): string[] {
  const result = validateConfig({
    version: 1,
    workspaces: [{ name: 'demo', mcpSources: [source], keys: [] }],
  });
  return result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`);
}

describe('openapi sources in the config', () => {
  it('openapi:config-shape — a document by url, path or inline; url optional; filters and limits accepted', () => {
    for (const document of [
      { url: 'https://api.example.com/openapi.json' },
      { path: './api.yaml' },
      { inline: '{}' },
    ])
      expect(problemsOf({ name: 'api', transport: 'openapi', openapi: { document } })).toEqual([]);
    expect(
      problemsOf({
        name: 'api',
        transport: 'openapi',
        url: 'https://api.example.com/v2',
        openapi: {
          document: { path: './api.yaml' },
          include: { tags: ['a'], methods: ['GET'], paths: ['/x/**'], operationIds: ['op'] },
          limits: { maxOperations: 50, maxDocumentBytes: 4096 },
        },
      }),
    ).toEqual([]);
  });

  it('openapi:config-refusals — a missing block, two locations, a block on another transport, a command, bad methods and limits are refused by path', () => {
    expect(problemsOf({ name: 'api', transport: 'openapi' }).join('\n')).toContain(
      'openapi: is required when transport is openapi',
    );
    expect(
      problemsOf({ name: 'api', transport: 'openapi', openapi: { document: { path: 'a', inline: 'b' } } })
        .length,
    ).toBeGreaterThan(0);
    expect(
      problemsOf({
        name: 'api',
        transport: 'streamable-http',
        url: 'https://mcp.example.com/mcp',
        openapi: { document: { inline: '{}' } },
      }).join('\n'),
    ).toContain('openapi: is only allowed when transport is openapi');
    expect(
      problemsOf({
        name: 'api',
        transport: 'openapi',
        command: 'node',
        openapi: { document: { inline: '{}' } },
      }).join('\n'),
    ).toContain('command: is only allowed when transport is stdio');
    expect(
      problemsOf({
        name: 'api',
        transport: 'openapi',
        openapi: { document: { inline: '{}' }, include: { methods: ['FETCH'] } },
      }).join('\n'),
    ).toContain('openapi.include.methods');
    expect(
      problemsOf({
        name: 'api',
        transport: 'openapi',
        openapi: { document: { inline: '{}' }, limits: { maxOperations: 0 } },
      }).join('\n'),
    ).toContain('openapi.limits.maxOperations');
    expect(
      problemsOf({ name: 'api', transport: 'openapi', openapi: { document: { url: 'file:///etc/passwd' } } })
        .length,
    ).toBeGreaterThan(0);
  });

  it("openapi:config-user-credential-url — a user credential on an OpenAPI source needs the source's url (a user connects before the document is read); every other kind does not", () => {
    const withCredential = (credential: Record<string, unknown>, url?: string) =>
      validateConfig({
        version: 1,
        server: { publicUrl: 'https://gw.example.com' },
        workspaces: [
          {
            name: 'demo',
            keys: [],
            mcpSources: [
              {
                name: 'api',
                transport: 'openapi',
                ...(url === undefined ? {} : { url }),
                credential,
                openapi: { document: { url: 'https://api.example.com/openapi.json' } },
              },
            ],
          },
        ],
      });
    const problems = (result: ReturnType<typeof validateConfig>) =>
      result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`);
    const user = { type: 'user', issuer: 'https://login.example.com' };
    expect(problems(withCredential(user))).toEqual([
      "workspaces[0].mcpSources[0].credential: a user credential on an OpenAPI source needs the source's url (the API's base URL the grant is for)",
    ]);
    expect(problems(withCredential(user, 'https://api.example.com/v2'))).toEqual([]);
    const oauth = {
      issuer: 'https://login.example.com',
      clientId: { env: 'CID' },
      clientSecret: { env: 'CSECRET' },
    };
    for (const credential of [
      { type: 'oauthClientCredentials', ...oauth },
      { type: 'tokenExchange', ...oauth },
      { type: 'header', name: 'X-Api-Key', secret: { env: 'K' } },
      { type: 'bearer', secret: { env: 'T' } },
    ])
      expect(problems(withCredential(credential)), credential.type).toEqual([]);
  });
});
